package invindex

import "testing"

// TestChooseWandMode: a filter keeping a small share of the documents
// against the postings is walked directly; one keeping a large share only
// when every term is common; otherwise MaxScore, block-max WAND for sparse
// postings, exhaustive scoring in a small index.
func TestChooseWandMode(t *testing.T) {
	const n = 1_000_000
	for _, tc := range []struct {
		name      string
		filtered  bool
		allowed   uint64
		sumDF     uint64
		allCommon bool
		want      wandMode
	}{
		{"no filter", false, n, 2_500_000, false, wandMaxScore},
		{"no filter, common terms", false, n, 2_000_000, true, wandMaxScore},
		{"no filter, rare terms", false, n, 3_000, false, wandPruned},
		{"no filter, just dense enough for windows", false, n, n*wandWindowMinPostings/wandWindow + 1, false, wandMaxScore},
		{"1% allowed, long query", true, n / 100, 2_500_000, false, wandDirect},
		{"1% allowed, few postings", true, n / 100, 50_000, false, wandMaxScore},
		{"1% allowed, rare terms", true, n / 100, 3_000, false, wandPruned},
		{"20% allowed, long query with rare terms", true, n / 5, 2_500_000, false, wandMaxScore},
		{"20% allowed, common terms", true, n / 5, 2_000_000, true, wandDirect},
		{"20% allowed, few postings, common terms", true, n / 5, 1_000_000, true, wandMaxScore},
	} {
		if got := chooseWandMode(tc.filtered, tc.allowed, tc.sumDF, n, tc.allCommon); got != tc.want {
			t.Errorf("%s: mode %d, want %d", tc.name, got, tc.want)
		}
	}
	// A small index is scored exhaustively unless a filter keeps few of
	// its documents against the postings.
	for _, tc := range []struct {
		name     string
		filtered bool
		allowed  uint64
		sumDF    uint64
		numDocs  uint64
		want     wandMode
	}{
		{"small index, rare and common terms", false, 5_000, 3_000, 5_000, wandExhaustive},
		{"largest small index", false, wandSmallIndex, 30_000, wandSmallIndex, wandExhaustive},
		{"just above it", false, wandSmallIndex + 1, 30_000, wandSmallIndex + 1, wandMaxScore},
		{"small index, 1% allowed", true, 50, 3_000, 5_000, wandDirect},
		{"small index, 20% allowed", true, 1_000, 3_000, 5_000, wandExhaustive},
	} {
		if got := chooseWandMode(tc.filtered, tc.allowed, tc.sumDF, tc.numDocs, false); got != tc.want {
			t.Errorf("%s: mode %d, want %d", tc.name, got, tc.want)
		}
	}
}
