package invindex

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// postBlockSize is the number of postings per block. Block-max WAND keeps
// one upper bound (largest tf, smallest document length) per block, and Seek
// skips whole blocks by their last document before searching inside one.
const postBlockSize = 128

// postTFScale is the fixed-point scale of stored term frequencies: a weighted
// tf is stored as round(tf × postTFScale) in a uint16, so tf keeps a
// resolution of 1/16 and saturates at postMaxTF (BM25 is flat long before).
const postTFScale = 16

// postMaxTF is the largest representable weighted term frequency.
const postMaxTF = float32(math.MaxUint16) / postTFScale

// postEnd is the document number of an exhausted iterator.
const postEnd = math.MaxUint32

// TermFreq is one term of a document with its weighted frequency:
// Σ over sections of boost(section type) × occurrences.
type TermFreq struct {
	Term string
	Freq float32
}

// TextBuilder accumulates the postings of one segment. Documents are added
// in increasing order; the zero value is not usable, call NewTextBuilder.
type TextBuilder struct {
	ids     map[string]int32
	lists   []postBuildList
	docLen  []float32
	total   float64
	numDocs uint32
	started bool
}

// postBuildList is the growing posting list of one term.
type postBuildList struct {
	term string
	docs []uint32
	tfs  []uint16
}

// NewTextBuilder returns an empty builder.
func NewTextBuilder() *TextBuilder {
	return &TextBuilder{ids: make(map[string]int32)}
}

// postQuantizeTF converts a weighted term frequency to its stored form.
// Positive frequencies never round to zero; NaN and non-positive values are 0.
func postQuantizeTF(f float32) uint16 {
	if !(f > 0) {
		return 0
	}
	if f >= postMaxTF {
		return math.MaxUint16
	}
	q := uint16(f*postTFScale + 0.5)
	if q == 0 {
		q = 1
	}
	return q
}

// postTF converts a stored term frequency back to a float.
func postTF(q uint16) float32 { return float32(q) / postTFScale }

// Add records document doc with its distinct terms and its weighted length
// (Σ boost × section length). Documents must be added in strictly increasing
// order; a document may be added with no terms so that its length and the
// document count are right. Terms with a non-positive frequency are ignored;
// a term repeated within one document has its frequencies summed. Add keeps
// no reference to terms. Adding a document out of order is a programmer
// error and panics.
func (b *TextBuilder) Add(doc uint32, terms []TermFreq, length float32) {
	if b.started && doc < b.numDocs {
		panic(fmt.Sprintf("BUG: invindex: TextBuilder.Add doc %d after doc %d", doc, b.numDocs-1))
	}
	if doc == postEnd {
		panic("BUG: invindex: TextBuilder.Add doc out of range")
	}
	b.started = true
	for uint32(len(b.docLen)) < doc {
		b.docLen = append(b.docLen, 0)
	}
	if !(length > 0) || math.IsInf(float64(length), 1) {
		length = 0
	}
	b.docLen = append(b.docLen, length)
	b.total += float64(length)
	b.numDocs = doc + 1
	for _, t := range terms {
		q := postQuantizeTF(t.Freq)
		if q == 0 {
			continue
		}
		id, ok := b.ids[t.Term]
		if !ok {
			id = int32(len(b.lists))
			term := strings.Clone(t.Term)
			b.ids[term] = id
			b.lists = append(b.lists, postBuildList{term: term})
		}
		l := &b.lists[id]
		if n := len(l.docs); n > 0 && l.docs[n-1] == doc {
			l.tfs[n-1] = postQuantizeTF(postTF(l.tfs[n-1]) + postTF(q))
			continue
		}
		l.docs = append(l.docs, doc)
		l.tfs = append(l.tfs, q)
	}
}

// Build returns the immutable index of everything added so far. The builder
// must not be used afterwards.
func (b *TextBuilder) Build() *TextIndex {
	slices.SortFunc(b.lists, func(x, y postBuildList) int { return strings.Compare(x.term, y.term) })
	var w postWriter
	w.init(len(b.lists), b.numDocs, b.docLen, b.total)
	for _, l := range b.lists {
		w.addTerm(l.term, l.docs, l.tfs)
	}
	b.lists, b.ids = nil, nil
	return w.finish()
}

