package invindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// textBenchDocs is the size of the synthetic benchmark collection.
const textBenchDocs = 1_000_000

// textBenchVocab is its vocabulary size.
const textBenchVocab = 200_000

var (
	textBenchOnce sync.Once
	textBenchIdx  *TextIndex
)

// textBenchTerm names the term of Zipf rank r (0 is the most frequent).
func textBenchTerm(r int) string { return fmt.Sprintf("w%d", r) }

// textBenchIndex builds (once) a 1M-document collection: log-normal
// document lengths (median 60 tokens, σ 0.8, clipped to 5..2000), tokens
// drawn from a Zipf(1.07) vocabulary of 200k terms, one token in ten in a
// title section with boost 2.
func textBenchIndex(b *testing.B) *TextIndex {
	textBenchOnce.Do(func() {
		r := rand.New(rand.NewPCG(2026, 11))
		z := rand.NewZipf(r, 1.07, 3, textBenchVocab-1)
		vocab := make([]string, textBenchVocab)
		for i := range vocab {
			vocab[i] = textBenchTerm(i)
		}
		counts := make([]float32, textBenchVocab)
		var touched []int
		var tfs []TermFreq
		tb := NewTextBuilder()
		for d := range uint32(textBenchDocs) {
			n := int(math.Exp(math.Log(60) + 0.8*r.NormFloat64()))
			n = min(max(n, 5), 2000)
			var length float32
			touched = touched[:0]
			for range n {
				w := int(z.Uint64())
				boost := float32(1)
				if r.IntN(10) == 0 {
					boost = 2
				}
				if counts[w] == 0 {
					touched = append(touched, w)
				}
				counts[w] += boost
				length += boost
			}
			tfs = tfs[:0]
			for _, w := range touched {
				tfs = append(tfs, TermFreq{Term: vocab[w], Freq: counts[w]})
				counts[w] = 0
			}
			tb.Add(d, tfs, length)
		}
		textBenchIdx = tb.Build()
	})
	return textBenchIdx
}

// textBenchQuery weighs the given terms by their idf in idx.
func textBenchQuery(idx *TextIndex, ranks ...int) []QueryTerm {
	q := make([]QueryTerm, len(ranks))
	for i, r := range ranks {
		t := textBenchTerm(r)
		q[i] = QueryTerm{Term: t, Weight: BM25IDF(uint64(idx.NumDocs()), uint64(idx.DocFreq(t)))}
	}
	return q
}

// BenchmarkSearch measures BM25 top-10 on the 1M-document collection for
// rare-term, common-term, mixed and long queries, unfiltered and with a 1%
// allow filter: Search's choice (auto), block-max WAND (pruned), direct
// scoring of the allowed documents and no pruning (exhaustive).
func BenchmarkSearch(b *testing.B) {
	idx := textBenchIndex(b)
	queries := []struct {
		name  string
		ranks []int
	}{
		{"rare", []int{20_000, 45_000}},
		{"common", []int{0, 3, 8}},
		{"mixed", []int{1, 150, 2_000, 30_000}},
		{"long", []int{0, 2, 5, 30, 80, 400, 1_500, 9_000}},
	}
	r := rand.New(rand.NewPCG(5, 5))
	allow, allow20 := roaring.New(), roaring.New()
	for d := range uint32(textBenchDocs) {
		switch x := r.IntN(100); {
		case x == 0:
			allow.Add(d)
			allow20.Add(d)
		case x < 20:
			allow20.Add(d)
		}
	}
	filters := []struct {
		name  string
		allow *roaring.Bitmap
	}{
		{"all", nil},
		{"allow1pct", allow},
		{"allow20pct", allow20},
	}
	algos := []struct {
		name string
		mode wandMode
	}{
		{"auto", wandAuto},
		{"pruned", wandPruned},
		{"direct", wandDirect},
		{"exhaustive", wandExhaustive},
		{"maxscore", wandMaxScore},
	}
	for _, qs := range queries {
		q := textBenchQuery(idx, qs.ranks...)
		var postings int
		for _, qt := range q {
			postings += int(idx.DocFreq(qt.Term))
		}
		for _, f := range filters {
			for _, a := range algos {
				if f.allow == nil && (a.mode == wandPruned || a.mode == wandDirect) {
					continue // auto is pruned without a filter
				}
				b.Run(fmt.Sprintf("%s/%s/%s", qs.name, f.name, a.name), func(b *testing.B) {
					dst := make([]Hit, 0, 10)
					scored := 0
					b.ReportAllocs()
					for b.Loop() {
						dst, scored = idx.search(q, BM25{}, 10, f.allow, nil, 0, dst[:0], a.mode)
					}
					b.ReportMetric(float64(postings), "postings")
					b.ReportMetric(float64(scored), "scored")
				})
			}
		}
	}
}

