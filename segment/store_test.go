package segment

import (
	"bytes"
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"testing"

	"github.com/cockroachdb/pebble"
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
