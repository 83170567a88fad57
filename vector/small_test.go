package vector

import (
	"fmt"
	"testing"
)

// BenchmarkSmallExactVsIVF compares exact search with IVF on the 4,500
// real vectors of the fixture — a small collection, just above
// DefaultBruteForceBelow — at the k the engine asks for (3 × 100
// candidates) and at k 10, reporting recall@k against exact search.
func BenchmarkSmallExactVsIVF(b *testing.B) {
	corpus, queries := readRealFixture(b)
	for _, mode := range []struct {
		name string
		opts Options
	}{
		{"ivf", Options{Seed: 1}},
		{"exact", Options{Seed: 1, BruteForceBelow: len(corpus) + 1}},
	} {
		x := buildIndex(b, corpus, mode.opts)
		for _, k := range []int{10, 300} {
			b.Run(fmt.Sprintf("k=%d/%s", k, mode.name), func(b *testing.B) {
				var sum float64
				var dst []Result
				for _, q := range queries {
					dst = x.Search(q, k, 0, nil, dst)
					sum += recall(dst, exact(corpus, q, k, nil))
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					dst = x.Search(queries[i%len(queries)], k, 0, nil, dst)
					i++
				}
				b.ReportMetric(sum/float64(len(queries)), "recall")
			})
		}
	}
}
