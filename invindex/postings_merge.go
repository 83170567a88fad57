package invindex

import (
	"cmp"
	"slices"
)

// MergeTextIndexes merges the text indexes of several segments into one.
// remap[p][old] is the new document number of document old of parts[p], or
// -1 if it was deleted; a missing remap entry also means deleted, and nil
// parts are skipped. New numbers need not preserve the old order but must be
// distinct (two documents mapped to one number have their postings summed).
// The result has max(new number)+1 documents; numbers no document maps to
// get length 0. The terms are merged in order (nextTerm), each term's
// postings gathered from every part under their new numbers (gather) and
// put in document order (coalesce).
func MergeTextIndexes(parts []*TextIndex, remap [][]int32) *TextIndex {
	m := textMerge{parts: parts, remap: remap, pos: make([]int, len(parts))}
	docLen, total := m.docLengths()
	var w postWriter
	w.init(0, uint32(len(docLen)), docLen, total)
	for {
		term, found := m.nextTerm()
		if !found {
			break
		}
		if m.gather(term) {
			w.addTerm(term, m.docs, m.tfs)
		}
	}
	return w.finish()
}

// textMerge is the state of MergeTextIndexes: the parts, each part's next
// term (pos), and the buffers of the term being merged.
type textMerge struct {
	parts []*TextIndex
	remap [][]int32
	pos   []int
	pairs []postMergePair
	docs  []uint32
	tfs   []uint16
}

// mapped returns the new number of document old of part p, -1 if deleted.
func (m *textMerge) mapped(p int, old uint32) int32 {
	if p >= len(m.remap) || int(old) >= len(m.remap[p]) {
		return -1
	}
	return m.remap[p][old]
}

// docLengths returns the lengths of the merged documents, by new number
// (max(new number)+1 of them), and their total.
func (m *textMerge) docLengths() ([]float32, float64) {
	numDocs := uint32(0)
	for p, t := range m.parts {
		if t == nil {
			continue
		}
		for old := range t.numDocs {
			if n := m.mapped(p, old); n >= 0 {
				numDocs = max(numDocs, uint32(n)+1)
			}
		}
	}
	docLen := make([]float32, numDocs)
	var total float64
	for p, t := range m.parts {
		if t == nil {
			continue
		}
		for old := range t.numDocs {
			if n := m.mapped(p, old); n >= 0 {
				docLen[n] += t.docLen[old]
				total += float64(t.docLen[old])
			}
		}
	}
	return docLen, total
}

// nextTerm returns the smallest term at the parts' positions; false when
// every part is done.
func (m *textMerge) nextTerm() (string, bool) {
	term, found := "", false
	for p, t := range m.parts {
		if t == nil || m.pos[p] >= len(t.termEnd) {
			continue
		}
		if s := t.termAt(m.pos[p]); !found || s < term {
			term, found = s, true
		}
	}
	return term, found
}

// gather moves every part standing at term past it and collects term's
// postings of surviving documents under their new numbers into m.docs
// and m.tfs (coalesce); it reports whether there are any.
func (m *textMerge) gather(term string) bool {
	m.pairs = m.pairs[:0]
	for p, t := range m.parts {
		if t == nil || m.pos[p] >= len(t.termEnd) || t.termAt(m.pos[p]) != term {
			continue
		}
		i := m.pos[p]
		m.pos[p]++
		for j := t.postOff[i]; j < t.postOff[i+1]; j++ {
			if n := m.mapped(p, t.docs[j]); n >= 0 {
				m.pairs = append(m.pairs, postMergePair{doc: uint32(n), tf: t.tfs[j]})
			}
		}
	}
	if len(m.pairs) == 0 {
		return false
	}
	m.coalesce()
	return true
}

// coalesce sorts the gathered pairs by document (stable) and writes them
// to m.docs and m.tfs, summing the frequencies of a document that two
// parts mapped to one number.
func (m *textMerge) coalesce() {
	if !slices.IsSortedFunc(m.pairs, postComparePairs) {
		slices.SortStableFunc(m.pairs, postComparePairs)
	}
	m.docs, m.tfs = m.docs[:0], m.tfs[:0]
	for _, pr := range m.pairs {
		if n := len(m.docs); n > 0 && m.docs[n-1] == pr.doc {
			m.tfs[n-1] = postQuantizeTF(postTF(m.tfs[n-1]) + postTF(pr.tf))
			continue
		}
		m.docs = append(m.docs, pr.doc)
		m.tfs = append(m.tfs, pr.tf)
	}
}

// postMergePair is a posting of a merged term: new document number and
// quantized frequency.
type postMergePair struct {
	doc uint32
	tf  uint16
}

// postComparePairs orders pairs by document.
func postComparePairs(a, b postMergePair) int { return cmp.Compare(a.doc, b.doc) }
