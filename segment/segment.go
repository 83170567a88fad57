package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/internal/envelope"
	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/vector"
)

// Envelopes of the segment's own parts (internal/envelope; the text, field
// and vector parts carry those of their packages). docs/format/ describes
// each part.
const (
	// metaMagic and metaVersion frame the meta part. Version 1 (segment
	// format 1) was a uvarint 1 and the body, without magic or checksum.
	metaMagic   = "NJSM"
	metaVersion = 2
	// deletesMagic and deletesVersion frame the delete bitmap. Segment
	// format 1 stored the bare roaring bitmap.
	deletesMagic   = "NJDL"
	deletesVersion = 1
	// metaVersion1 is the leading uvarint of a format 1 meta part.
	metaVersion1 = 1
)

// ChunkRef locates one embedded chunk: the local document, the section and
// the [Start, End) code-point range inside that section's content.
type ChunkRef struct {
	Doc     uint32
	Section uint32
	Start   uint32
	End     uint32
}

// Segment is an immutable set of indexed documents with local numbers
// 0..len(Docs)-1. Only Deleted changes after the segment is written, and it
// is replaced (copy on write), never modified in place, so readers holding a
// Segment need no lock.
type Segment struct {
	ID      uint64
	Docs    []string             // local number → document id
	Text    *invindex.TextIndex  // keyword postings
	Fields  *invindex.FieldIndex // filterable field values
	Vectors *vector.Index        // chunk vectors; nil for keyword-only collections
	Chunks  []ChunkRef           // chunk id → location
	Deleted *roaring.Bitmap      // deleted local documents (read-only)
	Bytes   int                  // encoded size, for merge policy and metrics

	chunks *chunkIndex // lazily built document → chunk range index
}

// chunkIndex maps a local document to its contiguous range of chunk ids.
type chunkIndex struct {
	once  sync.Once
	start []uint32 // start[d]..start[d+1] are the chunks of document d
	// identity: chunk i is the one chunk of document i, for every
	// document (a segment of one-chunk documents, such as records).
	identity bool
}

// ChunkRange returns the chunk ids [lo, hi) of local document doc. Chunks
// of a document are contiguous because they are added document by
// document.
func (s *Segment) ChunkRange(doc uint32) (lo, hi uint32) {
	ci := s.chunkIndex()
	return ci.start[doc], ci.start[doc+1]
}

// chunkIndex returns the segment's chunk index, built on first use.
func (s *Segment) chunkIndex() *chunkIndex {
	if s.chunks == nil {
		panic("BUG: segment without chunk index (use InitChunkIndex)")
	}
	ci := s.chunks
	ci.once.Do(func() {
		ci.start = make([]uint32, len(s.Docs)+1)
		for _, c := range s.Chunks {
			ci.start[c.Doc+1]++
		}
		ci.identity = len(s.Chunks) == len(s.Docs)
		for i := 1; i < len(ci.start); i++ {
			ci.identity = ci.identity && ci.start[i] == 1
			ci.start[i] += ci.start[i-1]
		}
	})
	return ci
}

// AllowedChunks returns the chunks of the documents in docs (nil: every
// document) that are not deleted, nil when that is every chunk. The cost
// is proportional to the allowed (or deleted) documents, not to the
// chunks; in a segment of one-chunk documents without deletes it returns
// docs itself. The result may alias docs or buf and must not be modified;
// buf, when not nil, is reused for the chunk ids.
func (s *Segment) AllowedChunks(docs *roaring.Bitmap, buf *[]uint32) *roaring.Bitmap {
	ci := s.chunkIndex()
	deleted := s.Deleted != nil && !s.Deleted.IsEmpty()
	switch {
	case docs == nil && !deleted:
		return nil
	case docs == nil:
		out := roaring.New()
		out.AddRange(0, uint64(len(s.Chunks)))
		it := s.Deleted.Iterator()
		for it.HasNext() {
			if d := it.Next(); int(d) < len(s.Docs) {
				if lo, hi := ci.start[d], ci.start[d+1]; lo < hi {
					out.RemoveRange(uint64(lo), uint64(hi))
				}
			}
		}
		return out
	case ci.identity && (!deleted || !docs.Intersects(s.Deleted)):
		return docs
	}
	var ids []uint32
	if buf != nil {
		ids = (*buf)[:0]
	}
	it := docs.Iterator()
	for it.HasNext() {
		d := it.Next()
		if int(d) >= len(s.Docs) {
			break
		}
		if deleted && s.Deleted.Contains(d) {
			continue
		}
		for c := ci.start[d]; c < ci.start[d+1]; c++ {
			ids = append(ids, c)
		}
	}
	if buf != nil {
		*buf = ids
	}
	out := roaring.New()
	out.AddMany(ids)
	return out
}

