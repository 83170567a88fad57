package invindex

import (
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// textNaiveSearch is the brute-force reference: score every generated
// document with the formula straight from the BM25 doc comment (summing terms
// in query order), keep those matching a term, allowed, not deleted and
// above threshold, sort by score desc then doc asc and cut at k.
func textNaiveSearch(docs []textTestDoc, q []QueryTerm, p BM25, idx *TextIndex, k int, allow, deleted *roaring.Bitmap, threshold float32) []Hit {
	k1, b, avg := float32(DefaultK1), float32(DefaultB), p.AvgDocLen
	if p.K1 > 0 {
		k1 = p.K1
	}
	if p.B > 0 {
		b = p.B
	}
	if !(avg > 0) {
		avg = float32(idx.TotalLength() / float64(idx.NumDocs()))
	}
	var hits []Hit
	for _, d := range docs {
		if (allow != nil && !allow.Contains(d.doc)) || (deleted != nil && deleted.Contains(d.doc)) {
			continue
		}
		var score float32
		matched := false
		for _, qt := range q {
			var s float32
			if qt.Weight > 0 {
				for _, tf := range d.terms {
					if tf.Term == qt.Term {
						f := postTF(postQuantizeTF(tf.Freq))
						s = qt.Weight * (f / (f + k1*(1-b) + k1*b/avg*d.length))
						matched = true
					}
				}
			}
			score += s
		}
		if matched && score > threshold {
			hits = append(hits, Hit{Doc: d.doc, Score: score})
		}
	}
	bm25SortHits(hits)
	return hits[:min(k, len(hits))]
}

// textRandomQuery draws 1..6 terms (common, rare and unknown) with idf
// weights and random boosts.
func textRandomQuery(r *rand.Rand, idx *TextIndex, vocab int) []QueryTerm {
	n := 1 + r.IntN(6)
	q := make([]QueryTerm, 0, n)
	for range n {
		var term string
		switch r.IntN(10) {
		case 0:
			term = "unknown"
		case 1, 2, 3:
			term = fmt.Sprintf("t%03d", 2+r.IntN(8)) // very common
		default:
			term = fmt.Sprintf("t%03d", 2+r.IntN(vocab-2))
		}
		w := BM25IDF(uint64(idx.NumDocs()), uint64(idx.DocFreq(term)))
		if r.IntN(4) == 0 {
			w *= 1 + 3*r.Float32()
		}
		if r.IntN(30) == 0 {
			w = 0 // ignored
		}
		q = append(q, QueryTerm{Term: term, Weight: w})
	}
	return q
}

func textRandomBitmap(r *rand.Rand, numDocs uint32, density float64) *roaring.Bitmap {
	bm := roaring.New()
	for d := range numDocs {
		if r.Float64() < density {
			bm.Add(d)
		}
	}
	return bm
}

// TestSearchDifferential checks that block-max WAND, direct scoring and the
// exhaustive scorer all return exactly the brute-force top k on random
// collections, queries, filters and thresholds.
func TestSearchDifferential(t *testing.T) {
	shapes := []struct {
		name    string
		numDocs int
		vocab   int
	}{
		{"tiny", 30, 20},
		{"small", 600, 100},
		{"blocks", 5000, 400},
		{"windows", 12000, 1500}, // several windows of the exhaustive scorer, some empty
		{"large", 20000, 3000},   // above wandSmallIndex: auto picks MaxScore or WAND
	}
	modes := []struct {
		name string
		mode wandMode
	}{
		{"auto", wandAuto}, {"pruned", wandPruned}, {"direct", wandDirect}, {"exhaustive", wandExhaustive}, {"windowed", wandWindowed}, {"docwise", wandDocwise}, {"maxscore", wandMaxScore},
	}
	for si, sh := range shapes {
		docs := textTestCorpus(uint64(10+si), sh.numDocs, sh.vocab)
		idx := textBuild(docs)
		r := rand.New(rand.NewPCG(uint64(si), 99))
		t.Run(sh.name, func(t *testing.T) {
			var dst []Hit
			for i := range 300 {
				q := textRandomQuery(r, idx, sh.vocab)
				k := []int{1, 3, 10, 100, 1000}[r.IntN(5)]
				p := BM25{}
				if r.IntN(3) == 0 {
					p = BM25{K1: 0.9, B: 0.4, AvgDocLen: 15}
				}
				var allow, deleted *roaring.Bitmap
				if r.IntN(3) == 0 {
					allow = textRandomBitmap(r, idx.NumDocs(), []float64{0.005, 0.05, 0.5}[r.IntN(3)])
				}
				if r.IntN(3) == 0 {
					deleted = textRandomBitmap(r, idx.NumDocs(), 0.1)
				}
				threshold := float32(math.Inf(-1))
				if r.IntN(4) == 0 {
					threshold = 2 * r.Float32()
				}
				want := textNaiveSearch(docs, q, p, idx, k, allow, deleted, threshold)
				for _, m := range modes {
					if m.mode == wandDirect && allow == nil {
						continue
					}
					prefix := []Hit{{Doc: 77, Score: -1}}
					dst = append(dst[:0], prefix...)
					dst, _ = idx.search(q, p, k, allow, deleted, threshold, dst, m.mode)
					if dst[0] != prefix[0] {
						t.Fatalf("query %d %s: dst prefix overwritten", i, m.name)
					}
					if got := dst[1:]; !slices.Equal(got, want) {
						t.Fatalf("query %d %s: q=%v k=%d allow=%v deleted=%v θ=%v\n got %v\nwant %v",
							i, m.name, q, k, allow != nil, deleted != nil, threshold, got, want)
					}
				}
			}
		})
	}
}

// TestSearchPrunes checks that block-max WAND actually skips work on a
// common-term query: it must score far fewer documents than the union.
func TestSearchPrunes(t *testing.T) {
	docs := textTestCorpus(21, 20000, 2000)
	idx := textBuild(docs)
	q := []QueryTerm{
		{Term: "t002", Weight: BM25IDF(uint64(idx.NumDocs()), uint64(idx.DocFreq("t002")))},
		{Term: "t003", Weight: BM25IDF(uint64(idx.NumDocs()), uint64(idx.DocFreq("t003")))},
		{Term: "t900", Weight: BM25IDF(uint64(idx.NumDocs()), uint64(idx.DocFreq("t900")))},
	}
	union := roaring.New()
	for _, qt := range q {
		union.Or(idx.TermBitmap(qt.Term))
	}
	got, scored := idx.search(q, BM25{}, 10, nil, nil, 0, nil, wandAuto)
	if want := textNaiveSearch(docs, q, BM25{}, idx, 10, nil, nil, 0); !slices.Equal(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
	if u := int(union.GetCardinality()); scored*4 > u {
		t.Fatalf("WAND scored %d of %d matching documents, want < 25%%", scored, u)
	}
	t.Logf("scored %d of %d matching documents", scored, union.GetCardinality())
}

func TestSearchEdgeCases(t *testing.T) {
	docs := textTestCorpus(5, 200, 50)
	idx := textBuild(docs)
	q := []QueryTerm{{Term: "t002", Weight: 1}}
	tests := []struct {
		name  string
		q     []QueryTerm
		k     int
		allow *roaring.Bitmap
		want  uint32
	}{
		{"k zero", q, 0, nil, 0},
		{"k negative", q, -1, nil, 0},
		{"no terms", nil, 10, nil, 0},
		{"unknown term", []QueryTerm{{Term: "zz", Weight: 1}}, 10, nil, 0},
		{"negative weight", []QueryTerm{{Term: "t002", Weight: -1}}, 10, nil, 0},
		{"NaN weight", []QueryTerm{{Term: "t002", Weight: float32(math.NaN())}}, 10, nil, 0},
		{"empty allow", q, 10, roaring.New(), 0},
		{"allow beyond docs", q, 10, roaring.BitmapOf(1 << 30), 0},
		{"k above matches", q, 1 << 20, nil, idx.DocFreq("t002")},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, m := range []wandMode{wandAuto, wandPruned, wandDirect, wandExhaustive, wandWindowed, wandDocwise, wandMaxScore} {
				if m == wandDirect && tc.allow == nil {
					continue
				}
				if got, _ := idx.search(tc.q, BM25{}, tc.k, tc.allow, nil, 0, nil, m); len(got) != int(tc.want) {
					t.Fatalf("mode %d: %d hits, want %d", m, len(got), tc.want)
				}
			}
		})
	}
	empty := NewTextBuilder().Build()
	if got := empty.Search(q, BM25{}, 10, nil, nil, 0, nil); len(got) != 0 {
		t.Fatalf("empty index returned %v", got)
	}
}

