package engine

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/najdi/najdi/embed"
)

// Embedder turns text into unit-length vectors. The embed package's local
// ONNX models and remote OpenAI-compatible endpoints implement it.
type Embedder interface {
	Name() string
	Dims() int
	EmbedQueries(ctx context.Context, texts []string) ([][]float32, error)
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
}

// TokenCounter is implemented by embedders that can count their model's
// tokens; chunking uses it to respect the model's window.
type TokenCounter interface {
	CountTokens(s string) int
}

// EmbedderProvider resolves a collection's embedding configuration.
type EmbedderProvider interface {
	Embedder(cfg EmbeddingConfig) (Embedder, error)
}

// embedBatch is the number of chunks embedded per call.
const embedBatch = 64

func (e *Engine) embedder(cfg EmbeddingConfig) (Embedder, error) {
	if cfg.Keyword() {
		return nil, nil
	}
	if e.opts.Embedders == nil {
		return nil, invalidField("embedding_config.model", "no embedding models are available in this server; use \"none\" for a keyword-only collection")
	}
	emb, err := e.opts.Embedders.Embedder(cfg)
	if err != nil {
		var ee *Error
		if errors.As(err, &ee) {
			return nil, err
		}
		return nil, &Error{Kind: ErrInvalid, Message: "embedding_config.model: " + err.Error(), Cause: err, Details: map[string]any{"field": "embedding_config.model"}}
	}
	return emb, nil
}

func (e *Engine) checkEmbedding(cfg EmbeddingConfig) error {
	_, err := e.embedder(cfg)
	return err
}

func (e *Engine) embedPassages(ctx context.Context, emb Embedder, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for i := 0; i < len(texts); i += embedBatch {
		vs, err := emb.EmbedPassages(ctx, texts[i:min(i+embedBatch, len(texts))])
		if err != nil {
			return nil, embedError(emb, err)
		}
		out = append(out, vs...)
	}
	for _, v := range out {
		if len(v) != emb.Dims() {
			return nil, &Error{Kind: ErrUpstream, Message: fmt.Sprintf("embedding model %q returned %d dimensions, expected %d", emb.Name(), len(v), emb.Dims())}
		}
	}
	return out, nil
}

// cachedQueryEmbedding returns the vector of the plan's query for the
// embedding method key (EmbeddingConfig.Key) from the engine's LRU cache
// when it is there, and records the lookup's time and the hit in p.tm.
// The vector is shared: callers must not modify it.
func (e *Engine) cachedQueryEmbedding(p *plan, key string) ([]float32, bool) {
	start := time.Now()
	v, ok := e.queries.get(key, p.query)
	if ok {
		p.tm.embed, p.tm.cached = time.Since(start), true
	}
	return v, ok
}

// queryEmbedding embeds the plan's query with emb and caches its vector
// under the embedding method key. It runs concurrently with the keyword
// side of the search (retrieve), so it touches nothing of p but the query,
// which no longer changes; the search records how long it waited for it
// (queryVec.waitTimed).
func (e *Engine) queryEmbedding(ctx context.Context, p *plan, emb Embedder, key string) ([]float32, error) {
	vs, err := emb.EmbedQueries(ctx, []string{p.query})
	if err != nil {
		return nil, embedError(emb, err)
	}
	if len(vs) != 1 {
		return nil, &Error{Kind: ErrUpstream, Message: fmt.Sprintf("embedding model %q returned %d vectors for one query", emb.Name(), len(vs))}
	}
	e.queries.put(key, p.query, vs[0])
	return vs[0], nil
}

func embedError(emb Embedder, err error) error {
	var ee *Error
	if errors.As(err, &ee) {
		return err
	}
	if errors.Is(err, context.DeadlineExceeded) {
		return kindError(ErrUpstreamTimeout, err, "embedding model %q timed out", emb.Name())
	}
	return kindError(ErrUpstream, err, "embedding model %q failed", emb.Name())
}

// chunk splits a section into chunks of at most ChunkTokens model tokens
// on sentence boundaries (embed.ChunkText). It returns byte ranges.
func (e *Engine) chunk(emb Embedder, s string) [][2]int {
	var tc embed.TokenCounter
	if c, ok := emb.(TokenCounter); ok {
		tc = c
	}
	chunks := embed.ChunkText(s, tc, e.opts.Ranker.ChunkTokens)
	out := make([][2]int, len(chunks))
	for i, c := range chunks {
		out[i] = [2]int{c.Start, c.End}
	}
	return out
}