// InitChunkIndex prepares the lazily built chunk index; call it once when
// the segment's Docs and Chunks are final (copies share the index).
func (s *Segment) InitChunkIndex() {
	if s.chunks == nil {
		s.chunks = &chunkIndex{}
	}
}

// Live returns the number of documents not deleted.
func (s *Segment) Live() int { return len(s.Docs) - int(s.Deleted.GetCardinality()) }

// SaveVectors writes the float32 vectors of the segment's vector index to
// its vectors file (Store.VectorsPath; synced) and makes the index read
// them from there instead of the heap (vector.Index.SaveVectors). Call it
// before the segment is shared; a flush calls it outside the collection's
// write lock, so that Write only encodes. It does nothing without vectors,
// when they are already saved, or when they are small enough to stay
// inline in the segment's vector part (Store.InlineVectors): those are
// made durable by the batch's WAL sync alone, with no file to create and
// fsync.
func (s *Segment) SaveVectors(st *Store, num uint32) error {
	if s.Vectors == nil || s.Vectors.OnFile() || st.InlineVectors(s.Vectors) {
		return nil
	}
	if err := s.Vectors.SaveVectors(st.VectorsPath(num, s.ID)); err != nil {
		return fmt.Errorf("segment %d: %w", s.ID, err)
	}
	return nil
}

// vectorsFileBytes is the size of the segment's vectors file (0 when its
// vectors are inline).
func (s *Segment) vectorsFileBytes() int {
	if s.Vectors == nil || !s.Vectors.OnFile() {
		return 0
	}
	return 4 * s.Vectors.Len() * s.Vectors.Dims()
}

// Write adds every part of the segment to the batch, after saving its
// vectors file (SaveVectors) when that was not done yet. A vector index
// small enough (Store.InlineVectors) and not on file yet is written
// inline, in format 3 (vector.Index.AppendBinary), with no vectors file;
// a larger one as an index part of format 4 beside its vectors file.
func (s *Segment) Write(b *Batch, num uint32) error {
	if err := s.SaveVectors(b.s, num); err != nil {
		return err
	}
	meta := s.encodeMeta()
	b.PutBlob(num, s.ID, PartMeta, meta)
	text := s.Text.AppendBinary(nil)
	b.PutBlob(num, s.ID, PartText, text)
	fields := s.Fields.AppendBinary(nil)
	b.PutBlob(num, s.ID, PartFields, fields)
	s.Bytes = len(meta) + len(text) + len(fields)
	if s.Vectors != nil {
		var vec []byte
		if s.Vectors.OnFile() {
			vec = s.Vectors.AppendIndex(nil)
		} else {
			vec = s.Vectors.AppendBinary(nil)
		}
		b.PutBlob(num, s.ID, PartVectors, vec)
		s.Bytes += len(vec) + s.vectorsFileBytes()
	}
	s.WriteDeleted(b, num)
	return nil
}

// WriteDeleted adds the delete bitmap to the batch.
func (s *Segment) WriteDeleted(b *Batch, num uint32) {
	d, err := s.Deleted.ToBytes()
	if err != nil {
		panic("BUG: serialize roaring bitmap: " + err.Error())
	}
	b.PutBlob(num, s.ID, PartDeleted, envelope.Append(nil, deletesMagic, deletesVersion, d))
}

