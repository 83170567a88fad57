package engine

import (
	"context"
	"fmt"
	"strings"
	"testing"
)

// TestMergeNowCompactsDeletes: MergeNow rewrites a collection down to one
// segment without deleted documents, also when it already has a single
// segment (whose deletes were otherwise never compacted), and leaves a
// segment without deletes alone. Search and counts see the same documents
// before and after.
func TestMergeNowCompactsDeletes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		flush    int // FlushDocs: 0 = one segment per ingest
		docs     int
		deletes  int
		wantSegs int
	}{
		{name: "one segment, a few deletes", docs: 10, deletes: 3, wantSegs: 1},
		{name: "one segment, all deleted", docs: 4, deletes: 4, wantSegs: 0},
		{name: "one segment, no deletes", docs: 5, deletes: 0, wantSegs: 1},
		{name: "several segments", flush: 2, docs: 7, deletes: 2, wantSegs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e, err := Open(Options{Dir: t.TempDir(), FlushDocs: tc.flush})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if _, _, err := e.PutCollection(ctx, "", "c", CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}); err != nil {
				t.Fatal(err)
			}
			var csv strings.Builder
			csv.WriteString("id,text\n")
			for i := 0; i < tc.docs; i++ {
				fmt.Fprintf(&csv, "d%d,river number %d\n", i, i)
			}
			if _, err := e.Ingest(ctx, "", "c", IngestRequest{Format: "csv", Data: []byte(csv.String())}); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < tc.deletes; i++ {
				if err := e.DeleteDocument(ctx, "", "c", fmt.Sprintf("d%d", i)); err != nil {
					t.Fatal(err)
				}
			}
			c, err := e.collection("", "c")
			if err != nil {
				t.Fatal(err)
			}
			before := c.snapshot()
			if err := e.MergeNow("", "c"); err != nil {
				t.Fatal(err)
			}
			segs := c.snapshot()
			if len(segs) != tc.wantSegs {
				t.Fatalf("segments after MergeNow: %d, want %d", len(segs), tc.wantSegs)
			}
			for _, s := range segs {
				if n := s.Deleted.GetCardinality(); n != 0 {
					t.Errorf("segment %d keeps %d deleted documents after MergeNow", s.ID, n)
				}
				if len(s.Docs) != tc.docs-tc.deletes {
					t.Errorf("segment %d holds %d documents, want %d live", s.ID, len(s.Docs), tc.docs-tc.deletes)
				}
			}
			if tc.deletes == 0 && len(before) == 1 && segs[0] != before[0] {
				t.Errorf("a single segment without deletes was rewritten")
			}
			info, err := e.GetCollection(ctx, "", "c")
			if err != nil {
				t.Fatal(err)
			}
			if info.DocumentCount != int64(tc.docs-tc.deletes) {
				t.Errorf("document_count %d, want %d", info.DocumentCount, tc.docs-tc.deletes)
			}
			limit := 100
			res, err := e.Search(ctx, "", []string{"c"}, SearchRequest{Query: "river", MaxResults: &limit})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Documents) != tc.docs-tc.deletes {
				t.Errorf("search after MergeNow: %d results, want %d", len(res.Documents), tc.docs-tc.deletes)
			}
			// Reopening reads the same state.
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if e, err = Open(Options{Dir: e.opts.Dir}); err != nil {
				t.Fatal(err)
			}
			if info, err = e.GetCollection(ctx, "", "c"); err != nil || info.DocumentCount != int64(tc.docs-tc.deletes) {
				t.Errorf("after reopen: %v documents, err %v", info.DocumentCount, err)
			}
		})
	}
}
