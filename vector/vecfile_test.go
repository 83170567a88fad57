package vector

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
)

// TestVectorsFileRoundTrip saves the vectors of exact and IVF indexes to a
// vectors file, encodes the index part of format 4, opens both again, and
// checks that every form (heap, saved, reopened) answers alike and that
// the reopened index recomputed nothing (its codes are the stored ones).
func TestVectorsFileRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		n    int
	}{
		{"empty", 0},
		{"exact", 300},
		{"ivf", 6000},
		{"ivf no spill", 5000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := clustered(9, tt.n+10, 48, 40, 0.1)
			queries, vs := vs[tt.n:], vs[:tt.n]
			b := NewBuilder(48)
			for i, v := range vs {
				b.Add(uint32(i), v)
			}
			x, err := b.Build(Options{Seed: 3, NoSpill: tt.name == "ivf no spill"})
			if err != nil {
				t.Fatal(err)
			}
			want := make([][]Result, len(queries))
			for i, q := range queries {
				want[i] = x.Search(q, 10, 0, nil, nil)
			}
			self := x.AppendBinary(nil)
			path := filepath.Join(t.TempDir(), "v.f32")
			if err := x.SaveVectors(path); err != nil {
				t.Fatal(err)
			}
			if !x.OnFile() {
				t.Fatal("saved index not on file")
			}
			if tt.n > 0 && x.file == nil {
				t.Fatal("saved index does not map its file")
			}
			if st, err := os.Stat(path); err != nil || st.Size() != int64(4*48*tt.n) {
				t.Fatalf("vectors file: %v, %v", st, err)
			}
			if _, err := os.Stat(path + ".tmp"); !errors.Is(err, os.ErrNotExist) {
				t.Fatalf("temporary file left: %v", err)
			}
			if !slices.Equal(x.AppendBinary(nil), self) {
				t.Fatal("a saved index encodes differently (format 3)")
			}
			part := x.AppendIndex(nil)
			if !External(part) || External(self) {
				t.Fatal("External misreads the formats")
			}
			if _, err := Decode(part); !errors.Is(err, ErrCorrupt) {
				t.Fatalf("Decode of format 4: %v, want ErrCorrupt", err)
			}
			y, err := Open(part, path)
			if err != nil {
				t.Fatal(err)
			}
			if y.Len() != x.Len() || y.NList() != x.NList() || y.Options() != x.Options() || !y.OnFile() {
				t.Fatalf("opened len %d nlist %d opts %+v, want %d %d %+v", y.Len(), y.NList(), y.Options(), x.Len(), x.NList(), x.Options())
			}
			if !slices.Equal(y.codes, x.codes) || !slices.Equal(y.nib, x.nib) {
				t.Fatal("opened codes (int8 or 4-bit) differ")
			}
			if !slices.Equal(y.AppendIndex(nil), part) || !slices.Equal(y.AppendBinary(nil), self) {
				t.Fatal("re-encoding an opened index differs")
			}
			for i, q := range queries {
				for _, idx := range []*Index{x, y} {
					if got := idx.Search(q, 10, 0, nil, nil); !slices.Equal(got, want[i]) {
						t.Fatalf("query %d: %v, want %v", i, got, want[i])
					}
				}
				if tt.n > 0 && y.Dot(q, 7) != DotFloat32(q, vs[7]) {
					t.Fatal("Dot differs from the vector's")
				}
			}
			// The merge of a mapped index reads its file.
			if tt.n > 0 {
				remap := make([]int32, tt.n)
				for i := range remap {
					remap[i] = int32(tt.n - 1 - i)
				}
				m, err := Merge([]*Index{y}, [][]int32{remap}, Options{Seed: 3})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(m.Vector(0), vs[tt.n-1]) {
					t.Fatal("merged vector differs")
				}
			}
		})
	}
}

// TestVectorsFileBad checks that Open refuses a missing, truncated or
// altered vectors file and a part of another format.
func TestVectorsFileBad(t *testing.T) {
	vs := clustered(11, 5000, 16, 30, 0.1)
	x := buildIndex(t, vs, Options{Seed: 1})
	dir := t.TempDir()
	path := filepath.Join(dir, "v.f32")
	if err := x.SaveVectors(path); err != nil {
		t.Fatal(err)
	}
	part := x.AppendIndex(nil)
	good, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	flipped := slices.Clone(good)
	flipped[len(flipped)/2] ^= 1
	tests := []struct {
		name string
		file []byte // nil: no file
	}{
		{"missing", nil},
		{"truncated", good[:len(good)-4]},
		{"longer", append(slices.Clone(good), 0, 0, 0, 0)},
		{"flipped bit", flipped},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, tt.name+".f32")
			if tt.file != nil {
				if err := os.WriteFile(p, tt.file, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := Open(part, p); !errors.Is(err, ErrVectorsFile) {
				t.Fatalf("Open: %v, want ErrVectorsFile", err)
			}
		})
	}
	if _, err := Open(x.AppendBinary(nil), path); !errors.Is(err, ErrCorrupt) {
		t.Fatalf("Open of format 3: %v, want ErrCorrupt", err)
	}
	for i := range part {
		b := slices.Clone(part)
		b[i] ^= 0x10
		if _, err := Open(b, path); err == nil {
			t.Fatalf("flipped byte %d of the index part not detected", i)
		}
	}
	// Structurally bad parts behind a valid envelope fail cleanly.
	for _, cut := range []int{6, 12, 40, len(part) / 2, len(part) - 5} {
		if _, err := Open(reseal(append(slices.Clone(part[:cut]), 0, 0, 0, 0)), path); err == nil {
			t.Fatalf("part cut at %d accepted", cut)
		}
	}
}

// TestMappedIndexReleased checks that the mapping of an unreachable index
// is released (its cleanup ran), so that merged-away segments do not keep
// their files mapped.
func TestMappedIndexReleased(t *testing.T) {
	vs := clustered(12, 5000, 16, 30, 0.1)
	x := buildIndex(t, vs, Options{Seed: 1})
	if err := x.SaveVectors(filepath.Join(t.TempDir(), "v.f32")); err != nil {
		t.Fatal(err)
	}
	m := x.file
	x = nil
	for i := 0; i < 20 && m.data != nil; i++ {
		runtime.GC()
		runtime.Gosched()
	}
	if m.data != nil {
		t.Fatal("mapping of an unreachable index still mapped")
	}
}
