package invindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/internal/envelope"
)

// Errors of the field index codec.
var (
	// ErrFieldCorrupt reports a field index that fails its checksum or
	// structural checks.
	ErrFieldCorrupt = errors.New("invindex: corrupt field index")
	// ErrFieldVersion reports a field index written by an unknown format
	// version.
	ErrFieldVersion = errors.New("invindex: unsupported field index version")
)

// fldMagic starts every encoded field index.
const fldMagic = "NJFI"

// fldVersion is the current format version.
const fldVersion = 1

// AppendBinary appends the encoded index to dst and returns the extended
// slice: one envelope (internal/envelope; docs/format/field-index.md) of
// magic "NJFI", version 1 (integers are unsigned varints unless noted; the
// trailing crc32 is Castagnoli over everything before it, little endian):
//
//	┌────────┬─────────┬─────────┬─────────┬─────────┬─────┬────────────┐
//	│ "NJFI" │ version │ numDocs │ nFields │ field 1 │ ... │ crc32 (4 B)│
//	│ 4 B    │ 1 B     │         │         │         │     │            │
//	└────────┴─────────┴─────────┴─────────┴─────────┴─────┴────────────┘
//	field = nameLen │ name │ nTerms │ nTerms × term │ nPairs │ nPairs × pair
//	term  = sharedPrefixLen │ suffixLen │ suffix │ bitmapLen │ bitmap
//	        (front coded, strictly increasing; bitmap in roaring's portable
//	        format)
//	pair  = value (float64 bits, 8 B) │ doc, sorted by (value, doc)
//
// Fields are in ascending name order. Range buckets, per-doc columns and
// exists bitmaps are not stored: DecodeFieldIndex recomputes them.
func (f *FieldIndex) AppendBinary(dst []byte) []byte {
	start := len(dst)
	dst = envelope.Begin(dst, fldMagic, fldVersion)
	dst = binary.AppendUvarint(dst, uint64(f.numDocs))
	dst = binary.AppendUvarint(dst, uint64(len(f.names)))
	for _, name := range f.names {
		fd := f.fields[name]
		dst = binary.AppendUvarint(dst, uint64(len(name)))
		dst = append(dst, name...)
		dst = binary.AppendUvarint(dst, uint64(len(fd.terms)))
		prev := ""
		for i, t := range fd.terms {
			shared := 0
			for shared < len(prev) && shared < len(t) && prev[shared] == t[shared] {
				shared++
			}
			dst = binary.AppendUvarint(dst, uint64(shared))
			dst = binary.AppendUvarint(dst, uint64(len(t)-shared))
			dst = append(dst, t[shared:]...)
			dst = binary.AppendUvarint(dst, fd.docs[i].GetSerializedSizeInBytes())
			w := fldAppender{b: dst}
			if _, err := fd.docs[i].WriteTo(&w); err != nil {
				panic("BUG: serialize bitmap: " + err.Error())
			}
			dst = w.b
			prev = t
		}
		dst = binary.AppendUvarint(dst, uint64(len(fd.nums)))
		for i, v := range fd.nums {
			dst = binary.LittleEndian.AppendUint64(dst, math.Float64bits(v))
			dst = binary.AppendUvarint(dst, uint64(fd.numDocs[i]))
		}
	}
	return envelope.End(dst, start)
}

// fldAppendCRC appends the checksum of body (used by tests to reseal).
func fldAppendCRC(body []byte) []byte { return envelope.End(body, 0) }

// fldAppender is an io.Writer appending to a slice.
type fldAppender struct{ b []byte }

func (a *fldAppender) Write(p []byte) (int, error) {
	a.b = append(a.b, p...)
	return len(p), nil
}

// DecodeFieldIndex decodes an index written by AppendBinary. Corrupt or
// truncated data yields an error wrapping ErrFieldCorrupt (or
// ErrFieldVersion); it never panics. The result does not alias data.
func DecodeFieldIndex(data []byte) (*FieldIndex, error) {
	v, body, err := envelope.Open(data, fldMagic)
	if err != nil {
		return nil, fmt.Errorf("decode field index: %w: %w", ErrFieldCorrupt, err)
	}
	if v != fldVersion {
		return nil, fmt.Errorf("decode field index: version %d: %w", v, ErrFieldVersion)
	}
	f, err := fldDecodeBody(body)
	if err != nil {
		return nil, fmt.Errorf("decode field index: %w: %w", ErrFieldCorrupt, err)
	}
	return f, nil
}

