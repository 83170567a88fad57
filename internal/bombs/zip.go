package bombs

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"encoding/binary"
	"hash/crc32"
	"time"
)

// entry is one member of an archive being built.
type entry struct {
	name string
	// Exactly one of body and bomb is set.
	body     []byte // deflated with compress/flate, or stored when store
	store    bool
	bomb     *run  // hand-made DEFLATE stream, see deflate
	lieAbout int64 // when > 0, the uncompressed size declared instead of the real one
}

// modified is the fixed modification time of every entry, so that output
// is deterministic; msdosDate is the same day in MS-DOS form, which
// CreateRaw does not derive from Modified.
var modified = time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)

const msdosDate = (2024-1980)<<9 | 1<<5 | 1

// buildZip writes the entries in order into a ZIP archive.
func buildZip(entries []entry) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		switch {
		case e.bomb != nil:
			data := deflate(*e.bomb)
			fh := &zip.FileHeader{
				//lint:ignore SA1019 CreateRaw writes the MS-DOS date as given; Modified only fills the extended timestamp
				Name: e.name, Method: zip.Deflate, Modified: modified, ModifiedDate: msdosDate,
				CRC32: e.bomb.crc(), CompressedSize64: uint64(len(data)), UncompressedSize64: uint64(e.bomb.size()),
			}
			if e.lieAbout > 0 {
				fh.UncompressedSize64 = uint64(e.lieAbout)
			}
			w, err := zw.CreateRaw(fh)
			must(err)
			_, err = w.Write(data)
			must(err)
		case e.store:
			w, err := zw.CreateHeader(&zip.FileHeader{Name: e.name, Method: zip.Store, Modified: modified})
			must(err)
			_, err = w.Write(e.body)
			must(err)
		default:
			var c bytes.Buffer
			fw, err := flate.NewWriter(&c, flate.DefaultCompression)
			must(err)
			_, err = fw.Write(e.body)
			must(err)
			must(fw.Close())
			w, err := zw.CreateRaw(&zip.FileHeader{
				//lint:ignore SA1019 CreateRaw writes the MS-DOS date as given; Modified only fills the extended timestamp
				Name: e.name, Method: zip.Deflate, Modified: modified, ModifiedDate: msdosDate,
				CRC32: crc32.ChecksumIEEE(e.body), CompressedSize64: uint64(c.Len()), UncompressedSize64: uint64(len(e.body)),
			})
			must(err)
			_, err = w.Write(c.Bytes())
			must(err)
		}
	}
	must(zw.Close())
	return buf.Bytes()
}

func must(err error) {
	if err != nil {
		panic("BUG: bombs: " + err.Error())
	}
}

// storedZip returns the pieces of a ZIP archive with one stored member
// name whose content is r, without materializing r: the bytes before the
// content, and those after it (central directory and end record). The
// archive is prefix || content(r) || suffix.
func storedZip(name string, r run) (prefix, suffix []byte) {
	size := r.size()
	if size >= 1<<32 {
		panic("BUG: storedZip needs zip64")
	}
	crc := r.crc()
	le := binary.LittleEndian
	local := make([]byte, 30, 30+len(name))
	le.PutUint32(local[0:], 0x04034b50)
	le.PutUint16(local[4:], 10) // version needed
	le.PutUint16(local[8:], 0)  // stored
	le.PutUint32(local[14:], crc)
	le.PutUint32(local[18:], uint32(size))
	le.PutUint32(local[22:], uint32(size))
	le.PutUint16(local[26:], uint16(len(name)))
	local = append(local, name...)

	central := make([]byte, 46, 46+len(name)+22)
	le.PutUint32(central[0:], 0x02014b50)
	le.PutUint16(central[4:], 20)
	le.PutUint16(central[6:], 10)
	le.PutUint32(central[16:], crc)
	le.PutUint32(central[20:], uint32(size))
	le.PutUint32(central[24:], uint32(size))
	le.PutUint16(central[28:], uint16(len(name)))
	central = append(central, name...)
	dirLen := len(central)
	end := make([]byte, 22)
	le.PutUint32(end[0:], 0x06054b50)
	le.PutUint16(end[8:], 1)
	le.PutUint16(end[10:], 1)
	le.PutUint32(end[12:], uint32(dirLen))
	le.PutUint32(end[16:], uint32(int64(len(local))+size))
	return local, append(central, end...)
}
