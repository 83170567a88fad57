//go:build !race

package vector

import (
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

func TestSearchAllocs(t *testing.T) {
	vs := clustered(9, 8000, 64, 40, 0.1)
	ivf := buildIndex(t, vs, Options{})
	flat := buildIndex(t, vs[:1000], Options{})
	big := roaring.New()
	small := roaring.New()
	for i := range 8000 {
		if i%2 == 0 {
			big.Add(uint32(i))
		}
		if i%50 == 0 {
			small.Add(uint32(i))
		}
	}
	tests := []struct {
		name  string
		x     *Index
		allow *roaring.Bitmap
	}{
		{"ivf", ivf, nil},
		{"ivf filtered", ivf, big},
		{"ivf small filter", ivf, small},
		{"ivf 4-bit", withNibbles(ivf, true), nil},
		{"ivf 4-bit filtered", withNibbles(ivf, true), big},
		{"exact", flat, nil},
		{"exact filtered", flat, small},
	}
	for _, tt := range tests {
		dst := make([]Result, 0, 10)
		q := vs[1]
		allocs := testing.AllocsPerRun(100, func() {
			dst = tt.x.Search(q, 10, 0, tt.allow, dst)
		})
		if allocs != 0 || len(dst) != 10 {
			t.Errorf("%s: %v allocs per search, %d results; want 0 allocs, 10 results", tt.name, allocs, len(dst))
		}
	}
}
