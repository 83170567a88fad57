package segment

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/najdi/najdi/vector"
)

// TestVectorsFile checks the segment's vectors file (every segment gets
// one: SetInlineVectorsBytes(-1)): written by Write
// (synced, outside Pebble), read back by Load, every flipped byte and a
// missing or truncated file reported naming the segment, removed with
// the segment or its collection once their batch commits, and orphans
// (no stored segment) removed when the store opens.
func TestVectorsFile(t *testing.T) {
	dir := t.TempDir()
	st, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { st.Close() }()
	st.SetInlineVectorsBytes(-1)
	seg := testSegment(t)
	b := st.NewBatch()
	if err := seg.Write(b, 1); err != nil {
		t.Fatal(err)
	}
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	path := st.VectorsPath(1, seg.ID)
	if filepath.Dir(path) != filepath.Join(dir, "vectors") {
		t.Fatalf("vectors file %s outside %s/vectors", path, dir)
	}
	orig, err := os.ReadFile(path)
	if err != nil || len(orig) != 3*4*4 {
		t.Fatalf("vectors file: %d bytes, %v", len(orig), err)
	}
	q := []float32{0.5, 1, 0, 0}
	want := seg.Vectors.Search(q, 3, 0, nil, nil)
	got, err := Load(st, 1, seg.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !got.Vectors.OnFile() || !slices.Equal(got.Vectors.Search(q, 3, 0, nil, nil), want) {
		t.Fatal("loaded vectors differ")
	}
	bad := func(name string, data []byte) {
		t.Helper()
		if data == nil {
			os.Remove(path)
		} else if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(st, 1, seg.ID)
		if !errors.Is(err, vector.ErrVectorsFile) || !strings.Contains(err.Error(), "segment 9 vectors:") {
			t.Fatalf("%s: %v, want a vectors file error naming segment 9", name, err)
		}
	}
	for i := range orig {
		for _, mask := range []byte{0x01, 0x80} {
			f := slices.Clone(orig)
			f[i] ^= mask
			bad("flipped byte", f)
		}
	}
	bad("truncated", orig[:len(orig)-1])
	bad("missing", nil)
	if err := os.WriteFile(path, orig, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Load(st, 1, seg.ID); err != nil {
		t.Fatalf("restored file: %v", err)
	}

	// Orphans: a file of no segment, a temporary file, a stray name.
	orphans := []string{st.VectorsPath(1, 77), st.VectorsPath(2, seg.ID), path + ".tmp", filepath.Join(dir, "vectors", "stray")}
	for _, o := range orphans {
		if err := os.WriteFile(o, []byte("x"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	st.Close()
	if st, err = Open(dir); err != nil {
		t.Fatal(err)
	}
	st.SetInlineVectorsBytes(-1)
	for _, o := range orphans {
		if _, err := os.Stat(o); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("orphan %s kept: %v", filepath.Base(o), err)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("open removed a live vectors file: %v", err)
	}

	// Deleting the segment removes its file once the batch commits; an
	// aborted batch removes nothing.
	b = st.NewBatch()
	b.DeleteSegment(1, seg.ID)
	b.Abort()
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("aborted delete removed the file: %v", err)
	}
	b = st.NewBatch()
	b.DeleteSegment(1, seg.ID)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(path); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("deleted segment's file kept: %v", err)
	}

	// Deleting a collection removes the files of all its segments, and
	// only those.
	var paths []string
	for i, num := range []uint32{3, 3, 4} {
		s := testSegment(t)
		s.ID = uint64(100 + i)
		b := st.NewBatch()
		if err := s.Write(b, num); err != nil {
			t.Fatal(err)
		}
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, st.VectorsPath(num, s.ID))
	}
	b = st.NewBatch()
	b.DeleteCollection("", "c3", 3)
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	for i, p := range paths {
		_, err := os.Stat(p)
		if gone := errors.Is(err, os.ErrNotExist); gone != (i < 2) {
			t.Errorf("%s: removed %v after deleting collection 3", filepath.Base(p), gone)
		}
	}
}

// TestLoadMigratesVectors checks that a vector part of format 3 (vectors
// inline, written before the vectors file) of an index over the inline
// size loads, is moved to a vectors file and rewritten in format 4, and
// answers alike afterwards.
func TestLoadMigratesVectors(t *testing.T) {
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	st.SetInlineVectorsBytes(-1)
	seg := testSegment(t)
	b := st.NewBatch()
	if err := seg.Write(b, 1); err != nil {
		t.Fatal(err)
	}
	b.PutBlob(1, seg.ID, PartVectors, seg.Vectors.AppendBinary(nil))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	os.Remove(st.VectorsPath(1, seg.ID))
	q := []float32{0, 1, 0, 1}
	want := seg.Vectors.Search(q, 3, 0, nil, nil)
	for i := range 2 {
		got, err := Load(st, 1, seg.ID)
		if err != nil {
			t.Fatal(err)
		}
		part, err := st.Blob(1, seg.ID, PartVectors)
		if err != nil {
			t.Fatal(err)
		}
		if !vector.External(part) || !got.Vectors.OnFile() {
			t.Fatalf("load %d: part not rewritten in format 4", i)
		}
		if r := got.Vectors.Search(q, 3, 0, nil, nil); !slices.Equal(r, want) {
			t.Fatalf("load %d: %v, want %v", i, r, want)
		}
	}
}

// vectorsV1 encodes x's vectors as a vector part of format 1 (the flat
// index of the first release: a uvarint 1, dims, the float count, the
// float32 vectors, a CRC-32 (IEEE) of it all).
func vectorsV1(x *vector.Index) []byte {
	b := binary.AppendUvarint(nil, 1)
	b = binary.AppendUvarint(b, uint64(x.Dims()))
	b = binary.AppendUvarint(b, uint64(x.Len()*x.Dims()))
	for id := range x.Len() {
		for _, f := range x.Vector(uint32(id)) {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// TestInlineVectors checks the inline form of small vector indexes: a
// segment whose float32 vectors take at most SetInlineVectorsBytes bytes
// (testSegment: 3 vectors of 4 dimensions, 48 bytes) is written with its
// vectors in its part (format 3) and no vectors file, at the threshold
// and under it, and with a file one byte over it; the inline segment
// loads from the part alone, answers as written, and stays inline over
// reopens (its part is not rewritten);
// flipped bytes of the part are reported; a small part of format 1 is
// rewritten in format 3, without a file.
func TestInlineVectors(t *testing.T) {
	q := []float32{0.5, 1, 0, 0}
	for _, tc := range []struct {
		name   string
		limit  int
		inline bool
	}{
		{"default", 0, true},
		{"at the threshold", 48, true},
		{"one byte over", 47, false},
		{"none inline", -1, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			st, err := Open(dir)
			if err != nil {
				t.Fatal(err)
			}
			defer func() { st.Close() }()
			if tc.limit != 0 {
				st.SetInlineVectorsBytes(tc.limit)
			}
			seg := testSegment(t)
			want := seg.Vectors.Search(q, 3, 0, nil, nil)
			b := st.NewBatch()
			if err := seg.Write(b, 1); err != nil {
				t.Fatal(err)
			}
			if err := b.Commit(); err != nil {
				t.Fatal(err)
			}
			part, err := st.Blob(1, seg.ID, PartVectors)
			if err != nil {
				t.Fatal(err)
			}
			_, ferr := os.Stat(st.VectorsPath(1, seg.ID))
			if vector.Inline(part) != tc.inline || vector.External(part) == tc.inline || errors.Is(ferr, os.ErrNotExist) != tc.inline || seg.Vectors.OnFile() == tc.inline {
				t.Fatalf("inline part %v, external part %v, file %v, on file %v; want inline %v", vector.Inline(part), vector.External(part), ferr, seg.Vectors.OnFile(), tc.inline)
			}
			for reopen := range 2 {
				got, err := Load(st, 1, seg.ID)
				if err != nil {
					t.Fatal(err)
				}
				if got.Vectors.OnFile() == tc.inline || !slices.Equal(got.Vectors.Search(q, 3, 0, nil, nil), want) {
					t.Fatalf("reopen %d: on file %v, search %v, want %v", reopen, got.Vectors.OnFile(), got.Vectors.Search(q, 3, 0, nil, nil), want)
				}
				if p, _ := st.Blob(1, seg.ID, PartVectors); !slices.Equal(p, part) {
					t.Fatalf("reopen %d rewrote the part", reopen)
				}
				st.Close()
				if st, err = Open(dir); err != nil {
					t.Fatal(err)
				}
				if tc.limit != 0 {
					st.SetInlineVectorsBytes(tc.limit)
				}
			}
			if !tc.inline {
				return
			}
			if ents, _ := os.ReadDir(filepath.Join(dir, "vectors")); len(ents) != 0 {
				t.Fatalf("inline segment left %d vectors files", len(ents))
			}
			for i := range part {
				bad := slices.Clone(part)
				bad[i] ^= 0x10
				b := st.NewBatch()
				b.PutBlob(1, seg.ID, PartVectors, bad)
				if err := b.Commit(); err != nil {
					t.Fatal(err)
				}
				if _, err := Load(st, 1, seg.ID); !errors.Is(err, vector.ErrCorrupt) || !strings.Contains(err.Error(), "segment 9 vectors:") {
					t.Fatalf("byte %d flipped: %v", i, err)
				}
			}
		})
	}

	// A small part of format 1 is rewritten in format 3 (inline), once.
	st, err := Open(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	seg := testSegment(t)
	b := st.NewBatch()
	if err := seg.Write(b, 1); err != nil {
		t.Fatal(err)
	}
	b.PutBlob(1, seg.ID, PartVectors, vectorsV1(seg.Vectors))
	if err := b.Commit(); err != nil {
		t.Fatal(err)
	}
	want := seg.Vectors.Search(q, 3, 0, nil, nil)
	for i := range 2 {
		got, err := Load(st, 1, seg.ID)
		if err != nil {
			t.Fatal(err)
		}
		part, err := st.Blob(1, seg.ID, PartVectors)
		if err != nil {
			t.Fatal(err)
		}
		if !vector.Inline(part) || got.Vectors.OnFile() {
			t.Fatalf("load %d: format 1 part not rewritten in format 3", i)
		}
		if _, err := os.Stat(st.VectorsPath(1, seg.ID)); !errors.Is(err, os.ErrNotExist) {
			t.Fatalf("load %d: a vectors file for an inline segment: %v", i, err)
		}
		if r := got.Vectors.Search(q, 3, 0, nil, nil); !slices.Equal(r, want) {
			t.Fatalf("load %d: %v, want %v", i, r, want)
		}
	}
}