func fldDecodeBody(b []byte) (f *FieldIndex, err error) {
	defer func() {
		// roaring may panic on hostile bitmap bytes that pass the checksum.
		if p := recover(); p != nil {
			f, err = nil, fmt.Errorf("bitmap: %v", p)
		}
	}()
	r := &envelope.Decoder{B: b}
	nd := r.Uvarint()
	if nd > math.MaxUint32 {
		return nil, fmt.Errorf("numDocs %d too large", nd)
	}
	f = &FieldIndex{numDocs: uint32(nd), fields: make(map[string]*fldField)}
	nFields := r.Count(2)
	prevName := ""
	for fi := 0; fi < nFields && r.Err == nil; fi++ {
		name := string(r.Bytes(uint64(r.Count(1))))
		if fi > 0 && name <= prevName {
			return nil, fmt.Errorf("field names out of order at %q", name)
		}
		prevName = name
		fd := &fldField{}
		if err := fd.decodeTerms(r, name, f.numDocs); err != nil {
			return nil, err
		}
		if err := fd.decodeNumbers(r, name, nd); err != nil {
			return nil, err
		}
		if r.Err != nil {
			break
		}
		fd.derive()
		fd.finish()
		if fd.exists == nil {
			return nil, fmt.Errorf("field %q: no values", name)
		}
		f.fields[name] = fd
	}
	if r.Err != nil {
		return nil, r.Err
	}
	if len(r.B) != 0 {
		return nil, fmt.Errorf("%d trailing bytes", len(r.B))
	}
	f.finish()
	return f, nil
}

// decodeTerms reads the keyword terms of field name and their document
// bitmaps (each non-empty, below numDocs); a truncation is left in r.Err.
func (fd *fldField) decodeTerms(r *envelope.Decoder, name string, numDocs uint32) error {
	nTerms := r.Count(3)
	fd.terms = make([]string, 0, nTerms)
	fd.docs = make([]*roaring.Bitmap, 0, nTerms)
	prev := ""
	for ti := 0; ti < nTerms && r.Err == nil; ti++ {
		shared := r.Uvarint()
		if shared > uint64(len(prev)) {
			return fmt.Errorf("field %q: bad shared prefix", name)
		}
		suffix := r.Bytes(uint64(r.Count(1)))
		t := prev[:shared] + string(suffix)
		if ti > 0 && t <= prev {
			return fmt.Errorf("field %q: terms out of order at %q", name, t)
		}
		raw := r.Bytes(uint64(r.Count(1)))
		if r.Err != nil {
			break
		}
		bm := roaring.New()
		if err := bm.UnmarshalBinary(raw); err != nil {
			return fmt.Errorf("field %q term %q: %w", name, t, err)
		}
		if err := bm.Validate(); err != nil {
			return fmt.Errorf("field %q term %q: %w", name, t, err)
		}
		if bm.IsEmpty() || bm.Maximum() >= numDocs {
			return fmt.Errorf("field %q term %q: doc out of range", name, t)
		}
		fd.terms = append(fd.terms, t)
		fd.docs = append(fd.docs, bm)
		prev = t
	}
	return nil
}

// decodeNumbers reads the (value, document) pairs of field name, sorted by
// value then document, documents below nd; a truncation is left in r.Err.
func (fd *fldField) decodeNumbers(r *envelope.Decoder, name string, nd uint64) error {
	nPairs := r.Count(9)
	fd.nums = make([]float64, 0, nPairs)
	fd.numDocs = make([]uint32, 0, nPairs)
	for pi := 0; pi < nPairs && r.Err == nil; pi++ {
		raw := r.Bytes(8)
		doc := r.Uvarint()
		if r.Err != nil {
			break
		}
		v := math.Float64frombits(binary.LittleEndian.Uint64(raw))
		if doc >= nd || math.IsNaN(v) {
			return fmt.Errorf("field %q: bad pair", name)
		}
		if k := len(fd.nums); k > 0 && (v < fd.nums[k-1] || (v == fd.nums[k-1] && uint32(doc) <= fd.numDocs[k-1])) {
			return fmt.Errorf("field %q: pairs out of order", name)
		}
		fd.nums = append(fd.nums, v)
		fd.numDocs = append(fd.numDocs, uint32(doc))
	}
	return nil
}

// MergeFieldIndexes merges the field indexes of several segments into one.
// remap[p][oldDoc] is the new doc of oldDoc of parts[p], or -1 if the doc is
// deleted. The merged index holds max(new doc)+1 documents.
func MergeFieldIndexes(parts []*FieldIndex, remap [][]int32) *FieldIndex {
	b := NewFieldBuilder()
	numDocs := uint32(0)
	for p, part := range parts {
		m := remap[p]
		for _, nd := range m {
			if nd >= 0 {
				numDocs = max(numDocs, uint32(nd)+1)
			}
		}
		for _, name := range part.names {
			fd := part.fields[name]
			for i, t := range fd.terms {
				fd.docs[i].Iterate(func(d uint32) bool {
					if int(d) < len(m) && m[d] >= 0 {
						b.AddString(uint32(m[d]), name, t)
					}
					return true
				})
			}
			for i, v := range fd.nums {
				if d := fd.numDocs[i]; int(d) < len(m) && m[d] >= 0 {
					b.nums[name] = append(b.nums[name], fldPair{v, uint32(m[d])})
				}
			}
		}
	}
	return b.Build(numDocs)
}