// TextIndex is the immutable BM25 text index of one segment: a sorted
// vocabulary, doc-ordered posting lists with quantized weighted term
// frequencies, per-block upper bounds and per-document lengths. It is safe
// for concurrent reads.
type TextIndex struct {
	numDocs uint32
	total   float64
	docLen  []float32 // weighted length per document

	vocab   string   // all terms concatenated in sorted order
	termEnd []uint32 // termEnd[i] is the end of term i in vocab

	postOff []uint32 // postings of term i are docs[postOff[i]:postOff[i+1]]
	docs    []uint32
	tfs     []uint16 // quantized weighted tf, parallel to docs

	// Block i of term t covers postings postOff[t]+i*postBlockSize...; its
	// metadata lives at blkOff[t]+i.
	blkOff  []uint32
	blkLast []uint32 // last document of the block
	// The impacts of block b are impTF[blkImp[b]:blkImp[b+1]] with the
	// parallel impLen: the Pareto frontier of (tf, document length) pairs
	// of the block (no other posting has a larger tf and a smaller length),
	// at most postMaxImpacts of them, so that the block's best BM25 score
	// can be bounded tightly for any parameters at query time.
	blkImp []uint32
	impTF  []uint16
	impLen []float32
	// The impacts of term i, a coarser frontier over all its blocks:
	// termImpTF[termImp[i]:termImp[i+1]] with the parallel termImpLen.
	termImp    []uint32
	termImpTF  []uint16
	termImpLen []float32
}

// postMaxImpacts bounds the impacts kept per block; larger frontiers are
// coarsened by merging neighbours into (largest tf, smallest length).
const postMaxImpacts = 8

// postMaxTermImpacts bounds the impacts kept per term.
const postMaxTermImpacts = 16

// postWriter assembles a TextIndex term by term in vocabulary order.
type postWriter struct {
	t     *TextIndex
	vocab strings.Builder
	imp   []uint64 // scratch impact keys
}

func (w *postWriter) init(numTerms int, numDocs uint32, docLen []float32, total float64) {
	w.t = &TextIndex{
		numDocs: numDocs,
		total:   total,
		docLen:  docLen,
		termEnd: make([]uint32, 0, numTerms),
		postOff: make([]uint32, 1, numTerms+1),
		blkOff:  make([]uint32, 1, numTerms+1),
		blkImp:  make([]uint32, 1, numTerms+1),
		termImp: make([]uint32, 1, numTerms+1),
	}
}

// addTerm appends one term; docs must be strictly increasing and < numDocs.
func (w *postWriter) addTerm(term string, docs []uint32, tfs []uint16) {
	t := w.t
	w.vocab.WriteString(term)
	t.termEnd = append(t.termEnd, uint32(w.vocab.Len()))
	t.docs = append(t.docs, docs...)
	t.tfs = append(t.tfs, tfs...)
	t.postOff = append(t.postOff, uint32(len(t.docs)))
	for s := 0; s < len(docs); s += postBlockSize {
		e := min(s+postBlockSize, len(docs))
		t.blkLast = append(t.blkLast, docs[e-1])
		w.addImpacts(docs[s:e], tfs[s:e])
	}
	w.addTermImpacts()
	t.blkOff = append(t.blkOff, uint32(len(t.blkLast)))
}

// addImpacts appends the impacts of one block.
func (w *postWriter) addImpacts(docs []uint32, tfs []uint16) {
	t := w.t
	imp := w.imp[:0]
	for i, d := range docs {
		imp = append(imp, postImpactKey(tfs[i], t.docLen[d]))
	}
	w.imp = imp
	t.impTF, t.impLen = postFrontier(imp, postMaxImpacts, t.impTF, t.impLen)
	t.blkImp = append(t.blkImp, uint32(len(t.impTF)))
}

// addTermImpacts appends the impacts of the whole term (of blocks
// blkOff[last]..), a coarser frontier that bounds the term's best score.
func (w *postWriter) addTermImpacts() {
	t := w.t
	imp := w.imp[:0]
	for i := t.blkImp[t.blkOff[len(t.blkOff)-1]]; i < uint32(len(t.impTF)); i++ {
		imp = append(imp, postImpactKey(t.impTF[i], t.impLen[i]))
	}
	w.imp = imp
	t.termImpTF, t.termImpLen = postFrontier(imp, postMaxTermImpacts, t.termImpTF, t.termImpLen)
	t.termImp = append(t.termImp, uint32(len(t.termImpTF)))
}

