package vector

import (
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"math"
	"runtime"
	"unsafe"

	"github.com/najdi/najdi/internal/envelope"
)

// Format versions of an encoded index. Versions 1 and 2 (segment format
// 1) were a uvarint version, the body and a crc32 (IEEE) of both; version 3
// is the body of version 2 in an envelope (internal/envelope,
// docs/format/vector-index.md). Older versions still decode.
const (
	// formatV1 is the flat float32 format of the first, exact index; it
	// still decodes (and is re-indexed with default options).
	formatV1 = 1
	// formatV2 is the IVF format (see doc.go) before the envelope.
	formatV2 = 2
	// formatV3 is the version 2 body in an envelope, the vectors inline:
	// AppendBinary, a self-contained index.
	formatV3 = 3
	// formatV4 is the index part of a segment (AppendIndex): the format 3
	// header, the vectors file's CRC-32C instead of the vectors (they are
	// in the vectors file, vecfile.go), then the IVF and the int8 codes,
	// so that opening recomputes nothing.
	formatV4 = 4
	// magic starts every index of format 3 and later.
	magic = "NJVX"
	// flagNoSpill is set in the flags of an index built with NoSpill.
	flagNoSpill = 1
)

// AppendBinary appends the encoded index (format 3: the format 2 body of
// doc.go in an envelope) to dst and returns the extended slice.
func (x *Index) AppendBinary(dst []byte) []byte {
	start := len(dst)
	dst = envelope.Begin(dst, magic, formatV3)
	dst = x.appendHeader(dst)
	dst = appendFloats(dst, x.vecs)
	runtime.KeepAlive(x)
	if x.nlist > 0 {
		dst = x.appendLists(dst)
	}
	return envelope.End(dst, start)
}

// appendHeader appends the sizes, options and seed that open the body of
// formats 3 and 4.
func (x *Index) appendHeader(dst []byte) []byte {
	flags := 0
	if x.opts.NoSpill {
		flags |= flagNoSpill
	}
	for _, v := range []int{x.dims, x.n, x.nlist, x.opts.NProbe, x.opts.Rerank, x.opts.BruteForceBelow, flags} {
		dst = binary.AppendUvarint(dst, uint64(v))
	}
	dst = binary.AppendVarint(dst, x.opts.Seed)
	return dst
}

// AppendIndex appends the index part of format 4 to dst and returns the
// extended slice: everything but the float32 vectors, which SaveVectors
// wrote to the vectors file (it must have been called), plus the int8
// codes; Open reads it back with that file.
func (x *Index) AppendIndex(dst []byte) []byte {
	if !x.vecsCRCSet {
		panic("BUG: AppendIndex of an index whose vectors were not saved (SaveVectors)")
	}
	start := len(dst)
	dst = envelope.Begin(dst, magic, formatV4)
	dst = x.appendHeader(dst)
	dst = binary.LittleEndian.AppendUint32(dst, x.vecsCRC)
	if x.nlist > 0 {
		dst = x.appendLists(dst)
		if byID := x.codesByID(); len(byID) > 0 {
			dst = append(dst, unsafe.Slice((*byte)(unsafe.Pointer(&byID[0])), len(byID))...)
		}
		runtime.KeepAlive(x) // its codes may be off the heap (allocCodes)
	}
	return envelope.End(dst, start)
}

// appendLists appends the IVF: centroids, quantization, list sizes and ids.
func (x *Index) appendLists(dst []byte) []byte {
	dst = appendFloats(dst, x.centroids)
	dst = appendFloats(dst, x.lo)
	dst = appendFloats(dst, x.scale)
	for l := range x.nlist {
		dst = binary.AppendUvarint(dst, uint64(x.listStart[l+1]-x.listStart[l]))
	}
	for l := range x.nlist {
		prev := uint32(0)
		for _, id := range x.listIDs[x.listStart[l]:x.listStart[l+1]] {
			dst = binary.AppendUvarint(dst, uint64(id-prev))
			prev = id
		}
	}
	return dst
}

func appendFloats(dst []byte, fs []float32) []byte {
	for _, f := range fs {
		dst = binary.LittleEndian.AppendUint32(dst, math.Float32bits(f))
	}
	return dst
}

// decoder reads an encoded index; the first error sticks.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: %s", ErrCorrupt, what)
	}
}

func (d *decoder) uvarint(what string, limit uint64) int {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 || v > limit {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return int(v)
}

func (d *decoder) floats(what string, n int) []float32 {
	if d.err != nil {
		return nil
	}
	if n < 0 || len(d.b)/4 < n {
		d.fail(what)
		return nil
	}
	out := make([]float32, n)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(d.b[4*i:]))
	}
	d.b = d.b[4*n:]
	return out
}

