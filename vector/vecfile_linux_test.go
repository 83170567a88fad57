package vector

import (
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// majorFaults returns the process's major page faults so far (pages read
// from disk on access).
func majorFaults(t *testing.T) int64 {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatal(err)
	}
	return ru.Majflt
}

// savedOnFile builds an index of vs (ids in order) with opts, saves its
// vectors file in the package's directory (not os.TempDir: a tmpfs keeps
// every page in memory and cannot drop one) and returns the index, mapping
// that file, and the file opened for posix_fadvise; both go with tb.
func savedOnFile(tb testing.TB, vs [][]float32, opts Options) (*Index, *os.File) {
	tb.Helper()
	x := buildIndex(tb, vs, opts)
	dir, err := os.MkdirTemp(".", ".vecfile-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "v.f32")
	if err := x.SaveVectors(path); err != nil {
		tb.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { f.Close() })
	return x, f
}

// TestWarmFile drops a saved index's vectors file from the page cache
// (posix_fadvise DONTNEED, as memory pressure or a restart would) and
// checks that FileResidency sees it gone, that a search then reads pages
// from disk, and that WarmFile brings the whole file back into the page
// cache without mapping it: afterwards re-scoring every vector reads
// nothing from disk, and the process's resident memory did not grow by
// the file.
func TestWarmFile(t *testing.T) {
	const n, dims = 4096, 256 // a 4 MiB file
	vs := clustered(5, n, dims, 16, 0.1)
	x, f := savedOnFile(t, vs, Options{Seed: 1})
	if res, size := x.FileResidency(); size != 4*n*dims || res != size {
		t.Fatalf("just written: %d of %d bytes cached, want all of %d", res, size, 4*n*dims)
	}
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	res, size := x.FileResidency()
	if res > size/4 {
		t.Fatalf("dropped file: %d of %d bytes still cached", res, size)
	}
	before := majorFaults(t)
	x.Search(vs[7], 10, 0, nil, nil)
	if got := majorFaults(t) - before; got == 0 {
		t.Fatal("a search of the dropped file read no page from disk")
	}

	rss := func() int64 {
		b, err := os.ReadFile("/proc/self/statm")
		if err != nil {
			t.Fatal(err)
		}
		var total, resident int64
		if _, err := fmt.Sscan(string(b), &total, &resident); err != nil {
			t.Fatal(err)
		}
		return resident * int64(os.Getpagesize())
	}
	rss0 := rss()
	x.WarmFile()
	deadline := time.Now().Add(20 * time.Second)
	for {
		if res, _ = x.FileResidency(); res == size {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after WarmFile: %d of %d bytes cached", res, size)
		}
		time.Sleep(5 * time.Millisecond)
	}
	if grown := rss() - rss0; grown >= size/2 {
		t.Fatalf("WarmFile mapped the file: RSS grew by %d bytes of %d", grown, size)
	}
	before = majorFaults(t)
	var sum float32
	for i := range vs {
		sum += DotFloat32(vs[i], x.vecs[i*dims:(i+1)*dims])
	}
	if got := majorFaults(t) - before; got != 0 {
		t.Fatalf("re-scoring every vector of the warmed file read %d pages from disk", got)
	}
	if !(sum > 0) {
		t.Fatalf("the vectors score %v against themselves", sum)
	}
}

// BenchmarkRescoreFile measures re-scoring one vector read through the
// mapped vectors file (100,000 vectors of 384 dimensions, 154 MB; one
// random vector per operation): dropped, its pages unmapped and dropped
// from the page cache before the timed reads (MADV_DONTNEED, then
// posix_fadvise DONTNEED), as after memory pressure, and cached, after
// WarmFile: each read of a dropped page waits
// for a 4 KiB disk read (the mapping has no read-ahead, MADV_RANDOM). Run
// it with a count of operations well under the file's 37,500 pages (e.g.
// -benchtime 2000x) so that dropped reads rarely meet a page an earlier
// one brought back.
func BenchmarkRescoreFile(b *testing.B) {
	const n, dims = 100_000, 384
	vs := clustered(3, n, dims, 64, 0.2)
	x, f := savedOnFile(b, vs, Options{Seed: 1, NList: 1})
	for _, dropped := range []bool{true, false} {
		name := "cached"
		if dropped {
			name = "dropped"
		}
		b.Run(name, func(b *testing.B) {
			if dropped {
				// Pages this process maps are not dropped: unmap them
				// first (the file's pages stay in the page cache).
				if err := unix.Madvise(x.file.data, unix.MADV_DONTNEED); err != nil {
					b.Fatal(err)
				}
				if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
					b.Fatal(err)
				}
				if res, size := x.FileResidency(); res*8 > size {
					b.Fatalf("%d of %d bytes still cached", res, size)
				}
			} else {
				x.WarmFile()
				for res, size := x.FileResidency(); res < size; res, size = x.FileResidency() {
					time.Sleep(time.Millisecond)
				}
			}
			r := uint64(12345)
			var sum float32
			for b.Loop() {
				r = r*6364136223846793005 + 1442695040888963407
				id := int(r>>33) % n
				sum += DotFloat32(vs[0], x.vecs[id*dims:(id+1)*dims])
			}
			if sum == 0 {
				b.Fatal("no vector read")
			}
		})
	}
}