// postFrontier appends to tfs and lens the Pareto frontier of imp (pairs
// that no other pair beats with a larger-or-equal tf and a smaller-or-equal
// length), coarsened to at most limit pairs. It reorders imp.
func postFrontier(imp []uint64, limit int, tfs []uint16, lens []float32) ([]uint16, []float32) {
	// Keys sort shortest first, largest tf first among equal lengths (see
	// postImpactKey); then keep each pair whose tf beats every shorter
	// document's.
	slices.Sort(imp)
	n := 0
	for _, k := range imp {
		if n == 0 || postImpactTF(k) > postImpactTF(imp[n-1]) {
			imp[n] = k
			n++
		}
	}
	// Coarsen: group g of the frontier becomes (its largest tf, its
	// smallest length), which still bounds every pair of the group.
	groups := min(n, limit)
	for g := range groups {
		first, last := g*n/groups, (g+1)*n/groups-1
		tfs = append(tfs, postImpactTF(imp[last]))
		lens = append(lens, postImpactLen(imp[first]))
	}
	return tfs, lens
}

// postImpactKey packs a (tf, length) pair into a key ordered by length,
// then by tf descending: the bits of a non-negative float32 sort like the
// float.
func postImpactKey(tf uint16, dl float32) uint64 {
	return uint64(math.Float32bits(dl))<<16 | uint64(math.MaxUint16-tf)
}

func postImpactTF(k uint64) uint16   { return math.MaxUint16 - uint16(k) }
func postImpactLen(k uint64) float32 { return math.Float32frombits(uint32(k >> 16)) }

func (w *postWriter) finish() *TextIndex {
	w.t.vocab = w.vocab.String()
	return w.t
}

// NumDocs returns the number of documents: one more than the largest
// document number added.
func (t *TextIndex) NumDocs() uint32 { return t.numDocs }

// TotalLength returns the sum of all document lengths; the engine sums it
// over segments to get the collection's average document length.
func (t *TextIndex) TotalLength() float64 { return t.total }

// DocLength returns the weighted length of doc, 0 if doc is out of range.
func (t *TextIndex) DocLength(doc uint32) float32 {
	if doc >= uint32(len(t.docLen)) {
		return 0
	}
	return t.docLen[doc]
}

// NumTerms returns the size of the vocabulary.
func (t *TextIndex) NumTerms() int { return len(t.termEnd) }

// NumPostings returns the total number of (term, document) pairs.
func (t *TextIndex) NumPostings() int { return len(t.docs) }

// termAt returns term i of the sorted vocabulary without allocating.
func (t *TextIndex) termAt(i int) string {
	s := uint32(0)
	if i > 0 {
		s = t.termEnd[i-1]
	}
	return t.vocab[s:t.termEnd[i]]
}

