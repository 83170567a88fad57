package invindex

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math/rand/v2"
	"reflect"
	"slices"
	"testing"
)

// textEqual reports whether two indexes hold the same documents, lengths,
// vocabulary, postings and block bounds.
func textEqual(t *testing.T, got, want *TextIndex) {
	t.Helper()
	if got.numDocs != want.numDocs || got.total != want.total {
		t.Fatalf("stats: %d docs / %v total, want %d / %v", got.numDocs, got.total, want.numDocs, want.total)
	}
	checks := []struct {
		name      string
		got, want any
	}{
		{"docLen", got.docLen, want.docLen},
		{"vocab", got.vocab, want.vocab},
		{"termEnd", got.termEnd, want.termEnd},
		{"postOff", got.postOff, want.postOff},
		{"docs", got.docs, want.docs},
		{"tfs", got.tfs, want.tfs},
		{"blkOff", got.blkOff, want.blkOff},
		{"blkLast", got.blkLast, want.blkLast},
		{"blkImp", got.blkImp, want.blkImp},
		{"impTF", got.impTF, want.impTF},
		{"impLen", got.impLen, want.impLen},
		{"termImp", got.termImp, want.termImp},
		{"termImpTF", got.termImpTF, want.termImpTF},
		{"termImpLen", got.termImpLen, want.termImpLen},
	}
	for _, c := range checks {
		g, w := reflect.ValueOf(c.got), reflect.ValueOf(c.want)
		if g.Len() == 0 && w.Len() == 0 {
			continue
		}
		if !reflect.DeepEqual(c.got, c.want) {
			t.Fatalf("%s differs", c.name)
		}
	}
}

func TestTextIndexRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		docs []textTestDoc
	}{
		{"empty", nil},
		{"one", []textTestDoc{{doc: 3, terms: []TermFreq{{"x", 1.5}}, length: 4}}},
		{"corpus", textTestCorpus(30, 2000, 300)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			idx := textBuild(tc.docs)
			prefix := []byte("keep")
			data := idx.AppendBinary(slices.Clone(prefix))
			if string(data[:4]) != "keep" {
				t.Fatal("AppendBinary overwrote dst")
			}
			got, err := DecodeTextIndex(data[4:])
			if err != nil {
				t.Fatal(err)
			}
			textEqual(t, got, idx)
			if again := got.AppendBinary(nil); !slices.Equal(again, data[4:]) {
				t.Fatal("re-encoding differs")
			}
		})
	}
}

// TestDecodeTextIndexCorrupt flips, truncates and extends an encoded index:
// every damaged input must return an error (never panic, never succeed).
func TestDecodeTextIndexCorrupt(t *testing.T) {
	data := textBuild(textTestCorpus(31, 300, 60)).AppendBinary(nil)
	check := func(name string, b []byte) {
		t.Helper()
		_, err := DecodeTextIndex(b)
		if err == nil {
			t.Fatalf("%s: decoded without error", name)
		}
		if !errors.Is(err, ErrTextCorrupt) && !errors.Is(err, ErrTextVersion) {
			t.Fatalf("%s: error %v wraps neither sentinel", name, err)
		}
	}
	for n := range len(data) {
		check("truncated", data[:n])
	}
	check("trailing byte", append(slices.Clone(data), 0))
	r := rand.New(rand.NewPCG(1, 2))
	for i := range len(data) {
		b := slices.Clone(data)
		b[i] ^= byte(1 + r.IntN(255))
		check("flipped byte", b)
	}
	b := slices.Clone(data)
	b[4] = 99
	if _, err := DecodeTextIndex(b); !errors.Is(err, ErrTextVersion) {
		t.Fatalf("unknown version: %v, want ErrTextVersion", err)
	}
}

// FuzzDecodeTextIndex checks that arbitrary input never panics and that
// whatever decodes re-encodes to the same bytes.
func FuzzDecodeTextIndex(f *testing.F) {
	f.Add(textBuild(textTestCorpus(32, 50, 20)).AppendBinary(nil))
	f.Add([]byte("NJTX\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		idx, err := DecodeTextIndex(data)
		if err != nil {
			return
		}
		if again := idx.AppendBinary(nil); !slices.Equal(again, data) {
			t.Fatal("decoded index re-encodes differently")
		}
		idx.Search([]QueryTerm{{Term: idx.termAtOr(0), Weight: 1}}, BM25{}, 5, nil, nil, 0, nil)
	})
}

