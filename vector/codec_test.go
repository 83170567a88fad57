package vector

import (
	"encoding/binary"
	"errors"
	"hash/crc32"
	"math"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/internal/envelope"
)

func TestCodecRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		n    int
	}{
		{"empty", 0},
		{"one", 1},
		{"exact", 300},
		{"ivf", 6000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := clustered(6, tt.n+10, 48, 40, 0.1)
			queries, vs := vs[tt.n:], vs[:tt.n]
			b := NewBuilder(48)
			for i, v := range vs {
				b.Add(uint32(i), v)
			}
			x, err := b.Build(Options{Seed: 2, Rerank: 40})
			if err != nil {
				t.Fatal(err)
			}
			enc := x.AppendBinary([]byte("prefix"))[len("prefix"):]
			y, err := Decode(enc)
			if err != nil {
				t.Fatal(err)
			}
			if y.Len() != x.Len() || y.Dims() != x.Dims() || y.NList() != x.NList() || y.Options() != x.Options() {
				t.Fatalf("decoded len %d dims %d nlist %d opts %+v, want %d %d %d %+v",
					y.Len(), y.Dims(), y.NList(), y.Options(), x.Len(), x.Dims(), x.NList(), x.Options())
			}
			if !slices.Equal(y.AppendBinary(nil), enc) {
				t.Error("re-encoding differs")
			}
			if !slices.Equal(y.codes, x.codes) || !slices.Equal(y.nib, x.nib) {
				t.Error("decoded codes (int8 or 4-bit) differ")
			}
			for _, q := range queries {
				if a, b := x.Search(q, 10, 0, nil, nil), y.Search(q, 10, 0, nil, nil); !slices.Equal(a, b) {
					t.Fatalf("decoded index answers %v, want %v", b, a)
				}
			}
		})
	}
}

// reseal replaces the checksum of b so that structural checks are reached.
func reseal(b []byte) []byte {
	b = slices.Clone(b)
	if envelope.Has(b, magic) && len(b) >= envelope.Overhead {
		return envelope.End(b[:len(b)-4], 0)
	}
	binary.LittleEndian.PutUint32(b[len(b)-4:], crc32.ChecksumIEEE(b[:len(b)-4]))
	return b
}

// versioned returns enc with its version byte (format 3) set to v.
func versioned(enc []byte, v byte) []byte {
	b := slices.Clone(enc)
	b[len(magic)] = v
	return b
}

func TestDecodeCorrupt(t *testing.T) {
	vs := clustered(7, 5000, 16, 30, 0.1)
	enc := buildIndex(t, vs, Options{}).AppendBinary(nil)
	flipped := slices.Clone(enc)
	flipped[len(flipped)/2] ^= 1
	tests := []struct {
		name string
		data []byte
	}{
		{"nil", nil},
		{"short", []byte{1, 2}},
		{"checksum", flipped},
		{"truncated", reseal(append(slices.Clone(enc[:len(enc)/2]), 0, 0, 0, 0))},
		{"version", reseal(versioned(enc, 9))},
		{"legacy version", reseal(append([]byte{9}, enc[envelope.Overhead-4:]...))},
		{"trailing", reseal(append(slices.Clone(enc[:len(enc)-4]), 7, 0, 0, 0, 0))},
		{"huge count", reseal([]byte{2, 16, 0xff, 0xff, 0xff, 0x07, 0, 0, 0, 0, 0, 0, 0, 0, 0})},
	}
	for _, tt := range tests {
		if _, err := Decode(tt.data); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: err %v, want ErrCorrupt", tt.name, err)
		}
	}
	// Every truncation of a small index fails cleanly.
	small := buildIndex(t, vs[:5000], Options{BruteForceBelow: 100, NList: 4}).AppendBinary(nil)
	for cut := 0; cut < len(small); cut += 997 {
		if _, err := Decode(reseal(append(slices.Clone(small[:cut]), 0, 0, 0, 0))); err == nil {
			t.Fatalf("truncated at %d: decoded", cut)
		}
	}
}

// TestDecodeEveryFlippedByte flips each byte of a small index: the
// envelope's checksum must catch every one.
func TestDecodeEveryFlippedByte(t *testing.T) {
	vs := clustered(11, 300, 8, 4, 0.1)
	enc := buildIndex(t, vs, Options{BruteForceBelow: 100, NList: 4}).AppendBinary(nil)
	for i := range enc {
		for _, mask := range []byte{0x01, 0x80, 0xff} {
			b := slices.Clone(enc)
			b[i] ^= mask
			if _, err := Decode(b); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("byte %d ^ %#x: err %v, want ErrCorrupt", i, mask, err)
			}
		}
	}
}

// TestDecodeV2 checks that format 2 (a uvarint version, no envelope, a
// crc32 IEEE at the end; segment format 1) still decodes, to the same
// index.
func TestDecodeV2(t *testing.T) {
	vs := clustered(12, 400, 8, 4, 0.1)
	enc := buildIndex(t, vs, Options{BruteForceBelow: 100, NList: 4}).AppendBinary(nil)
	v2 := binary.AppendUvarint(nil, formatV2)
	v2 = append(v2, enc[envelope.Overhead-4:len(enc)-4]...)
	v2 = binary.LittleEndian.AppendUint32(v2, crc32.ChecksumIEEE(v2))
	x, err := Decode(v2)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(x.AppendBinary(nil), enc) {
		t.Fatal("format 2 decodes to a different index")
	}
}