// BenchmarkPostings compares intersecting and merging two common posting
// lists with the iterators against roaring bitmaps built beforehand.
func BenchmarkPostings(b *testing.B) {
	idx := textBenchIndex(b)
	pairs := []struct {
		name string
		a, c int
	}{
		{"common+common", 0, 4},
		{"common+rare", 1, 20_000},
	}
	for _, p := range pairs {
		ta, tc := textBenchTerm(p.a), textBenchTerm(p.c)
		ba, bc := idx.TermBitmap(ta), idx.TermBitmap(tc)
		ba.RunOptimize()
		bc.RunOptimize()
		n := int64(idx.DocFreq(ta)+idx.DocFreq(tc)) * 4
		var sink int
		b.Run(p.name+"/and/iter", func(b *testing.B) {
			if got, want := textIntersectCount(idx, ta, tc), int(ba.AndCardinality(bc)); got != want {
				b.Fatalf("iterator intersection %d, roaring %d", got, want)
			}
			b.ReportAllocs()
			b.SetBytes(n)
			for b.Loop() {
				sink = textIntersectCount(idx, ta, tc)
			}
		})
		b.Run(p.name+"/and/roaring", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(n)
			for b.Loop() {
				sink = int(ba.AndCardinality(bc))
			}
		})
		b.Run(p.name+"/or/iter", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(n)
			for b.Loop() {
				x, y := idx.Postings(ta), idx.Postings(tc)
				okx, oky := x.Next(), y.Next()
				count := 0
				for okx || oky {
					switch {
					case !oky || (okx && x.At() < y.At()):
						okx = x.Next()
					case !okx || y.At() < x.At():
						oky = y.Next()
					default:
						okx, oky = x.Next(), y.Next()
					}
					count++
				}
				sink = count
			}
		})
		b.Run(p.name+"/or/roaring", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(n)
			for b.Loop() {
				sink = int(ba.OrCardinality(bc))
			}
		})
		b.Run(p.name+"/or/roaring-materialize", func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(n)
			for b.Loop() {
				sink = int(roaring.Or(ba, bc).GetCardinality())
			}
		})
		_ = sink
	}
}

// textIntersectCount counts the documents containing both terms by
// leapfrogging Seek from the shorter list.
func textIntersectCount(idx *TextIndex, a, c string) int {
	x, y := idx.Postings(a), idx.Postings(c)
	if x.Len() > y.Len() {
		x, y = y, x
	}
	count := 0
	if !x.Next() {
		return 0
	}
	for y.Seek(x.At()) {
		if y.At() == x.At() {
			count++
			if !x.Next() {
				break
			}
			continue
		}
		if !x.Seek(y.At()) {
			break
		}
	}
	return count
}

// BenchmarkTextCodec measures encoding and decoding a 100k-document index.
func BenchmarkTextCodec(b *testing.B) {
	idx := textBuild(textTestCorpus(60, 100_000, 20_000))
	data := idx.AppendBinary(nil)
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		buf := make([]byte, 0, len(data))
		for b.Loop() {
			buf = idx.AppendBinary(buf[:0])
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := DecodeTextIndex(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
