package vector

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// BenchmarkStaticFiltered searches BenchmarkStaticScale's index of peer
// static vectors with filters, comparing the lists a filtered search scans
// (filterProbes) with the former n/allowed scaling (linear), and reports
// recall@k against exact search over the allowed vectors and the lists
// scanned per search. The filters: every vector with probability 50, 20 or
// 5 % (spread over the index), and the 20 % of vectors farthest along a
// random direction (a filter that follows the geometry, as a topic filter
// may: for some queries the allowed vectors lie far from the query's
// lists). n is 100k and, with NAJDI_VECSCAN_1M=1, 1M (the index cached as
// BenchmarkStaticScale caches it).
func BenchmarkStaticFiltered(b *testing.B) {
	path, queries, dir, sizes := staticScaleSetup(b)
	for _, n := range sizes {
		x, _ := staticScaleIndex(b, dir, path, n, queries)
		for _, f := range staticFilters(x, n) {
			ids := f.allow.ToArray()
			truth := make([][]Result, len(queries))
			for i, q := range queries {
				truth[i] = exactTop(x, q, 300, ids)
			}
			for _, k := range []int{10, 300} {
				for _, linear := range []bool{false, true} {
					rule := "log"
					if linear {
						rule = "linear"
					}
					b.Run(fmt.Sprintf("n=%d/filter=%s/k=%d/probes=%s", n, f.name, k, rule), func(b *testing.B) {
						linearFilterProbes = linear
						defer func() { linearFilterProbes = false }()
						var sum float64
						dst := make([]Result, 0, k)
						for i, q := range queries {
							dst = x.Search(q, k, 0, f.allow, dst)
							sum += recall(dst, truth[i][:min(k, len(truth[i]))])
						}
						np := x.probes(0, k, f.allow.GetCardinality())
						if x.exactCheaper(f.allow.GetCardinality(), np) {
							np = 0 // exact over the allowed vectors
						}
						i := 0
						for b.Loop() {
							dst = x.Search(queries[i%len(queries)], k, 0, f.allow, dst)
							i++
						}
						b.ReportMetric(sum/float64(len(queries)), "recall")
						b.ReportMetric(float64(np), "lists")
					})
				}
			}
		}
	}
}

// staticFilter is a named allowed set of BenchmarkStaticFiltered.
type staticFilter struct {
	name  string
	allow *roaring.Bitmap
}

// staticFilters returns the filters of BenchmarkStaticFiltered over ids
// 0..n-1 of x.
func staticFilters(x *Index, n int) []staticFilter {
	rng := rand.New(rand.NewPCG(7, 11))
	var out []staticFilter
	for _, pct := range []int{50, 20, 5} {
		bm := roaring.New()
		for id := range n {
			if rng.IntN(100) < pct {
				bm.Add(uint32(id))
			}
		}
		out = append(out, staticFilter{fmt.Sprintf("spread%d", pct), bm})
	}
	dir := make([]float32, x.Dims())
	for i := range dir {
		dir[i] = float32(rng.NormFloat64())
	}
	bm := roaring.New()
	for _, r := range exactTop(x, dir, n/5, nil) {
		bm.Add(r.ID)
	}
	return append(out, staticFilter{"direction20", bm})
}
