package vector

import "testing"

// BenchmarkCodec measures encoding and decoding a 20,000-vector IVF index
// of 384 dimensions (decoding recomputes the int8 codes).
func BenchmarkCodec(b *testing.B) {
	x := buildIndex(b, clustered(21, 20_000, 384, 40, 0.1), Options{})
	data := x.AppendBinary(nil)
	b.Run("encode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		buf := make([]byte, 0, len(data))
		for b.Loop() {
			buf = x.AppendBinary(buf[:0])
		}
	})
	b.Run("decode", func(b *testing.B) {
		b.ReportAllocs()
		b.SetBytes(int64(len(data)))
		for b.Loop() {
			if _, err := Decode(data); err != nil {
				b.Fatal(err)
			}
		}
	})
}
