package vector

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/viterin/vek/vek32"
)

// Kernel benchmarks: one vector pair ("pair") and a scan of 100k rows
// ("scan", the IVF inner loop at full size) per representation. SetBytes
// counts the bytes of the rows read, so -bench prints the scan rate in
// MB/s; BenchmarkMemoryBandwidth gives this machine's limit to compare.

const benchDims, benchRows = 384, 100_000

func benchInt8(n int) []int8 {
	r := rand.New(rand.NewPCG(1, 2))
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(r.IntN(255) - 127)
	}
	return v
}

func benchFloat(n int) []float32 {
	r := rand.New(rand.NewPCG(3, 4))
	v := make([]float32, n)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

func benchWords(n int) []uint64 {
	r := rand.New(rand.NewPCG(5, 6))
	v := make([]uint64, n)
	for i := range v {
		v[i] = r.Uint64()
	}
	return v
}

var sinkI32 int32
var sinkF32 float32
var sinkInt int

func BenchmarkPair(b *testing.B) {
	for _, k := range int8Kernels() {
		b.Run("int8/"+k.name, func(b *testing.B) {
			q, row := benchInt8(benchDims), benchInt8(benchDims)
			out := make([]int32, 1)
			b.SetBytes(benchDims)
			b.ReportAllocs()
			for b.Loop() {
				k.fn(q, row, out)
			}
			sinkI32 = out[0]
		})
	}
	b.Run("float32/vek", func(b *testing.B) {
		q, row := benchFloat(benchDims), benchFloat(benchDims)
		b.SetBytes(4 * benchDims)
		b.ReportAllocs()
		for b.Loop() {
			sinkF32 = DotFloat32(q, row)
		}
	})
	b.Run("binary/popcnt", func(b *testing.B) {
		q, row := benchWords(benchDims/64), benchWords(benchDims/64)
		b.SetBytes(benchDims / 8)
		b.ReportAllocs()
		for b.Loop() {
			sinkInt = HammingBinary(q, row)
		}
	})
}

func BenchmarkScan(b *testing.B) {
	for _, k := range int8Kernels() {
		b.Run(fmt.Sprintf("int8/%s", k.name), func(b *testing.B) {
			q, codes := benchInt8(benchDims), benchInt8(benchDims*benchRows)
			out := make([]int32, benchRows)
			b.SetBytes(int64(len(codes)))
			b.ReportAllocs()
			for b.Loop() {
				k.fn(q, codes, out)
			}
			sinkI32 = out[0]
		})
	}
	for _, k := range nibbleKernels() {
		b.Run(fmt.Sprintf("nibble/%s", k.name), func(b *testing.B) {
			d4 := nibbleDims(benchDims)
			q, codes := benchInt8(d4), make([]uint8, d4/2*benchRows)
			for i, c := range benchInt8(len(codes)) {
				codes[i] = uint8(c)
			}
			out := make([]int32, benchRows)
			b.SetBytes(int64(len(codes)))
			b.ReportAllocs()
			for b.Loop() {
				k.fn(q, codes, out)
			}
			sinkI32 = out[0]
		})
	}
	b.Run("float32/vek", func(b *testing.B) {
		q, rows := benchFloat(benchDims), benchFloat(benchDims*benchRows)
		out := make([]float32, benchRows)
		b.SetBytes(int64(4 * len(rows)))
		b.ReportAllocs()
		for b.Loop() {
			for i := range out {
				out[i] = DotFloat32(q, rows[i*benchDims:(i+1)*benchDims])
			}
		}
		sinkF32 = out[0]
	})
	b.Run("binary/popcnt", func(b *testing.B) {
		w := benchDims / 64
		q, rows := benchWords(w), benchWords(w*benchRows)
		out := make([]int32, benchRows)
		b.SetBytes(int64(8 * len(rows)))
		b.ReportAllocs()
		for b.Loop() {
			HammingRows(q, rows, out)
		}
		sinkI32 = out[0]
	})
}

// BenchmarkMemoryBandwidth measures this machine's streaming limits over
// 256 MiB (far beyond the caches): "read" sums float32s with vek's AVX2
// kernel (the rate a scan cannot beat), "copy" is memmove (bytes read plus
// bytes written).
func BenchmarkMemoryBandwidth(b *testing.B) {
	a := benchFloat(64 << 20)
	b.Run("read", func(b *testing.B) {
		b.SetBytes(int64(4 * len(a)))
		b.ReportAllocs()
		for b.Loop() {
			sinkF32 = vek32.Sum(a)
		}
	})
	b.Run("copy", func(b *testing.B) {
		dst := make([]float32, len(a))
		b.SetBytes(int64(8 * len(a)))
		b.ReportAllocs()
		for b.Loop() {
			copy(dst, a)
		}
	})
}

func BenchmarkSearch(b *testing.B) {
	vs := clustered(10, 50_000, benchDims, 500, 0.05)
	x := buildIndex(b, vs, Options{Seed: 1})
	queries := clustered(11, 256, benchDims, 500, 0.05)
	for _, c := range []struct{ np, k int }{{0, 10}, {x.NList() / 4, 10}, {0, 300}} {
		b.Run(fmt.Sprintf("n=50000/nprobe=%d/k=%d", c.np, c.k), func(b *testing.B) {
			dst := make([]Result, 0, c.k)
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				dst = x.Search(queries[i%len(queries)], c.k, c.np, nil, dst)
				i++
			}
		})
	}
}
