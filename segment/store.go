package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"

	"github.com/cockroachdb/pebble"
	"github.com/cockroachdb/pebble/bloom"
	"github.com/klauspost/compress/zstd"

	"github.com/najdi/najdi/vector"
)

// FormatVersion is the on-disk format version written to new stores and
// checked when a store is opened (see docs/format/store.md).
const FormatVersion = 1

// Errors returned by the store.
var (
	// ErrNotFound reports a missing key.
	ErrNotFound = errors.New("segment: not found")
	// ErrCorrupt reports a checksum mismatch or undecodable data.
	ErrCorrupt = errors.New("segment: corrupt data")
	// ErrVersion reports a store written by an incompatible format version.
	ErrVersion = errors.New("segment: unsupported format version")
)

// Key prefixes of the store (docs/format/store.md describes every key).
const (
	prefixMeta       = "m/"
	prefixCollection = "c/"
	prefixDoc        = "d/"
	prefixSegment    = "s/"
	prefixKV         = "k/"
	keyVersion       = "m/version"
	keySequence      = "m/seq"
)

// Blob part identifiers inside a segment.
const (
	PartMeta    byte = 'm'
	PartText    byte = 't'
	PartFields  byte = 'f'
	PartVectors byte = 'v'
	PartDeleted byte = 'd'
)

// blobChunk is the size of one stored piece of a segment blob.
const blobChunk = 1 << 20

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// Store is najdi's durable store: one Pebble database holding collection
// records, compressed document bodies, segment blobs and generic key-values.
// All writes go through Batch and are synced to the WAL before Commit
// returns, so an acknowledged write survives a crash.
type Store struct {
	db  *pebble.DB
	seq atomic.Uint64
	enc *zstd.Encoder
	dec *zstd.Decoder
	// vecDir holds the vectors files of the segments (VectorsPath), next
	// to Pebble's files.
	vecDir string
	// inlineMax is the largest size of float32 vectors (4·n·dims bytes)
	// that a segment keeps inline in its vector part (InlineVectors);
	// negative: none.
	inlineMax atomic.Int64
}

// DefaultInlineVectorsBytes is the size of float32 vectors (4·n·dims
// bytes) up to which a new segment keeps them inline in its vector part
// (format 3), in Pebble, rather than in a vectors file of its own: 256 KiB,
// 170 chunks of 384 dimensions, 64 of 1,024. A small write (one document
// or a few) then costs one synced commit (the WAL's fdatasync) instead of
// that plus creating, fsyncing and renaming a file and fsyncing its
// directory, which tripled the time of acknowledging one document
// (bench/README.md, "Small writes with vectors"). The heap holds at most a
// few such segments per collection before the merger combines them, and
// a merged segment over the threshold gets a vectors file.
const DefaultInlineVectorsBytes = 256 << 10

// SetInlineVectorsBytes sets the size of float32 vectors up to which new
// segments keep them inline (DefaultInlineVectorsBytes when the store
// opens); a negative size gives every segment with vectors a vectors
// file. It decides the form of new segments and of parts of formats 1–3
// when they load: an inline part whose vectors exceed it (written before
// the vectors files, or under a larger size) moves to a vectors file then,
// and a small part of format 1 or 2 is rewritten inline in format 3.
func (s *Store) SetInlineVectorsBytes(n int) { s.inlineMax.Store(int64(n)) }

// InlineVectors reports whether a segment keeps the float32 vectors of x
// inline in its vector part rather than in a vectors file: x is not on
// file and its vectors take at most SetInlineVectorsBytes bytes.
func (s *Store) InlineVectors(x *vector.Index) bool {
	return !x.OnFile() && 4*int64(x.Len())*int64(x.Dims()) <= s.inlineMax.Load()
}

// vectorsDir is the directory of the vectors files inside the store's
// directory (docs/format/store.md).
const vectorsDir = "vectors"

// blockCacheSize is the size of Pebble's block cache (its default is
// 8 MiB).
const blockCacheSize = 64 << 20