// decodeDeleted decodes a delete bitmap part (an envelope, or the bare
// bitmap of segment format 1). The bitmap does not alias data.
func decodeDeleted(data []byte) (*roaring.Bitmap, error) {
	if envelope.Has(data, deletesMagic) {
		v, payload, err := envelope.Open(data, deletesMagic)
		if err != nil {
			return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if v != deletesVersion {
			return nil, fmt.Errorf("%w: delete bitmap version %d", ErrVersion, v)
		}
		data = payload
	}
	bm := roaring.New()
	if _, err := bm.FromUnsafeBytes(bytes.Clone(data)); err != nil {
		return nil, fmt.Errorf("%w: %v", ErrCorrupt, err)
	}
	return bm, nil
}

// Load reads segment id of collection num from the store.
func Load(st *Store, num uint32, id uint64) (*Segment, error) {
	s := &Segment{ID: id}
	meta, err := st.Blob(num, id, PartMeta)
	if err != nil {
		return nil, fmt.Errorf("segment %d meta: %w", id, err)
	}
	if err := s.decodeMeta(meta); err != nil {
		return nil, fmt.Errorf("segment %d meta: %w", id, err)
	}
	s.Bytes = len(meta)
	text, err := st.Blob(num, id, PartText)
	if err != nil {
		return nil, fmt.Errorf("segment %d text: %w", id, err)
	}
	if s.Text, err = invindex.DecodeTextIndex(text); err != nil {
		return nil, fmt.Errorf("segment %d text: %w", id, err)
	}
	fields, err := st.Blob(num, id, PartFields)
	if err != nil {
		return nil, fmt.Errorf("segment %d fields: %w", id, err)
	}
	if s.Fields, err = invindex.DecodeFieldIndex(fields); err != nil {
		return nil, fmt.Errorf("segment %d fields: %w", id, err)
	}
	s.Bytes += len(text) + len(fields)
	vec, err := st.Blob(num, id, PartVectors)
	switch {
	case errors.Is(err, ErrNotFound):
	case err != nil:
		return nil, fmt.Errorf("segment %d vectors: %w", id, err)
	case vector.External(vec):
		if s.Vectors, err = vector.Open(vec, st.VectorsPath(num, id)); err != nil {
			return nil, fmt.Errorf("segment %d vectors: %w", id, err)
		}
		s.Bytes += len(vec) + s.vectorsFileBytes()
	default:
		// A part of formats 1–3 holds the vectors. A small index stays
		// inline (formats 1 and 2 are rewritten in format 3); a larger one
		// (written before the vectors file, or before InlineVectors was
		// lowered) moves to a vectors file and its part is rewritten in
		// format 4, so that the next open neither decodes its vectors into
		// the heap nor recomputes its codes.
		if s.Vectors, err = vector.Decode(vec); err != nil {
			return nil, fmt.Errorf("segment %d vectors: %w", id, err)
		}
		inline := st.InlineVectors(s.Vectors)
		if inline && vector.Inline(vec) {
			s.Bytes += len(vec)
			break
		}
		if err := s.SaveVectors(st, num); err != nil {
			return nil, fmt.Errorf("segment %d vectors: %w", id, err)
		}
		part, format := s.Vectors.AppendIndex, 4
		if inline {
			part, format = s.Vectors.AppendBinary, 3
		}
		b := st.NewBatch()
		enc := part(nil)
		b.PutBlob(num, id, PartVectors, enc)
		if err := b.Commit(); err != nil {
			return nil, fmt.Errorf("segment %d vectors: rewrite in format %d: %w", id, format, err)
		}
		s.Bytes += len(enc) + s.vectorsFileBytes()
	}
	del, err := st.Blob(num, id, PartDeleted)
	if err != nil {
		return nil, fmt.Errorf("segment %d deletes: %w", id, err)
	}
	if s.Deleted, err = decodeDeleted(del); err != nil {
		return nil, fmt.Errorf("segment %d deletes: %w", id, err)
	}
	s.InitChunkIndex()
	return s, nil
}

// encodeMeta encodes the meta part: an envelope around the document ids and
// the chunk table (docs/format/segment-meta.md).
func (s *Segment) encodeMeta() []byte {
	b := envelope.Begin(nil, metaMagic, metaVersion)
	b = binary.AppendUvarint(b, uint64(len(s.Docs)))
	for _, d := range s.Docs {
		b = binary.AppendUvarint(b, uint64(len(d)))
		b = append(b, d...)
	}
	b = binary.AppendUvarint(b, uint64(len(s.Chunks)))
	for _, c := range s.Chunks {
		b = binary.AppendUvarint(b, uint64(c.Doc))
		b = binary.AppendUvarint(b, uint64(c.Section))
		b = binary.AppendUvarint(b, uint64(c.Start))
		b = binary.AppendUvarint(b, uint64(c.End-c.Start))
	}
	return envelope.End(b, 0)
}

// decodeMeta decodes a meta part: an envelope, or the bare body of segment
// format 1 after its uvarint version 1.
func (s *Segment) decodeMeta(b []byte) error {
	r := envelope.Decoder{B: b}
	if envelope.Has(b, metaMagic) {
		v, payload, err := envelope.Open(b, metaMagic)
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if v != metaVersion {
			return fmt.Errorf("%w: meta version %d", ErrVersion, v)
		}
		r.B = payload
	} else if v := r.Uvarint(); v != metaVersion1 {
		return fmt.Errorf("%w: meta version %d", ErrCorrupt, v)
	}
	n := r.Uvarint()
	if n > uint64(len(b)) {
		return fmt.Errorf("%w: document count %d", ErrCorrupt, n)
	}
	s.Docs = make([]string, n)
	for i := range s.Docs {
		s.Docs[i] = string(r.Bytes(r.Uvarint()))
	}
	n = r.Uvarint()
	if n > uint64(len(b)) {
		return fmt.Errorf("%w: chunk count %d", ErrCorrupt, n)
	}
	s.Chunks = make([]ChunkRef, n)
	for i := range s.Chunks {
		c := &s.Chunks[i]
		c.Doc = uint32(r.Uvarint())
		c.Section = uint32(r.Uvarint())
		c.Start = uint32(r.Uvarint())
		c.End = c.Start + uint32(r.Uvarint())
	}
	if r.Err == nil && len(r.B) != 0 {
		r.Err = fmt.Errorf("%d trailing bytes", len(r.B))
	}
	if r.Err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, r.Err)
	}
	return nil
}
