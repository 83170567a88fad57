//go:build !linux

package vector

// residency reports nothing (0, 0) where the page cache cannot be asked.
func (m *mapping) residency() (resident, size int64) { return 0, 0 }

// adviseHuge does nothing: transparent huge pages are Linux's.
func adviseHuge([]byte) {}
