package vector

import (
	"math/bits"

	"github.com/viterin/vek/vek32"
)

// DotInt8 returns the dot product of a and b, which must have the same
// length. It uses the fastest kernel of this CPU (see Kernel).
func DotInt8(a, b []int8) int32 {
	if len(a) != len(b) {
		panic("BUG: DotInt8 of slices of different lengths")
	}
	var out [1]int32
	dotInt8Rows(a, b, out[:])
	return out[0]
}

// DotInt8Rows stores in out[i] the dot product of q with the i-th row of
// codes, a row-major matrix of len(out) rows of len(q) values. It is the
// scan kernel of the index: q stays hot while the rows stream by.
func DotInt8Rows(q, codes []int8, out []int32) {
	if len(codes) < len(out)*len(q) {
		panic("BUG: DotInt8Rows with fewer codes than rows")
	}
	dotInt8Rows(q, codes, out)
}

// DotFloat32 returns the dot product of a and b, which must have the same
// length (vek's AVX2 kernel when the CPU has it).
func DotFloat32(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	return vek32.Dot(a, b)
}

// HammingBinary returns the number of differing bits of a and b, which must
// have the same length. bits.OnesCount64 compiles to POPCNT on amd64; for
// codes of a few words (384 bits are 6) an assembly loop is not faster.
func HammingBinary(a, b []uint64) int {
	if len(a) != len(b) {
		panic("BUG: HammingBinary of slices of different lengths")
	}
	b = b[:len(a)]
	n := 0
	for i := range a {
		n += bits.OnesCount64(a[i] ^ b[i])
	}
	return n
}

// HammingRows stores in out[i] the Hamming distance of q to the i-th row of
// codes, a row-major matrix of len(out) rows of len(q) words.
func HammingRows(q, codes []uint64, out []int32) {
	w := len(q)
	if len(codes) < len(out)*w {
		panic("BUG: HammingRows with fewer codes than rows")
	}
	for i := range out {
		row := codes[i*w : i*w+w]
		n := 0
		for j, x := range q {
			n += bits.OnesCount64(x ^ row[j])
		}
		out[i] = int32(n)
	}
}

// Kernel names the int8 kernel set chosen for this CPU: "avx512vnni",
// "avx512bw", "avx2" or "generic".
func Kernel() string { return kernelName }

// dotInt8RowsGeneric is the reference kernel: every accelerated kernel must
// return exactly its results.
func dotInt8RowsGeneric(q, codes []int8, out []int32) {
	d := len(q)
	for i := range out {
		row := codes[i*d : i*d+d]
		var s int32
		for j, x := range q {
			s += int32(x) * int32(row[j])
		}
		out[i] = s
	}
}

// nibbleBlock is the number of dimensions one 64-byte block of a 4-bit
// code holds: byte i of block b carries dimension 128b+i in its low
// nibble and dimension 128b+64+i in its high nibble, so that a kernel
// turns one 64-byte load into two 64-dimension operands with a mask and a
// shift.
const nibbleBlock = 128

// nibbleDims returns dims rounded up to whole 128-dimension blocks: the
// length of a 4-bit kernel's query (zero-padded) and twice its code bytes.
func nibbleDims(dims int) int { return (dims + nibbleBlock - 1) / nibbleBlock * nibbleBlock }

// packNibbles writes to dst (nibbleDims(len(c))/2 bytes) the 4-bit code of
// the int8 code c: (c+127)>>4 in 0..15 per dimension, laid out in blocks
// (see nibbleBlock), padding dimensions zero. It is derived from the int8
// code alone, so an opened index computes it without its float32 vectors.
func packNibbles(dst []uint8, c []int8) {
	clear(dst)
	for j, v := range c {
		nib := uint8((int(v) + 127) >> 4)
		b, i := j/nibbleBlock, j%nibbleBlock
		if i < nibbleBlock/2 {
			dst[b*64+i] |= nib
		} else {
			dst[b*64+i-64] |= nib << 4
		}
	}
}

// dotNibbleRowsGeneric is the reference 4-bit kernel: out[i] is the dot
// product of q (len a multiple of 128, int8) with the unpacked 4-bit
// values (0..15) of row i of codes (len(q)/2 bytes per row).
func dotNibbleRowsGeneric(q []int8, codes []uint8, out []int32) {
	rb := len(q) / 2
	for i := range out {
		row := codes[i*rb : i*rb+rb]
		var s int32
		for b := 0; b < rb; b += 64 {
			qb := q[2*b : 2*b+128]
			for j, c := range row[b : b+64] {
				s += int32(qb[j])*int32(c&15) + int32(qb[64+j])*int32(c>>4)
			}
		}
		out[i] = s
	}
}