// termAtOr returns term i or "" for tests on possibly empty indexes.
func (t *TextIndex) termAtOr(i int) string {
	if i < len(t.termEnd) {
		return t.termAt(i)
	}
	return ""
}

func TestMergeTextIndexes(t *testing.T) {
	docs := textTestCorpus(40, 3000, 300)
	// Split into three segments by document number, renumbering locally.
	bounds := []uint32{0, 1000, 2200, 3000}
	var parts []*TextIndex
	var local [][]textTestDoc
	for p := range 3 {
		var seg []textTestDoc
		for _, d := range docs {
			if d.doc >= bounds[p] && d.doc < bounds[p+1] {
				d.doc -= bounds[p]
				seg = append(seg, d)
			}
		}
		local = append(local, seg)
		parts = append(parts, textBuild(seg))
	}
	tests := []struct {
		name  string
		order []int // segments in the order their documents are numbered
		cut   int   // remap entries cut off the end of segment 1
	}{
		{"in order", []int{0, 1, 2}, 0},
		{"reordered", []int{2, 0, 1}, 0},
		{"short remap", []int{1, 2, 0}, 5},
	}
	for ti, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := rand.New(rand.NewPCG(uint64(ti), 4))
			remap := make([][]int32, len(parts))
			next := int32(0)
			for _, p := range tc.order {
				remap[p] = make([]int32, parts[p].NumDocs())
				for old := range remap[p] {
					remap[p][old] = -1
					if r.IntN(5) != 0 {
						remap[p][old] = next
						next++
					}
				}
			}
			remap[1] = remap[1][:len(remap[1])-tc.cut]
			merged := MergeTextIndexes(parts, remap)

			// The reference: the surviving documents built directly under
			// their new numbers.
			var ref []textTestDoc
			maxDoc := int32(-1)
			for p := range parts {
				for _, n := range remap[p] {
					maxDoc = max(maxDoc, n)
				}
				for _, d := range local[p] {
					if int(d.doc) < len(remap[p]) && remap[p][d.doc] >= 0 {
						d.doc = uint32(remap[p][d.doc])
						ref = append(ref, d)
					}
				}
			}
			slices.SortFunc(ref, func(a, b textTestDoc) int { return int(a.doc) - int(b.doc) })
			if n := len(ref); n > 0 && ref[n-1].doc != uint32(maxDoc) {
				ref = append(ref, textTestDoc{doc: uint32(maxDoc)})
			}
			textEqual(t, merged, textBuild(ref))
		})
	}
	if got := MergeTextIndexes([]*TextIndex{nil, parts[0]}, nil); got.NumDocs() != 0 || got.NumTerms() != 0 {
		t.Fatalf("merge with no remap kept %d docs, %d terms", got.NumDocs(), got.NumTerms())
	}
}

// TestDecodeTextIndexVersion1 checks that the version 1 framing (a crc32
// after each block, no envelope; segment format 1) still decodes, to the
// same index.
func TestDecodeTextIndexVersion1(t *testing.T) {
	data := textBuild(textTestCorpus(33, 200, 40)).AppendBinary(nil)
	blocks, err := postSplitBlocks(data)
	if err != nil {
		t.Fatal(err)
	}
	v1 := append([]byte(postMagic), postVersion1)
	for _, b := range blocks {
		v1 = binary.AppendUvarint(v1, uint64(len(b)))
		v1 = append(v1, b...)
		v1 = binary.LittleEndian.AppendUint32(v1, crc32.Checksum(b, postCRC))
	}
	idx, err := DecodeTextIndex(v1)
	if err != nil {
		t.Fatalf("version 1: %v", err)
	}
	if again := idx.AppendBinary(nil); !slices.Equal(again, data) {
		t.Fatal("version 1 decodes to a different index")
	}
	for i := range v1 {
		b := slices.Clone(v1)
		b[i] ^= 0x80
		if _, err := DecodeTextIndex(b); err == nil {
			t.Fatalf("version 1: flipped byte %d went unnoticed", i)
		}
	}
}
