package invindex

import (
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/najdi/najdi/filter"
)

// fldMinBucket is the smallest number of (value, doc) pairs per range
// bucket; fldBuckets is the target number of buckets per number field.
const (
	fldMinBucket = 1024
	fldBuckets   = 128
)

// FieldBuilder accumulates the filterable field values of the documents of
// one segment. It is not safe for concurrent use.
type FieldBuilder struct {
	strs map[string]map[string]*roaring.Bitmap
	nums map[string][]fldPair
}

// fldPair is one value of a number field.
type fldPair struct {
	v   float64
	doc uint32
}

// NewFieldBuilder returns an empty builder.
func NewFieldBuilder() *FieldBuilder {
	return &FieldBuilder{strs: make(map[string]map[string]*roaring.Bitmap), nums: make(map[string][]fldPair)}
}

// AddString records that doc holds value in the string field. Several
// values per doc and field are allowed.
func (b *FieldBuilder) AddString(doc uint32, field, value string) {
	m := b.strs[field]
	if m == nil {
		m = make(map[string]*roaring.Bitmap)
		b.strs[field] = m
	}
	bm := m[value]
	if bm == nil {
		bm = roaring.New()
		m[value] = bm
	}
	bm.Add(doc)
}

// AddNumber records that doc holds v in the number field. NaN is ignored.
func (b *FieldBuilder) AddNumber(doc uint32, field string, v float64) {
	if math.IsNaN(v) {
		return
	}
	if v == 0 {
		v = 0 // fold -0 into +0
	}
	b.nums[field] = append(b.nums[field], fldPair{v, doc})
}

// Build returns the immutable index of the documents 0..numDocs-1. Values
// added for docs >= numDocs are dropped. The builder must not be used after.
func (b *FieldBuilder) Build(numDocs uint32) *FieldIndex {
	f := &FieldIndex{numDocs: numDocs, fields: make(map[string]*fldField)}
	get := func(name string) *fldField {
		fd := f.fields[name]
		if fd == nil {
			fd = &fldField{}
			f.fields[name] = fd
		}
		return fd
	}
	for name, m := range b.strs {
		fd := get(name)
		fd.terms = make([]string, 0, len(m))
		for t := range m {
			fd.terms = append(fd.terms, t)
		}
		sort.Strings(fd.terms)
		fd.docs = make([]*roaring.Bitmap, len(fd.terms))
		for i, t := range fd.terms {
			bm := m[t]
			if !bm.IsEmpty() && bm.Maximum() >= numDocs {
				bm.RemoveRange(uint64(numDocs), math.MaxUint32+1)
			}
			bm.RunOptimize()
			fd.docs[i] = bm
		}
		fd.dropEmptyTerms()
	}
	for name, ps := range b.nums {
		ps = slices.DeleteFunc(ps, func(p fldPair) bool { return p.doc >= numDocs })
		fd := get(name)
		fd.setPairs(ps)
	}
	for name, fd := range f.fields {
		fd.finish()
		if fd.exists == nil {
			delete(f.fields, name)
		}
	}
	f.finish()
	return f
}

// FieldIndex is the immutable field data of one segment: a sorted term
// dictionary with a roaring bitmap per term for string fields, and the
// (value, doc) pairs sorted by value plus per-doc value columns for number
// fields. It implements filter.Index and is safe for concurrent use.
type FieldIndex struct {
	numDocs uint32
	names   []string
	fields  map[string]*fldField
}

var _ filter.Index = (*FieldIndex)(nil)

type fldField struct {
	terms []string
	docs  []*roaring.Bitmap

	// Number values: pairs sorted by (value, doc).
	nums    []float64
	numDocs []uint32
	// buckets[i] holds the docs of pairs [i*bucket, (i+1)*bucket).
	bucket  int
	buckets []*roaring.Bitmap
	// Per-doc columns: the values of doc colDocs[i] are
	// colVal[colOff[i]:colOff[i+1]], ascending; colDocs is sorted.
	colDocs []uint32
	colOff  []uint32
	colVal  []float64

	exists *roaring.Bitmap
}

func (fd *fldField) dropEmptyTerms() {
	j := 0
	for i := range fd.terms {
		if fd.docs[i].IsEmpty() {
			continue
		}
		fd.terms[j], fd.docs[j] = fd.terms[i], fd.docs[i]
		j++
	}
	fd.terms, fd.docs = fd.terms[:j], fd.docs[:j]
}

