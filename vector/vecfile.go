package vector

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"sync/atomic"
	"unsafe"

	"github.com/najdi/najdi/internal/envelope"
)

// The vectors file holds an index's float32 vectors by id (n·dims values,
// little endian, no header) outside the Go heap. Search reads a vector
// only to re-score one of its few best int8 candidates, to score a small
// or selectively filtered index exactly, or to merge, so the vectors need
// not be resident: the file is memory-mapped read-only with MADV_RANDOM
// (a re-scored vector faults in its own page, not its neighbours'), and
// its pages live in the page cache, which the kernel can reclaim, not on
// the Go heap. A mapped page counts in the process's RSS (RssFile) once
// touched. The index part of format 4 (AppendIndex) records the file's
// size and CRC-32C; Open checks both before mapping it.

// castagnoli is the CRC-32C table of the vectors file's checksum.
var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// ErrVectorsFile reports a vectors file that is missing, of the wrong size
// or whose checksum does not match its index part.
var ErrVectorsFile = errors.New("vector: bad vectors file")

// mapping is a read-only memory mapping of a vectors file (nil data for an
// empty file), or an anonymous one holding codes or a merge's vectors
// outside the Go heap (anon; mapAnon).
type mapping struct {
	data []byte
	anon bool
	// counted is set while the mapping's bytes count in offHeap.
	counted atomic.Bool
}

// offHeap is the number of bytes of the anonymous mappings in use.
var offHeap atomic.Int64

// OffHeapBytes returns the bytes the vector indexes hold in memory outside
// the Go heap: their codes (and a merge's vectors until they are written
// to their file). They count in the process's resident memory, not in the
// Go runtime's heap statistics.
func OffHeapBytes() int64 { return offHeap.Load() }

// uncount takes an anonymous mapping's bytes out of offHeap, once.
func (m *mapping) uncount() {
	if m.anon && m.counted.CompareAndSwap(true, false) {
		offHeap.Add(-int64(len(m.data)))
	}
}

// unmapHook, when set (tests), is called with every mapping released.
var unmapHook atomic.Pointer[func(*mapping)]

// littleEndian tells whether float32 values are stored little endian in
// memory, so that the file's bytes are the vectors as they are.
var littleEndian = func() bool {
	x := uint16(1)
	return *(*byte)(unsafe.Pointer(&x)) == 1
}()

// OnFile reports whether the index reads its float32 vectors from a
// memory-mapped vectors file (SaveVectors, Open) rather than the heap.
func (x *Index) OnFile() bool { return x.vecsCRCSet }

// vecBytes returns the vectors as bytes, little endian (a view on a
// little-endian host, a copy otherwise).
func vecBytes(vecs []float32) []byte {
	if len(vecs) == 0 {
		return nil
	}
	if littleEndian {
		return unsafe.Slice((*byte)(unsafe.Pointer(&vecs[0])), 4*len(vecs))
	}
	return appendFloats(make([]byte, 0, 4*len(vecs)), vecs)
}

// SaveVectors writes the index's float32 vectors to the vectors file path
// (through a temporary file in the same directory that is synced, then
// renamed over path, the directory synced too), and from then on reads
// them from that file, memory-mapped, releasing their heap copy. Call it
// before the index is shared between goroutines: it changes where the
// index reads its vectors. An index already on file writes its mapped
// vectors to the new path and keeps its mapping.
func (x *Index) SaveVectors(path string) error {
	b := vecBytes(x.vecs)
	crc := crc32.Checksum(b, castagnoli)
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return fmt.Errorf("write vectors: %w", err)
	}
	_, err = f.Write(b)
	runtime.KeepAlive(x)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err == nil {
		err = syncDir(filepath.Dir(path))
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("write vectors %s: %w", path, err)
	}
	x.vecsCRC, x.vecsCRCSet = crc, true
	if x.file != nil {
		return nil
	}
	m, vecs, err := mapVectors(path, len(x.vecs))
	if err != nil {
		return err
	}
	x.attach(m, vecs)
	return nil
}

// attach makes the index read its vectors from m; the mapping is released
// once the index is unreachable. The memory of vectors held in an
// anonymous mapping (holdVectors) is given back at once; the mapping
// itself goes with the index.
func (x *Index) attach(m *mapping, vecs []float32) {
	x.vecs = vecs
	x.vecMem.discard()
	if m == nil {
		return
	}
	x.file = m
	x.unmapWith(m)
}

// unmapWith has m unmapped by a cleanup once x is unreachable.
func (x *Index) unmapWith(m *mapping) {
	runtime.AddCleanup(x, func(m *mapping) { m.unmap() }, m)
}

// offHeapFrom is the size in bytes from which an index's codes live in an
// anonymous memory mapping instead of the Go heap (allocCodes).
var offHeapFrom = 1 << 20

// allocCodes returns n zeroed bytes for the index's codes: from
// offHeapFrom bytes on, an anonymous private mapping outside the Go heap
// (x.codeMem), released by a cleanup once the index is unreachable, as its
// vectors file is; below, or where nothing can be mapped, a heap slice.
// The codes are as long-lived as the index, so on the heap they would only
// raise the collector's target (GOGC: the heap grows by its live size
// before a collection) by their own size: 1.15 GB of codes at 1M vectors
// let the heap reach 2.3 GB more than the rest of the engine needs.
// Readers of the codes keep x reachable while they read (Search and
// SearchFunc through their deferred use of x, AppendIndex with
// runtime.KeepAlive).
func (x *Index) allocCodes(n int) []byte {
	if n >= offHeapFrom {
		if m := mapAnon(n); m != nil {
			x.codeMem = m
			x.unmapWith(m)
			return m.data[:n:n]
		}
	}
	return make([]byte, n)
}

