package engine

import (
	"context"
	"errors"
	"fmt"
	"sync"
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

// embedBatch is the number of chunks embedded per call to a local model.
const embedBatch = 64

// remoteInFlight is the number of embedding calls a flush keeps in flight
// to a remote endpoint (embedPipe); a local model gets one call at a time,
// since its runtime spreads one call over the cores already.
const remoteInFlight = 4

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

// embedPipe embeds a flush's chunk texts in batches while the flush is
// still analyzing its documents: offer hands it the texts so far and it
// starts a call for each full batch, in the background, keeping up to
// inFlight calls running; wait sends the rest and returns every vector in
// chunk order. On a remote endpoint the calls overlap each other and the
// flush's own work; on a local model the analysis runs beside the model.
type embedPipe struct {
	emb    Embedder
	ctx    context.Context
	cancel context.CancelFunc
	batch  int
	sent   int           // texts dispatched so far
	slots  chan struct{} // one per call in flight
	wg     sync.WaitGroup
	mu     sync.Mutex
	out    [][]float32 // by chunk id; under mu
	err    error       // the first failure; under mu
}

// newEmbedPipe returns a pipe embedding with emb under ctx.
func newEmbedPipe(ctx context.Context, emb Embedder) *embedPipe {
	batch, inFlight := embedBatch, 1
	if r, ok := emb.(*embed.Remote); ok {
		// One call per request the endpoint takes (its batch_size).
		batch, inFlight = r.BatchSize(), remoteInFlight
	}
	ctx, cancel := context.WithCancel(ctx)
	return &embedPipe{emb: emb, ctx: ctx, cancel: cancel, batch: batch, slots: make(chan struct{}, inFlight)}
}

// offer starts the calls of the full batches among texts not yet sent;
// texts holds every chunk text of the flush so far, in chunk order.
func (p *embedPipe) offer(texts []string) {
	for len(texts)-p.sent >= p.batch {
		p.dispatch(texts[p.sent : p.sent+p.batch])
	}
}

// dispatch starts one call for texts, the next ones after p.sent; it
// waits for a free slot.
func (p *embedPipe) dispatch(texts []string) {
	at := p.sent
	p.sent += len(texts)
	p.mu.Lock()
	if n := at + len(texts); n > len(p.out) {
		p.out = append(p.out, make([][]float32, n-len(p.out))...)
	}
	p.mu.Unlock()
	p.slots <- struct{}{}
	p.wg.Add(1)
	go func() {
		defer func() {
			<-p.slots
			p.wg.Done()
		}()
		if p.ctx.Err() != nil {
			return // an earlier call failed
		}
		vs, err := p.emb.EmbedPassages(p.ctx, texts)
		if err == nil && len(vs) != len(texts) {
			err = &Error{Kind: ErrUpstream, Message: fmt.Sprintf("embedding model %q returned %d vectors for %d texts", p.emb.Name(), len(vs), len(texts))}
		}
		p.mu.Lock()
		defer p.mu.Unlock()
		if err != nil {
			if p.err == nil {
				p.err = err
				p.cancel()
			}
			return
		}
		copy(p.out[at:], vs)
	}()
}

// wait sends the texts not yet sent, waits for every call and returns the
// vectors of texts (every chunk text of the flush), checked against the
// model's dimensions. It also ends the calls of a pipe abandoned after an
// error; a pipe is waited for once.
func (p *embedPipe) wait(texts []string) ([][]float32, error) {
	for p.sent < len(texts) && p.ctx.Err() == nil {
		p.dispatch(texts[p.sent:min(p.sent+p.batch, len(texts))])
	}
	p.wg.Wait()
	err := p.err // every call has ended
	if err == nil && len(texts) > 0 {
		// The caller's context ended: calls may have been skipped.
		err = p.ctx.Err()
	}
	p.cancel()
	if err != nil {
		return nil, embedError(p.emb, err)
	}
	out := p.out[:len(texts)]
	for _, v := range out {
		if len(v) != p.emb.Dims() {
			return nil, &Error{Kind: ErrUpstream, Message: fmt.Sprintf("embedding model %q returned %d dimensions, expected %d", p.emb.Name(), len(v), p.emb.Dims())}
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