// setPairs sorts and deduplicates ps and derives buckets and columns.
func (fd *fldField) setPairs(ps []fldPair) {
	slices.SortFunc(ps, func(a, b fldPair) int {
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return int(int64(a.doc) - int64(b.doc))
	})
	ps = slices.Compact(ps)
	fd.nums = make([]float64, len(ps))
	fd.numDocs = make([]uint32, len(ps))
	for i, p := range ps {
		fd.nums[i], fd.numDocs[i] = p.v, p.doc
	}
	fd.derive()
}

// derive builds the range buckets and the per-doc columns from the pairs.
func (fd *fldField) derive() {
	n := len(fd.nums)
	if n == 0 {
		fd.nums, fd.numDocs = nil, nil
		return
	}
	fd.bucket = max(fldMinBucket, (n+fldBuckets-1)/fldBuckets)
	fd.buckets = fd.buckets[:0]
	for lo := 0; lo+fd.bucket <= n; lo += fd.bucket {
		bm := roaring.New()
		bm.AddMany(fd.numDocs[lo : lo+fd.bucket])
		bm.RunOptimize()
		fd.buckets = append(fd.buckets, bm)
	}
	// Per-doc columns, sparse: only docs with values take space.
	byDoc := make([]fldPair, n)
	for i, d := range fd.numDocs {
		byDoc[i] = fldPair{fd.nums[i], d}
	}
	slices.SortFunc(byDoc, func(a, b fldPair) int {
		if a.doc != b.doc {
			return int(int64(a.doc) - int64(b.doc))
		}
		switch {
		case a.v < b.v:
			return -1
		case a.v > b.v:
			return 1
		}
		return 0
	})
	fd.colDocs, fd.colOff = fd.colDocs[:0], fd.colOff[:0]
	fd.colVal = make([]float64, n)
	for i, p := range byDoc {
		if i == 0 || p.doc != byDoc[i-1].doc {
			fd.colDocs = append(fd.colDocs, p.doc)
			fd.colOff = append(fd.colOff, uint32(i))
		}
		fd.colVal[i] = p.v
	}
	fd.colOff = append(fd.colOff, uint32(n))
}

// docValues returns the values of doc, ascending.
func (fd *fldField) docValues(doc uint32) []float64 {
	i, ok := slices.BinarySearch(fd.colDocs, doc)
	if !ok {
		return nil
	}
	return fd.colVal[fd.colOff[i]:fd.colOff[i+1]]
}

// finish computes exists.
func (fd *fldField) finish() {
	ex := roaring.New()
	for _, bm := range fd.docs {
		ex.Or(bm)
	}
	for _, bm := range fd.buckets {
		ex.Or(bm)
	}
	if tail := len(fd.buckets) * fd.bucket; tail < len(fd.numDocs) {
		ex.AddMany(fd.numDocs[tail:])
	}
	if ex.IsEmpty() {
		fd.exists = nil
		return
	}
	ex.RunOptimize()
	fd.exists = ex
}

func (f *FieldIndex) finish() {
	f.names = make([]string, 0, len(f.fields))
	for name := range f.fields {
		f.names = append(f.names, name)
	}
	sort.Strings(f.names)
}

// NumDocs returns the number of documents of the segment.
func (f *FieldIndex) NumDocs() uint32 { return f.numDocs }

// Fields returns the names of the fields with at least one value, sorted.
// The slice is read-only.
func (f *FieldIndex) Fields() []string { return f.names }

// Term returns the docs holding value in the string field, nil if none.
// The bitmap is read-only.
func (f *FieldIndex) Term(field, value string) *roaring.Bitmap {
	fd := f.fields[field]
	if fd == nil {
		return nil
	}
	i, ok := slices.BinarySearch(fd.terms, value)
	if !ok {
		return nil
	}
	return fd.docs[i]
}

// Terms calls fn with the terms of the string field that are >= from, in
// ascending order, until fn returns false. Bitmaps are read-only.
func (f *FieldIndex) Terms(field, from string, fn func(term string, docs *roaring.Bitmap) bool) {
	fd := f.fields[field]
	if fd == nil {
		return
	}
	i, _ := slices.BinarySearch(fd.terms, from)
	for ; i < len(fd.terms); i++ {
		if !fn(fd.terms[i], fd.docs[i]) {
			return
		}
	}
}

