package invindex

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"math"

	"github.com/najdi/najdi/internal/envelope"
)

// Errors of the text index codec.
var (
	// ErrTextCorrupt reports a text index that fails its checksums or
	// structural checks.
	ErrTextCorrupt = errors.New("invindex: corrupt text index")
	// ErrTextVersion reports a text index written by an unknown format
	// version.
	ErrTextVersion = errors.New("invindex: unsupported text index version")
)

// postMagic starts every encoded text index.
const postMagic = "NJTX"

// Format versions of the text index.
const (
	// postVersion1 framed each block with its own crc32 and had no
	// trailing checksum (segment format 1); it still decodes.
	postVersion1 = 1
	// postVersion is the current version: the blocks in one envelope.
	postVersion = 2
)

var postCRC = crc32.MakeTable(crc32.Castagnoli)

// The encoded blocks, in order.
const (
	postBlockMeta = iota
	postBlockLengths
	postBlockVocab
	postBlockPostings
	postNumBlocks
)

var postBlockNames = [postNumBlocks]string{"meta", "lengths", "vocabulary", "postings"}

// AppendBinary appends the encoded index to dst and returns the extended
// slice: one envelope (internal/envelope; docs/format/text-index.md) of
// magic "NJTX", version 2 (all integers are unsigned varints unless noted;
// crc32 is Castagnoli over everything before it, little endian):
//
//	┌────────┬─────────┬──────────┬──────────┬────────────┬──────────┬───────┐
//	│ "NJTX" │ version │ meta blk │ lens blk │ vocabulary │ postings │ crc32 │
//	│ 4 B    │ 1 B     │          │          │ blk        │ blk      │ 4 B   │
//	└────────┴─────────┴──────────┴──────────┴────────────┴──────────┴───────┘
//	block    = len(payload) │ payload
//	           (version 1 had a crc32 after each block and none at the end)
//	meta     = numDocs │ totalLength (float64, 8 B) │ numTerms │ numPostings
//	lens     = numDocs × float32 (4 B): weighted document lengths
//	vocab    = numTerms × (sharedPrefixLen │ suffixLen │ suffix bytes),
//	           strictly increasing byte order (front coding)
//	postings = numTerms × (df │ df × (docDelta │ tf)), docDelta is the
//	           first document, then the gap to the previous one (> 0);
//	           tf is the weighted term frequency × 16 (1..65535)
//
// Block upper bounds are not stored: DecodeTextIndex recomputes them.
func (t *TextIndex) AppendBinary(dst []byte) []byte {
	start := len(dst)
	dst = envelope.Begin(dst, postMagic, postVersion)
	var buf []byte

	buf = binary.AppendUvarint(buf[:0], uint64(t.numDocs))
	buf = binary.LittleEndian.AppendUint64(buf, math.Float64bits(t.total))
	buf = binary.AppendUvarint(buf, uint64(len(t.termEnd)))
	buf = binary.AppendUvarint(buf, uint64(len(t.docs)))
	dst = postAppendBlock(dst, buf)

	buf = buf[:0]
	for _, l := range t.docLen {
		buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(l))
	}
	dst = postAppendBlock(dst, buf)

	buf = buf[:0]
	prev := ""
	for i := range t.termEnd {
		term := t.termAt(i)
		shared := 0
		for shared < len(prev) && shared < len(term) && prev[shared] == term[shared] {
			shared++
		}
		buf = binary.AppendUvarint(buf, uint64(shared))
		buf = binary.AppendUvarint(buf, uint64(len(term)-shared))
		buf = append(buf, term[shared:]...)
		prev = term
	}
	dst = postAppendBlock(dst, buf)

	buf = buf[:0]
	for i := range t.termEnd {
		s, e := t.postOff[i], t.postOff[i+1]
		buf = binary.AppendUvarint(buf, uint64(e-s))
		last := uint32(0)
		for j := s; j < e; j++ {
			buf = binary.AppendUvarint(buf, uint64(t.docs[j]-last))
			buf = binary.AppendUvarint(buf, uint64(t.tfs[j]))
			last = t.docs[j]
		}
	}
	dst = postAppendBlock(dst, buf)
	return envelope.End(dst, start)
}

func postAppendBlock(dst, payload []byte) []byte {
	dst = binary.AppendUvarint(dst, uint64(len(payload)))
	return append(dst, payload...)
}

// postReader decodes varints from a block, remembering the first error.
type postReader struct {
	b   []byte
	bad bool
}

func (r *postReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.bad = true
		r.b = nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *postReader) bytes(n uint64) []byte {
	if n > uint64(len(r.b)) {
		r.bad = true
		r.b = nil
		return nil
	}
	v := r.b[:n]
	r.b = r.b[n:]
	return v
}

