package vector

import (
	"math"
	"slices"

	"github.com/RoaringBitmap/roaring/v2"
)

// scratch holds one search's buffers; indexes pool them so that a search
// with a reused dst allocates nothing.
type scratch struct {
	qq     []int8   // quantized query
	q4     []int8   // qq zero-padded to nibbleDims, for the 4-bit kernel
	scores []int32  // int8 scores of one list
	lists  topK     // best lists
	keys   []uint64 // int8 candidates (candKey)
	ids    []uint32 // distinct candidate ids
	top    topK     // exact results
	it     roaring.IntIterator
}

// candKey packs an int8 candidate into one integer that orders candidates
// as the search ranks them: a larger key is a better candidate (a higher
// int8 score, then a lower id).
func candKey(score int32, id uint32) uint64 {
	return uint64(uint32(score)^0x80000000)<<32 | uint64(^id)
}

// candID returns the id of a candidate key.
func candID(key uint64) uint32 { return ^uint32(key) }

// candScore returns the int8 score of a candidate key.
func candScore(key uint64) int32 { return int32(uint32(key>>32) ^ 0x80000000) }

// selectLargest reorders a so that a[:m] holds its m largest values and
// a[m-1] is the least of them (quickselect, linear on average), for
// 0 < m <= len(a).
func selectLargest(a []uint64, m int) {
	lo, hi, nth := 0, len(a)-1, m-1
	for lo < hi {
		// Median of three as the pivot, moved to a[hi].
		mid := lo + (hi-lo)/2
		if a[mid] < a[lo] {
			a[mid], a[lo] = a[lo], a[mid]
		}
		if a[hi] < a[lo] {
			a[hi], a[lo] = a[lo], a[hi]
		}
		if a[mid] < a[hi] {
			a[mid], a[hi] = a[hi], a[mid]
		}
		p := a[hi]
		// Partition descending: values greater than p first.
		i := lo
		for j := lo; j < hi; j++ {
			if a[j] > p {
				a[i], a[j] = a[j], a[i]
				i++
			}
		}
		a[i], a[hi] = a[hi], a[i]
		switch {
		case nth == i:
			return
		case nth < i:
			hi = i - 1
		default:
			lo = i + 1
		}
	}
}

// topK keeps the k best results (score descending, then id ascending) in
// a heap whose root is the worst kept result.
type topK struct {
	k     int
	items []Result
}

// worse reports whether a ranks below b.
func worse(a, b Result) bool {
	return a.Score < b.Score || (a.Score == b.Score && a.ID > b.ID)
}

func (h *topK) reset(k int) {
	h.k = k
	h.items = h.items[:0]
}

// full reports whether the heap holds k results; then only results better
// than min can enter.
func (h *topK) full() bool { return len(h.items) >= h.k }

func (h *topK) min() Result { return h.items[0] }