// NumTerms returns the size of the term dictionary of the string field.
func (f *FieldIndex) NumTerms(field string) int {
	if fd := f.fields[field]; fd != nil {
		return len(fd.terms)
	}
	return 0
}

// Exists returns the docs with at least one value of field, nil if none.
func (f *FieldIndex) Exists(field string) *roaring.Bitmap {
	if fd := f.fields[field]; fd != nil {
		return fd.exists
	}
	return nil
}

// NumberValues returns the values of the number field held by doc, in
// ascending order. The slice is read-only.
func (f *FieldIndex) NumberValues(field string, doc uint32) []float64 {
	fd := f.fields[field]
	if fd == nil {
		return nil
	}
	return fd.docValues(doc)
}

// pairRange returns the pair indexes [i, j) with values in r.
func (fd *fldField) pairRange(r filter.NumRange) (int, int) {
	i := sort.Search(len(fd.nums), func(k int) bool {
		if r.LoIncl {
			return fd.nums[k] >= r.Lo
		}
		return fd.nums[k] > r.Lo
	})
	j := sort.Search(len(fd.nums), func(k int) bool {
		if r.HiIncl {
			return fd.nums[k] > r.Hi
		}
		return fd.nums[k] >= r.Hi
	})
	return i, max(i, j)
}

// NumberRangeCount returns the number of (value, doc) pairs in r, an upper
// bound of the docs NumberRange adds.
func (f *FieldIndex) NumberRangeCount(field string, r filter.NumRange) uint64 {
	fd := f.fields[field]
	if fd == nil || len(fd.nums) == 0 || r.Empty() {
		return 0
	}
	i, j := fd.pairRange(r)
	return uint64(j - i)
}

// fldBufPool holds scratch doc buffers for NumberRange.
var fldBufPool = sync.Pool{New: func() any { b := make([]uint32, 0, 1024); return &b }}

// NumberRange ORs into dst the docs with a value of the number field in r.
// When within is given and much smaller than the range, it checks the docs
// of within against the per-doc column instead (adding only those).
func (f *FieldIndex) NumberRange(field string, r filter.NumRange, within, dst *roaring.Bitmap) {
	fd := f.fields[field]
	if fd == nil || len(fd.nums) == 0 || r.Empty() {
		return
	}
	i, j := fd.pairRange(r)
	if i == j {
		return
	}
	if within != nil && within.GetCardinality()*4 < uint64(j-i) {
		bp := fldBufPool.Get().(*[]uint32)
		buf := (*bp)[:0]
		pos := 0
		within.Iterate(func(d uint32) bool {
			// within ascends: gallop forward in colDocs from the last hit.
			pos = fldGallop(fd.colDocs, pos, d)
			if pos == len(fd.colDocs) {
				return false
			}
			if fd.colDocs[pos] != d {
				return true
			}
			for _, v := range fd.colVal[fd.colOff[pos]:fd.colOff[pos+1]] {
				if r.Contains(v) {
					buf = append(buf, d)
					break
				}
			}
			if len(buf) == cap(buf) {
				dst.AddMany(buf)
				buf = buf[:0]
			}
			return true
		})
		dst.AddMany(buf)
		*bp = buf[:0]
		fldBufPool.Put(bp)
		return
	}
	bi := (i + fd.bucket - 1) / fd.bucket
	bj := j / fd.bucket
	if bi >= bj {
		dst.AddMany(fd.numDocs[i:j])
		return
	}
	dst.AddMany(fd.numDocs[i : bi*fd.bucket])
	dst.AddMany(fd.numDocs[bj*fd.bucket : j])
	if bj-bi == 1 {
		dst.Or(fd.buckets[bi])
		return
	}
	dst.Or(roaring.FastOr(fd.buckets[bi:bj]...))
}

// fldGallop returns the first index >= from with a[i] >= x (len(a) if none),
// by exponential then binary search.
func fldGallop(a []uint32, from int, x uint32) int {
	if from >= len(a) || a[from] >= x {
		return from
	}
	lo, step := from, 1
	for lo+step < len(a) && a[lo+step] < x {
		lo += step
		step *= 2
	}
	hi := min(lo+step, len(a))
	i, _ := slices.BinarySearch(a[lo+1:hi], x)
	return lo + 1 + i
}
