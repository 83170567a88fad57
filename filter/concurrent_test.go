package filter

import (
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// TestConcurrentEval evaluates one parsed filter (whose regexp DFA is built
// lazily and shared) from several goroutines; run with -race.
func TestConcurrentEval(t *testing.T) {
	idx := newMemIndex(50)
	for d := range uint32(50) {
		idx.addString(d, "v", string(rune('a'+d%26))+string(rune('a'+d%7)))
		idx.addNumber(d, "n", float64(d))
	}
	q, err := Parse([]byte(`{"bool":{"should":[{"regexp":{"v":"[a-m].|z~(a)"}},{"range":{"n":{"gt":45}}}],"must_not":{"term":{"v":"ba"}}}}`))
	if err != nil {
		t.Fatal(err)
	}
	want := roaring.New()
	if err := Eval(q, idx, want); err != nil {
		t.Fatal(err)
	}
	if want.IsEmpty() {
		t.Fatal("filter matches nothing; the test would be vacuous")
	}
	var wg sync.WaitGroup
	errs := make(chan string, 8)
	for range 8 {
		wg.Go(func() {
			dst := roaring.New()
			for range 20 {
				if err := Eval(q, idx, dst); err != nil || !dst.Equals(want) {
					errs <- formatIDs(dst)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Fatalf("concurrent eval got %s, want %s", e, formatIDs(want))
	}
}
