package filter

import (
	"slices"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// memIndex is a brute-force Index over in-memory documents, independent of
// the invindex implementation.
type memIndex struct {
	// restrict makes NumberRange honour within, to check that callers
	// intersect the result as the contract says.
	restrict bool
	n        uint32
	strs     map[string]map[uint32][]string
	nums     map[string]map[uint32][]float64
}

func newMemIndex(n uint32) *memIndex {
	return &memIndex{n: n, strs: map[string]map[uint32][]string{}, nums: map[string]map[uint32][]float64{}}
}

func (m *memIndex) addString(doc uint32, field, v string) {
	if m.strs[field] == nil {
		m.strs[field] = map[uint32][]string{}
	}
	m.strs[field][doc] = append(m.strs[field][doc], v)
}

func (m *memIndex) addNumber(doc uint32, field string, v float64) {
	if m.nums[field] == nil {
		m.nums[field] = map[uint32][]float64{}
	}
	m.nums[field][doc] = append(m.nums[field][doc], v)
}

func (m *memIndex) NumDocs() uint32 { return m.n }

func (m *memIndex) Term(field, value string) *roaring.Bitmap {
	bm := roaring.New()
	for d, vs := range m.strs[field] {
		if slices.Contains(vs, value) {
			bm.Add(d)
		}
	}
	if bm.IsEmpty() {
		return nil
	}
	return bm
}

func (m *memIndex) Terms(field, from string, fn func(string, *roaring.Bitmap) bool) {
	var terms []string
	for _, vs := range m.strs[field] {
		terms = append(terms, vs...)
	}
	slices.Sort(terms)
	terms = slices.Compact(terms)
	for _, t := range terms {
		if t < from {
			continue
		}
		if !fn(t, m.Term(field, t)) {
			return
		}
	}
}

func (m *memIndex) NumberRange(field string, r NumRange, within, dst *roaring.Bitmap) {
	for d, vs := range m.nums[field] {
		if m.restrict && within != nil && !within.Contains(d) {
			continue
		}
		for _, v := range vs {
			if r.Contains(v) {
				dst.Add(d)
				break
			}
		}
	}
}

func (m *memIndex) NumberRangeCount(field string, r NumRange) uint64 {
	var n uint64
	for _, vs := range m.nums[field] {
		for _, v := range vs {
			if r.Contains(v) {
				n++
			}
		}
	}
	return n
}

func (m *memIndex) Exists(field string) *roaring.Bitmap {
	bm := roaring.New()
	for d := range m.strs[field] {
		bm.Add(d)
	}
	for d := range m.nums[field] {
		bm.Add(d)
	}
	if bm.IsEmpty() {
		return nil
	}
	return bm
}

func formatIDs(bm *roaring.Bitmap) string {
	if bm.IsEmpty() {
		return "none"
	}
	var b strings.Builder
	for i, d := range bm.ToArray() {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(strconv.Itoa(int(d)))
	}
	return b.String()
}