func (h *topK) push(r Result) {
	if len(h.items) < h.k {
		h.items = append(h.items, r)
		for i := len(h.items) - 1; i > 0; {
			p := (i - 1) / 2
			if !worse(h.items[i], h.items[p]) {
				break
			}
			h.items[i], h.items[p] = h.items[p], h.items[i]
			i = p
		}
		return
	}
	if h.k == 0 || !worse(h.items[0], r) {
		return
	}
	h.items[0] = r
	for i, n := 0, len(h.items); ; {
		l, m := 2*i+1, i
		if l < n && worse(h.items[l], h.items[m]) {
			m = l
		}
		if l+1 < n && worse(h.items[l+1], h.items[m]) {
			m = l + 1
		}
		if m == i {
			break
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
}

// sorted sorts the kept results best first and returns them.
func (h *topK) sorted() []Result {
	slices.SortFunc(h.items, byRank)
	return h.items
}

// byRank orders results best first: score descending, ties by ascending
// id (a comparison function for slices.SortFunc).
func byRank(a, b Result) int {
	switch {
	case worse(b, a):
		return -1
	case worse(a, b):
		return 1
	}
	return 0
}

// getScratch returns pooled buffers for a search keeping k results, with
// every heap emptied: nothing of a previous search survives into the next,
// whichever branch the next one takes.
func (x *Index) getScratch(k int) *scratch {
	s, ok := x.scratch.Get().(*scratch)
	if !ok {
		s = &scratch{qq: make([]int8, x.dims), q4: make([]int8, 2*x.nibBytes), scores: make([]int32, max(1, x.maxList))}
	}
	s.lists.reset(0)
	s.keys, s.ids = s.keys[:0], s.ids[:0]
	s.top.reset(k)
	return s
}

// Search appends to dst[:0] the k vectors most similar to q (largest dot
// product), best first, ties by ascending id, and returns it. allow, when
// not nil, restricts the search to its ids (e.g. chunks of matching,
// non-deleted documents). nprobe is the number of IVF lists scanned; 0
// means the index default (Options.NProbe).
//
// Small indexes, and allowed sets smaller than Options.BruteForceBelow or
// so small that scoring them in float32 reads fewer bytes than the probed
// lists' int8 codes, are searched exactly. Otherwise the nprobe lists whose centroids are closest to q are
// scanned with int8 codes, nprobe being scaled for the allowed fraction
// (filterProbes) so that a filter does not starve the candidates, and the best max(Rerank, 4k)
// allowed candidates are re-scored with float32 vectors. A q of the wrong
// dimension returns no results. With a dst of capacity k, Search does not
// allocate.
func (x *Index) Search(q []float32, k int, nprobe int, allow *roaring.Bitmap, dst []Result) []Result {
	dst = dst[:0]
	if k <= 0 || x.n == 0 || len(q) != x.dims {
		return dst
	}
	s := x.getScratch(k)
	defer x.scratch.Put(s)
	if allow == nil {
		if x.nlist == 0 {
			x.exactAll(s, q, k)
		} else {
			x.ivf(s, q, k, x.probes(nprobe, k, uint64(x.n)), nil, nil)
		}
		return append(dst, s.top.sorted()...)
	}
	card := allow.GetCardinality()
	switch {
	case card == 0:
	case x.nlist == 0 || card < uint64(x.opts.BruteForceBelow) || x.exactCheaper(card, x.probes(nprobe, k, card)):
		x.exactBitmap(s, q, k, allow)
	default:
		x.ivf(s, q, k, x.probes(nprobe, k, card), allow, nil)
	}
	return append(dst, s.top.sorted()...)
}

// SearchFunc is Search with the allowed ids given by a predicate (nil =
// all). Without the allowed-set size nprobe is not scaled: a selective
// predicate should come as a bitmap to Search instead.
func (x *Index) SearchFunc(q []float32, k int, nprobe int, allow func(id uint32) bool, dst []Result) []Result {
	dst = dst[:0]
	if k <= 0 || x.n == 0 || len(q) != x.dims {
		return dst
	}
	s := x.getScratch(k)
	defer x.scratch.Put(s)
	if x.nlist == 0 {
		s.top.reset(k)
		for id := range x.n {
			if allow == nil || allow(uint32(id)) {
				x.exactPush(s, q, uint32(id))
			}
		}
	} else {
		x.ivf(s, q, k, x.probes(nprobe, k, uint64(x.n)), nil, allow)
	}
	return append(dst, s.top.sorted()...)
}

// linearFilterProbes restores the former scaling of a filtered search's
// lists by n/allowed (benchmarks compare it with filterProbes).
var linearFilterProbes = false

// probes returns the lists to scan: nprobe, or the default scaled for k
// (DefaultProbes), scaled for a filter that allows fewer than all n
// (filterProbes).
func (x *Index) probes(nprobe, k int, allowed uint64) int {
	if nprobe <= 0 {
		nprobe = DefaultProbes(x.opts.NProbe, k)
	}
	if allowed < uint64(x.n) {
		if linearFilterProbes {
			nprobe = int((uint64(nprobe)*uint64(x.n) + allowed - 1) / allowed)
		} else {
			nprobe = filterProbes(nprobe, float64(allowed)/float64(x.n))
		}
	}
	return max(1, min(nprobe, x.nlist))
}

// filterProbes returns the lists a search scans when a filter allows the
// fraction frac of the vectors, given the lists nprobe it scans without
// one. The k nearest allowed vectors of a filter spread evenly over the
// index are about the k/frac nearest of all, so the lists grow as they do
// for k/frac results (DefaultProbes: by half per tripling), not by
// 1/frac: ×1.73 at 20 % instead of ×5, ×2.36 at 5 % instead of ×20.
func filterProbes(nprobe int, frac float64) int {
	if frac <= 0 || frac >= 1 {
		return nprobe
	}
	f := 1 + 0.5*math.Log(1/frac)/math.Log(3)
	return int(math.Ceil(float64(nprobe) * f))
}

// rerankPerK is the least number of int8 candidates per result re-scored
// in float32: at k 300 the int8 ranking misplaces enough neighbours that a
// pool of 2k loses recall@300 as more lists are probed (1M static vectors:
// 0.964 at nprobe 200, 0.963 at 250); on 100k of them a pool of 1024
// instead of 600 lifts recall@300 from 0.959 to 0.968 at nprobe 64.
const rerankPerK = 4

// DefaultProbes returns the lists a search for k results scans when given
// the default nprobe (the index's Options.NProbe): nprobe itself up to
// k = KScaleFrom, and half as many more for every tripling of k beyond it
// (×1.5 at k = 300, the per-segment k of a hybrid search over documents
// of three chunks or more), because the
// k-th neighbour lies farther from the query, in lists ranked lower. On
// real and synthetic data recall@300 at a given nprobe is well below
// recall@10 (see doc.go).
func DefaultProbes(nprobe, k int) int {
	if k <= KScaleFrom {
		return nprobe
	}
	f := 1 + 0.5*math.Log(float64(k)/KScaleFrom)/math.Log(3)
	return int(math.Ceil(float64(nprobe) * f))
}

// exactCheaper reports whether scoring card allowed vectors exactly
// (4·dims bytes each) reads fewer bytes than scanning nprobe lists of int8
// codes (dims bytes per position; spilled vectors count twice).
func (x *Index) exactCheaper(card uint64, nprobe int) bool {
	scanned := uint64(nprobe) * uint64(len(x.listIDs)) / uint64(max(1, x.nlist))
	return 4*card <= scanned
}

// exactPush scores id exactly into s.top. Its callers keep x reachable
// (Search and SearchFunc end with runtime.KeepAlive), so that a mapped
// vectors file stays mapped while it is read.
func (x *Index) exactPush(s *scratch, q []float32, id uint32) {
	sc := DotFloat32(q, x.vecs[int(id)*x.dims:int(id+1)*x.dims])
	if !s.top.full() || !worse(Result{id, sc}, s.top.min()) {
		s.top.push(Result{id, sc})
	}
}

func (x *Index) exactAll(s *scratch, q []float32, k int) {
	s.top.reset(k)
	for id := range x.n {
		x.exactPush(s, q, uint32(id))
	}
}

func (x *Index) exactBitmap(s *scratch, q []float32, k int, allow *roaring.Bitmap) {
	s.top.reset(k)
	s.it.Initialize(allow)
	for s.it.HasNext() {
		id := s.it.Next()
		if int64(id) >= int64(x.n) {
			break
		}
		x.exactPush(s, q, id)
	}
}

// ivf8 is ivf without the 4-bit pass, for indexes whose list positions
// hold int8 codes (smaller than nibbleFrom): the probed lists are scanned
// with the int8 kernel, the m = max(Rerank, rerankPerK·k) best candidates
// (int8 score, then id; a spilled vector counts twice) kept as in ivf and
// re-scored exactly into s.top.
func (x *Index) ivf8(s *scratch, q []float32, k, nprobe int, allow *roaring.Bitmap, allowFn func(uint32) bool) {
	d := x.dims
	s.lists.reset(nprobe)
	for l := range x.nlist {
		sc := DotFloat32(q, x.centroids[l*d:(l+1)*d])
		if !s.lists.full() || sc > s.lists.min().Score {
			s.lists.push(Result{uint32(l), sc})
		}
	}
	quantizeQuery(s.qq, q, x.scale)
	m := max(x.opts.Rerank, rerankPerK*k)
	if cap(s.keys) < 2*m {
		s.keys = make([]uint64, 0, 2*m)
	}
	keys := s.keys[:0]
	var thr uint64                   // keys below thr cannot be among the m best
	thrScore := int32(math.MinInt32) // candScore(thr)
	for _, l := range s.lists.items {
		lo, hi := int(x.listStart[l.ID]), int(x.listStart[l.ID+1])
		scores := s.scores[:hi-lo]
		dotInt8Rows(s.qq, x.codes[lo*d:hi*d], scores)
		for i, sc := range scores {
			if sc < thrScore {
				continue
			}
			id := x.listIDs[lo+i]
			key := candKey(sc, id)
			if key < thr || (allow != nil && !allow.Contains(id)) || (allowFn != nil && !allowFn(id)) {
				continue
			}
			keys = keepBest(keys, key, m, &thr)
			thrScore = candScore(thr)
		}
	}
	if len(keys) > m {
		selectLargest(keys, m)
		keys = keys[:m]
	}
	s.keys = keys
	// A spilled vector can be a candidate twice: re-score each id once, in
	// id order (the vectors are read in address order).
	ids := s.ids[:0]
	for _, key := range keys {
		ids = append(ids, candID(key))
	}
	slices.Sort(ids)
	s.ids = ids
	s.top.reset(k)
	for i, id := range ids {
		if i == 0 || id != ids[i-1] {
			x.exactPush(s, q, id)
		}
	}
}

// shortlistPerCand is the number of 4-bit candidates kept per int8
// candidate of the re-scoring pool (at least minShortlist): the 4-bit pass
// ranks coarsely, so its shortlist must be wide for the pool drawn from it
// to equal the one an int8 scan of the same lists gives. Searches for more
// than KScaleFrom results keep twice as many (shortlistLen): on 1M static
// vectors at k 300, 4 per candidate gave recall@300 0.952 against the
// int8 scan's 0.986, 8 gave 0.980 at the int8 scan's time, 16 gave 0.985
// at 1.5× it (bench/README.md, "int8 codes once per vector").
const (
	shortlistPerCand = 4
	minShortlist     = 1024
)

// shortlistLen is the length of the 4-bit pass's shortlist for k results
// and a re-scoring pool of m.
func shortlistLen(k, m int) int {
	if k > KScaleFrom {
		return max(minShortlist, 2*shortlistPerCand*m)
	}
	return max(minShortlist, shortlistPerCand*m)
}

// keepBest appends key to keys if it can be among the m best (at or above
// *thr), cutting keys to its m best by quickselect when it holds 2m and
// raising *thr to the m-th best.
func keepBest(keys []uint64, key uint64, m int, thr *uint64) []uint64 {
	keys = append(keys, key)
	if len(keys) == 2*m {
		selectLargest(keys, m)
		keys = keys[:m]
		*thr = keys[m-1]
	}
	return keys
}

// ivf scans the nprobe lists closest to q and re-scores the best
// candidates exactly into s.top. Indexes without 4-bit codes (smaller than
// nibbleFrom) take ivf8; the others pass three times, whatever k, with
// increasing precision over fewer codes:
//
//  1. every allowed position of the lists scored with its 4-bit code (half
//     the bytes of the int8 code), keeping the best
//     sl = shortlistLen(k, m) keys (4-bit score, then
//     lower position);
//  2. each shortlisted position scored with its id's int8 code, keeping
//     the best m = max(Rerank, rerankPerK·k) (int8 score, then id; a
//     spilled vector shortlisted at both positions counts twice);
//  3. those re-scored exactly with float32 vectors, each id once.
//
// The best keys of a pass are kept without a heap: keys at or above a
// threshold are appended to a buffer, which, when it holds twice the
// number wanted, is cut by quickselect, the last kept key becoming the
// threshold. Each scanned code costs a comparison; the buffer's upkeep is
// linear in the keys kept.
func (x *Index) ivf(s *scratch, q []float32, k, nprobe int, allow *roaring.Bitmap, allowFn func(uint32) bool) {
	if x.nib == nil {
		x.ivf8(s, q, k, nprobe, allow, allowFn)
		return
	}
	d := x.dims
	s.lists.reset(nprobe)
	for l := range x.nlist {
		sc := DotFloat32(q, x.centroids[l*d:(l+1)*d])
		if !s.lists.full() || sc > s.lists.min().Score {
			s.lists.push(Result{uint32(l), sc})
		}
	}
	quantizeQuery(s.qq, q, x.scale)
	copy(s.q4, s.qq)
	m := max(x.opts.Rerank, rerankPerK*k)
	sl := shortlistLen(k, m)
	if cap(s.keys) < 2*sl {
		s.keys = make([]uint64, 0, 2*sl)
	}
	keys := s.keys[:0]
	var thr uint64                   // keys below thr cannot be among the sl best
	thrScore := int32(math.MinInt32) // candScore(thr)
	nb := x.nibBytes
	for _, l := range s.lists.items {
		lo, hi := int(x.listStart[l.ID]), int(x.listStart[l.ID+1])
		scores := s.scores[:hi-lo]
		dotNibbleRows(s.q4, x.nib[lo*nb:hi*nb], scores)
		for i, sc := range scores {
			if sc < thrScore {
				continue
			}
			key := candKey(sc, uint32(lo+i)) // by position: the int8 code's address
			if key < thr {
				continue
			}
			if id := x.listIDs[lo+i]; (allow != nil && !allow.Contains(id)) || (allowFn != nil && !allowFn(id)) {
				continue
			}
			keys = keepBest(keys, key, sl, &thr)
			thrScore = candScore(thr)
		}
	}
	if len(keys) > sl {
		selectLargest(keys, sl)
		keys = keys[:sl]
	}
	// Score the shortlist's int8 codes (stored by id) in address order; a
	// spilled vector shortlisted at both its positions is scored once and
	// kept twice, as two positions of an int8 scan would be.
	ids := s.ids[:0]
	for _, key := range keys {
		ids = append(ids, x.listIDs[candID(key)])
	}
	slices.Sort(ids)
	s.ids = ids
	keys, thr = keys[:0], 0
	for i, id := range ids {
		if i == 0 || id != ids[i-1] {
			dotInt8Rows(s.qq, x.codes[int(id)*d:int(id+1)*d], s.scores[:1])
		}
		if key := candKey(s.scores[0], id); key >= thr {
			keys = keepBest(keys, key, m, &thr)
		}
	}
	if len(keys) > m {
		selectLargest(keys, m)
		keys = keys[:m]
	}
	s.keys = keys
	// A spilled vector can be a candidate twice: re-score each id once, in
	// id order (the vectors are read in address order).
	ids = ids[:0]
	for _, key := range keys {
		ids = append(ids, candID(key))
	}
	slices.Sort(ids)
	s.ids = ids
	s.top.reset(k)
	for i, id := range ids {
		if i == 0 || id != ids[i-1] {
			x.exactPush(s, q, id)
		}
	}
}
