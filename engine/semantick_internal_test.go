package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/najdi/najdi/ingest"
)

// TestSemanticK checks the number of nearest chunks the semantic
// retriever asks a segment for (semanticK), on segments ingested from
// documents of one chunk, of one or two, of two and of five: cand chunks
// hold cand one-chunk documents, so asking for three times as many only
// made large indexes scan more lists (vector.DefaultProbes) without their
// 4-bit pass; documents of three chunks or more keep 3·cand.
func TestSemanticK(t *testing.T) {
	rk := DefaultRanker()
	rk.ChunkTokens = 12
	e := openWords(t, rk)
	ctx := context.Background()
	sentence := func(i int) string { return fmt.Sprintf("amber basil cedar delta ember fjord grove w%d.", i) } // one chunk
	for _, tc := range []struct {
		coll   string
		chunks func(i int) int // sentences of document i: one chunk each
		cand   int
		want   int
	}{
		{"one", func(int) int { return 1 }, 100, 100},
		{"mixed", func(i int) int { return 1 + i%5/4 }, 100, 120},         // 1.2 chunks per document
		{"one-in-thirty", func(i int) int { return 1 + i%30/29 }, 60, 62}, // 62 chunks, 60 documents
		{"two", func(int) int { return 2 }, 100, 200},
		{"long", func(int) int { return 5 }, 100, 300},
		{"long-cand", func(int) int { return 5 }, 40, 120},
	} {
		t.Run(tc.coll, func(t *testing.T) {
			if _, _, err := e.PutCollection(ctx, "", tc.coll, CollectionConfig{}); err != nil {
				t.Fatal(err)
			}
			var docs []DocumentInput
			for i := range 60 {
				var ss []string
				for j := range tc.chunks(i) {
					ss = append(ss, sentence(100*i+j))
				}
				docs = append(docs, DocumentInput{DocumentID: fmt.Sprintf("d%02d", i),
					Sections: []ingest.Section{{Type: "p", Content: strings.Join(ss, " ")}}})
			}
			if res, err := e.Ingest(ctx, "", tc.coll, IngestRequest{Documents: docs}); err != nil || len(res.Errors) > 0 {
				t.Fatalf("ingest: %v %v", err, res.Errors)
			}
			c, err := e.collection("", tc.coll)
			if err != nil {
				t.Fatal(err)
			}
			segs := c.snapshot()
			if len(segs) == 0 {
				t.Fatal("no segment")
			}
			for _, s := range segs {
				if got := semanticK(s, tc.cand); got != tc.want {
					t.Errorf("semanticK of a segment of %d documents, %d chunks, cand %d = %d, want %d", len(s.Docs), len(s.Chunks), tc.cand, got, tc.want)
				}
			}
		})
	}
}
