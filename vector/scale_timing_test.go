package vector

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"testing"
)

// BenchmarkStaticScale searches one segment-like index (format 4, float32
// vectors in a mapped file, as a segment opens it) of the first n peer
// static vectors (see BenchmarkStaticSearch) with the 200 held-out rows as
// queries, at the default nprobe, k 10 and k 300 (a hybrid search's
// per-segment k), and k 33 at the lists of k 300 (a vector-only search), reporting recall@k against exact float32 search, and
// exact single-thread float32 search of all n for comparison. n is 100k
// and, with NAJDI_VECSCAN_1M=1, 1M. Building takes minutes at 1M, so the
// index parts and exact results are cached under NAJDI_VECSCAN_DIR
// (default: a temporary directory, dropped afterwards); the index format
// is that of segments, so builds of different revisions share the cache
// (delete it when build code changes).
func BenchmarkStaticScale(b *testing.B) {
	path, queries, dir, sizes := staticScaleSetup(b)
	for _, n := range sizes {
		x, truth := staticScaleIndex(b, dir, path, n, queries)
		// k 33 at the lists of k 300: an engine's vector-only search of a
		// page of 10 (3 × 11 chunks, see engine/local_retrieve.go).
		for _, c := range []struct{ k, probesOfK int }{{10, 10}, {33, 300}, {300, 300}} {
			k := c.k
			np := DefaultProbes(x.Options().NProbe, c.probesOfK)
			b.Run(fmt.Sprintf("n=%d/k=%d/ivf", n, k), func(b *testing.B) {
				var sum float64
				dst := make([]Result, 0, k)
				for i, q := range queries {
					dst = x.Search(q, k, np, nil, dst)
					sum += recall(dst, truth[i][:k])
				}
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					dst = x.Search(queries[i%len(queries)], k, np, nil, dst)
					i++
				}
				b.ReportMetric(sum/float64(len(queries)), "recall")
			})
		}
		b.Run(fmt.Sprintf("n=%d/k=10/exact", n), func(b *testing.B) {
			s := x.getScratch(10)
			defer x.scratch.Put(s)
			i := 0
			for b.Loop() {
				x.exactAll(s, queries[i%len(queries)], 10)
				i++
			}
		})
	}
}

// staticScaleSetup returns what the static-vector benchmarks share: the
// cached rows' path, the 200 held-out rows as queries, the directory that
// caches built indexes (NAJDI_VECSCAN_DIR, or a temporary one) and the
// index sizes (100k, and 1M with NAJDI_VECSCAN_1M=1).
func staticScaleSetup(b *testing.B) (path string, queries [][]float32, dir string, sizes []int) {
	path = staticRowsPath()
	queries = readStaticRows(b, path, 999_800, 1_000_000)
	dir = os.Getenv("NAJDI_VECSCAN_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	sizes = []int{100_000}
	if os.Getenv("NAJDI_VECSCAN_1M") != "" {
		sizes = append(sizes, 999_800)
	}
	return path, queries, dir, sizes
}

// exactTop returns the k vectors of x most similar to q among ids (nil:
// all of x) by x's own dot product, best first.
func exactTop(x *Index, q []float32, k int, ids []uint32) []Result {
	var all []Result
	if ids == nil {
		all = make([]Result, x.Len())
		for id := range all {
			all[id] = Result{uint32(id), x.Dot(q, uint32(id))}
		}
	} else {
		all = make([]Result, len(ids))
		for j, id := range ids {
			all[j] = Result{id, x.Dot(q, id)}
		}
	}
	slices.SortFunc(all, byRank)
	return all[:min(k, len(all))]
}

// staticScaleIndex returns the index of static rows 0..n-1 (built with
// Options{Seed: 1} and opened from dir, or built and saved there) and the
// exact top 300 of each query.
func staticScaleIndex(b *testing.B, dir, path string, n int, queries [][]float32) (*Index, [][]Result) {
	b.Helper()
	base := filepath.Join(dir, "static-"+strconv.Itoa(n))
	data, err := os.ReadFile(base + ".idx")
	if err != nil {
		corpus := readStaticRows(b, path, 0, n)
		x := buildIndex(b, corpus, Options{Seed: 1})
		if err := x.SaveVectors(base + ".f32"); err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(base+".idx", x.AppendIndex(nil), 0o644); err != nil {
			b.Fatal(err)
		}
		data, _ = os.ReadFile(base + ".idx")
	}
	x, err := Open(data, base+".f32")
	if err != nil {
		b.Fatal(err)
	}
	const k = 300
	var truth [][]Result
	if raw, err := os.ReadFile(base + ".truth"); err == nil && len(raw) == len(queries)*k*8 {
		for range queries {
			t := make([]Result, k)
			for j := range t {
				t[j] = Result{binary.LittleEndian.Uint32(raw), math.Float32frombits(binary.LittleEndian.Uint32(raw[4:]))}
				raw = raw[8:]
			}
			truth = append(truth, t)
		}
		return x, truth
	}
	var raw []byte
	for _, q := range queries {
		top := exactTop(x, q, k, nil)
		truth = append(truth, top)
		for _, r := range top {
			raw = binary.LittleEndian.AppendUint32(raw, r.ID)
			raw = binary.LittleEndian.AppendUint32(raw, math.Float32bits(r.Score))
		}
	}
	if err := os.WriteFile(base+".truth", raw, 0o644); err != nil {
		b.Fatal(err)
	}
	return x, truth
}
