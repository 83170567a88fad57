// Package envelope frames every part najdi writes to disk: the segment meta,
// the text index, the field index, the vector index and the delete bitmap
// are each one envelope, so every part says what it is, which version of
// its encoding follows, and whether a byte of it changed.
//
//	┌──────────────┬─────────────┬────────────────────┬────────────────┐
//	│ magic (4 B)  │ version 1 B │ payload            │ CRC-32C (4 B)  │
//	└──────────────┴─────────────┴────────────────────┴────────────────┘
//
// The CRC is Castagnoli (hardware-accelerated on amd64 and arm64), little
// endian, over the magic, the version and the payload. CRC-32 detects every
// error burst of up to 32 bits, so any single changed byte is found.
// docs/format/README.md lists the magics and links one document per part.
//
// Parts written before the envelope (segment format 1) have no magic; each
// part's decoder recognises them by the missing magic and reads them with
// its legacy decoder, so old stores keep opening.
package envelope

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// Overhead is the number of bytes the envelope adds to a payload.
const Overhead = headerLen + crcLen

const (
	magicLen  = 4
	headerLen = magicLen + 1
	crcLen    = 4
)

// ErrCorrupt reports data that is not an intact envelope: too short, a
// foreign magic or a checksum mismatch. Decoders wrap it together with
// their own package's sentinel.
var ErrCorrupt = errors.New("envelope: corrupt data")

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// Begin appends the header (magic, version) to dst and returns the extended
// slice; the caller appends the payload and then calls End with
// start = len(dst) before Begin. It panics when magic is not 4 bytes.
func Begin(dst []byte, magic string, version byte) []byte {
	if len(magic) != magicLen {
		panic("BUG: envelope magic must be 4 bytes: " + magic)
	}
	dst = append(dst, magic...)
	return append(dst, version)
}

// End appends the checksum of dst[start:] (the header and payload appended
// since Begin) and returns the extended slice.
func End(dst []byte, start int) []byte {
	return binary.LittleEndian.AppendUint32(dst, crc32.Checksum(dst[start:], castagnoli))
}

// Append returns dst with payload appended in an envelope.
func Append(dst []byte, magic string, version byte, payload []byte) []byte {
	start := len(dst)
	dst = Begin(dst, magic, version)
	dst = append(dst, payload...)
	return End(dst, start)
}

// Has reports whether data starts with magic, that is, whether it was
// written in an envelope of that kind (and not by a pre-envelope format).
func Has(data []byte, magic string) bool {
	return len(data) >= magicLen && string(data[:magicLen]) == magic
}

// Open checks an envelope of kind magic and returns its version and
// payload (aliasing data). Errors wrap ErrCorrupt and say what is wrong.
func Open(data []byte, magic string) (version byte, payload []byte, err error) {
	if len(data) < Overhead {
		return 0, nil, fmt.Errorf("%w: %d bytes, shorter than an envelope", ErrCorrupt, len(data))
	}
	if !Has(data, magic) {
		return 0, nil, fmt.Errorf("%w: magic %q, want %q", ErrCorrupt, data[:magicLen], magic)
	}
	body := data[:len(data)-crcLen]
	stored := binary.LittleEndian.Uint32(data[len(body):])
	if sum := crc32.Checksum(body, castagnoli); sum != stored {
		return 0, nil, fmt.Errorf("%w: checksum %08x, stored %08x", ErrCorrupt, sum, stored)
	}
	return data[magicLen], body[headerLen:], nil
}

// Decoder reads the unsigned varints and byte strings of a payload with
// bounds checks. The first error sticks in Err; later reads return zero
// values, so a decoder checks Err once after a run of reads. Errors do not
// wrap ErrCorrupt: callers wrap them with their own sentinel.
type Decoder struct {
	B   []byte // the bytes not read yet
	Err error  // the first error
}

// Uvarint reads an unsigned varint.
func (d *Decoder) Uvarint() uint64 {
	if d.Err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.B)
	if n <= 0 {
		d.Err = errors.New("truncated varint")
		return 0
	}
	d.B = d.B[n:]
	return v
}

// Count reads a varint count of items of at least minSize bytes each, and
// fails when the bytes left cannot hold that many (so that a damaged count
// never makes the caller allocate more than the data suggests).
func (d *Decoder) Count(minSize int) int {
	v := d.Uvarint()
	if d.Err == nil && v > uint64(len(d.B)/max(minSize, 1)+1) {
		d.Err = fmt.Errorf("count %d exceeds the data", v)
		return 0
	}
	return int(v)
}

// Bytes reads n bytes; the result aliases the payload.
func (d *Decoder) Bytes(n uint64) []byte {
	if d.Err != nil {
		return nil
	}
	if n > uint64(len(d.B)) {
		d.Err = errors.New("truncated data")
		return nil
	}
	out := d.B[:n]
	d.B = d.B[n:]
	return out
}
