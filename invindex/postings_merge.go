package invindex

import (
	"slices"
)

// MergeTextIndexes merges the text indexes of several segments into one.
// remap[p][old] is the new document number of document old of parts[p], or
// -1 if it was deleted; a missing remap entry also means deleted, and nil
// parts are skipped. New numbers need not preserve the old order but must be
// distinct (two documents mapped to one number have their postings summed).
// The result has max(new number)+1 documents; numbers no document maps to
// get length 0.
func MergeTextIndexes(parts []*TextIndex, remap [][]int32) *TextIndex {
	mapped := func(p int, old uint32) int32 {
		if p >= len(remap) || int(old) >= len(remap[p]) {
			return -1
		}
		return remap[p][old]
	}
	numDocs := uint32(0)
	for p, t := range parts {
		if t == nil {
			continue
		}
		for old := range t.numDocs {
			if n := mapped(p, old); n >= 0 {
				numDocs = max(numDocs, uint32(n)+1)
			}
		}
	}
	docLen := make([]float32, numDocs)
	var total float64
	for p, t := range parts {
		if t == nil {
			continue
		}
		for old := range t.numDocs {
			if n := mapped(p, old); n >= 0 {
				docLen[n] += t.docLen[old]
				total += float64(t.docLen[old])
			}
		}
	}

	var w postWriter
	w.init(0, numDocs, docLen, total)
	pos := make([]int, len(parts))
	var pairs []postMergePair
	var docs []uint32
	var tfs []uint16
	for {
		term, found := "", false
		for p, t := range parts {
			if t == nil || pos[p] >= len(t.termEnd) {
				continue
			}
			if s := t.termAt(pos[p]); !found || s < term {
				term, found = s, true
			}
		}
		if !found {
			break
		}
		pairs = pairs[:0]
		for p, t := range parts {
			if t == nil || pos[p] >= len(t.termEnd) || t.termAt(pos[p]) != term {
				continue
			}
			i := pos[p]
			pos[p]++
			for j := t.postOff[i]; j < t.postOff[i+1]; j++ {
				if n := mapped(p, t.docs[j]); n >= 0 {
					pairs = append(pairs, postMergePair{doc: uint32(n), tf: t.tfs[j]})
				}
			}
		}
		if len(pairs) == 0 {
			continue
		}
		if !slices.IsSortedFunc(pairs, postComparePairs) {
			slices.SortStableFunc(pairs, postComparePairs)
		}
		docs, tfs = docs[:0], tfs[:0]
		for _, pr := range pairs {
			if n := len(docs); n > 0 && docs[n-1] == pr.doc {
				tfs[n-1] = postQuantizeTF(postTF(tfs[n-1]) + postTF(pr.tf))
				continue
			}
			docs = append(docs, pr.doc)
			tfs = append(tfs, pr.tf)
		}
		w.addTerm(term, docs, tfs)
	}
	return w.finish()
}

type postMergePair struct {
	doc uint32
	tf  uint16
}

func postComparePairs(a, b postMergePair) int {
	switch {
	case a.doc < b.doc:
		return -1
	case a.doc > b.doc:
		return 1
	}
	return 0
}
