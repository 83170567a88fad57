package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"runtime"
	"runtime/metrics"
	"testing"
	"time"

	"github.com/cockroachdb/pebble"
	"github.com/klauspost/compress/zstd"
)

func TestBlobChunksAndChecksums(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	for _, size := range []int{0, 1, blobChunk - 1, blobChunk, blobChunk + 1, 2*blobChunk + 17} {
		data := make([]byte, size)
		for i := range data {
			data[i] = byte(r.Uint32())
		}
		b := s.NewBatch()
		b.PutBlob(7, 42, PartText, data)
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		got, err := s.Blob(7, 42, PartText)
		if err != nil || !bytes.Equal(got, data) {
			t.Fatalf("size %d: round trip failed: %v", size, err)
		}
	}
	// Flip one byte of the second chunk: the checksum must catch it.
	key := binary.BigEndian.AppendUint32(append(segPrefix(7, 42), PartText), 1)
	v, closer, err := s.db.Get(key)
	if err != nil {
		t.Fatal(err)
	}
	bad := bytes.Clone(v)
	closer.Close()
	bad[10] ^= 0xff
	if err := s.db.Set(key, bad, pebble.Sync); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Blob(7, 42, PartText); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("corrupted chunk: err %v, want ErrCorrupt", err)
	}
	if _, err := s.Blob(7, 43, PartText); !errors.Is(err, ErrNotFound) {
		t.Fatalf("missing blob: %v", err)
	}
	ids, err := s.Segments(7)
	if err != nil || len(ids) != 0 {
		t.Fatalf("segments without meta part: %v %v", ids, err)
	}
	s.Close()
}

func TestSequenceAndVersionSurviveReopen(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	var last uint64
	for i := 0; i < 5; i++ {
		last = s.NextID()
	}
	b := s.NewBatch()
	b.PutDocument(1, "doc", []byte(`{"s":[]}`))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	s.Close()
	s, err = Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if id := s.NextID(); id <= last {
		t.Fatalf("id %d reused after reopen (last %d)", id, last)
	}
	body, err := s.Document(1, "doc")
	if err != nil || string(body) != `{"s":[]}` {
		t.Fatalf("document body %q %v", body, err)
	}
}

func TestRefusesOtherVersion(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.db.Set([]byte(keyVersion), binary.AppendUvarint(nil, FormatVersion+1), pebble.Sync); err != nil {
		t.Fatal(err)
	}
	s.Close()
	if _, err := Open(dir); !errors.Is(err, ErrVersion) {
		t.Fatalf("opening a newer format: %v, want ErrVersion", err)
	}
}

