package vector

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// parityLengths are the vector lengths the kernels are checked at: every
// length up to 70 (all loop/tail splits of the 16-, 32-, 64- and 128-byte
// steps) and the model dimension ±1.
func parityLengths() []int {
	var ls []int
	for n := 0; n <= 70; n++ {
		ls = append(ls, n)
	}
	return append(ls, 127, 128, 129, 255, 256, 257, 383, 384, 385, 768)
}

// int8Fill fills v by kind: random values, all −128, all 127, or
// alternating extremes.
func int8Fill(r *rand.Rand, v []int8, kind string) {
	for i := range v {
		switch kind {
		case "random":
			v[i] = int8(r.IntN(256) - 128)
		case "min":
			v[i] = -128
		case "max":
			v[i] = 127
		case "alternate":
			if (i+r.IntN(2))%2 == 0 {
				v[i] = -128
			} else {
				v[i] = 127
			}
		}
	}
}

func TestDotInt8Parity(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 1))
	kinds := []string{"random", "min", "max", "alternate"}
	for _, k := range int8Kernels() {
		for _, n := range parityLengths() {
			for _, ka := range kinds {
				for _, kb := range kinds {
					const rows = 3
					q := make([]int8, n)
					// one spare byte after the codes: kernels must not read it
					codes := make([]int8, rows*n+1)
					int8Fill(r, q, ka)
					int8Fill(r, codes[:rows*n], kb)
					codes[rows*n] = 99
					want := make([]int32, rows)
					got := make([]int32, rows)
					dotInt8RowsGeneric(q, codes, want)
					k.fn(q, codes[:rows*n], got)
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%s n=%d q=%s codes=%s row %d: got %d, want %d", k.name, n, ka, kb, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}

func TestDotInt8Exported(t *testing.T) {
	tests := []struct {
		a, b []int8
		want int32
	}{
		{nil, nil, 0},
		{[]int8{1}, []int8{-1}, -1},
		{[]int8{-128, -128}, []int8{-128, 127}, 128*128 - 128*127},
		{[]int8{1, 2, 3, 4, 5}, []int8{5, 4, 3, 2, 1}, 35},
	}
	for _, tt := range tests {
		if got := DotInt8(tt.a, tt.b); got != tt.want {
			t.Errorf("DotInt8(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}

func TestHammingBinary(t *testing.T) {
	r := rand.New(rand.NewPCG(2, 2))
	for n := 0; n <= 17; n++ {
		a := make([]uint64, n)
		b := make([]uint64, n)
		want := 0
		for i := range a {
			a[i], b[i] = r.Uint64(), r.Uint64()
			for bit := range 64 {
				if (a[i]>>bit)&1 != (b[i]>>bit)&1 {
					want++
				}
			}
		}
		if got := HammingBinary(a, b); got != want {
			t.Errorf("n=%d: HammingBinary = %d, want %d", n, got, want)
		}
		out := make([]int32, 1)
		HammingRows(a, b, out)
		if int(out[0]) != want {
			t.Errorf("n=%d: HammingRows = %d, want %d", n, out[0], want)
		}
	}
}

func TestDotFloat32(t *testing.T) {
	for _, n := range parityLengths() {
		a := make([]float32, n)
		b := make([]float32, n)
		var want float64
		for i := range a {
			a[i], b[i] = float32(i%7)-3, float32(i%5)*0.5
			want += float64(a[i]) * float64(b[i])
		}
		if got := DotFloat32(a, b); float64(got) != want {
			t.Errorf("n=%d: DotFloat32 = %v, want %v", n, got, want)
		}
	}
}

func ExampleDotInt8() {
	fmt.Println(DotInt8([]int8{1, -2, 3}, []int8{4, 5, -6}))
	// Output: -24
}

// TestNibbleParity checks every 4-bit kernel against a plain unpacked dot
// product of q with (c+127)>>4 at dims around the 128-dimension blocks,
// with random and extreme query and code values, for row counts around
// the kernels' groups of four rows; the spare byte after the codes must not
// be read.
func TestNibbleParity(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 3))
	kinds := []string{"random", "min", "max", "alternate"}
	for _, k := range nibbleKernels() {
		for _, dims := range []int{1, 63, 64, 65, 127, 128, 129, 200, 256, 383, 384, 385, 768} {
			for i, ka := range kinds {
				for j, kb := range kinds {
					rows := []int{1, 3, 4, 5, 7, 8, 9, 13}[(i*len(kinds)+j+dims)%8]
					d4 := nibbleDims(dims)
					q := make([]int8, d4)
					int8Fill(r, q[:dims], ka)
					codes := make([]int8, rows*dims)
					int8Fill(r, codes, kb)
					for i := range codes {
						codes[i] = max(codes[i], -127)
					}
					packed := make([]uint8, rows*d4/2+1)
					want := make([]int32, rows)
					for i := range rows {
						c := codes[i*dims : (i+1)*dims]
						packNibbles(packed[i*d4/2:(i+1)*d4/2], c)
						for j, v := range c {
							want[i] += int32(q[j]) * int32((int(v)+127)>>4)
						}
					}
					packed[rows*d4/2] = 0xff
					got := make([]int32, rows)
					k.fn(q, packed[:rows*d4/2], got)
					for i := range want {
						if got[i] != want[i] {
							t.Fatalf("%s dims=%d q=%s codes=%s rows=%d row %d: got %d, want %d", k.name, dims, ka, kb, rows, i, got[i], want[i])
						}
					}
				}
			}
		}
	}
}