// allocVectors returns n zeroed float32 values for a merge's vectors: from
// offHeapFrom bytes on in an anonymous mapping outside the Go heap (with
// that mapping, which the caller hands to holdVectors or unmaps), below
// on the heap (nil mapping). A merge into 1M vectors gathers 1.5 GB of
// them before SaveVectors writes them to their file and maps it; on the
// heap they would stay resident as garbage, and raise the collector's
// target, well after the merge.
func allocVectors(n int) ([]float32, *mapping) {
	if 4*n >= offHeapFrom {
		if m := mapAnon(4 * n); m != nil {
			return unsafe.Slice((*float32)(unsafe.Pointer(&m.data[0])), n), m
		}
	}
	return make([]float32, n), nil
}

// holdVectors ties m, the anonymous mapping behind x.vecs (allocVectors),
// to x: its memory is given back when SaveVectors maps the vectors file
// (attach), and it is unmapped once x is unreachable. A nil m does
// nothing.
func (x *Index) holdVectors(m *mapping) {
	if m == nil {
		return
	}
	x.vecMem = m
	x.unmapWith(m)
}

// syncDir fsyncs a directory, so that a rename in it is durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}

// checkVectorsFile verifies that the file at path holds count float32
// values whose CRC-32C is crc, reading it sequentially (not through the
// mapping, so that the check leaves no page mapped in the process).
func checkVectorsFile(path string, count int, crc uint32) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("%w: %w", ErrVectorsFile, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrVectorsFile, err)
	}
	if st.Size() != 4*int64(count) {
		return fmt.Errorf("%w: %s holds %d bytes, want %d", ErrVectorsFile, path, st.Size(), 4*int64(count))
	}
	// A buffer no larger than the file: small segments are opened often
	// (every reopen, every small flush's segment), and a fixed 1 MiB
	// buffer per file dominated opening them.
	buf := make([]byte, min(st.Size(), 1<<20)+1)
	var sum uint32
	for {
		n, err := f.Read(buf)
		sum = crc32.Update(sum, castagnoli, buf[:n])
		if err == io.EOF {
			break
		}
		if err != nil {
			return fmt.Errorf("%w: read %s: %w", ErrVectorsFile, path, err)
		}
	}
	if sum != crc {
		return fmt.Errorf("%w: %s: checksum %08x, stored %08x", ErrVectorsFile, path, sum, crc)
	}
	return nil
}

// readVectors reads a vectors file of count values into the heap (the
// fallback of hosts without mmap or not little endian).
func readVectors(path string, count int) ([]float32, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrVectorsFile, err)
	}
	if len(b) != 4*count {
		return nil, fmt.Errorf("%w: %s holds %d bytes, want %d", ErrVectorsFile, path, len(b), 4*count)
	}
	out := make([]float32, count)
	for i := range out {
		out[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return out, nil
}

// External reports whether data is an index part of format 4, whose
// float32 vectors are in a vectors file (Open), not in data.
func External(data []byte) bool {
	return len(data) > len(magic) && string(data[:len(magic)]) == magic && data[len(magic)] == formatV4
}

// Inline reports whether data is an index of format 3 (AppendBinary), the
// self-contained form whose float32 vectors are in data: a segment keeps
// small indexes that way (segment.Store.InlineVectorsBytes).
func Inline(data []byte) bool {
	return len(data) > len(magic) && string(data[:len(magic)]) == magic && data[len(magic)] == formatV3
}

// Open decodes an index part of format 4 (AppendIndex) whose vectors are
// in the vectors file path, checks that file's size and checksum, and maps
// it. The index does not alias data.
// Parts of formats 1–3 hold their vectors and are read by Decode.
func Open(data []byte, path string) (*Index, error) {
	if !envelope.Has(data, magic) {
		return nil, fmt.Errorf("%w: not an index part of format 4", ErrCorrupt)
	}
	v, body, err := envelope.Open(data, magic)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if v != formatV4 {
		return nil, fmt.Errorf("%w: version %d is not format 4", ErrCorrupt, v)
	}
	x, err := decodeIVF(&decoder{b: body}, true)
	if err != nil {
		return nil, err
	}
	count := x.n * x.dims
	if err := checkVectorsFile(path, count, x.vecsCRC); err != nil {
		return nil, err
	}
	m, vecs, err := mapVectors(path, count)
	if err != nil {
		return nil, err
	}
	x.attach(m, vecs)
	return x, nil
}

// FileResidency reports how many bytes of the index's vectors file are in
// the operating system's page cache, and the file's size; 0, 0 when the
// vectors are not read from a mapped file or the platform cannot tell
// (it can on Linux). Checking costs a page-cache lookup per 4 KiB page
// (about 10 ms per GB) and reads no vector.
func (x *Index) FileResidency() (resident, size int64) {
	defer runtime.KeepAlive(x)
	return x.file.residency()
}

// WarmFile asks the operating system to read the index's vectors file
// into its page cache and returns once the reads are queued (a fraction
// of a second for a 1.5 GB file). Re-scoring reads scattered vectors through
// a mapping without read-ahead (MADV_RANDOM), so a search that meets a
// page the cache has dropped — after a restart, or after other programs
// pushed the file out — waits for one 4 KiB disk read per vector: 87–96
// µs per re-scored vector against 0.37–0.45 µs cached
// (BenchmarkRescoreFile; 132 re-scored vectors make a vector-only search
// on 1M chunks about 12 ms slower), and the file comes back only a page
// per miss. Read ahead as a whole, the file comes back at
// the disk's sequential speed. The pages go to the page cache, not into
// the process's mapping: they count in its RSS only once a search reads
// them. Nothing happens for an index without a vectors file.
func (x *Index) WarmFile() {
	defer runtime.KeepAlive(x)
	x.file.willNeed()
}