// pebbleOptions returns the store's Pebble options. Every level's tables
// carry a bloom filter of their keys, so that a point lookup (a document
// body, a key-value) skips the tables that lack its key instead of loading
// and decompressing a block of each: without them a document lookup after
// a burst of ingestion decoded the blocks of unrelated segment blobs and
// job uploads (megabytes) in every recent table. The block cache is larger
// than Pebble's default for the same reason. A data block is also closed
// before a value that would overflow it (Pebble's default adds it to any
// block under 90 % full), so a large value (a blob chunk, an upload) gets a
// block of its own and a lookup of the small key before it does not
// decompress it.
func pebbleOptions(cache *pebble.Cache) *pebble.Options {
	o := &pebble.Options{Logger: quietLogger{}, Cache: cache}
	o.Levels = make([]pebble.LevelOptions, 7)
	for i := range o.Levels {
		o.Levels[i].FilterPolicy = bloom.FilterPolicy(10)
		o.Levels[i].FilterType = pebble.TableFilter
		o.Levels[i].BlockSizeThreshold = 1
	}
	return o.EnsureDefaults()
}

// Open opens (creating if needed) the store in dir.
func Open(dir string) (*Store, error) {
	cache := pebble.NewCache(blockCacheSize)
	defer cache.Unref() // the database holds its own reference
	db, err := pebble.Open(dir, pebbleOptions(cache))
	if err != nil {
		return nil, fmt.Errorf("open pebble %s: %w", dir, err)
	}
	s := &Store{db: db, vecDir: filepath.Join(dir, vectorsDir)}
	s.inlineMax.Store(DefaultInlineVectorsBytes)
	if err := os.MkdirAll(s.vecDir, 0o755); err != nil {
		db.Close()
		return nil, fmt.Errorf("vectors directory: %w", err)
	}
	s.enc, _ = zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedDefault), zstd.WithEncoderConcurrency(1))
	s.dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	v, err := s.get([]byte(keyVersion))
	switch {
	case errors.Is(err, ErrNotFound):
		if err := db.Set([]byte(keyVersion), binary.AppendUvarint(nil, FormatVersion), pebble.Sync); err != nil {
			db.Close()
			return nil, fmt.Errorf("write format version: %w", err)
		}
	case err != nil:
		db.Close()
		return nil, err
	default:
		ver, n := binary.Uvarint(v)
		if n <= 0 || ver != FormatVersion {
			db.Close()
			return nil, fmt.Errorf("%w: store has version %d, this build reads %d", ErrVersion, ver, FormatVersion)
		}
	}
	if v, err := s.get([]byte(keySequence)); err == nil && len(v) == 8 {
		s.seq.Store(binary.BigEndian.Uint64(v))
	}
	if err := s.removeOrphanVectors(); err != nil {
		db.Close()
		return nil, err
	}
	return s, nil
}

// VectorsPath returns the path of the vectors file of segment seg of
// collection num: {dir}/vectors/{num:08x}-{seg:016x}.f32.
func (s *Store) VectorsPath(num uint32, seg uint64) string {
	return filepath.Join(s.vecDir, fmt.Sprintf("%08x-%016x.f32", num, seg))
}

// DiscardVectors removes the vectors file of segment seg of collection
// num, which no committed batch references (a merge that was not
// committed); errors are ignored (the next Open removes orphans).
func (s *Store) DiscardVectors(num uint32, seg uint64) { os.Remove(s.VectorsPath(num, seg)) }

// removeOrphanVectors removes the vectors files of no stored segment: a
// flush or merge writes its file before its batch commits, and a merge or
// a collection delete removes files after its batch commits, so a crash
// in between leaves a file that nothing references (and temporary files).
func (s *Store) removeOrphanVectors() error {
	ents, err := os.ReadDir(s.vecDir)
	if err != nil {
		return fmt.Errorf("vectors directory: %w", err)
	}
	for _, e := range ents {
		var num uint32
		var seg uint64
		name := e.Name()
		keep := false
		if n, err := fmt.Sscanf(name, "%08x-%016x.f32", &num, &seg); err == nil && n == 2 && name == filepath.Base(s.VectorsPath(num, seg)) {
			_, err := s.get(binary.BigEndian.AppendUint32(append(segPrefix(num, seg), PartMeta), 0))
			switch {
			case err == nil:
				keep = true
			case !errors.Is(err, ErrNotFound):
				return err
			}
		}
		if !keep {
			if err := os.Remove(filepath.Join(s.vecDir, name)); err != nil && !errors.Is(err, os.ErrNotExist) {
				return fmt.Errorf("remove orphan vectors file: %w", err)
			}
		}
	}
	return nil
}

