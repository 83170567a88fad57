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
	hits, err := e.retrieve(ctx, p)
	if err != nil {
		return SearchResponse{}, err
	}
	resp := SearchResponse{SearchID: uuid.NewString()}
	p.pageMetadata(&resp.Metadata)
	if p.changed {
		resp.Metadata.EffectiveQueries = []string{p.query}
	}
	if hits, err = e.loadHits(p, hits); err != nil {
		return SearchResponse{}, err
	}
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
	resp.Metadata.TookMS = e.msSince(start)
	return resp, nil
}

// msSince returns the milliseconds since start on the engine's clock, with
// microsecond precision (metadata.took_ms).
func (e *Engine) msSince(start time.Time) float64 {
	return float64(e.opts.Now().Sub(start).Microseconds()) / 1000
}
