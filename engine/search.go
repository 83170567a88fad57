package engine

import (
	"context"
	"time"

	"github.com/google/uuid"
)

// Search runs a search over one or several collections of the owner.
func (e *Engine) Search(ctx context.Context, owner string, collections []string, req SearchRequest) (SearchResponse, error) {
	start := e.opts.Now()
	t0 := time.Now()
	p, err := e.plan(ctx, owner, collections, req)
	if err != nil {
		return SearchResponse{}, err
	}
	p.tm.mark = t0
	hits, err := e.retrieve(ctx, p)
	if err != nil {
		return SearchResponse{}, err
	}
	p.tm.retrieve = p.tm.lap() - p.tm.embed - p.tm.fuse
	resp := SearchResponse{SearchID: uuid.NewString()}
	p.pageMetadata(&resp.Metadata)
	if p.changed {
		resp.Metadata.EffectiveQueries = []string{p.query}
	}
	if hits, err = e.loadHits(p, hits); err != nil {
		return SearchResponse{}, err
	}
	p.tm.load = p.tm.lap()
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
	p.tm.render = p.tm.lap()
	resp.Metadata.TookMS = e.msSince(start)
	resp.Metadata.Timings = p.tm.report()
	return resp, nil
}

// stageTimes are the durations of a search's stages (Timings). The stages
// cover the whole search back to back: retrieve includes validating the
// request (plan) and analyzing the query, less the embed and fuse steps
// timed inside it; load everything up to the loaded hits; render the rest.
type stageTimes struct {
	embed, retrieve, fuse, load, render time.Duration
	cached                              bool
	// mark is the end of the stage last timed by lap (at first the start
	// of the search).
	mark time.Time
}

// lap returns the time since the last mark and moves the mark to now.
func (st *stageTimes) lap() time.Duration {
	now := time.Now()
	d := now.Sub(st.mark)
	st.mark = now
	return d
}

// report returns the stage times in milliseconds with microsecond
// precision, rounded as running totals (each stage is the difference of
// two truncated sums), so that they add up to the whole search's time
// truncated to the microsecond, as took_ms is.
func (st *stageTimes) report() *Timings {
	var sum time.Duration
	var prev int64
	next := func(d time.Duration) float64 {
		sum += d
		us := sum.Microseconds()
		out := float64(us-prev) / 1000
		prev = us
		return out
	}
	t := &Timings{EmbedCached: st.cached}
	t.EmbedMS = next(st.embed)
	t.RetrieveMS = next(st.retrieve)
	t.FuseMS = next(st.fuse)
	t.LoadMS = next(st.load)
	t.RenderMS = next(st.render)
	return t
}

// timeFuse runs f, a step of scoring and ranking, and adds its time to
// the fuse stage.
func (p *plan) timeFuse(f func()) {
	t := time.Now()
	f()
	p.tm.fuse += time.Since(t)
}

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
