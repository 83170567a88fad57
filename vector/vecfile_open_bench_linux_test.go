package vector

import (
	"hash/crc32"
	"math/rand/v2"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// BenchmarkCheckVectorsFile measures the check that opening a segment of
// format 4 makes of its vectors file (size and CRC-32C of every byte,
// checkVectorsFile) for 100,000 vectors of 384 dimensions (153.6 MB):
// warm, the file in the page cache (a reopen soon after writing), and
// cold, its pages dropped before each check (posix_fadvise DONTNEED on
// this file only), as after a reboot.
func BenchmarkCheckVectorsFile(b *testing.B) {
	const n, dims = 100_000, 384
	vecs := make([]float32, n*dims)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range vecs {
		vecs[i] = r.Float32()
	}
	data := vecBytes(vecs)
	crc := crc32.Checksum(data, castagnoli)
	path := filepath.Join(b.TempDir(), "v.f32")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		b.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	if err := f.Sync(); err != nil {
		b.Fatal(err)
	}
	for _, cold := range []bool{false, true} {
		name := "warm"
		if cold {
			name = "cold"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				if cold {
					b.StopTimer()
					if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
						b.Fatal(err)
					}
					b.StartTimer()
				}
				if err := checkVectorsFile(path, n*dims, crc); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
