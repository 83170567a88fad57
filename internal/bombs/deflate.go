package bombs

import (
	"bytes"
	"encoding/binary"
	"hash/crc32"
)

// run is inflated content described without materializing it: prefix,
// then unit repeated n times, then suffix.
type run struct {
	prefix []byte
	unit   []byte
	n      int64
	suffix []byte
}

// size returns the inflated size of r.
func (r run) size() int64 {
	return int64(len(r.prefix)) + int64(len(r.unit))*r.n + int64(len(r.suffix))
}

// crc returns the CRC-32 (IEEE) of r's content, computed with
// crc32Combine so that gigabytes cost microseconds.
func (r run) crc() uint32 {
	c := crc32.ChecksumIEEE(r.prefix)
	c = crc32Combine(c, crcRepeat(r.unit, r.n), int64(len(r.unit))*r.n)
	return crc32Combine(c, crc32.ChecksumIEEE(r.suffix), int64(len(r.suffix)))
}

// bytes materializes r; only for small runs (stored entries, tests).
func (r run) bytes() []byte {
	b := make([]byte, 0, r.size())
	b = append(b, r.prefix...)
	for range r.n {
		b = append(b, r.unit...)
	}
	return append(b, r.suffix...)
}

// crcRepeat returns the CRC-32 of unit repeated n times, by doubling.
func crcRepeat(unit []byte, n int64) uint32 {
	var acc uint32 // CRC of the empty string
	accLen := int64(0)
	pow, powLen := crc32.ChecksumIEEE(unit), int64(len(unit))
	for n > 0 {
		if n&1 != 0 {
			acc = crc32Combine(acc, pow, powLen)
			accLen += powLen
		}
		pow = crc32Combine(pow, pow, powLen)
		powLen *= 2
		n >>= 1
	}
	return acc
}

// crc32Combine returns the CRC-32 of A||B from crc1 = CRC(A), crc2 = CRC(B)
// and len2 = len(B), as zlib's crc32_combine: crc1 times x^(8·len2)
// modulo the CRC polynomial, plus crc2.
func crc32Combine(crc1, crc2 uint32, len2 int64) uint32 {
	if len2 <= 0 {
		return crc1
	}
	return multModP(x2nModP(len2, 3), crc1) ^ crc2
}

// multModP returns a·b modulo the (reflected) CRC-32 polynomial.
func multModP(a, b uint32) uint32 {
	m, p := uint32(1)<<31, uint32(0)
	for {
		if a&m != 0 {
			p ^= b
			if a&(m-1) == 0 {
				return p
			}
		}
		m >>= 1
		if b&1 != 0 {
			b = b>>1 ^ crc32.IEEE
		} else {
			b >>= 1
		}
	}
}

// x2nTable[k] is x^(2^k) modulo the CRC-32 polynomial.
var x2nTable = func() (t [32]uint32) {
	p := uint32(1) << 30 // x^1
	t[0] = p
	for n := 1; n < 32; n++ {
		p = multModP(p, p)
		t[n] = p
	}
	return t
}()

// x2nModP returns x^(n·2^k) modulo the CRC-32 polynomial.
func x2nModP(n int64, k uint) uint32 {
	p := uint32(1) << 31 // x^0
	for n != 0 {
		if n&1 != 0 {
			p = multModP(x2nTable[k&31], p)
		}
		n >>= 1
		k++
	}
	return p
}

// bitWriter writes a DEFLATE bit stream: fields LSB first, Huffman codes
// MSB first (RFC 1951 section 3.1.1).
type bitWriter struct {
	out   bytes.Buffer
	acc   uint64
	nbits uint
}

// bits writes the low n bits of v, least significant first.
func (w *bitWriter) bits(v uint64, n uint) {
	w.acc |= v << w.nbits
	w.nbits += n
	for w.nbits >= 8 {
		w.out.WriteByte(byte(w.acc))
		w.acc >>= 8
		w.nbits -= 8
	}
}

// code writes a Huffman code of n bits, most significant first.
func (w *bitWriter) code(c uint64, n uint) {
	var r uint64
	for i := uint(0); i < n; i++ {
		r = r<<1 | (c>>i)&1
	}
	w.bits(r, n)
}

// align pads to a byte boundary with zero bits.
func (w *bitWriter) align() {
	if w.nbits > 0 {
		w.bits(0, 8-w.nbits)
	}
}

// stored writes data as stored blocks, the last one final when final.
func (w *bitWriter) stored(data []byte, final bool) {
	for {
		n := min(len(data), 65535)
		last := final && n == len(data)
		w.bits(b2u(last), 1)
		w.bits(0, 2) // BTYPE 00
		w.align()
		var hdr [4]byte
		binary.LittleEndian.PutUint16(hdr[0:], uint16(n))
		binary.LittleEndian.PutUint16(hdr[2:], ^uint16(n))
		w.out.Write(hdr[:])
		w.out.Write(data[:n])
		data = data[n:]
		if len(data) == 0 {
			return
		}
	}
}

