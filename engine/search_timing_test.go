package engine_test

import (
	"context"
	"testing"

	"github.com/najdi/najdi/engine"
)

// BenchmarkSearchKeyword measures a whole keyword search request (analysis,
// BM25 over segments, fusion, loading and rendering the top 10) on the
// SciFact corpus, with and without a filter and passages.
func BenchmarkSearchKeyword(b *testing.B) {
	e, data := keywordSciFact(b, engine.Options{})
	ctx := context.Background()
	docs := data.Docs
	ingestBEIR(b, e, "s", docs, nil)
	if err := e.MergeNow("", "s"); err != nil {
		b.Fatal(err)
	}
	k := 10
	off, on := false, true
	for _, bc := range []struct {
		name string
		req  engine.SearchRequest
	}{
		{"plain", engine.SearchRequest{MaxResults: &k, Highlight: &off}},
		{"passages", engine.SearchRequest{MaxResults: &k, Highlight: &on, ResultFormat: "sections"}},
		{"filter-only", engine.SearchRequest{MaxResults: &k, Highlight: &off, Filter: []byte(`{"match_all": {}}`)}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				req := bc.req
				if req.Filter == nil {
					req.Query = data.Queries[i%len(data.Queries)].Text
				}
				if _, err := e.Search(ctx, "", []string{"s"}, req); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