// DecodeTextIndex decodes an index written by AppendBinary. The result does
// not reference data. A damaged or truncated input returns an error wrapping
// ErrTextCorrupt (or ErrTextVersion); it never panics.
func DecodeTextIndex(data []byte) (*TextIndex, error) {
	blocks, err := postSplitBlocks(data)
	if err != nil {
		return nil, err
	}
	h, err := postDecodeHeader(&blocks)
	if err != nil {
		return nil, err
	}
	numDocs, numTerms, numPostings := h.numDocs, h.numTerms, h.numPostings
	var w postWriter
	w.init(int(numTerms), uint32(numDocs), h.docLen, h.total)
	w.t.docs = make([]uint32, 0, numPostings)
	w.t.tfs = make([]uint16, 0, numPostings)
	vocab := postReader{b: blocks[postBlockVocab]}
	posts := postReader{b: blocks[postBlockPostings]}
	var prev, cur []byte
	var docs []uint32
	var tfs []uint16
	for range numTerms {
		shared := vocab.uvarint()
		suffix := vocab.bytes(vocab.uvarint())
		if vocab.bad || shared > uint64(len(prev)) {
			return nil, postCorrupt(postBlockVocab, "malformed term")
		}
		cur = append(append(cur[:0], prev[:shared]...), suffix...)
		if len(w.t.termEnd) > 0 && string(cur) <= string(prev) {
			return nil, postCorrupt(postBlockVocab, "terms out of order")
		}
		df := posts.uvarint()
		if posts.bad || df == 0 || df > uint64(len(posts.b))/2 || uint64(len(w.t.docs))+df > numPostings {
			return nil, postCorrupt(postBlockPostings, "bad document frequency")
		}
		docs, tfs = docs[:0], tfs[:0]
		last := uint64(0)
		for j := range df {
			delta := posts.uvarint()
			tf := posts.uvarint()
			doc := last + delta
			if posts.bad || (j > 0 && delta == 0) || doc >= numDocs || tf == 0 || tf > math.MaxUint16 {
				return nil, postCorrupt(postBlockPostings, "bad posting")
			}
			docs = append(docs, uint32(doc))
			tfs = append(tfs, uint16(tf))
			last = doc
		}
		w.addTerm(string(cur), docs, tfs)
		prev, cur = cur, prev
	}
	if len(vocab.b) != 0 || len(posts.b) != 0 || uint64(len(w.t.docs)) != numPostings {
		return nil, postCorrupt(postBlockPostings, "length mismatch")
	}
	return w.finish(), nil
}

// postSplitBlocks checks the framing of an encoded text index (version 2:
// the envelope's checksum; version 1: each block's) and returns its blocks.
func postSplitBlocks(data []byte) (blocks [postNumBlocks][]byte, err error) {
	if len(data) < len(postMagic)+1 || !envelope.Has(data, postMagic) {
		return blocks, fmt.Errorf("decode text index: bad magic: %w", ErrTextCorrupt)
	}
	rest, crcs := data[len(postMagic)+1:], true
	switch v := data[len(postMagic)]; v {
	case postVersion1:
	case postVersion:
		_, payload, err := envelope.Open(data, postMagic)
		if err != nil {
			return blocks, fmt.Errorf("decode text index: %w: %w", ErrTextCorrupt, err)
		}
		rest, crcs = payload, false
	default:
		return blocks, fmt.Errorf("decode text index: version %d: %w", v, ErrTextVersion)
	}
	for i := range blocks {
		n, w := binary.Uvarint(rest)
		tail := 0
		if crcs {
			tail = 4
		}
		if w <= 0 || n > uint64(len(rest)-w) || uint64(len(rest)-w)-n < uint64(tail) {
			return blocks, fmt.Errorf("decode text index: %s block truncated: %w", postBlockNames[i], ErrTextCorrupt)
		}
		payload := rest[w : w+int(n)]
		if crcs && crc32.Checksum(payload, postCRC) != binary.LittleEndian.Uint32(rest[w+int(n):]) {
			return blocks, fmt.Errorf("decode text index: %s block checksum: %w", postBlockNames[i], ErrTextCorrupt)
		}
		blocks[i] = payload
		rest = rest[w+int(n)+tail:]
	}
	if len(rest) != 0 {
		return blocks, fmt.Errorf("decode text index: %d trailing bytes: %w", len(rest), ErrTextCorrupt)
	}
	return blocks, nil
}

// postCorrupt is the error of a structural problem in block.
func postCorrupt(block int, what string) error {
	return fmt.Errorf("decode text index: %s block: %s: %w", postBlockNames[block], what, ErrTextCorrupt)
}

// postHeader is the decoded meta and lengths blocks of a text index.
type postHeader struct {
	numDocs, numTerms, numPostings uint64
	total                          float64
	docLen                         []float32
}

// postDecodeHeader decodes and checks the meta and lengths blocks: counts
// that the other blocks can hold, finite non-negative lengths.
func postDecodeHeader(blocks *[postNumBlocks][]byte) (h postHeader, err error) {
	meta := postReader{b: blocks[postBlockMeta]}
	h.numDocs = meta.uvarint()
	totalBits := meta.bytes(8)
	h.numTerms = meta.uvarint()
	h.numPostings = meta.uvarint()
	if meta.bad || len(meta.b) != 0 {
		return h, postCorrupt(postBlockMeta, "malformed")
	}
	h.total = math.Float64frombits(binary.LittleEndian.Uint64(totalBits))
	if h.numDocs >= postEnd || uint64(len(blocks[postBlockLengths])) != 4*h.numDocs {
		return h, postCorrupt(postBlockLengths, "length does not match document count")
	}
	if !(h.total >= 0) || math.IsInf(h.total, 1) {
		return h, postCorrupt(postBlockMeta, "bad total length")
	}
	// Every term takes at least 2 vocabulary bytes and every posting at
	// least 2 postings bytes: bound the allocations by the input size.
	if h.numTerms > uint64(len(blocks[postBlockVocab]))/2 || h.numPostings > uint64(len(blocks[postBlockPostings]))/2 {
		return h, postCorrupt(postBlockMeta, "counts exceed data")
	}
	h.docLen = make([]float32, h.numDocs)
	for i := range h.docLen {
		l := math.Float32frombits(binary.LittleEndian.Uint32(blocks[postBlockLengths][4*i:]))
		if !(l >= 0) || math.IsInf(float64(l), 1) {
			return h, postCorrupt(postBlockLengths, "bad document length")
		}
		h.docLen[i] = l
	}
	return h, nil
}
