package invindex

import (
	"math"
	"slices"
)

// Default BM25 parameters (Lucene's and Elasticsearch's).
const (
	DefaultK1 = 1.2
	DefaultB  = 0.75
)

// BM25 holds the ranking parameters of one query. A zero (or negative, or
// NaN) K1 or B means the default (DefaultK1, DefaultB), a B above 1 means 1; to effectively disable a parameter pass a
// tiny positive value. AvgDocLen is the collection-wide average weighted
// document length computed by the caller from all segments; zero or negative
// means this index's own average.
//
// The score of a document is Σ over query terms of
//
//	Weight × tf / (tf + K1 × (1 − B + B × len/AvgDocLen))
//
// which is Lucene's BM25 (since Lucene 8 it drops the constant (K1+1)
// factor, which does not change the ranking).
type BM25 struct {
	K1, B     float32
	AvgDocLen float32
}

// QueryTerm is one analyzed query term with its weight: the caller computes
// idf from collection-wide statistics (see BM25IDF) times the query-term
// boost. Terms with a non-positive weight are ignored.
type QueryTerm struct {
	Term   string
	Weight float32
}

// Hit is one scored document.
type Hit struct {
	Doc   uint32
	Score float32
}

// BM25IDF returns Lucene's BM25 inverse document frequency for a term found
// in df of n documents: ln(1 + (n − df + 0.5)/(df + 0.5)). It is positive
// for every df ≤ n; a df above n (inconsistent statistics) is clamped to n.
func BM25IDF(n, df uint64) float32 {
	if df > n {
		df = n
	}
	return float32(math.Log(1 + (float64(n-df)+0.5)/(float64(df)+0.5)))
}

// bm25Params is BM25 resolved against one index: the per-document length
// normalization is norm(len) = c0 + c1 × len.
type bm25Params struct {
	c0, c1 float32
}

func (p BM25) resolve(t *TextIndex) bm25Params {
	k1, b, avg := p.K1, p.B, p.AvgDocLen
	if !(k1 > 0) {
		k1 = DefaultK1
	}
	if !(b > 0) {
		b = DefaultB
	}
	b = min(b, 1)
	if !(avg > 0) {
		avg = 1
		if t.numDocs > 0 && t.total > 0 {
			avg = float32(t.total / float64(t.numDocs))
		}
	}
	return bm25Params{c0: k1 * (1 - b), c1: k1 * b / avg}
}

// score is the contribution of one term: w × tf/(tf + norm). Every scorer
// (pruned, direct, exhaustive) calls it so that their results are
// bit-identical.
func (p bm25Params) score(w float32, q uint16, dl float32) float32 {
	tf := postTF(q)
	return w * (tf / (tf + p.c0 + p.c1*dl))
}

// bound is an upper bound of score for any tf ≤ maxTF and length ≥ minLen,
// inflated by a relative 1e-5 so that float rounding can never make a real
// score exceed it.
func (p bm25Params) bound(w float32, maxTF uint16, minLen float32) float32 {
	tf := float64(postTF(maxTF))
	s := float64(w) * tf / (tf + float64(p.c0) + float64(p.c1)*float64(minLen))
	return float32(s*(1+1e-5) + 1e-30)
}

// bm25Worse reports whether a ranks strictly after b: lower score, or the
// same score and a larger document number.
func bm25Worse(a, b Hit) bool {
	return a.Score < b.Score || (a.Score == b.Score && a.Doc > b.Doc)
}

// bm25Heap is a bounded min-heap of the k best hits, worst on top.
type bm25Heap struct {
	h []Hit
	k int
}

// full reports whether the heap holds k hits.
func (h *bm25Heap) full() bool { return len(h.h) >= h.k }

// push offers a hit that the caller has checked to beat the current worst
// when the heap is full.
func (h *bm25Heap) push(x Hit) {
	if len(h.h) < h.k {
		h.h = append(h.h, x)
		i := len(h.h) - 1
		for i > 0 {
			parent := (i - 1) / 2
			if !bm25Worse(h.h[i], h.h[parent]) {
				break
			}
			h.h[i], h.h[parent] = h.h[parent], h.h[i]
			i = parent
		}
		return
	}
	h.h[0] = x
	i, n := 0, len(h.h)
	for {
		l := 2*i + 1
		if l >= n {
			break
		}
		m := l
		if r := l + 1; r < n && bm25Worse(h.h[r], h.h[l]) {
			m = r
		}
		if !bm25Worse(h.h[m], h.h[i]) {
			break
		}
		h.h[i], h.h[m] = h.h[m], h.h[i]
		i = m
	}
}

// min returns the worst hit; only valid when the heap is not empty.
func (h *bm25Heap) min() Hit { return h.h[0] }

// bm25SortHits sorts hits by score descending, then document ascending.
func bm25SortHits(hits []Hit) {
	slices.SortFunc(hits, func(a, b Hit) int {
		switch {
		case bm25Worse(b, a):
			return -1
		case bm25Worse(a, b):
			return 1
		}
		return 0
	})
}