func TestBM25IDF(t *testing.T) {
	tests := []struct {
		n, df uint64
		want  float64
	}{
		{1000, 10, math.Log(1 + 990.5/10.5)}, // ≈ 4.5574
		{1000, 1000, math.Log(1 + 0.5/1000.5)},
		{1000, 2000, math.Log(1 + 0.5/1000.5)}, // df clamped to n
		{1, 0, math.Log(1 + 1.5/0.5)},
	}
	for _, tc := range tests {
		if got := BM25IDF(tc.n, tc.df); math.Abs(float64(got)-tc.want) > 1e-6 {
			t.Errorf("BM25IDF(%d, %d) = %v, want %v", tc.n, tc.df, got, tc.want)
		}
	}
	if math.Abs(float64(BM25IDF(1000, 10))-4.5574) > 1e-4 {
		t.Errorf("BM25IDF(1000, 10) = %v, want ≈ 4.5574", BM25IDF(1000, 10))
	}
}

// TestSearchConcurrent runs queries from several goroutines on one index
// (run with -race) and checks each against the sequential answer.
func TestSearchConcurrent(t *testing.T) {
	docs := textTestCorpus(70, 3000, 200)
	idx := textBuild(docs)
	r := rand.New(rand.NewPCG(7, 7))
	queries := make([][]QueryTerm, 40)
	want := make([][]Hit, len(queries))
	for i := range queries {
		queries[i] = textRandomQuery(r, idx, 200)
		want[i] = idx.Search(queries[i], BM25{}, 10, nil, nil, 0, nil)
	}
	errs := make(chan error, 4)
	for g := range 4 {
		go func() {
			var dst []Hit
			for rep := range 20 {
				i := (g*7 + rep) % len(queries)
				dst = idx.Search(queries[i], BM25{}, 10, nil, nil, 0, dst[:0])
				if !slices.Equal(dst, want[i]) {
					errs <- fmt.Errorf("goroutine %d query %d: got %v, want %v", g, i, dst, want[i])
					return
				}
			}
			errs <- nil
		}()
	}
	for range 4 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}
