//go:build unix

package vector

import (
	"fmt"
	"os"
	"unsafe"

	"golang.org/x/sys/unix"
)

// mapVectors maps the vectors file at path, which holds count float32
// values, read-only; on a big-endian host it reads it into the heap
// instead (nil mapping).
func mapVectors(path string, count int) (*mapping, []float32, error) {
	if count == 0 {
		return nil, []float32{}, nil
	}
	if !littleEndian {
		vecs, err := readVectors(path, count)
		return nil, vecs, err
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrVectorsFile, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrVectorsFile, err)
	}
	if st.Size() != 4*int64(count) {
		return nil, nil, fmt.Errorf("%w: %s holds %d bytes, want %d", ErrVectorsFile, path, st.Size(), 4*int64(count))
	}
	data, err := unix.Mmap(int(f.Fd()), 0, 4*count, unix.PROT_READ, unix.MAP_SHARED)
	if err != nil {
		return nil, nil, fmt.Errorf("map vectors %s: %w", path, err)
	}
	// Re-scoring reads scattered vectors: no read-ahead around a fault.
	_ = unix.Madvise(data, unix.MADV_RANDOM)
	return &mapping{data: data}, unsafe.Slice((*float32)(unsafe.Pointer(&data[0])), count), nil
}

// unmap releases the mapping; a nil or released one is left alone.
func (m *mapping) unmap() {
	if m != nil && m.data != nil {
		m.uncount()
		_ = unix.Munmap(m.data)
		m.data = nil
		if h := unmapHook.Load(); h != nil {
			(*h)(m)
		}
	}
}

// discard gives the pages of an anonymous mapping back to the system
// (their contents are lost; they read as zeros); nil does nothing.
func (m *mapping) discard() {
	if m != nil && m.data != nil {
		m.uncount()
		_ = unix.Madvise(m.data, unix.MADV_DONTNEED)
	}
}

// mapAnon maps n zeroed bytes, private and anonymous, or returns nil if
// the kernel refuses.
func mapAnon(n int) *mapping {
	data, err := unix.Mmap(-1, 0, n, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_PRIVATE|unix.MAP_ANON)
	if err != nil {
		return nil
	}
	adviseHuge(data)
	m := &mapping{data: data, anon: true}
	m.counted.Store(true)
	offHeap.Add(int64(n))
	return m
}

// willNeed asks the kernel to read a file mapping's pages into the page
// cache (MADV_WILLNEED, which MADV_RANDOM does not limit), willNeedChunk
// bytes per call: Linux reads ahead at most the device's read-ahead size
// (8 MiB here) per call, so one call over a 1.5 GB file brought back
// 8 MiB. Each call queues its reads and returns; on a 1.5 GB file whose
// pages were all dropped the calls took 0.27 s and the file was cached
// after 0.85 s. The pages are not mapped into the process, so they count
// in its RSS only once a search reads them.
func (m *mapping) willNeed() {
	if m == nil || m.anon {
		return
	}
	for off := 0; off < len(m.data); off += willNeedChunk {
		_ = unix.Madvise(m.data[off:min(len(m.data), off+willNeedChunk)], unix.MADV_WILLNEED)
	}
}

// willNeedChunk is the range of one MADV_WILLNEED call (willNeed).
const willNeedChunk = 2 << 20
