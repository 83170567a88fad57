package bombs

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"hash/crc32"
	"io"
	"testing"
)

// TestDeflate checks the hand-made DEFLATE streams against
// compress/flate at every unit size the corpus uses and at the edges of
// the distance codes.
func TestDeflate(t *testing.T) {
	for _, p := range []int{1, 2, 3, 4, 5, 8, 9, 21, 23, 32, 33, 258, 1000, 32768} {
		for _, n := range []int64{0, 1, 2, 3, 300, 5000} {
			unit := make([]byte, p)
			for i := range unit {
				unit[i] = byte('a' + i%23)
			}
			r := run{prefix: []byte("<head>"), unit: unit, n: n, suffix: []byte("</tail>")}
			got, err := io.ReadAll(flate.NewReader(bytes.NewReader(deflate(r))))
			if err != nil {
				t.Fatalf("unit %d x %d: %v", p, n, err)
			}
			want := r.bytes()
			if !bytes.Equal(got, want) {
				t.Fatalf("unit %d x %d: inflated %d bytes, want %d", p, n, len(got), len(want))
			}
			if c := crc32.ChecksumIEEE(want); r.crc() != c || int64(len(want)) != r.size() {
				t.Fatalf("unit %d x %d: crc %08x size %d, want %08x %d", p, n, r.crc(), r.size(), c, len(want))
			}
		}
	}
}

// TestCorpusValid checks that every archive opens with archive/zip and that
// its entries inflate to what their headers say, reading at most 64 MiB of
// each (the headers of the lying bomb are checked to lie).
func TestCorpusValid(t *testing.T) {
	for _, b := range Corpus() {
		zr, err := zip.NewReader(bytes.NewReader(b.Data), int64(len(b.Data)))
		if err != nil {
			t.Fatalf("%s: %v", b.Name, err)
		}
		for _, f := range zr.File {
			if f.UncompressedSize64 > 64<<20 || len(zr.File) > 100 {
				continue
			}
			rc, err := f.Open()
			if err != nil {
				t.Fatalf("%s: %s: %v", b.Name, f.Name, err)
			}
			_, err = io.Copy(io.Discard, rc)
			rc.Close()
			if lie := b.Want == Corrupt && f.Name == "xl/worksheets/sheet1.xml"; (err != nil) != lie {
				t.Fatalf("%s: %s: read error %v", b.Name, f.Name, err)
			}
		}
		t.Logf("%-32s %9d bytes, inflates to %d", b.Name, len(b.Data), b.Inflated)
	}
}

// TestNestedZip checks the stored ZIP built without materializing its
// member.
func BenchmarkCorpus(b *testing.B) {
	for b.Loop() {
		Corpus()
	}
}

func TestNestedZip(t *testing.T) {
	r := run{unit: []byte{0}, n: 100000}
	pre, suf := storedZip("zeros.bin", r)
	data := append(append(pre, r.bytes()...), suf...)
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	rc, err := zr.File[0].Open()
	if err != nil {
		t.Fatal(err)
	}
	n, err := io.Copy(io.Discard, rc)
	if err != nil || n != r.n {
		t.Fatalf("read %d bytes, %v", n, err)
	}
}
