package vector

import (
	"runtime"
	"slices"
)

// Merge's reuse of a part's IVF (see doc.go, Merge).
const (
	// reuseGrowth bounds how far the merged index's number of lists may
	// be from the base part's: reused while neither is more than
	// reuseGrowth times the other. Default NList grows as √n, so the
	// lists of one training serve until the index has grown 2.25-fold;
	// with NProbe = NList/16 a search scans the same share of the
	// vectors either way, the lists being longer but fewer.
	reuseGrowth = 1.5
	// reuseShare is the least share of the merged survivors the base part
	// must hold: its centroids were trained on its vectors, and assigning
	// a minority of others to them keeps the lists balanced.
	reuseShare = 0.5
)

// mergeBase returns the part whose IVF a merge of m survivors (live[p]
// of part p) reuses, or -1 to train afresh: the part with an IVF holding
// the most survivors, if it holds at least reuseShare of them, was built
// with the same spilling, and its number of lists is within reuseGrowth
// of the merged index's (opts resolved for m; with opts.NList set, equal
// to it).
func mergeBase(parts []*Index, live []int, opts Options, m int) int {
	ro := resolve(opts, m)
	if ro.NList == 0 {
		return -1
	}
	b := -1
	for p, x := range parts {
		if x.nlist > 0 && (b < 0 || live[p] > live[b]) {
			b = p
		}
	}
	if b < 0 {
		return -1
	}
	x := parts[b]
	switch {
	case float64(live[b]) < reuseShare*float64(m),
		x.opts.NoSpill != opts.NoSpill,
		x.nlist > m,
		opts.NList != 0 && x.nlist != ro.NList,
		float64(ro.NList) > reuseGrowth*float64(x.nlist),
		float64(x.nlist) > reuseGrowth*float64(ro.NList):
		return -1
	}
	return b
}

// mergeOnto builds the merged index of vecs (by new id) on the IVF of
// parts[b]: its centroids, its survivors in the lists they were in (their
// spill lists too), and the other parts' survivors assigned to the nearest
// centroids (assignLists, as a build does). Codes are computed afresh.
func mergeOnto(parts []*Index, remap [][]int32, b int, vecs []float32, opts Options) *Index {
	base := parts[b]
	dims := base.dims
	m := len(vecs) / dims
	o := opts
	o.NList = base.nlist
	x := &Index{dims: dims, n: m, vecs: vecs, opts: resolve(o, m)}
	x.nlist = base.nlist
	x.centroids = slices.Clone(base.centroids)
	spill := !x.opts.NoSpill && x.nlist > 1
	first := make([]uint32, m)
	var second []uint32
	if spill {
		second = make([]uint32, m)
	}
	// The base's survivors keep their lists: the first list an id is met
	// in is recorded as first, a second one as its spill (the order does
	// not matter to fillLists).
	placed := make([]uint8, m) // lists an id was placed in
	for l := range base.nlist {
		for _, old := range base.listIDs[base.listStart[l]:base.listStart[l+1]] {
			nw := remap[b][old]
			if nw < 0 {
				continue
			}
			switch {
			case placed[nw] == 0:
				first[nw] = uint32(l)
			case spill:
				second[nw] = uint32(l)
			}
			placed[nw]++
		}
	}
	// The others' survivors are assigned like a build's vectors.
	var rest []uint32
	for p := range parts {
		if p == b {
			continue
		}
		for _, nw := range remap[p] {
			if nw >= 0 {
				rest = append(rest, uint32(nw))
			}
		}
	}
	if len(rest) > 0 {
		buf := make([]float32, len(rest)*dims)
		for i, id := range rest {
			copy(buf[i*dims:(i+1)*dims], vecs[int(id)*dims:int(id+1)*dims])
		}
		f, s := assignLists(buf, dims, x.centroids, spill)
		for i, id := range rest {
			first[id] = f[i]
			placed[id] = 1
			if spill && s != nil {
				second[id] = s[i]
				placed[id] = 2
			}
		}
	}
	if spill {
		for id, n := range placed {
			if n < 2 {
				second[id] = first[id] // no spill list
			}
		}
	}
	runtime.KeepAlive(parts)
	x.lo, x.scale = quantParams(vecs, dims)
	x.fillLists(first, second)
	return x
}
