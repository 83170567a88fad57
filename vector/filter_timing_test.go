package vector

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
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
	path := staticRowsPath()
	queries := readStaticRows(b, path, 999_800, 1_000_000)
	dir := os.Getenv("NAJDI_VECSCAN_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	sizes := []int{100_000}
	if os.Getenv("NAJDI_VECSCAN_1M") != "" {
		sizes = append(sizes, 999_800)
	}
	for _, n := range sizes {
		x, _ := staticScaleIndex(b, dir, path, n, queries)
		for _, f := range staticFilters(x, n) {
			truth := filteredTruth(x, queries, f.allow, 300)
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
	type proj struct {
		id uint32
		p  float32
	}
	ps := make([]proj, n)
	for id := range n {
		ps[id] = proj{uint32(id), x.Dot(dir, uint32(id))}
	}
	slices.SortFunc(ps, func(a, b proj) int {
		switch {
		case a.p > b.p:
			return -1
		case a.p < b.p:
			return 1
		}
		return 0
	})
	bm := roaring.New()
	for _, p := range ps[:n/5] {
		bm.Add(p.id)
	}
	return append(out, staticFilter{"direction20", bm})
}

// filteredTruth returns the exact k nearest allowed vectors of each query.
func filteredTruth(x *Index, queries [][]float32, allow *roaring.Bitmap, k int) [][]Result {
	out := make([][]Result, len(queries))
	ids := allow.ToArray()
	for i, q := range queries {
		all := make([]Result, len(ids))
		for j, id := range ids {
			all[j] = Result{id, x.Dot(q, id)}
		}
		slices.SortFunc(all, func(a, b Result) int {
			switch {
			case worse(b, a):
				return -1
			case worse(a, b):
				return 1
			}
			return 0
		})
		out[i] = all[:min(k, len(all))]
	}
	return out
}