func b2u(b bool) uint64 {
	if b {
		return 1
	}
	return 0
}

// The DEFLATE distance codes: base distance and extra bits of codes 0..29.
var (
	distBase  = [30]int{1, 2, 3, 4, 5, 7, 9, 13, 17, 25, 33, 49, 65, 97, 129, 193, 257, 385, 513, 769, 1025, 1537, 2049, 3073, 4097, 6145, 8193, 12289, 16385, 24577}
	distExtra = [30]uint{0, 0, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8, 9, 9, 10, 10, 11, 11, 12, 12, 13, 13}
)

// matches writes a dynamic-Huffman block of m copies of length 258 at
// distance dist, then end of block. The literal/length code holds only
// end of block and length 258 (one bit each) and the distance code only
// dist's code (one bit), so a copy of 258 bytes costs 2 bits plus dist's
// extra bits: up to 1032:1, DEFLATE's ceiling.
func (w *bitWriter) matches(m int64, dist int) {
	dc := 0
	for dc < 29 && distBase[dc+1] <= dist {
		dc++
	}
	w.bits(0, 1) // not final
	w.bits(2, 2) // BTYPE 10: dynamic Huffman
	w.bits(286-257, 5)
	w.bits(uint64(dc+1-1), 5)
	// Code length code: symbols 0, 1, 17 and 18, two bits each; the
	// lengths are sent in the order 16 17 18 0 8 7 9 6 10 5 11 4 12 3 13
	// 2 14 1 15, up to symbol 1 (18 of them).
	w.bits(18-4, 4)
	for _, sym := range []int{16, 17, 18, 0, 8, 7, 9, 6, 10, 5, 11, 4, 12, 3, 13, 2, 14, 1} {
		l := uint64(0)
		if sym == 0 || sym == 1 || sym == 17 || sym == 18 {
			l = 2
		}
		w.bits(l, 3)
	}
	// Canonical code-length codes: 0 → 00, 1 → 01, 17 → 10, 18 → 11.
	zeros := func(n int) {
		for n > 0 {
			switch {
			case n >= 11:
				k := min(n, 138)
				w.code(3, 2)
				w.bits(uint64(k-11), 7)
				n -= k
			case n >= 3:
				w.code(2, 2)
				w.bits(uint64(n-3), 3)
				n = 0
			default:
				w.code(0, 2)
				n--
			}
		}
	}
	one := func() { w.code(1, 2) }
	zeros(256) // literals 0..255 unused
	one()      // 256 end of block
	zeros(28)  // lengths 257..284 unused
	one()      // 285: length 258
	zeros(dc)  // distance codes below dc unused
	one()      // dc
	// Literal/length codes: 256 → 0, 285 → 1; distance code dc → 0.
	// One copy: length 258 (code 1), distance code 0, then the extra
	// bits, k bits in all; eight copies fill k bytes, so that past the
	// first eight (which settle the bit alignment) the output repeats
	// every eight copies and is appended k bytes at a time.
	eb := distExtra[dc]
	v, k := uint64(1)|uint64(dist-distBase[dc])<<2, 2+eb
	first := min(m, 8)
	for range first {
		w.bits(v, k)
	}
	m -= first
	if groups := m / 8; groups > 0 {
		start := w.out.Len()
		for range 8 {
			w.bits(v, k)
		}
		group := append([]byte(nil), w.out.Bytes()[start:]...)
		w.out.Write(bytes.Repeat(group, int(groups-1)))
		m -= groups * 8
	}
	for range m {
		w.bits(v, k)
	}
	w.code(0, 1) // end of block
}

// deflate returns a raw DEFLATE stream of r: the prefix and the first
// unit stored, the repeats as copies of the unit at distance len(unit)
// (len(unit) ≤ 32768), the rest stored.
func deflate(r run) []byte {
	var w bitWriter
	if r.n == 0 || len(r.unit) == 0 {
		w.stored(append(append([]byte{}, r.prefix...), r.suffix...), true)
		w.align()
		return w.out.Bytes()
	}
	p := len(r.unit)
	if p > 32768 {
		panic("BUG: deflate unit over 32 KiB")
	}
	w.stored(append(append([]byte{}, r.prefix...), r.unit...), false)
	rest := (r.n - 1) * int64(p) // bytes of the periodic region still to produce
	m := rest / 258
	if m > 0 {
		w.matches(m, p)
	}
	// The remainder continues the period where the copies stopped.
	tail := make([]byte, 0, rest-m*258+int64(len(r.suffix)))
	off := int((m * 258) % int64(p))
	for i := int64(0); i < rest-m*258; i++ {
		tail = append(tail, r.unit[(off+int(i))%p])
	}
	tail = append(tail, r.suffix...)
	w.stored(tail, true)
	w.align()
	return w.out.Bytes()
}