// TestDecodeV1 checks that the flat format 1 of the first index still
// opens: a hand-built 2-vector index.
func TestDecodeV1(t *testing.T) {
	var b []byte
	b = binary.AppendUvarint(b, 1)
	b = binary.AppendUvarint(b, 2) // dims
	b = binary.AppendUvarint(b, 4) // float count
	for _, f := range []float32{1, 0, 0.6, 0.8} {
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(f))
	}
	b = binary.LittleEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	x, err := Decode(b)
	if err != nil {
		t.Fatal(err)
	}
	got := x.Search([]float32{0, 1}, 2, 0, nil, nil)
	want := []Result{{1, 0.8}, {0, 0}}
	if !slices.Equal(got, want) || !slices.Equal(x.Vector(1), []float32{0.6, 0.8}) {
		t.Errorf("v1 index: search %v, want %v; vector %v", got, want, x.Vector(1))
	}
}

func TestMerge(t *testing.T) {
	vs := clustered(8, 9000, 32, 50, 0.1)
	a := buildIndex(t, vs[:5000], Options{Seed: 1})
	b := buildIndex(t, vs[5000:], Options{Seed: 1})
	// Delete every third vector of a and the first 1000 of b; survivors
	// are numbered b first, then a (new ids need not follow part order).
	remap := [][]int32{make([]int32, 5000), make([]int32, 4000)}
	var want [][]float32
	next := int32(0)
	for i := range 4000 {
		remap[1][i] = -1
		if i >= 1000 {
			remap[1][i] = next
			next++
			want = append(want, vs[5000+i])
		}
	}
	for i := range 5000 {
		remap[0][i] = -1
		if i%3 != 0 {
			remap[0][i] = next
			next++
			want = append(want, vs[i])
		}
	}
	m, err := Merge([]*Index{a, b}, remap, Options{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if m.Len() != len(want) || m.NList() == 0 {
		t.Fatalf("merged len %d nlist %d, want len %d with IVF", m.Len(), m.NList(), len(want))
	}
	for i, v := range want {
		if !slices.Equal(m.Vector(uint32(i)), v) {
			t.Fatalf("vector %d differs", i)
		}
	}
	var sum float64
	for _, q := range vs[:100] {
		sum += recall(m.Search(q, 10, 0, nil, nil), exact(want, q, 10, nil))
	}
	if r := sum / 100; r < 0.95 {
		t.Errorf("merged recall@10 = %.4f, want ≥ 0.95", r)
	}
	if _, err := Merge([]*Index{a}, nil, Options{}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("merge without remap: %v", err)
	}
	if _, err := Merge([]*Index{a}, [][]int32{make([]int32, 10)}, Options{}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("merge with short remap: %v", err)
	}
	dup := make([]int32, 5000) // every id 0
	if _, err := Merge([]*Index{a}, [][]int32{dup}, Options{}); !errors.Is(err, ErrInvalidInput) {
		t.Errorf("merge onto duplicate ids: %v", err)
	}
	all := make([]int32, 5000)
	for i := range all {
		all[i] = -1
	}
	e, err := Merge([]*Index{a}, [][]int32{all}, Options{})
	if err != nil || e.Len() != 0 || e.Dims() != 32 {
		t.Errorf("merge of deleted vectors: %v, len %d", err, e.Len())
	}
}

// FuzzDecode checks that Decode never panics and that whatever it accepts
// can be searched and re-encoded, stably (format 1 and non-minimal
// uvarints re-encode differently).
func FuzzDecode(f *testing.F) {
	vs := clustered(13, 60, 4, 5, 0.1)
	f.Add(buildIndex(f, vs, Options{}).AppendBinary(nil))
	f.Add(buildIndex(f, vs, Options{BruteForceBelow: 20, NList: 6}).AppendBinary(nil))
	f.Add(buildIndex(f, vs, Options{BruteForceBelow: 20, NList: 6, NoSpill: true}).AppendBinary(nil))
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > 4096 {
			return // format 1 inputs this large train k-means: slow, not new
		}
		for _, b := range [][]byte{data, reseal(append(slices.Clone(data), 0, 0, 0, 0))} {
			x, err := Decode(b)
			if err != nil {
				continue
			}
			if x.Dims() <= 1<<12 {
				q := make([]float32, x.Dims())
				if len(q) > 0 {
					q[0] = 1
				}
				x.Search(q, 5, 0, nil, nil)
				x.Search(q, 5, 1, roaring.BitmapOf(0, 1, 2), nil)
			}
			enc := x.AppendBinary(nil)
			y, err := Decode(enc)
			if err != nil {
				t.Fatalf("re-encoded index does not decode: %v", err)
			}
			if !slices.Equal(y.AppendBinary(nil), enc) {
				t.Fatal("re-encoding is not stable")
			}
		}
	})
}
