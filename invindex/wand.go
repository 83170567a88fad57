package invindex

import (
	"math"
	"math/bits"
	"slices"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// wandMode selects the top-k algorithm; the automatic choice is what Search
// uses, the others exist for tests and benchmarks.
type wandMode int

const (
	wandAuto       wandMode = iota
	wandPruned              // block-max WAND
	wandDirect              // score the allowed documents one by one
	wandExhaustive          // score every matching document (windowed or docwise by density)
	wandWindowed            // exhaustive, window by window (dense lists)
	wandDocwise             // exhaustive, document at a time (sparse lists)
	wandMaxScore            // windowed MaxScore: only the essential terms are accumulated
)

// wandDirectRatio is the ratio of summed posting-list lengths to allowed
// documents above which Search scores the allowed documents directly
// instead of walking the posting lists.
const wandDirectRatio = 8

// wandCursor is one query term's position in its posting list.
type wandCursor struct {
	it  PostingsIter
	doc uint32  // current document or postEnd
	w   float32 // query weight
	ub  float32 // upper bound of the term's score over the whole list
	qi  int     // index of the term in the query

	sblk   int     // block reached by shallow advances
	sblkUB float32 // bound of block sblk
	sblkOK bool    // sblkUB is computed for sblk

	wub float32 // maxscore: bound of the term in the current window
	ne  bool    // maxscore: the term is non-essential in the window (its cursor only seeks)
	wp  int     // maxscore: scan position of an essential term in the window
	val float32 // maxscore: the non-essential term's score of the candidate (0 if absent)
}

func (c *wandCursor) next() {
	if c.it.Next() {
		c.doc = c.it.docs[c.it.pos]
	} else {
		c.doc = postEnd
	}
}

func (c *wandCursor) seek(target uint32) {
	if c.it.Seek(target) {
		c.doc = c.it.docs[c.it.pos]
	} else {
		c.doc = postEnd
	}
}

// shallow moves the block pointer (not the postings) to the block that
// would hold target and returns that block's score bound, 0 if no block
// can hold it.
func (c *wandCursor) shallow(target uint32, p bm25Params) float32 {
	b := max(c.sblk, c.it.pos/postBlockSize)
	if b != c.sblk {
		c.sblk, c.sblkOK = b, false
	}
	for c.sblk < len(c.it.blkLast) && c.it.blkLast[c.sblk] < target {
		c.sblk++
		c.sblkOK = false
	}
	if c.sblk >= len(c.it.blkLast) {
		return 0
	}
	if !c.sblkOK {
		c.sblkUB = c.it.blockBound(c.sblk, c.w, p)
		c.sblkOK = true
	}
	return c.sblkUB
}

// shallowEnd returns the first document after the shallow block, postEnd
// if the list has no more blocks.
func (c *wandCursor) shallowEnd() uint32 {
	if c.sblk >= len(c.it.blkLast) {
		return postEnd
	}
	return c.it.blkLast[c.sblk] + 1
}

// wandScratch is the reusable per-query state; Search takes one from a pool
// so that steady-state queries do not allocate.
type wandScratch struct {
	cur     []wandCursor
	order   []*wandCursor
	contrib []float32
	allowIt roaring.IntIterator
	scored  int // documents scored, for tests

	// acc and seen are the exhaustive scorer's window: the summed score of
	// each document and a bit per document that has any (both all zero
	// between windows).
	acc  [wandWindow]float32
	seen [wandWindow / 64]uint64

	byUB []*wandCursor // maxscore: the cursors by ascending bound
	pre  []float32     // maxscore: pre[j] sums the window bounds of byUB[:j]
}

// wandWindow is the number of documents the exhaustive scorer accumulates at
// a time: its accumulators (16 KiB) stay in the L1 cache.
const wandWindow = 4096

// wandWindowMinPostings: the exhaustive scorer works window by window when
// the query's postings average at least this many per window, else
// document by document (BenchmarkSearch on 1M documents: windows are 2.4–4×
// faster for common terms, document by document 1.2–1.6× faster for a
// rare-term query with under 2 postings per window).
const wandWindowMinPostings = 16

var wandPool = sync.Pool{New: func() any { return new(wandScratch) }}

// Search returns the top-k documents for the query terms q under BM25
// parameters p, appended to dst (whose spare capacity is used as the heap,
// so a reused dst makes steady-state queries allocation-free). Only
// documents that are in allow (nil means all), not in deleted (nil means
// none), match at least one term and score strictly above threshold are
// returned; the caller can pass the k-th best score of segments searched
// earlier as threshold. Hits are sorted by score descending, then document
// ascending, and equal scores keep the lower document.
//
// Search picks its algorithm by the index and the query (chooseWandMode):
// windowed MaxScore with block bounds (Turtle & Flood, 1995), block-max
// WAND (Ding & Suel, 2011) for sparse postings, exhaustive window-by-window
// scoring in a small index, and direct scoring of the allowed documents
// when allow is much smaller than the posting lists. All give exactly the
// scores and ranking of an exhaustive evaluation.
func (t *TextIndex) Search(q []QueryTerm, p BM25, k int, allow, deleted *roaring.Bitmap, threshold float32, dst []Hit) []Hit {
	dst, _ = t.search(q, p, k, allow, deleted, threshold, dst, wandAuto)
	return dst
}

// SearchExhaustive is Search without pruning: it scores every document that
// matches a query term. It is the reference that Search is tested against.
func (t *TextIndex) SearchExhaustive(q []QueryTerm, p BM25, k int, allow, deleted *roaring.Bitmap, threshold float32, dst []Hit) []Hit {
	dst, _ = t.search(q, p, k, allow, deleted, threshold, dst, wandExhaustive)
	return dst
}

// search runs one algorithm and also returns the number of documents it
// scored.
func (t *TextIndex) search(q []QueryTerm, p BM25, k int, allow, deleted *roaring.Bitmap, threshold float32, dst []Hit, mode wandMode) ([]Hit, int) {
	if k <= 0 || len(q) == 0 || t.numDocs == 0 || (allow != nil && allow.IsEmpty()) {
		return dst, 0
	}
	if math.IsNaN(float64(threshold)) {
		threshold = float32(math.Inf(-1))
	}
	if deleted != nil && deleted.IsEmpty() {
		// Every scorer asks deleted about each document it offers: an
		// empty bitmap (a segment without deletes) answers no at the
		// cost of a container search each time.
		deleted = nil
	}
	bp := p.resolve(t)
	s := wandPool.Get().(*wandScratch)
	defer wandPool.Put(s)
	sumDF := s.setup(t, q, bp)
	if len(s.cur) == 0 {
		return dst, 0
	}
	if mode == wandAuto {
		allowed := uint64(t.numDocs)
		if allow != nil {
			allowed = allow.GetCardinality()
		}
		// allCommon looks every term up again: only a filtered search
		// asks (chooseWandMode).
		mode = chooseWandMode(allow != nil, allowed, sumDF, uint64(t.numDocs), allow != nil && t.allCommon(q))
	}

	n := len(dst)
	dst = slices.Grow(dst, min(k, int(t.numDocs))) // the heap never outgrows it
	h := bm25Heap{h: dst[n:n], k: k}
	switch mode {
	case wandDirect:
		s.direct(t, bp, &h, allow, deleted, threshold)
	case wandMaxScore:
		s.maxscore(t, bp, &h, allow, deleted, threshold)
	case wandExhaustive, wandWindowed, wandDocwise:
		if mode == wandDocwise || (mode == wandExhaustive && sumDF*wandWindow < uint64(t.numDocs)*wandWindowMinPostings) {
			s.docwise(t, bp, &h, allow, deleted, threshold)
		} else {
			s.exhaustive(t, bp, &h, allow, deleted, threshold)
		}
	default:
		s.pruned(t, bp, &h, allow, deleted, threshold)
	}
	bm25SortHits(h.h)
	return dst[:n+len(h.h)], s.scored
}

// setup creates one cursor per known query term with a positive weight and
// returns the summed posting-list lengths.
func (s *wandScratch) setup(t *TextIndex, q []QueryTerm, bp bm25Params) uint64 {
	s.cur = s.cur[:0]
	s.order = s.order[:0]
	s.contrib = s.contrib[:0]
	s.scored = 0
	var sumDF uint64
	for qi, qt := range q {
		s.contrib = append(s.contrib, 0)
		if !(qt.Weight > 0) || math.IsInf(float64(qt.Weight), 1) {
			continue
		}
		i := t.lookup(qt.Term)
		if i < 0 {
			continue
		}
		c := wandCursor{it: t.postingsAt(i), doc: postEnd, w: qt.Weight, qi: qi}
		c.ub = c.it.termBound(qt.Weight, bp)
		s.cur = append(s.cur, c)
		sumDF += uint64(c.it.Len())
	}
	for i := range s.cur {
		s.order = append(s.order, &s.cur[i])
	}
	return sumDF
}

// release drops references into the index and the bitmaps.
func (s *wandScratch) release() {
	clear(s.cur)
	clear(s.order)
	clear(s.byUB)
	s.allowIt = roaring.IntIterator{}
}

func wandAllowed(doc uint32, allow, deleted *roaring.Bitmap) bool {
	return (allow == nil || allow.Contains(doc)) && (deleted == nil || !deleted.Contains(doc))
}

// score sums the contributions of the cursors positioned on doc in query
// order, so that every algorithm produces the same float.
func (s *wandScratch) score(cs []*wandCursor, doc uint32, dl float32, bp bm25Params) float32 {
	for _, c := range cs {
		if c.doc == doc {
			s.contrib[c.qi] = bp.score(c.w, c.it.tfs[c.it.pos], dl)
		}
	}
	s.scored++
	var sum float32
	for i, v := range s.contrib {
		sum += v
		s.contrib[i] = 0
	}
	return sum
}

// offer pushes a hit that scores above theta and returns the new threshold.
func wandOffer(h *bm25Heap, doc uint32, score, theta float32) float32 {
	if !(score > theta) {
		return theta
	}
	h.push(Hit{Doc: doc, Score: score})
	if h.full() {
		theta = max(theta, h.min().Score)
	}
	return theta
}

// sortByDoc restores the document order of the cursors (insertion sort: few
// cursors, mostly sorted).
func wandSortByDoc(cs []*wandCursor) {
	for i := 1; i < len(cs); i++ {
		c := cs[i]
		j := i
		for j > 0 && cs[j-1].doc > c.doc {
			cs[j] = cs[j-1]
			j--
		}
		cs[j] = c
	}
}

// pruned is block-max WAND. Cursors are kept sorted by document. The pivot
// is the first cursor at which the summed whole-list bounds exceed the
// threshold theta: no document before the pivot's can make the top k. The
// block bounds of the cursors up to the pivot then either confirm the pivot
// document is worth scoring, or prove that nothing up to the end of the
// shortest of those blocks is, and all those cursors jump past it.
func (s *wandScratch) pruned(t *TextIndex, bp bm25Params, h *bm25Heap, allow, deleted *roaring.Bitmap, theta float32) {
	defer s.release()
	cs := s.order
	for _, c := range cs {
		c.next()
	}
	wandSortByDoc(cs)
	for {
		var acc float32
		p := -1
		for i, c := range cs {
			if c.doc == postEnd {
				break
			}
			acc += c.ub
			if acc > theta {
				p = i
				break
			}
		}
		if p < 0 {
			return
		}
		pd := cs[p].doc
		for p+1 < len(cs) && cs[p+1].doc == pd {
			p++
		}
		var bsum float32
		for _, c := range cs[:p+1] {
			bsum += c.shallow(pd, bp)
		}
		switch {
		case bsum > theta && cs[0].doc == pd:
			if wandAllowed(pd, allow, deleted) {
				score := s.score(cs[:p+1], pd, t.docLen[pd], bp)
				theta = wandOffer(h, pd, score, theta)
			}
			for _, c := range cs[:p+1] {
				c.next()
			}
		case bsum > theta:
			for _, c := range cs[:p] {
				if c.doc >= pd {
					break
				}
				c.seek(pd)
			}
		default:
			next := uint32(postEnd)
			for _, c := range cs[:p+1] {
				next = min(next, c.shallowEnd())
			}
			if p+1 < len(cs) {
				next = min(next, cs[p+1].doc)
			}
			for _, c := range cs[:p+1] {
				if c.doc < next {
					c.seek(next)
				}
			}
		}
		wandSortByDoc(cs)
	}
}

// exhaustive scores every document of the union of the posting lists. It
// works window by window (wandWindow documents): each term in query order
// adds its contributions to the window's accumulators, then the touched
// documents are offered in document order. Summing in query order gives
// the same float as wandScratch.score (adding a missing term's zero changes
// nothing), and offering in document order keeps the tie-breaking of the
// document-at-a-time algorithms, so every mode returns identical hits.
// Term-at-a-time within a window avoids the per-document minimum over the
// cursors that made the document-at-a-time loop slow for common terms (the
// idea of Lucene's BooleanScorer).
func (s *wandScratch) exhaustive(t *TextIndex, bp bm25Params, h *bm25Heap, allow, deleted *roaring.Bitmap, theta float32) {
	defer s.release()
	cs := s.cur // query order
	for i := range cs {
		cs[i].it.pos = 0
	}
	acc, seen := &s.acc, &s.seen
	for {
		lo := uint32(postEnd)
		for i := range cs {
			if it := &cs[i].it; it.pos < len(it.docs) {
				lo = min(lo, it.docs[it.pos])
			}
		}
		if lo == postEnd {
			return
		}
		base := lo &^ (wandWindow - 1)
		end := uint64(base) + wandWindow
		first, last := wandWindow, 0 // offsets touched: [first, last]
		for i := range cs {
			if f, l, ok := s.accumulate(&cs[i], t.docLen, bp, base, end); ok {
				first, last = min(first, f), max(last, l)
			}
		}
		for wi := first >> 6; wi <= last>>6; wi++ {
			word := seen[wi]
			if word == 0 {
				continue
			}
			seen[wi] = 0
			for ; word != 0; word &= word - 1 {
				off := wi<<6 | bits.TrailingZeros64(word)
				score := acc[off]
				acc[off] = 0
				d := base + uint32(off)
				if (allow == nil || allow.Contains(d)) && (deleted == nil || !deleted.Contains(d)) {
					s.scored++
					if score > theta { // most documents do not enter the heap
						theta = wandOffer(h, d, score, theta)
					}
				}
			}
		}
	}
}

// maxscore is windowed MaxScore (Turtle & Flood, 1995) with block-max
// bounds per window, the scheme of Lucene's MaxScoreBulkScorer. Window by
// window, each term's bound is the largest block bound of its postings in
// the window; ordered by that bound, the longest prefix of terms whose
// bounds sum to at most theta is non-essential there: a document holding
// only those terms cannot enter the top k. Only the essential terms add
// their contributions to the accumulators (as exhaustive does); a touched
// document whose sum plus the non-essential bounds can exceed theta has its
// non-essential terms sought from the largest bound down, dropped as soon
// as what it has plus the bounds left cannot exceed theta
// (nonEssential), and is otherwise scored exactly, every term in query order (non-essential cursors seek to
// it, essential terms scan their window postings), so its float is the one
// every algorithm computes, and documents are offered in document order. A
// window with no essential term is skipped whole.
func (s *wandScratch) maxscore(t *TextIndex, bp bm25Params, h *bm25Heap, allow, deleted *roaring.Bitmap, theta float32) {
	defer s.release()
	cs := s.cur // query order
	s.byUB = s.byUB[:0]
	var ubAll float32
	for i := range cs {
		c := &cs[i]
		c.it.pos = 0
		s.byUB = append(s.byUB, c)
		ubAll += c.ub
	}
	byUB := s.byUB
	acc, seen := &s.acc, &s.seen
	for ubAll*(1+1e-5) > theta {
		lo := uint32(postEnd)
		for i := range cs {
			if it := &cs[i].it; it.pos < len(it.docs) {
				lo = min(lo, it.docs[it.pos])
			}
		}
		if lo == postEnd {
			return
		}
		base := lo &^ (wandWindow - 1)
		end := uint64(base) + wandWindow
		for i := range cs {
			cs[i].wub = cs[i].windowBound(end, bp)
		}
		for i := 1; i < len(byUB); i++ { // few terms: insertion sort
			for j := i; j > 0 && byUB[j-1].wub > byUB[j].wub; j-- {
				byUB[j-1], byUB[j] = byUB[j], byUB[j-1]
			}
		}
		// The margin covers float rounding between these sums and a
		// document's score summed in query order.
		var neSum float32
		nonEss := 0
		s.pre = append(s.pre[:0], 0)
		for ; nonEss < len(byUB); nonEss++ {
			next := neSum + byUB[nonEss].wub
			if next*(1+1e-5) > theta {
				break
			}
			neSum = next
			s.pre = append(s.pre, neSum)
		}
		for i, c := range byUB {
			c.ne = i < nonEss
		}
		if nonEss < len(byUB) {
			first, last := wandWindow, 0 // offsets touched: [first, last]
			for i := range cs {
				c := &cs[i]
				if c.ne {
					continue
				}
				c.wp = c.it.pos
				if f, l, ok := s.accumulate(c, t.docLen, bp, base, end); ok {
					first, last = min(first, f), max(last, l)
				}
			}
			for wi := first >> 6; wi <= last>>6; wi++ {
				word := seen[wi]
				if word == 0 {
					continue
				}
				seen[wi] = 0
				for ; word != 0; word &= word - 1 {
					off := wi<<6 | bits.TrailingZeros64(word)
					partial := acc[off]
					acc[off] = 0
					d := base + uint32(off)
					if !((partial+neSum)*(1+1e-5) > theta) || !wandAllowed(d, allow, deleted) ||
						!s.nonEssential(byUB[:nonEss], d, t.docLen[d], bp, partial, theta) {
						continue
					}
					s.scored++
					theta = wandOffer(h, d, s.exact(d, t.docLen[d], bp), theta)
				}
			}
		}
		if end >= postEnd {
			return
		}
		for _, c := range byUB[:nonEss] {
			c.it.Seek(uint32(end))
		}
	}
}

// windowBound returns the largest block bound of c's postings before end,
// from its current position (0 if it has none there).
func (c *wandCursor) windowBound(end uint64, bp bm25Params) float32 {
	it := &c.it
	if it.pos >= len(it.docs) || uint64(it.docs[it.pos]) >= end {
		return 0
	}
	var ub float32
	for b := it.pos / postBlockSize; b < len(it.blkLast); b++ {
		ub = max(ub, it.blockBound(b, c.w, bp))
		if uint64(it.blkLast[b])+1 >= end {
			break
		}
	}
	return ub
}

// nonEssential seeks the non-essential cursors ne (by ascending window
// bound) to candidate d from the largest bound down, keeping each term's
// score in val, and reports whether d can still beat theta: its essential
// sum partial plus the scores found plus the bounds of the terms not yet
// sought. It stops at the first proof that d cannot (the bounds of the
// smaller terms are s.pre).
func (s *wandScratch) nonEssential(ne []*wandCursor, d uint32, dl float32, bp bm25Params, partial, theta float32) bool {
	for j := len(ne) - 1; j >= 0; j-- {
		c := ne[j]
		it := &c.it
		c.val = 0
		if it.Seek(d) && it.docs[it.pos] == d {
			c.val = bp.score(c.w, it.tfs[it.pos], dl)
			partial += c.val
		}
		if !((partial+s.pre[j])*(1+1e-5) > theta) {
			return false
		}
	}
	return true
}

// exact is maxscore's score of document d: every term's contribution in
// query order, essential terms from their window postings (scanned forward
// from wp), non-essential ones as nonEssential found them.
func (s *wandScratch) exact(d uint32, dl float32, bp bm25Params) float32 {
	var sum float32
	for i := range s.cur {
		c := &s.cur[i]
		it := &c.it
		if c.ne {
			sum += c.val // + 0 for an absent term leaves the float as it is
			continue
		}
		wp := c.wp
		for wp < it.pos && it.docs[wp] < d {
			wp++
		}
		c.wp = wp
		if wp < it.pos && it.docs[wp] == d {
			sum += bp.score(c.w, it.tfs[wp], dl)
		}
	}
	return sum
}

// docwise is the exhaustive scorer for sparse posting lists: it scores
// document by document, taking the smallest current document of the
// cursors, which costs less than a window per posting when the postings
// are far apart.
func (s *wandScratch) docwise(t *TextIndex, bp bm25Params, h *bm25Heap, allow, deleted *roaring.Bitmap, theta float32) {
	defer s.release()
	cs := s.order
	for _, c := range cs {
		c.next()
	}
	for {
		d := uint32(postEnd)
		for _, c := range cs {
			d = min(d, c.doc)
		}
		if d == postEnd {
			return
		}
		if wandAllowed(d, allow, deleted) {
			theta = wandOffer(h, d, s.score(cs, d, t.docLen[d], bp), theta)
		}
		for _, c := range cs {
			if c.doc == d {
				c.next()
			}
		}
	}
}

// accumulate adds cursor c's contributions to the documents of the window
// [base, end), moves c past them and returns the offsets in the window of
// the first and last of them; false if there are none.
func (s *wandScratch) accumulate(c *wandCursor, docLen []float32, bp bm25Params, base uint32, end uint64) (first, last int, ok bool) {
	docs, tfs, pos := c.it.docs, c.it.tfs, c.it.pos
	start := pos
	acc, seen := &s.acc, &s.seen
	for ; pos < len(docs) && uint64(docs[pos]) < end; pos++ {
		d := docs[pos]
		off := (d - base) & (wandWindow - 1)
		acc[off] += bp.score(c.w, tfs[pos], docLen[d])
		seen[off>>6] |= 1 << (off & 63)
	}
	c.it.pos = pos
	if pos == start {
		return 0, 0, false
	}
	return int(docs[start] - base), int(docs[pos-1] - base), true
}

// direct walks the allowed documents and seeks every cursor to each one;
// it wins when allow is much smaller than the posting lists.
func (s *wandScratch) direct(t *TextIndex, bp bm25Params, h *bm25Heap, allow, deleted *roaring.Bitmap, theta float32) {
	defer s.release()
	cs := s.order
	var ubSum float32
	for _, c := range cs {
		c.next()
		ubSum += c.ub
	}
	it := &s.allowIt
	it.Initialize(allow)
	for {
		d := uint32(postEnd)
		for _, c := range cs {
			d = min(d, c.doc)
		}
		if d == postEnd || !(ubSum > theta) {
			return
		}
		it.AdvanceIfNeeded(d)
		if !it.HasNext() {
			return
		}
		d = it.Next()
		matched := false
		for _, c := range cs {
			if c.doc < d {
				c.seek(d)
			}
			matched = matched || c.doc == d
		}
		if matched && (deleted == nil || !deleted.Contains(d)) {
			theta = wandOffer(h, d, s.score(cs, d, t.docLen[d], bp), theta)
		}
	}
}

// chooseWandMode picks how Search walks the postings:
//
//   - directly through the allowed documents when a filter keeps few of
//     them against the postings to walk — and, when the filter keeps a
//     large share of the documents (at least 1/wandCommonRatio), only if
//     every term is common too;
//   - exhaustively, window by window, in a small index (at most
//     wandSmallIndex documents): its posting lists span a few blocks, so
//     pruning skips little and pays its per-document cursor work;
//   - block-max WAND when the postings are sparse (fewer than
//     wandWindowMinPostings per window on average): it jumps from
//     posting to posting where windows would be nearly empty;
//   - else windowed MaxScore with block bounds per window.
//
// Measured with BenchmarkSearch (1M synthetic documents, top 10) and
// BenchmarkSearchSciFact (real text, its train queries, top 11), one run,
// 2026-11-24, load 11: SciFact (5,183 documents) 149 µs pruned, 69 µs
// MaxScore, 31 µs windowed; 20 copies of it (103,660 documents) 913 µs
// pruned, 637 µs MaxScore; on 1M documents MaxScore against the previous
// choice (pruned, or exhaustive for common terms): long query 7.1 against
// 15.2 ms, common terms 7.1 against 9.0 ms, mixed 1.11 against 1.18 ms,
// with 20 % allowed 7.6 against 16.1, 8.2 against 12.7 and 1.12 against
// 1.41 ms; a rare-term query (406 postings) 47 µs MaxScore against 16 µs
// pruned, hence WAND for sparse postings.
func chooseWandMode(filtered bool, allowed, sumDF, numDocs uint64, allCommon bool) wandMode {
	switch {
	case filtered && allowed*wandDirectRatio <= sumDF && (allowed*wandCommonRatio < numDocs || allCommon):
		return wandDirect
	case numDocs <= wandSmallIndex:
		return wandExhaustive
	case sumDF*wandWindow < numDocs*wandWindowMinPostings:
		return wandPruned
	}
	return wandMaxScore
}

// wandSmallIndex is the largest index scored exhaustively whatever the
// query (chooseWandMode).
const wandSmallIndex = 4 * wandWindow

// wandCommonRatio: a term is common when it is in at least 1/wandCommonRatio
// of the documents.
const wandCommonRatio = 8

// allCommon reports whether every weighted query term that occurs is common.
func (t *TextIndex) allCommon(q []QueryTerm) bool {
	seen := false
	for _, qt := range q {
		if !(qt.Weight > 0) {
			continue
		}
		df := uint64(t.DocFreq(qt.Term))
		if df == 0 {
			continue
		}
		if df*wandCommonRatio < uint64(t.numDocs) {
			return false
		}
		seen = true
	}
	return seen
}