// TestDocumentLookupSkipsOtherTables stores documents, then writes tables
// of large job-upload-like values (each flushed to its own table, whose key
// range covers the documents' keys), and checks that looking the
// documents up skips those tables by their bloom filters, and never loads
// and decompresses a megabyte block (which made searches slow while
// ingestion ran), also where compactions put the documents and the large
// values in one table.
func TestDocumentLookupSkipsOtherTables(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	b := s.NewBatch()
	for i := range 100 {
		b.PutDocument(1, fmt.Sprintf("doc%03d", i), []byte(fmt.Sprintf(`{"s":[{"text":"document %d"}]}`, i)))
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := s.db.Flush(); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	big := make([]byte, 2<<20)
	for i := range 6 {
		for k := range big {
			big[k] = byte(r.Uint32())
		}
		b := s.NewBatch()
		// Documents of another collection and a large value after them:
		// each table spans the first collection's document keys.
		b.PutDocument(0, fmt.Sprintf("other%d", i), []byte("x"))
		b.PutDocument(2, fmt.Sprintf("other%d", i), []byte("y"))
		b.b.Set([]byte(fmt.Sprintf("%sengine/jobdata/%d", prefixKV, i)), big, nil)
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		if err := s.db.Flush(); err != nil {
			t.Fatal(err)
		}
	}
	m0 := s.db.Metrics()
	for i := range 100 {
		if _, err := s.Document(1, fmt.Sprintf("doc%03d", i)); err != nil {
			t.Fatal(err)
		}
	}
	m1 := s.db.Metrics()
	if hits := m1.Filter.Hits - m0.Filter.Hits; hits == 0 {
		t.Error("no table was skipped by its bloom filter")
	}
	if grew := m1.BlockCache.Size - m0.BlockCache.Size; grew > 1<<20 {
		t.Errorf("100 document lookups loaded %d KiB of blocks", grew>>10)
	}
}

// BenchmarkDocumentAmidUploads looks documents up in a store where, after
// they were written, eight ingest jobs stored their 2.6 MB uploads, then
// 2,000 documents of another collection and a 3 MB segment blob each
// (each write flushed to a table of its own, with compactions off: on a
// busy machine they lag behind), as the overload benchmark's searches do.
func BenchmarkDocumentAmidUploads(b *testing.B) {
	cache := pebble.NewCache(blockCacheSize)
	defer cache.Unref()
	o := pebbleOptions(cache)
	o.DisableAutomaticCompactions = true
	o.L0CompactionThreshold, o.L0StopWritesThreshold = 1000, 1000
	db, err := pebble.Open(b.TempDir(), o)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	s := &Store{db: db}
	s.enc, _ = zstd.NewWriter(nil, zstd.WithEncoderConcurrency(1))
	s.dec, _ = zstd.NewReader(nil, zstd.WithDecoderConcurrency(0))
	r := rand.New(rand.NewPCG(5, 6))
	body := func(n int) []byte {
		p := make([]byte, n)
		for i := range p {
			p[i] = 'a' + byte(r.IntN(26))
			if r.IntN(6) == 0 {
				p[i] = ' '
			}
		}
		return p
	}
	batch := s.NewBatch()
	for i := range 1000 {
		batch.PutDocument(1, fmt.Sprintf("doc%04d", i), body(1200))
	}
	if err := batch.Commit(); err != nil {
		b.Fatal(err)
	}
	for j := range 8 {
		// The job's upload, stored when it is accepted, then its documents
		// and segment, stored when it runs.
		upload := s.NewBatch()
		upload.b.Set([]byte(fmt.Sprintf("%sengine/jobdata/%d", prefixKV, j)), body(2600<<10), nil)
		docs := s.NewBatch()
		for i := range 2000 {
			docs.PutDocument(2, fmt.Sprintf("j%d-%d", j, i), body(1200))
		}
		docs.PutBlob(2, uint64(j), PartText, body(3<<20))
		for _, batch := range []*Batch{upload, docs} {
			if err := batch.Commit(); err != nil {
				b.Fatal(err)
			}
			if err := s.db.Flush(); err != nil {
				b.Fatal(err)
			}
		}
	}
	m0 := db.Metrics()
	b.ResetTimer()
	n := 0
	for ; b.Loop(); n++ {
		if _, err := s.Document(1, fmt.Sprintf("doc%04d", (n*7919)%1000)); err != nil {
			b.Fatal(err)
		}
	}
	m1 := db.Metrics()
	// Blocks read from the files (and decompressed) per lookup, and their
	// bytes, as the block cache saw them (it is larger than the store).
	b.ReportMetric(float64(m1.BlockCache.Misses-m0.BlockCache.Misses)/float64(n), "blocks-read/op")
	b.ReportMetric(float64(m1.BlockCache.Size-m0.BlockCache.Size)/float64(n), "bytes-read/op")
}

// heapLive collects garbage and returns the live Go heap in bytes.
func heapLive() uint64 {
	runtime.GC()
	s := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(s)
	return s[0].Value.Uint64()
}

// TestReleaseMemory: a 64 MiB batch stays reachable inside Pebble after
// its commit (a large batch is a memtable of its own), and ReleaseMemory
// lets the collector free it.
func TestReleaseMemory(t *testing.T) {
	s, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	before := heapLive()
	data := make([]byte, 64<<20)
	r := rand.New(rand.NewPCG(3, 4))
	for i := 0; i < len(data); i += 8 {
		binary.LittleEndian.PutUint64(data[i:], r.Uint64())
	}
	b := s.NewBatch()
	b.PutBlob(7, 42, PartText, data)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	data = nil
	if held := heapLive() - before; held < 48<<20 {
		t.Fatalf("precondition: the committed batch holds %d MiB of the heap, want about 64", held>>20)
	}
	if err := s.ReleaseMemory(); err != nil {
		t.Fatal(err)
	}
	// Pebble's flush goroutine lets go of the last reference a moment
	// after Flush returns (measured: within 200 ms); without the release
	// the batch stays reachable for good.
	held := int64(heapLive()) - int64(before)
	for deadline := time.Now().Add(time.Second); held > 16<<20 && time.Now().Before(deadline); held = int64(heapLive()) - int64(before) {
		time.Sleep(20 * time.Millisecond)
	}
	if held > 16<<20 {
		t.Fatalf("1 s after ReleaseMemory the heap holds %d MiB more than before the batch", held>>20)
	}
	if got, err := s.Blob(7, 42, PartText); err != nil || len(got) != 64<<20 {
		t.Fatalf("the blob after ReleaseMemory: %d bytes, %v", len(got), err)
	}
}
