package vector

import (
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"
)

// TestCodesLayout builds, saves, reopens and merges IVF indexes with and
// without 4-bit codes (nibbleFrom lowered for the test) and with their
// codes on and off the Go heap (offHeapFrom), and checks that every form
// answers alike at k 10 and k 300, that an index with 4-bit codes keeps
// each id's int8 code once (n × dims, not one per list position) and
// reaches 3-pass search at any k, and that off-heap codes are released
// once their index is unreachable; a merge gathers its vectors off the
// heap too, until they are saved to their file.
func TestCodesLayout(t *testing.T) {
	const n, dims = 6000, 48
	vs := clustered(31, n+12, dims, 40, 0.1)
	queries, vs := vs[n:], vs[:n]
	defer func(nf, of int) { nibbleFrom, offHeapFrom = nf, of }(nibbleFrom, offHeapFrom)
	var want map[int][][]Result // k → answers of the heap-laid int8 index
	for _, tt := range []struct {
		nibbles, offHeap bool
	}{{false, false}, {false, true}, {true, false}, {true, true}} {
		t.Run(fmt.Sprintf("nibbles=%v/offheap=%v", tt.nibbles, tt.offHeap), func(t *testing.T) {
			nibbleFrom, offHeapFrom = 1<<30, 1<<30
			if tt.nibbles {
				nibbleFrom = 1
			}
			if tt.offHeap {
				offHeapFrom = 1
			}
			x := buildIndex(t, vs, Options{Seed: 4})
			if (x.nib != nil) != tt.nibbles || (x.codeMem != nil) != tt.offHeap {
				t.Fatalf("4-bit codes %v, off heap %v; want %v, %v", x.nib != nil, x.codeMem != nil, tt.nibbles, tt.offHeap)
			}
			positions := len(x.listIDs)
			if positions <= n {
				t.Fatalf("%d list positions for %d vectors: nothing spilled", positions, n)
			}
			if wantLen := map[bool]int{false: positions * dims, true: n * dims}[tt.nibbles]; len(x.codes) != wantLen {
				t.Fatalf("%d int8 code bytes, want %d", len(x.codes), wantLen)
			}
			path := filepath.Join(t.TempDir(), "v.f32")
			if err := x.SaveVectors(path); err != nil {
				t.Fatal(err)
			}
			y, err := Open(x.AppendIndex(nil), path)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(y.codes, x.codes) || !slices.Equal(y.nib, x.nib) || (y.codeMem != nil) != tt.offHeap {
				t.Fatal("the opened index's codes differ")
			}
			remap := make([]int32, n)
			for i := range remap {
				remap[i] = int32(i)
			}
			z, err := Merge([]*Index{y}, [][]int32{remap}, Options{Seed: 4})
			if err != nil {
				t.Fatal(err)
			}
			if (z.vecMem != nil) != tt.offHeap {
				t.Fatalf("merged vectors off the heap: %v, want %v", z.vecMem != nil, tt.offHeap)
			}
			// The merged index's vectors move to their file; the
			// anonymous memory they were gathered in is given back.
			zs := z.Search(queries[0], 10, 0, nil, nil)
			if err := z.SaveVectors(filepath.Join(t.TempDir(), "z.f32")); err != nil {
				t.Fatal(err)
			}
			if got := z.Search(queries[0], 10, 0, nil, nil); !slices.Equal(got, zs) {
				t.Fatalf("the merged index answers %v after saving its vectors, %v before", got, zs)
			}
			if z.vecMem != nil && z.vecMem.counted.Load() {
				t.Fatal("the merged vectors' memory still counts off the heap after SaveVectors")
			}
			got := map[int][][]Result{}
			for _, k := range []int{10, 300} {
				for _, q := range queries {
					a := x.Search(q, k, 0, nil, nil)
					for name, idx := range map[string]*Index{"opened": y, "merged": z} {
						if b := idx.Search(q, k, 0, nil, nil); !slices.Equal(a, b) {
							t.Fatalf("k %d: the %s index answers %v, want %v", k, name, b, a)
						}
					}
					got[k] = append(got[k], a)
				}
			}
			if want == nil {
				want = got
				return
			}
			// The 4-bit pass ranks coarsely: its answers may differ from
			// the int8 scan's, but little.
			for k, answers := range got {
				var hits, total int
				for i, a := range answers {
					hits += overlap(a, want[k][i])
					total += len(want[k][i])
				}
				if r := float64(hits) / float64(total); r < 0.97 {
					t.Errorf("k %d: %.3f of the int8 layout's results, want ≥ 0.97", k, r)
				}
			}
		})
	}

	// An index's off-heap codes are unmapped once it is collected.
	offHeapFrom = 1
	released := make(chan *mapping, 100)
	hook := func(m *mapping) { released <- m }
	unmapHook.Store(&hook)
	defer unmapHook.Store(nil)
	var codes *mapping
	func() {
		x := buildIndex(t, vs[:5000], Options{Seed: 5})
		if codes = x.codeMem; codes == nil {
			t.Fatal("codes not off the heap")
		}
		if n := OffHeapBytes(); n < int64(len(codes.data)) || !codes.counted.Load() {
			t.Fatalf("OffHeapBytes %d with %d bytes of codes mapped", n, len(codes.data))
		}
	}()
	deadline := time.After(5 * time.Second)
	for {
		runtime.GC()
		select {
		case m := <-released:
			if m == codes {
				if codes.counted.Load() {
					t.Fatal("released codes still count in OffHeapBytes")
				}
				return
			}
		case <-time.After(10 * time.Millisecond):
		case <-deadline:
			t.Fatal("the codes' mapping outlived its index")
		}
	}
}

// overlap counts the ids of a found in b.
func overlap(a, b []Result) int {
	c := 0
	for _, r := range a {
		if slices.ContainsFunc(b, func(s Result) bool { return s.ID == r.ID }) {
			c++
		}
	}
	return c
}
