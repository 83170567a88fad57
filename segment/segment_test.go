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
	if err := seg.Write(b, 1); err != nil {
		tb.Fatal(err)
	}
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

// TestAllowedChunks checks the allowed chunk set of segments with and
// without one chunk per document, deletes and allowed documents, against
// the chunks listed one by one.
func TestAllowedChunks(t *testing.T) {
	// perDoc[d] is the number of chunks of document d.
	mk := func(perDoc []int, deleted ...uint32) *Segment {
		s := &Segment{Deleted: roaring.BitmapOf(deleted...)}
		for d, n := range perDoc {
			s.Docs = append(s.Docs, "d")
			for range n {
				s.Chunks = append(s.Chunks, ChunkRef{Doc: uint32(d)})
			}
		}
		s.InitChunkIndex()
		return s
	}
	want := func(s *Segment, docs *roaring.Bitmap) []uint32 {
		var out []uint32
		for c, ref := range s.Chunks {
			if (docs == nil || docs.Contains(ref.Doc)) && !s.Deleted.Contains(ref.Doc) {
				out = append(out, uint32(c))
			}
		}
		return out
	}
	one := []int{1, 1, 1, 1, 1}
	mixed := []int{2, 0, 3, 1, 1}
	tests := []struct {
		name    string
		seg     *Segment
		docs    *roaring.Bitmap
		all     bool // nil result: every chunk
		aliases bool // the result is docs itself
	}{
		{"one chunk each, no filter", mk(one), nil, true, false},
		{"one chunk each, filter", mk(one), roaring.BitmapOf(0, 3), false, true},
		{"one chunk each, filter and deletes elsewhere", mk(one, 1), roaring.BitmapOf(0, 3), false, true},
		{"one chunk each, filter holding a delete", mk(one, 3), roaring.BitmapOf(0, 3), false, false},
		{"one chunk each, deletes", mk(one, 1, 4), nil, false, false},
		{"mixed, no filter", mk(mixed), nil, true, false},
		{"mixed, filter", mk(mixed), roaring.BitmapOf(1, 2, 4), false, false},
		{"mixed, deletes", mk(mixed, 0, 2), nil, false, false},
		{"mixed, filter and deletes", mk(mixed, 2), roaring.BitmapOf(0, 2, 3, 9), false, false},
		{"mixed, empty filter", mk(mixed), roaring.New(), false, false},
		{"same count, not one each", mk([]int{2, 0, 1}), roaring.BitmapOf(0, 1), false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var buf []uint32
			got := tt.seg.AllowedChunks(tt.docs, &buf)
			if tt.all {
				if got != nil {
					t.Fatalf("got %v, want nil (every chunk)", got)
				}
				return
			}
			if got == nil {
				t.Fatal("got nil (every chunk)")
			}
			if (got == tt.docs) != tt.aliases {
				t.Errorf("result is docs: %v, want %v", got == tt.docs, tt.aliases)
			}
			if w := want(tt.seg, tt.docs); !slices.Equal(got.ToArray(), w) && !(len(w) == 0 && got.IsEmpty()) {
				t.Errorf("got %v, want %v", got.ToArray(), w)
			}
		})
	}
}