// Close flushes and closes the store.
func (s *Store) Close() error {
	s.dec.Close()
	return s.db.Close()
}

// MemoryUsage reports the memory Pebble holds outside the Go heap: its
// block cache (bounded by blockCacheSize) and its memtables (live and
// queued for flushing), in bytes.
func (s *Store) MemoryUsage() (cache, memtables int64) {
	m := s.db.Metrics()
	return m.BlockCache.Size, int64(m.MemTable.Size)
}

// NextID returns a new store-wide unique id (collection numbers, segment
// ids). The counter is persisted by every committed batch, so an id used in
// durable data is never handed out again after a restart.
func (s *Store) NextID() uint64 {
	return s.seq.Add(1)
}

func (s *Store) get(key []byte) ([]byte, error) {
	v, closer, err := s.db.Get(key)
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get %q: %w", key, err)
	}
	out := bytes.Clone(v)
	closer.Close()
	return out, nil
}

// Batch collects writes that commit atomically.
type Batch struct {
	s *Store
	b *pebble.Batch
	// drop are the vectors files of the segments the batch deletes, and
	// dropColls the collections whose files all go, removed once it
	// commits.
	drop      []string
	dropColls []uint32
}

// NewBatch starts an atomic batch.
func (s *Store) NewBatch() *Batch { return &Batch{s: s, b: s.db.NewBatch()} }

// Commit writes the batch durably (fsync of the WAL) and releases it.
func (b *Batch) Commit() error {
	b.b.Set([]byte(keySequence), binary.BigEndian.AppendUint64(nil, b.s.seq.Load()), nil)
	err := b.b.Commit(pebble.Sync)
	b.b.Close()
	if err != nil {
		return fmt.Errorf("commit batch: %w", err)
	}
	b.s.removeVectors(b.drop, b.dropColls)
	return nil
}

// removeVectors removes the vectors files of deleted segments and
// collections after their batch committed. A failure leaves an orphan
// that the next Open removes, so it is not reported; readers that still
// hold a deleted segment keep reading its mapping (an unlinked file stays
// mapped).
func (s *Store) removeVectors(paths []string, colls []uint32) {
	for _, p := range paths {
		os.Remove(p)
	}
	if len(colls) == 0 {
		return
	}
	ents, err := os.ReadDir(s.vecDir)
	if err != nil {
		return
	}
	for _, num := range colls {
		prefix := fmt.Sprintf("%08x-", num)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), prefix) {
				os.Remove(filepath.Join(s.vecDir, e.Name()))
			}
		}
	}
}

// releaseFlushes is the number of flushes ReleaseMemory makes.
const releaseFlushes = 8

// ReleaseMemory has Pebble let go of the large batches it has written (a
// merged segment's commit: 512 MB at 1M chunks), so that the Go collector
// can free them. Pebble keeps a batch larger than half a memtable as a
// memtable of its own until it is flushed, and it drops flushed memtables
// by reslicing its queue of them from the front: the queue's array still
// points at them until appends outgrow it, so an idle server kept the last
// merge's batch for good (measured: 960 MB of live heap after a 1M load
// against 390 MB after a restart). A flush appends a memtable and drops
// one, taking one slot of the array; releaseFlushes empty flushes (about
// 1 ms each) outgrow any queue of up to that many memtables, and the array
// goes. Pebble's flush goroutine drops its own reference a moment after
// Flush returns (within 200 ms in TestReleaseMemory), so a collection
// right after may still find the batch live; the runtime's periodic
// collection (every 2 minutes at the latest) then frees it. Used when the
// engine returns memory to the system, which is rare.
func (s *Store) ReleaseMemory() error {
	for range releaseFlushes {
		if err := s.db.Flush(); err != nil {
			return fmt.Errorf("flush: %w", err)
		}
	}
	return nil
}

