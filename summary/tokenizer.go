package summary

import (
	"fmt"
	"sync"

	"github.com/tiktoken-go/tokenizer"
)

// Names of the tokenizers NewTokenizer accepts.
const (
	// O200kBase is the tokenizer of current GPT-class models (the default).
	O200kBase = "o200k_base"
	// Cl100kBase is the tokenizer of GPT-4 and GPT-3.5 models.
	Cl100kBase = "cl100k_base"
	// Embedding names the collection's embedding model tokenizer.
	Embedding = "embedding"
)

// Tokenizer counts tokens exactly. Implementations must be safe for
// concurrent use.
type Tokenizer interface {
	// Name returns the tokenizer's name ("o200k_base", ...).
	Name() string
	// Count returns the exact number of tokens s encodes to.
	Count(s string) int
}

// bpe is a Tokenizer backed by a tiktoken codec.
type bpe struct {
	name  string
	codec tokenizer.Codec
}

func (b *bpe) Name() string { return b.name }

// Count returns the number of BPE tokens of s. The codec runs in its
// default error mode, which never fails: invalid UTF-8 is tokenized as is.
func (b *bpe) Count(s string) int {
	if s == "" {
		return 0
	}
	n, err := b.codec.Count(s)
	if err != nil {
		// Unreachable with ErrorModeNone; over-count rather than under-count
		// so a budget is never exceeded.
		return len(s)
	}
	return n
}

// codecs caches the tiktoken codecs: building one parses a large vocabulary,
// so each is built once per process, on first use.
var (
	o200k  = sync.OnceValues(func() (*bpe, error) { return loadBPE(tokenizer.O200kBase) })
	cl100k = sync.OnceValues(func() (*bpe, error) { return loadBPE(tokenizer.Cl100kBase) })
)

func loadBPE(enc tokenizer.Encoding) (*bpe, error) {
	c, err := tokenizer.Get(enc)
	if err != nil {
		return nil, fmt.Errorf("load tokenizer %s: %w", enc, err)
	}
	return &bpe{name: string(enc), codec: c}, nil
}

// NewTokenizer returns the tokenizer called name: "o200k_base" (also for
// ""), "cl100k_base", or "embedding", which returns embedding itself (the
// collection's embedding model tokenizer, supplied by the caller) and fails
// if it is nil. Any other name fails with ErrInvalid naming the allowed
// values. The BPE tokenizers are loaded once and shared.
func NewTokenizer(name string, embedding Tokenizer) (Tokenizer, error) {
	switch name {
	case "", O200kBase:
		return cached(o200k)
	case Cl100kBase:
		return cached(cl100k)
	case Embedding:
		if embedding == nil {
			return nil, fmt.Errorf("tokenizer %q: the collection has no embedding model: %w", name, ErrInvalid)
		}
		return embedding, nil
	}
	return nil, fmt.Errorf("tokenizer %q: want one of %q, %q, %q: %w", name, O200kBase, Cl100kBase, Embedding, ErrInvalid)
}

// cached returns the shared codec made by load, or its load error.
func cached(load func() (*bpe, error)) (Tokenizer, error) {
	t, err := load()
	if err != nil {
		return nil, err
	}
	return t, nil
}

// TokenCounter is anything that counts tokens with a model's own tokenizer,
// such as an embedding model (embed.TokenCounter).
type TokenCounter interface {
	// CountTokens returns the exact token count of s.
	CountTokens(s string) int
}

// EmbeddingTokenizer adapts a model's token counter to a Tokenizer named
// "embedding", for NewTokenizer's embedding argument.
func EmbeddingTokenizer(c TokenCounter) Tokenizer { return counter{c} }

// counter is the Tokenizer made by EmbeddingTokenizer.
type counter struct{ c TokenCounter }

func (c counter) Name() string { return Embedding }

func (c counter) Count(s string) int {
	if s == "" {
		return 0
	}
	return c.c.CountTokens(s)
}
