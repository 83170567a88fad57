package vector

import (
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// staticRowsPath is the peer benchmark's cached static vectors of its
// 1M-chunk collection, under NAJDI_CACHE (default ~/.cache/najdi).
func staticRowsPath() string {
	cache := os.Getenv("NAJDI_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "najdi")
	}
	return filepath.Join(cache, "bench", "peers-large-static-1000000.f32")
}

// readStaticRows reads rows lo..hi-1 of a raw float32 file of 384-d rows
// (the peer benchmark's cached static vectors, bench/peers.LargeDocs).
func readStaticRows(tb testing.TB, path string, lo, hi int) [][]float32 {
	tb.Helper()
	f, err := os.Open(path)
	if err != nil {
		tb.Fatalf("%v (made by `najdi-bench peers -large 1000000`, or vecscale)", err)
	}
	defer f.Close()
	const dims = 384
	buf := make([]byte, (hi-lo)*dims*4)
	if _, err := f.ReadAt(buf, int64(lo)*dims*4); err != nil && err != io.EOF {
		tb.Fatal(err)
	}
	out := make([][]float32, hi-lo)
	for i := range out {
		v := make([]float32, dims)
		for j := range v {
			v[j] = math.Float32frombits(binary.LittleEndian.Uint32(buf[(i*dims+j)*4:]))
		}
		out[i] = v
	}
	return out
}

// BenchmarkStaticSearch searches the first 10k and 100k rows of the peer
// benchmark's static vectors (two SciFact sentences per row; the hard
// case of doc.go) with 200 held-out rows as queries, at the engine's
// per-segment k (3 × 100 candidates) and at k 10, unfiltered and with
// 1 % and 20 % of the ids allowed, reporting recall@k against exact
// search. The rows are read from NAJDI_CACHE (default ~/.cache/najdi)
// bench/peers-large-static-1000000.f32.
func BenchmarkStaticSearch(b *testing.B) {
	path := staticRowsPath()
	queries := readStaticRows(b, path, 999_800, 1_000_000)
	for _, n := range []int{10_000, 100_000} {
		corpus := readStaticRows(b, path, 0, n)
		x := buildIndex(b, corpus, Options{Seed: 1})
		// Search as a segment does: the float32 vectors in a mapped file.
		if err := x.SaveVectors(filepath.Join(b.TempDir(), "v.f32")); err != nil {
			b.Fatal(err)
		}
		for _, pct := range []int{0, 1, 20} {
			var allow func(int) bool
			var bm []uint32
			if pct > 0 {
				allow = func(id int) bool { return id%100 < pct }
				for id := range n {
					if allow(id) {
						bm = append(bm, uint32(id))
					}
				}
			}
			var al *roaring.Bitmap
			if pct > 0 {
				al = roaring.BitmapOf(bm...)
			}
			var truth [][]Result // exact top 300 of each query
			for _, k := range []int{10, 300} {
				b.Run(fmt.Sprintf("n=%d/allow=%d/k=%d", n, pct, k), func(b *testing.B) {
					if truth == nil {
						for _, q := range queries {
							truth = append(truth, exact(corpus, q, 300, allow))
						}
					}
					var sum float64
					var dst []Result
					for i, q := range queries {
						dst = x.Search(q, k, 0, al, dst)
						sum += recall(dst, truth[i][:min(k, len(truth[i]))])
					}
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						dst = x.Search(queries[i%len(queries)], k, 0, al, dst)
						i++
					}
					b.ReportMetric(sum/float64(len(queries)), "recall")
				})
			}
		}
	}
}