// Abort discards the batch.
func (b *Batch) Abort() { b.b.Close() }

// Len returns the approximate size of the batch in bytes.
func (b *Batch) Len() int { return b.b.Len() }

// ---- collections ----

func collectionKey(owner, id string) []byte {
	return []byte(prefixCollection + owner + "\x00" + id)
}

// PutCollection stores a collection record (opaque bytes owned by the engine).
func (b *Batch) PutCollection(owner, id string, rec []byte) {
	b.b.Set(collectionKey(owner, id), rec, nil)
}

// DeleteCollection removes a collection record and every document and
// segment of collection number num.
func (b *Batch) DeleteCollection(owner, id string, num uint32) {
	b.b.Delete(collectionKey(owner, id), nil)
	for _, p := range []string{prefixDoc, prefixSegment} {
		lo := numPrefix(p, num)
		b.b.DeleteRange(lo, prefixEnd(lo), nil)
	}
	b.dropColls = append(b.dropColls, num)
}

// Collections calls fn for every stored collection record.
func (s *Store) Collections(fn func(owner, id string, rec []byte) error) error {
	return s.scan([]byte(prefixCollection), func(k, v []byte) error {
		rest := k[len(prefixCollection):]
		i := bytes.IndexByte(rest, 0)
		if i < 0 {
			return fmt.Errorf("%w: collection key %q", ErrCorrupt, k)
		}
		return fn(string(rest[:i]), string(rest[i+1:]), v)
	})
}

// ---- documents ----

func numPrefix(p string, num uint32) []byte {
	return binary.BigEndian.AppendUint32([]byte(p), num)
}

func docKey(num uint32, id string) []byte { return append(numPrefix(prefixDoc, num), id...) }

// PutDocument stores a document body (compressed with zstd).
func (b *Batch) PutDocument(num uint32, id string, body []byte) {
	b.b.Set(docKey(num, id), b.s.enc.EncodeAll(body, nil), nil)
}

// DeleteDocument removes a document body.
func (b *Batch) DeleteDocument(num uint32, id string) { b.b.Delete(docKey(num, id), nil) }

// DocumentBytes estimates the bytes on disk of collection num's document
// bodies (compressed), from the sizes of the tables holding them; bodies
// written since the last memtable flush are not counted yet.
func (s *Store) DocumentBytes(num uint32) uint64 {
	p := numPrefix(prefixDoc, num)
	n, err := s.db.EstimateDiskUsage(p, prefixEnd(p))
	if err != nil {
		return 0
	}
	return n
}

// Document returns the decompressed body of a document, or ErrNotFound.
func (s *Store) Document(num uint32, id string) ([]byte, error) {
	v, closer, err := s.db.Get(docKey(num, id))
	if errors.Is(err, pebble.ErrNotFound) {
		return nil, ErrNotFound
	}
	if err != nil {
		return nil, fmt.Errorf("get document %q: %w", id, err)
	}
	defer closer.Close()
	out, err := s.dec.DecodeAll(v, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: document %q: %v", ErrCorrupt, id, err)
	}
	return out, nil
}

// ---- segments ----

func segPrefix(num uint32, seg uint64) []byte {
	return binary.BigEndian.AppendUint64(numPrefix(prefixSegment, num), seg)
}

// PutBlob stores part of segment seg, split into checksummed chunks. Any
// previous value of the part is replaced.
func (b *Batch) PutBlob(num uint32, seg uint64, part byte, data []byte) {
	p := append(segPrefix(num, seg), part)
	b.b.DeleteRange(p, prefixEnd(p), nil)
	for i := 0; i == 0 || i*blobChunk < len(data); i++ {
		lo, hi := i*blobChunk, min((i+1)*blobChunk, len(data))
		val := make([]byte, 0, hi-lo+4)
		val = append(val, data[lo:hi]...)
		val = binary.BigEndian.AppendUint32(val, crc32.Checksum(data[lo:hi], crcTable))
		b.b.Set(binary.BigEndian.AppendUint32(bytes.Clone(p), uint32(i)), val, nil)
	}
}

