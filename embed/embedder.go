package embed

import (
	"context"
	"math"
)

// Embedder turns texts into dense vectors. Implementations are safe for
// concurrent use. Returned vectors have Dims elements and are L2-normalized,
// so the dot product of two vectors is their cosine similarity; the slices
// belong to the caller.
type Embedder interface {
	// Name returns the model name, e.g. "bge-small-en-v1.5".
	Name() string
	// Dims returns the vector length.
	Dims() int
	// MaxTokens returns the longest input, in model tokens, that the model
	// sees; longer inputs are truncated.
	MaxTokens() int
	// EmbedQueries embeds search queries, adding the model's query prefix.
	EmbedQueries(ctx context.Context, texts []string) ([][]float32, error)
	// EmbedPassages embeds passages (document chunks), adding the model's
	// passage prefix.
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
}

// TokenCounter counts tokens with a model's own tokenizer. It is used for
// chunking and for summary_config.tokenizer "embedding".
type TokenCounter interface {
	// CountTokens returns the number of tokens of s, without special tokens
	// and without truncation.
	CountTokens(s string) int
}

// normalize scales v to unit L2 norm in place; a zero vector stays zero.
func normalize(v []float32) {
	var sum float64
	for _, x := range v {
		sum += float64(x) * float64(x)
	}
	if sum == 0 {
		return
	}
	inv := float32(1 / math.Sqrt(sum))
	for i := range v {
		v[i] *= inv
	}
}