// Decode decodes an index written by AppendBinary (or the formats 1 and 2
// of earlier versions). It returns an error wrapping ErrCorrupt when the
// checksum, the version or the structure is wrong; it never panics on bad
// data. The index does not alias data.
func Decode(data []byte) (*Index, error) {
	if envelope.Has(data, magic) {
		v, body, err := envelope.Open(data, magic)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		switch v {
		case formatV3:
		case formatV4:
			return nil, fmt.Errorf("%w: format 4 keeps its vectors in a vectors file (vector.Open)", ErrCorrupt)
		default:
			return nil, fmt.Errorf("%w: unknown version %d", ErrCorrupt, v)
		}
		return decodeIVF(&decoder{b: body}, false)
	}
	if len(data) < 4 || crc32.ChecksumIEEE(data[:len(data)-4]) != binary.LittleEndian.Uint32(data[len(data)-4:]) {
		return nil, fmt.Errorf("%w: checksum", ErrCorrupt)
	}
	d := &decoder{b: data[:len(data)-4]}
	maxInt := uint64(math.MaxInt32)
	switch d.uvarint("version", maxInt) {
	case formatV1:
		dims := d.uvarint("dims", maxInt)
		cnt := d.uvarint("count", maxInt)
		vecs := d.floats("vectors", cnt)
		if d.err == nil && (len(d.b) != 0 || (dims == 0 && cnt != 0) || (dims != 0 && cnt%dims != 0)) {
			d.fail("vector count")
		}
		if d.err != nil {
			return nil, d.err
		}
		return build(dims, vecs, Options{}), nil
	case formatV2:
	default:
		if d.err != nil {
			return nil, d.err
		}
		return nil, fmt.Errorf("%w: unknown version", ErrCorrupt)
	}
	return decodeIVF(d, false)
}

// decodeIVF decodes the body of formats 2 and 3, after the version, or
// with external the body of format 4: the vectors file's checksum instead
// of the vectors, and the codes by id after the lists (expanded to the
// list positions).
func decodeIVF(d *decoder, external bool) (*Index, error) {
	maxInt := uint64(math.MaxInt32)
	x := &Index{}
	x.dims = d.uvarint("dims", maxInt)
	x.n = d.uvarint("count", maxInt)
	x.nlist = d.uvarint("nlist", maxInt)
	x.opts.NList = x.nlist
	x.opts.NProbe = d.uvarint("nprobe", maxInt)
	x.opts.Rerank = d.uvarint("rerank", maxInt)
	x.opts.BruteForceBelow = d.uvarint("brute force below", maxInt)
	x.opts.NoSpill = d.uvarint("flags", flagNoSpill)&flagNoSpill != 0
	if d.err == nil {
		seed, n := binary.Varint(d.b)
		if n <= 0 {
			d.fail("seed")
		} else {
			x.opts.Seed, d.b = seed, d.b[n:]
		}
	}
	switch {
	case d.err != nil:
	case external:
		// The codes (one byte per value) follow when there is an IVF;
		// without one the vectors file alone holds n·dims values.
		if uint64(x.dims)*uint64(x.n) > maxVectorValues || (x.nlist > 0 && uint64(x.dims)*uint64(x.n) > uint64(len(d.b))) {
			d.fail("sizes")
		}
		if len(d.b) < 4 {
			d.fail("vectors checksum")
		} else {
			x.vecsCRC, x.vecsCRCSet, d.b = binary.LittleEndian.Uint32(d.b), true, d.b[4:]
		}
	case uint64(x.dims)*uint64(x.n) > uint64(len(d.b))/4:
		d.fail("sizes")
	}
	if d.err == nil && (x.nlist > x.n || (x.n > 0 && x.dims == 0)) {
		d.fail("sizes")
	}
	if !external {
		x.vecs = d.floats("vectors", x.dims*x.n)
	}
	if x.nlist > 0 {
		x.centroids = d.floats("centroids", x.nlist*x.dims)
		x.lo = d.floats("quantization offsets", x.dims)
		x.scale = d.floats("quantization scales", x.dims)
		// Each id is in one list, or two when spilled.
		x.listStart = make([]uint32, x.nlist+1)
		for l := range x.nlist {
			sz := d.uvarint("list size", uint64(2*x.n))
			x.maxList = max(x.maxList, sz)
			x.listStart[l+1] = x.listStart[l] + uint32(sz)
			if int(x.listStart[l+1]) > 2*x.n {
				d.fail("list sizes")
				break
			}
		}
		if d.err == nil && (int(x.listStart[x.nlist]) < x.n || (x.opts.NoSpill && int(x.listStart[x.nlist]) != x.n)) {
			d.fail("list sizes")
		}
		if d.err == nil {
			x.listIDs = make([]uint32, x.listStart[x.nlist])
			seen := make([]uint8, x.n)
			for l := 0; l < x.nlist && d.err == nil; l++ {
				id := 0
				for p := x.listStart[l]; p < x.listStart[l+1]; p++ {
					delta := d.uvarint("list id", uint64(x.n))
					if p > x.listStart[l] && delta == 0 {
						d.fail("list ids not ascending")
						break
					}
					id += delta
					if id >= x.n || seen[id] == 2 {
						d.fail("list id")
						break
					}
					seen[id]++
					x.listIDs[p] = uint32(id)
				}
			}
			for _, c := range seen {
				if d.err == nil && c == 0 {
					d.fail("id in no list")
				}
			}
		}
	}
	if external && x.nlist > 0 && d.err == nil {
		// len(d.b) ≥ n·dims was checked with the sizes.
		nc := x.n * x.dims
		if len(d.b) < nc {
			d.fail("codes")
		} else {
			byID := d.b[:nc]
			d.b = d.b[nc:]
			if d.err == nil && len(d.b) == 0 && nc > 0 {
				x.expandCodes(unsafe.Slice((*int8)(unsafe.Pointer(&byID[0])), nc))
			}
		}
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail("trailing bytes")
	}
	if d.err != nil {
		return nil, d.err
	}
	if x.nlist > 0 && !external {
		x.encodeLists()
	}
	return x, nil
}

// maxVectorValues bounds n·dims of a format 4 index (whose vectors are not
// in the part, so their count is not bounded by its length): 2³⁸ values,
// a terabyte of float32.
const maxVectorValues = 1 << 38