// DeleteSegment removes every part of segment seg.
func (b *Batch) DeleteSegment(num uint32, seg uint64) {
	p := segPrefix(num, seg)
	b.b.DeleteRange(p, prefixEnd(p), nil)
	b.drop = append(b.drop, b.s.VectorsPath(num, seg))
}

// Blob reads part of segment seg, verifying checksums. A missing part
// returns ErrNotFound.
func (s *Store) Blob(num uint32, seg uint64, part byte) ([]byte, error) {
	p := append(segPrefix(num, seg), part)
	var out []byte
	found := false
	err := s.scan(p, func(k, v []byte) error {
		found = true
		if len(v) < 4 {
			return fmt.Errorf("%w: segment %d part %c: short chunk", ErrCorrupt, seg, part)
		}
		data, sum := v[:len(v)-4], binary.BigEndian.Uint32(v[len(v)-4:])
		if crc32.Checksum(data, crcTable) != sum {
			return fmt.Errorf("%w: segment %d part %c: checksum mismatch", ErrCorrupt, seg, part)
		}
		out = append(out, data...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, ErrNotFound
	}
	return out, nil
}

// Segments returns the ids of the stored segments of collection num in
// ascending order.
func (s *Store) Segments(num uint32) ([]uint64, error) {
	var ids []uint64
	p := numPrefix(prefixSegment, num)
	err := s.scan(p, func(k, _ []byte) error {
		if len(k) < len(p)+9 {
			return fmt.Errorf("%w: segment key %q", ErrCorrupt, k)
		}
		if k[len(p)+8] != PartMeta {
			return nil
		}
		id := binary.BigEndian.Uint64(k[len(p):])
		if len(ids) == 0 || ids[len(ids)-1] != id {
			ids = append(ids, id)
		}
		return nil
	})
	return ids, err
}

// ---- generic key-values (NLU models, phrase sets, users) ----

// KVGet returns the value of a generic key, or ErrNotFound.
func (s *Store) KVGet(key string) ([]byte, error) { return s.get([]byte(prefixKV + key)) }

// KVPut durably stores a generic key.
func (s *Store) KVPut(key string, value []byte) error {
	return s.db.Set([]byte(prefixKV+key), value, pebble.Sync)
}

// KVDelete durably deletes a generic key.
func (s *Store) KVDelete(key string) error {
	return s.db.Delete([]byte(prefixKV+key), pebble.Sync)
}

// KVPut adds the storing of a generic key to the batch.
func (b *Batch) KVPut(key string, value []byte) { b.b.Set([]byte(prefixKV+key), value, nil) }

// KVDelete adds the deletion of a generic key to the batch.
func (b *Batch) KVDelete(key string) { b.b.Delete([]byte(prefixKV+key), nil) }

// KVScan calls fn for every generic key with the prefix, in key order.
func (s *Store) KVScan(prefix string, fn func(key string, value []byte) error) error {
	return s.scan([]byte(prefixKV+prefix), func(k, v []byte) error {
		return fn(string(k[len(prefixKV):]), bytes.Clone(v))
	})
}

// ---- helpers ----

func (s *Store) scan(prefix []byte, fn func(k, v []byte) error) error {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: prefix, UpperBound: prefixEnd(prefix)})
	if err != nil {
		return fmt.Errorf("iterate %q: %w", prefix, err)
	}
	for it.First(); it.Valid(); it.Next() {
		if err := fn(it.Key(), it.Value()); err != nil {
			it.Close()
			return err
		}
	}
	if err := it.Error(); err != nil {
		it.Close()
		return fmt.Errorf("iterate %q: %w", prefix, err)
	}
	return it.Close()
}

// prefixEnd returns the smallest key greater than every key with prefix p.
func prefixEnd(p []byte) []byte {
	end := bytes.Clone(p)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil
}

type quietLogger struct{}

func (quietLogger) Infof(string, ...any) {}
func (quietLogger) Errorf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "pebble: "+format+"\n", args...)
}
func (quietLogger) Fatalf(format string, args ...any) {
	panic(fmt.Sprintf("BUG: pebble fatal: "+format, args...))
}
