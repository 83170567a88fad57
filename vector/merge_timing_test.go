package vector

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// mergeShape is one merge of BenchmarkMerge: the sizes of its parts (a
// part below DefaultBruteForceBelow is exact, as a flushed segment of
// 2,000 chunks is) and every how many vectors of the first part are
// deleted (0: none).
type mergeShape struct {
	name      string
	sizes     []int
	delEveryA int
}

// mergeShapes returns the merges of n vectors BenchmarkMerge times:
// "tiered", a large segment and the five flushes of 2,000 the engine's
// tiered policy merges into it (mergeCollection: above MaxSegments 8, the
// smallest segments, which with four large ones take one of them along),
// 1 % of the large one deleted; "equal", five parts of n/5 (an idle merge
// of a bulk load's segments).
func mergeShapes(n int) []mergeShape {
	const flush = 2000
	tiered := []int{n - 5*flush}
	for range 5 {
		tiered = append(tiered, flush)
	}
	eq := make([]int, 5)
	for i := range eq {
		eq[i] = n / 5
	}
	return []mergeShape{{"tiered", tiered, 100}, {"equal", eq, 0}}
}

// BenchmarkMerge times Merge of the first n peer static vectors (real
// text: see BenchmarkStaticSearch) cut into the parts of mergeShapes,
// with the default options, and reports the merged index's recall@10 at
// the default nprobe for the 200 held-out rows against exact search of
// the survivors. n is 250,000; NAJDI_MERGE_N sets it (up to 999,800).
// The parts are built with Options{Seed: 1} once and cached in format 4
// under NAJDI_MERGE_DIR (default: a temporary directory), so that builds
// of different revisions merge the same parts; delete the cache when
// Build changes.
func BenchmarkMerge(b *testing.B) {
	path := staticRowsPath()
	n := 250_000
	if s := os.Getenv("NAJDI_MERGE_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 20_000 || n > 999_800 {
			b.Fatalf("NAJDI_MERGE_N=%q: want 20000..999800", s)
		}
	}
	dir := os.Getenv("NAJDI_MERGE_DIR")
	if dir == "" {
		dir = b.TempDir()
	}
	queries := readStaticRows(b, path, 999_800, 1_000_000)
	rows := readStaticRows(b, path, 0, n)
	for _, sh := range mergeShapes(n) {
		b.Run(fmt.Sprintf("n=%d/%s", n, sh.name), func(b *testing.B) {
			parts := make([]*Index, len(sh.sizes))
			remap := make([][]int32, len(sh.sizes))
			var live [][]float32
			lo, next := 0, int32(0)
			for p, size := range sh.sizes {
				base := filepath.Join(dir, fmt.Sprintf("merge-%d-%d-%d", lo, size, p))
				parts[p] = cachedPart(b, base, rows[lo:lo+size])
				remap[p] = make([]int32, size)
				for i := range size {
					if p == 0 && sh.delEveryA > 0 && i%sh.delEveryA == sh.delEveryA-1 {
						remap[p][i] = -1
						continue
					}
					remap[p][i] = next
					next++
					live = append(live, rows[lo+i])
				}
				lo += size
			}
			truth := make([][]Result, len(queries))
			parallelFor(len(queries), func(lo, hi int) {
				for i := lo; i < hi; i++ {
					truth[i] = exactFloat32(live, queries[i], 10)
				}
			})
			var x *Index
			for b.Loop() {
				var err error
				if x, err = Merge(parts, remap, Options{}); err != nil {
					b.Fatal(err)
				}
			}
			var sum float64
			dst := make([]Result, 0, 10)
			for i, q := range queries {
				dst = x.Search(q, 10, 0, nil, dst)
				sum += recall(dst, truth[i])
			}
			b.ReportMetric(sum/float64(len(queries)), "recall")
			b.ReportMetric(float64(x.NList()), "nlist")
		})
	}
}

// cachedPart returns the index of rows built with Options{Seed: 1}, as a
// segment opens it (format 4, vectors mapped), from base.idx and base.f32,
// building and saving it there first if missing.
func cachedPart(b *testing.B, base string, rows [][]float32) *Index {
	b.Helper()
	data, err := os.ReadFile(base + ".idx")
	if err != nil {
		x := buildIndex(b, rows, Options{Seed: 1})
		if err := x.SaveVectors(base + ".f32"); err != nil {
			b.Fatal(err)
		}
		data = x.AppendIndex(nil)
		if err := os.WriteFile(base+".idx", data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	x, err := Open(data, base+".f32")
	if err != nil {
		b.Fatal(err)
	}
	return x
}

// exactFloat32 returns the exact top k of q among vs by float32 dot
// products, best first, ties by id.
func exactFloat32(vs [][]float32, q []float32, k int) []Result {
	h := topK{}
	h.reset(k)
	for id, v := range vs {
		h.push(Result{uint32(id), DotFloat32(q, v)})
	}
	return h.sorted()
}
