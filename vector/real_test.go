package vector

import (
	"encoding/binary"
	"flag"
	"io"
	"math"
	"os"
	"path/filepath"
	"testing"
)

// The real-vector fixture testdata/scifact-bge-small.i8 holds 4,500
// bge-small-en-v1.5 vectors of SciFact sentences and clauses and 300 of
// SciFact queries, each stored as a float32 scale and 384 int8 values
// (v ≈ scale·c, re-normalized on load) to stay under 2 MB. It is cut from
// the files of `najdi-bench vector -embed` with
//
//	go test ./vector -run TestRealRecall -update-real ~/.cache/najdi/vectors
var updateReal = flag.String("update-real", "", "rewrite testdata/scifact-bge-small.i8 from the vector files in this directory")

const (
	realFixture = "testdata/scifact-bge-small.i8"
	realCorpus  = 4500
	realQueries = 300
	realDims    = 384
)

func writeRealFixture(t *testing.T, dir string) {
	read := func(name string, n int) [][]float32 {
		f, err := os.Open(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		out := make([][]float32, n)
		buf := make([]byte, 4*realDims)
		for i := range out {
			if _, err := io.ReadFull(f, buf); err != nil {
				t.Fatal(err)
			}
			v := make([]float32, realDims)
			for d := range v {
				v[d] = math.Float32frombits(binary.LittleEndian.Uint32(buf[4*d:]))
			}
			out[i] = v
		}
		return out
	}
	vs := append(read("scifact-bge-small-384.f32", realCorpus), read("scifact-queries-bge-small-384.f32", realQueries)...)
	var b []byte
	for _, v := range []int{realCorpus, realQueries, realDims} {
		b = binary.LittleEndian.AppendUint32(b, uint32(v))
	}
	for _, v := range vs {
		var m float32
		for _, f := range v {
			m = max(m, abs32(f))
		}
		s := m / 127
		b = binary.LittleEndian.AppendUint32(b, math.Float32bits(s))
		for _, f := range v {
			b = append(b, byte(int8(math.Round(float64(f/s)))))
		}
	}
	if err := os.MkdirAll("testdata", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(realFixture, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// readRealFixture returns the corpus and query vectors of the fixture.
func readRealFixture(t testing.TB) (corpus, queries [][]float32) {
	b, err := os.ReadFile(realFixture)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) < 12 {
		t.Fatal("short fixture")
	}
	nc, nq, dims := int(binary.LittleEndian.Uint32(b)), int(binary.LittleEndian.Uint32(b[4:])), int(binary.LittleEndian.Uint32(b[8:]))
	b = b[12:]
	if len(b) != (nc+nq)*(4+dims) {
		t.Fatalf("fixture of %d bytes for %d+%d vectors of %d dims", len(b), nc, nq, dims)
	}
	vs := make([][]float32, nc+nq)
	for i := range vs {
		s := math.Float32frombits(binary.LittleEndian.Uint32(b))
		v := make([]float32, dims)
		var norm float64
		for d := range v {
			v[d] = s * float32(int8(b[4+d]))
			norm += float64(v[d]) * float64(v[d])
		}
		for d := range v {
			v[d] /= float32(math.Sqrt(norm))
		}
		vs[i] = v
		b = b[4+dims:]
	}
	return vs[:nc], vs[nc:]
}

// TestRealRecall checks recall@10 at the default nprobe on real
// embeddings: SciFact queries against SciFact sentences, the hard case of
// queries off the passage distribution.
func TestRealRecall(t *testing.T) {
	if *updateReal != "" {
		writeRealFixture(t, *updateReal)
	}
	corpus, queries := readRealFixture(t)
	x8 := buildIndex(t, corpus, Options{Seed: 1})
	if x8.NList() == 0 {
		t.Fatalf("index of %d vectors has no IVF", len(corpus))
	}
	for _, nibbles := range []bool{false, true} {
		x := withNibbles(x8, nibbles)
		tests := []struct {
			name   string
			nprobe int
			floor  float64
		}{
			{"default", 0, 0.95},
			{"all lists", x.NList(), 0.995},
		}
		for _, tt := range tests {
			var sum float64
			var dst []Result
			for _, q := range queries {
				dst = x.Search(q, 10, tt.nprobe, nil, dst)
				sum += recall(dst, exact(corpus, q, 10, nil))
			}
			r := sum / float64(len(queries))
			t.Logf("%s, nibbles %v: nlist %d nprobe %d recall@10 %.4f", tt.name, nibbles, x.NList(), x.Options().NProbe, r)
			if r < tt.floor {
				t.Errorf("%s, nibbles %v: recall@10 = %.4f, want ≥ %.3f", tt.name, nibbles, r, tt.floor)
			}
		}
	}
}
