//go:build !race

package filter_test

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/najdi/najdi/filter"
)

// TestEvalAllocs pins the allocation budget of evaluation. The evaluator
// itself allocates nothing in steady state (the empty-result cases must
// stay at zero); what is left are roaring containers: Clear drops a
// bitmap's containers, so every clause that produces docs re-allocates at
// most two objects (container + payload) per 65536-doc chunk.
func TestEvalAllocs(t *testing.T) {
	idx := benchIndex(100_000)
	const chunks = 100_000/65536 + 1
	for _, c := range []struct {
		name    string
		clauses int // clauses that produce docs
		q       string
	}{
		{"term-miss", 0, `{"term":{"brand":"nope"}}`},
		{"bool-empty-first", 0, `{"bool":{"filter":[{"term":{"brand":"nope"}},{"term":{"color":"color3"}},{"range":{"price":{"gte":100,"lt":500}}}]}}`},
		{"range-empty", 0, `{"range":{"price":{"gt":5000}}}`},
		{"term", 1, `{"term":{"brand":"brand07"}}`},
		{"bool3terms+range", 4, `{"bool":{"filter":[{"term":{"brand":"brand07"}},{"term":{"color":"color3"}},{"term":{"stock":"yes"}},{"range":{"price":{"gte":100,"lt":500}}}]}}`},
		{"must_not", 2, `{"bool":{"must":{"term":{"color":"color3"}},"must_not":{"term":{"stock":"no"}}}}`},
	} {
		q, err := filter.Parse([]byte(c.q))
		if err != nil {
			t.Fatal(err)
		}
		dst := roaring.New()
		if err := filter.Eval(q, idx, dst); err != nil {
			t.Fatal(err)
		}
		allocs := testing.AllocsPerRun(50, func() {
			if err := filter.Eval(q, idx, dst); err != nil {
				t.Fatal(err)
			}
		})
		if budget := float64(2 * chunks * c.clauses); allocs > budget {
			t.Errorf("%s: %.1f allocs per Eval, budget %.0f", c.name, allocs, budget)
		}
	}
}