// lookup returns the vocabulary index of term or -1.
func (t *TextIndex) lookup(term string) int {
	lo, hi := 0, len(t.termEnd)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if t.termAt(m) < term {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(t.termEnd) && t.termAt(lo) == term {
		return lo
	}
	return -1
}

// DocFreq returns the number of documents containing term.
func (t *TextIndex) DocFreq(term string) uint32 {
	i := t.lookup(term)
	if i < 0 {
		return 0
	}
	return t.postOff[i+1] - t.postOff[i]
}

// Terms calls fn for every term in ascending byte order with its document
// frequency until fn returns false. The term strings share the index's
// memory and may be kept.
func (t *TextIndex) Terms(fn func(term string, df uint32) bool) {
	for i := range t.termEnd {
		if !fn(t.termAt(i), t.postOff[i+1]-t.postOff[i]) {
			return
		}
	}
}

// TermBitmap returns a new bitmap of the documents containing term.
func (t *TextIndex) TermBitmap(term string) *roaring.Bitmap {
	bm := roaring.New()
	if i := t.lookup(term); i >= 0 {
		bm.AddMany(t.docs[t.postOff[i]:t.postOff[i+1]])
	}
	return bm
}

// Postings returns an iterator over the documents containing term (an empty
// iterator for an unknown term). The iterator is a value: it does not
// allocate and is valid as long as the index.
func (t *TextIndex) Postings(term string) PostingsIter {
	i := t.lookup(term)
	if i < 0 {
		return PostingsIter{pos: -1}
	}
	return t.postingsAt(i)
}

func (t *TextIndex) postingsAt(i int) PostingsIter {
	s, e := t.postOff[i], t.postOff[i+1]
	b, be := t.blkOff[i], t.blkOff[i+1]
	return PostingsIter{
		docs:    t.docs[s:e],
		tfs:     t.tfs[s:e],
		blkLast: t.blkLast[b:be],
		blkImp:  t.blkImp[b : be+1],
		impTF:   t.impTF,
		impLen:  t.impLen,
		termTF:  t.termImpTF[t.termImp[i]:t.termImp[i+1]],
		termLen: t.termImpLen[t.termImp[i]:t.termImp[i+1]],
		pos:     -1,
	}
}

// PostingsIter iterates one posting list in document order, in the style of
// Prometheus' index.Postings: Next or Seek must be called before At. It
// is not safe for concurrent use.
type PostingsIter struct {
	docs    []uint32
	tfs     []uint16
	blkLast []uint32
	blkImp  []uint32 // impacts of block i: blkImp[i]..blkImp[i+1] of impTF/impLen
	impTF   []uint16
	impLen  []float32
	termTF  []uint16 // impacts of the whole list
	termLen []float32
	pos     int // current position; -1 before the first Next/Seek
}

// termBound returns the score bound of the whole list.
func (p *PostingsIter) termBound(w float32, bp bm25Params) float32 {
	var ub float32
	for i := range p.termTF {
		ub = max(ub, bp.bound(w, p.termTF[i], p.termLen[i]))
	}
	return ub
}

// blockBound returns the score bound of block b.
func (p *PostingsIter) blockBound(b int, w float32, bp bm25Params) float32 {
	var ub float32
	for i := p.blkImp[b]; i < p.blkImp[b+1]; i++ {
		ub = max(ub, bp.bound(w, p.impTF[i], p.impLen[i]))
	}
	return ub
}

// Len returns the length of the posting list (the document frequency).
func (p *PostingsIter) Len() int { return len(p.docs) }

// Next advances to the next document and reports whether there is one.
func (p *PostingsIter) Next() bool {
	if p.pos < len(p.docs) {
		p.pos++
	}
	return p.pos < len(p.docs)
}

// Seek advances to the first document ≥ target and reports whether there is
// one. It never moves backwards: if the current document is already ≥ target
// it stays. Whole blocks are skipped by their last document.
func (p *PostingsIter) Seek(target uint32) bool {
	if p.pos < 0 {
		p.pos = 0
	}
	if p.pos >= len(p.docs) {
		return false
	}
	if p.docs[p.pos] >= target {
		return true
	}
	// Dense lists usually find target within a few postings.
	for end := min(p.pos+8, len(p.docs)); p.pos+1 < end; {
		p.pos++
		if p.docs[p.pos] >= target {
			return true
		}
	}
	if p.pos+1 >= len(p.docs) {
		p.pos = len(p.docs)
		return false
	}
	p.pos = postSeek(p.docs, p.blkLast, p.pos, target)
	return p.pos < len(p.docs)
}

// postSeek returns the first index ≥ pos whose document is ≥ target, or
// len(docs); docs[pos] < target.
func postSeek(docs, blkLast []uint32, pos int, target uint32) int {
	b := pos / postBlockSize
	if blkLast[b] < target {
		// Gallop over the block boundaries, then binary search.
		step, lo := 1, b+1
		hi := lo
		for hi < len(blkLast) && blkLast[hi] < target {
			lo = hi + 1
			hi += step
			step <<= 1
		}
		hi = min(hi, len(blkLast)-1)
		for lo < hi {
			m := int(uint(lo+hi) >> 1)
			if blkLast[m] < target {
				lo = m + 1
			} else {
				hi = m
			}
		}
		if lo >= len(blkLast) || blkLast[lo] < target {
			return len(docs)
		}
		b = lo
		pos = b * postBlockSize
	}
	// The answer is inside block b, at or after pos.
	end := min((b+1)*postBlockSize, len(docs))
	lo, hi := pos, end
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if docs[m] < target {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo
}

// At returns the current document; only valid after Next or Seek returned
// true.
func (p *PostingsIter) At() uint32 { return p.docs[p.pos] }

// Freq returns the weighted term frequency of the current document, with the
// index's 1/16 resolution.
func (p *PostingsIter) Freq() float32 { return postTF(p.tfs[p.pos]) }

// Err returns nil: in-memory postings cannot fail. It exists for the
// Prometheus iterator contract.
func (p *PostingsIter) Err() error { return nil }
