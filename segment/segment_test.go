package segment

import (
	"bytes"
	"slices"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/vector"
)

// testSegment builds a small segment with every part.
func testSegment(t testing.TB) *Segment {
	t.Helper()
	tb := invindex.NewTextBuilder()
	fb := invindex.NewFieldBuilder()
	vb := vector.NewBuilder(4)
	s := &Segment{ID: 9, Deleted: roaring.BitmapOf(1)}
	for d := range uint32(3) {
		s.Docs = append(s.Docs, "doc-"+string(rune('a'+d)))
		tb.Add(d, []invindex.TermFreq{{Term: "word", Freq: 1}, {Term: "w" + string(rune('a'+d)), Freq: 2}}, 3)
		fb.AddString(d, "kind", "k"+string(rune('a'+d)))
		fb.AddNumber(d, "price", float64(d))
		vb.Add(d, []float32{1, float32(d), 0, 0.5})
		s.Chunks = append(s.Chunks, ChunkRef{Doc: d, Section: 0, Start: 0, End: 4})
	}
	s.Text = tb.Build()
	s.Fields = fb.Build(3)
	var err error
	if s.Vectors, err = vb.Build(vector.Options{}); err != nil {
		t.Fatal(err)
	}
	return s
}

// storedSegment writes testSegment as segment of collection 1 in a new
// store, closed when the test ends.
func storedSegment(tb testing.TB) (*Store, *Segment) {
	tb.Helper()
	st, err := Open(tb.TempDir())
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { st.Close() })
	seg := testSegment(tb)
	b := st.NewBatch()
	seg.Write(b, 1)
	if err := b.Commit(); err != nil {
		tb.Fatal(err)
	}
	return st, seg
}

// TestLoadDetectsEveryFlippedByte writes a segment, then, part by part and
// byte by byte, stores a copy of the part with one byte flipped under a
// valid store checksum (so only the part's own envelope can notice) and
// checks that Load fails with an error naming the segment and the part.
func TestLoadDetectsEveryFlippedByte(t *testing.T) {
	st, seg := storedSegment(t)
	got, err := Load(st, 1, seg.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(got.Docs, seg.Docs) || got.Deleted.String() != "{1}" || got.Vectors.Len() != 3 || got.Text.NumDocs() != 3 {
		t.Fatalf("round trip: %+v", got)
	}
	parts := []struct {
		part byte
		name string
	}{{PartMeta, "meta"}, {PartText, "text"}, {PartFields, "fields"}, {PartVectors, "vectors"}, {PartDeleted, "deletes"}}
	for _, p := range parts {
		orig, err := st.Blob(1, seg.ID, p.part)
		if err != nil {
			t.Fatal(err)
		}
		for i := range orig {
			for _, mask := range []byte{0x01, 0xff} {
				bad := bytes.Clone(orig)
				bad[i] ^= mask
				b := st.NewBatch()
				b.PutBlob(1, seg.ID, p.part, bad)
				if err := b.Commit(); err != nil {
					t.Fatal(err)
				}
				_, err := Load(st, 1, seg.ID)
				if err == nil {
					t.Fatalf("%s byte %d ^ %#x: loaded without error", p.name, i, mask)
				}
				if want := "segment 9 " + p.name + ":"; !strings.Contains(err.Error(), want) {
					t.Fatalf("%s byte %d: error %q does not say %q", p.name, i, err, want)
				}
				if i == 20 && mask == 1 {
					t.Logf("%s: %v", p.name, err)
				}
			}
		}
		b := st.NewBatch()
		b.PutBlob(1, seg.ID, p.part, orig)
		if err := b.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := Load(st, 1, seg.ID); err != nil {
		t.Fatalf("restored segment: %v", err)
	}
}

// BenchmarkLoad measures loading (reading and decoding every part of) a
// small keyword-and-vector segment from the store.
func BenchmarkLoad(b *testing.B) {
	st, seg := storedSegment(b)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Load(st, 1, seg.ID); err != nil {
			b.Fatal(err)
		}
	}
}
