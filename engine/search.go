package engine

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Search runs a search over one or several collections of the owner.
func (e *Engine) Search(ctx context.Context, owner string, collections []string, req SearchRequest) (SearchResponse, error) {
	start := e.opts.Now()
	p, err := e.plan(ctx, owner, collections, req)
	if err != nil {
		return SearchResponse{}, err
	}
	t := time.Now()
	hits, err := e.retrieve(ctx, p)
	if err != nil {
		return SearchResponse{}, err
	}
	p.tm.retrieve = time.Since(t) - p.tm.embed - p.tm.fuse
	resp := SearchResponse{SearchID: uuid.NewString()}
	p.pageMetadata(&resp.Metadata)
	if p.changed {
		resp.Metadata.EffectiveQueries = []string{p.query}
	}
	t = time.Now()
	if hits, err = e.loadHits(p, hits); err != nil {
		return SearchResponse{}, err
	}
	p.tm.load, t = time.Since(t), time.Now()
	if p.docsOut {
		resp.Documents = make([]ResultDoc, 0, len(hits))
		for _, h := range hits {
			resp.Documents = append(resp.Documents, e.render(p, h))
		}
	}
	if p.summaries || p.summaryStr {
		if err := e.summarize(ctx, p, hits, &resp); err != nil {
			return SearchResponse{}, err
		}
	}
	p.tm.render = time.Since(t)
	resp.Metadata.TookMS = e.msSince(start)
	resp.Metadata.Timings = p.tm.report()
	return resp, nil
}

// stageTimes are the durations of a search's stages (Timings).
type stageTimes struct {
	embed, retrieve, fuse, load, render time.Duration
	cached                              bool
}

// report returns the stage times in milliseconds.
func (st *stageTimes) report() *Timings {
	return &Timings{EmbedMS: ms(st.embed), EmbedCached: st.cached, RetrieveMS: ms(st.retrieve), FuseMS: ms(st.fuse),
		LoadMS: ms(st.load), RenderMS: ms(st.render)}
}

// timeFuse runs f, a step of scoring and ranking, and adds its time to
// the fuse stage.
func (p *plan) timeFuse(f func()) {
	t := time.Now()
	f()
	p.tm.fuse += time.Since(t)
}

// ms returns d in milliseconds with microsecond precision.
func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// msSince returns the milliseconds since start on the engine's clock, with
// microsecond precision (metadata.took_ms).
func (e *Engine) msSince(start time.Time) float64 {
	return float64(e.opts.Now().Sub(start).Microseconds()) / 1000
}

// CheckCollection reports whether id names a collection of owner with the
// error GetCollection would give (ErrNotFound, ErrInvalid for a bad id,
// ErrClosed), without gathering the collection's statistics: the server
// checks the collections of every search request before reading its body.
func (e *Engine) CheckCollection(owner, id string) error {
	_, err := e.collection(owner, id)
	return err
}
