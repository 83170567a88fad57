//go:build !unix

package vector

// mapVectors reads the vectors file at path (count float32 values) into
// the heap: this platform has no mmap here.
func mapVectors(path string, count int) (*mapping, []float32, error) {
	vecs, err := readVectors(path, count)
	return nil, vecs, err
}

// unmap does nothing: nothing is mapped on this platform.
func (m *mapping) unmap() {}

// mapAnon returns nil: codes stay on the heap on this platform.
func mapAnon(int) *mapping { return nil }

// discard does nothing: nothing is mapped on this platform.
func (m *mapping) discard() {}

// willNeed does nothing: nothing is mapped on this platform.
func (m *mapping) willNeed() {}
