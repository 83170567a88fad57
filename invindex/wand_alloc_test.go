//go:build !race

package invindex

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestSearchAllocs is the allocation budget of the query path: with a
// reused dst, Search must not allocate in any of its algorithms.
func TestSearchAllocs(t *testing.T) {
	docs := textTestCorpus(50, 5000, 300)
	idx := textBuild(docs)
	q := []QueryTerm{{Term: "t002", Weight: 0.3}, {Term: "t040", Weight: 2.5}, {Term: "t200", Weight: 4}}
	allow := roaring.New()
	allow.AddRange(100, 400)
	deleted := roaring.BitmapOf(5, 17, 301)
	tests := []struct {
		name           string
		allow, deleted *roaring.Bitmap
	}{
		{"plain", nil, nil},
		{"deleted", nil, deleted},
		{"small allow", allow, deleted},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dst := make([]Hit, 0, 10)
			dst = idx.Search(q, BM25{}, 10, tc.allow, tc.deleted, 0, dst[:0])
			if len(dst) == 0 {
				t.Fatal("no hits")
			}
			allocs := testing.AllocsPerRun(50, func() {
				dst = idx.Search(q, BM25{}, 10, tc.allow, tc.deleted, 0, dst[:0])
			})
			if allocs != 0 {
				t.Fatalf("Search allocates %v times per query", allocs)
			}
		})
	}
}
