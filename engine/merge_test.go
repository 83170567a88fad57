package engine

import (
	"context"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/segment"
)

// TestMergeNowCompactsDeletes: MergeNow rewrites a collection down to one
// segment without deleted documents, also when it already has a single
// segment (whose deletes were otherwise never compacted), and leaves a
// segment without deletes alone. Search and counts see the same documents
// before and after.
func TestMergeNowCompactsDeletes(t *testing.T) {
	for _, tc := range []struct {
		name     string
		flush    int // FlushDocs: 0 = one segment per ingest
		docs     int
		deletes  int
		wantSegs int
	}{
		{name: "one segment, a few deletes", docs: 10, deletes: 3, wantSegs: 1},
		{name: "one segment, all deleted", docs: 4, deletes: 4, wantSegs: 0},
		{name: "one segment, no deletes", docs: 5, deletes: 0, wantSegs: 1},
		{name: "several segments", flush: 2, docs: 7, deletes: 2, wantSegs: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e, err := Open(Options{Dir: t.TempDir(), FlushDocs: tc.flush})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if _, _, err := e.PutCollection(ctx, "", "c", CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}); err != nil {
				t.Fatal(err)
			}
			var csv strings.Builder
			csv.WriteString("id,text\n")
			for i := 0; i < tc.docs; i++ {
				fmt.Fprintf(&csv, "d%d,river number %d\n", i, i)
			}
			if _, err := e.Ingest(ctx, "", "c", IngestRequest{Format: "csv", Data: []byte(csv.String())}); err != nil {
				t.Fatal(err)
			}
			for i := 0; i < tc.deletes; i++ {
				if err := e.DeleteDocument(ctx, "", "c", fmt.Sprintf("d%d", i)); err != nil {
					t.Fatal(err)
				}
			}
			c, err := e.collection("", "c")
			if err != nil {
				t.Fatal(err)
			}
			before := c.snapshot()
			if err := e.MergeNow("", "c"); err != nil {
				t.Fatal(err)
			}
			segs := c.snapshot()
			if len(segs) != tc.wantSegs {
				t.Fatalf("segments after MergeNow: %d, want %d", len(segs), tc.wantSegs)
			}
			for _, s := range segs {
				if n := s.Deleted.GetCardinality(); n != 0 {
					t.Errorf("segment %d keeps %d deleted documents after MergeNow", s.ID, n)
				}
				if len(s.Docs) != tc.docs-tc.deletes {
					t.Errorf("segment %d holds %d documents, want %d live", s.ID, len(s.Docs), tc.docs-tc.deletes)
				}
			}
			if tc.deletes == 0 && len(before) == 1 && segs[0] != before[0] {
				t.Errorf("a single segment without deletes was rewritten")
			}
			info, err := e.GetCollection(ctx, "", "c")
			if err != nil {
				t.Fatal(err)
			}
			if info.DocumentCount != int64(tc.docs-tc.deletes) {
				t.Errorf("document_count %d, want %d", info.DocumentCount, tc.docs-tc.deletes)
			}
			limit := 100
			res, err := e.Search(ctx, "", []string{"c"}, SearchRequest{Query: "river", MaxResults: &limit})
			if err != nil {
				t.Fatal(err)
			}
			if len(res.Documents) != tc.docs-tc.deletes {
				t.Errorf("search after MergeNow: %d results, want %d", len(res.Documents), tc.docs-tc.deletes)
			}
			// Reopening reads the same state.
			if err := e.Close(); err != nil {
				t.Fatal(err)
			}
			if e, err = Open(Options{Dir: e.opts.Dir}); err != nil {
				t.Fatal(err)
			}
			if info, err = e.GetCollection(ctx, "", "c"); err != nil || info.DocumentCount != int64(tc.docs-tc.deletes) {
				t.Errorf("after reopen: %v documents, err %v", info.DocumentCount, err)
			}
		})
	}
}

// TestIdleMergePick: the segments of a bulk load (similar sizes) all
// merge; a large segment joins smaller ones only when they add up to a
// quarter of it; fewer than two candidates merge nothing.
func TestIdleMergePick(t *testing.T) {
	for _, tc := range []struct {
		name string
		live []int
		want []int // live counts of the picked segments, ascending
	}{
		{"bulk load in three flushes", []int{2000, 1183, 2000}, []int{1183, 2000, 2000}},
		{"one small write after a large load", []int{1_000_000, 10}, nil},
		{"small writes merge with each other", []int{5, 1_000_000, 7}, []int{5, 7}},
		{"small writes reaching a quarter of the large one", []int{250_000, 1_000_000}, []int{250_000, 1_000_000}},
		{"just under a quarter", []int{249_999, 1_000_000}, nil},
		{"growing tiers", []int{50, 1, 10, 3}, []int{1, 3, 10, 50}},
		{"a tier too large stops the run", []int{1, 3, 100, 101}, []int{1, 3}},
		// The last flush of a bulk load is small: it must not keep the
		// load's other flushes apart (the 100k and 1M peer loads stayed
		// at five segments).
		{"a small last flush after a bulk load", []int{22_000, 22_000, 2_000, 32_000, 22_000}, []int{22_000, 22_000, 22_000, 32_000}},
		{"a small last flush after a 1M load", []int{242_000, 252_000, 252_000, 252_000, 2_000}, []int{242_000, 252_000, 252_000, 252_000}},
		{"the longest run of comparable segments", []int{1, 100, 101, 3, 102}, []int{100, 101, 102}},
		{"runs of equal length: the smaller", []int{1, 100, 101, 3}, []int{1, 3}},
		{"nothing comparable", []int{1, 10, 100, 1000}, nil},
		{"one segment", []int{42}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var segs []*segment.Segment
			for i, n := range tc.live {
				segs = append(segs, &segment.Segment{ID: uint64(i + 1), Docs: make([]string, n), Deleted: roaring.New()})
			}
			var got []int
			for _, s := range idleMergePick(segs) {
				got = append(got, s.Live())
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("picked %v, want %v", got, tc.want)
			}
		})
	}
}

// loadCSV opens an engine with opts on a temporary directory (closed when
// the test ends), creates the keyword-only collection "c" and ingests n
// documents d0…d(n-1) whose text is text(i), in one CSV.
func loadCSV(t *testing.T, opts Options, n int, text func(i int) string) (*Engine, *collection) {
	t.Helper()
	ctx := context.Background()
	opts.Dir = t.TempDir()
	e, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	if _, _, err := e.PutCollection(ctx, "", "c", CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}); err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	csv.WriteString("id,text\n")
	for i := range n {
		fmt.Fprintf(&csv, "d%d,%s\n", i, text(i))
	}
	if _, err := e.Ingest(ctx, "", "c", IngestRequest{Format: "csv", Data: []byte(csv.String())}); err != nil {
		t.Fatal(err)
	}
	c, err := e.collection("", "c")
	if err != nil {
		t.Fatal(err)
	}
	return e, c
}

// TestReleaseAfterLargeMerge checks that a merge of at least
// releaseAfterMergeDocs documents returns memory to the system at once,
// with idle merges (and the idle release) off, and a smaller one does not;
// with idle merges on, the idle release follows the large merge's.
func TestReleaseAfterLargeMerge(t *testing.T) {
	defer func(n int) { releaseAfterMergeDocs = n }(releaseAfterMergeDocs)
	for _, tc := range []struct {
		name         string
		threshold    int
		wantReleases bool
	}{{"large merge", 50, true}, {"small merges", 1000, false}} {
		t.Run(tc.name, func(t *testing.T) {
			releaseAfterMergeDocs = tc.threshold
			e, c := loadCSV(t, Options{FlushDocs: 20, MaxSegments: 2, MergeInterval: 20 * time.Millisecond, IdleMerge: -1}, 120, func(i int) string { return fmt.Sprintf("lake number %d", i) })
			deadline := time.Now().Add(5 * time.Second)
			for len(c.snapshot()) > 2 && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond)
			if n := len(c.snapshot()); n > 2 {
				t.Fatalf("%d segments: the merger did not run", n)
			}
			if got := e.memReleases.Load() > 0; got != tc.wantReleases {
				t.Fatalf("memory released after the merges: %v, want %v", got, tc.wantReleases)
			}
		})
	}
	t.Run("then idle", func(t *testing.T) {
		releaseAfterMergeDocs = 1
		e, c := loadCSV(t, Options{FlushDocs: 20, MaxSegments: 2, MergeInterval: 20 * time.Millisecond, IdleMerge: 100 * time.Millisecond}, 60, func(i int) string { return fmt.Sprintf("pond number %d", i) })
		deadline := time.Now().Add(5 * time.Second)
		for len(c.snapshot()) > 1 && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		merges := e.memReleases.Load() // one per merge, each ≥ 1 document
		for e.memReleases.Load() == merges && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if e.memReleases.Load() == merges {
			t.Fatalf("no idle release after %d large-merge releases", merges)
		}
	})
}

// TestIdleMergeAfterBulkLoad: a bulk load written as several flushes is
// merged to one segment once the collection is idle, with the same search
// answers; a last flush too small to join stays apart but does not keep
// the others apart; with IdleMerge disabled the segments stay.
func TestIdleMergeAfterBulkLoad(t *testing.T) {
	for _, tc := range []struct {
		name     string
		docs     int
		idle     time.Duration
		wantSegs int
	}{
		{"idle merge", 100, 100 * time.Millisecond, 1},
		{"a small last flush", 105, 100 * time.Millisecond, 2}, // flushes of 25, 25, 25, 25 and 5
		{"disabled", 100, -1, 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			e, c := loadCSV(t, Options{FlushDocs: 25, MergeInterval: 20 * time.Millisecond, IdleMerge: tc.idle}, tc.docs, func(i int) string { return fmt.Sprintf("river number %d flows %s", i, strings.Repeat("north ", i%7)) })
			search := func() []string {
				max := 20
				res, err := e.Search(ctx, "", []string{"c"}, SearchRequest{Query: "river north flows", MaxResults: &max})
				if err != nil {
					t.Fatal(err)
				}
				var ids []string
				for _, d := range res.Documents {
					ids = append(ids, fmt.Sprintf("%s %.6f", d.DocumentID, d.Score))
				}
				return ids
			}
			before := search()
			deadline := time.Now().Add(5 * time.Second)
			for len(c.snapshot()) != tc.wantSegs && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(300 * time.Millisecond) // a disabled merge would have run by now
			if n := len(c.snapshot()); n != tc.wantSegs {
				t.Fatalf("%d segments, want %d", n, tc.wantSegs)
			}
			if after := search(); !slices.Equal(before, after) {
				t.Fatalf("search changed by the merge:\nbefore %v\nafter  %v", before, after)
			}
			// Once the merges are done and the collection is idle, the
			// freed memory goes back to the system, once.
			wantReleases := int64(1)
			if tc.idle < 0 {
				wantReleases = 0
			}
			for e.memReleases.Load() < wantReleases && time.Now().Before(deadline) {
				time.Sleep(20 * time.Millisecond)
			}
			time.Sleep(200 * time.Millisecond)
			if n := e.memReleases.Load(); n != wantReleases {
				t.Fatalf("memory released %d times after the merges, want %d", n, wantReleases)
			}
		})
	}
}

// garbageSink keeps TestReleaseAfterOpen's allocation from being optimized
// away.
var garbageSink [][]byte

// heapFree returns the Go heap's free bytes not yet returned to the
// operating system.
func heapFree() uint64 { return runtimeBytes("/memory/classes/heap/free:bytes") }

// TestReleaseAfterOpen checks that Open returns the Go heap's free memory
// to the operating system when loading the collections allocated
// releaseAfterOpenBytes or more, and leaves it to the runtime below that:
// 256 MiB made free before the open are mostly gone from the heap's free
// memory after it, or mostly still there.
func TestReleaseAfterOpen(t *testing.T) {
	defer func(n uint64) { releaseAfterOpenBytes = n }(releaseAfterOpenBytes)
	e, _ := loadCSV(t, Options{IdleMerge: -1}, 300, func(i int) string { return fmt.Sprintf("harbour number %d", i) })
	dir := e.opts.Dir
	e.Close()
	for _, tc := range []struct {
		name         string
		threshold    uint64
		wantReleased bool
	}{{"loading allocated enough", 1, true}, {"below the threshold", 1 << 62, false}} {
		t.Run(tc.name, func(t *testing.T) {
			releaseAfterOpenBytes = tc.threshold
			for range 256 {
				garbageSink = append(garbageSink, make([]byte, 1<<20))
			}
			garbageSink = nil
			runtime.GC()
			if free := heapFree(); free < 192<<20 {
				t.Fatalf("precondition: %d MiB of the heap free after dropping 256 MiB", free>>20)
			}
			e, err := Open(Options{Dir: dir, IdleMerge: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			free := heapFree()
			if released := free < 64<<20; released != tc.wantReleased {
				t.Fatalf("%d MiB of the heap free after Open: released %v, want %v", free>>20, released, tc.wantReleased)
			}
			if n := e.memReleases.Load(); n != map[bool]int64{true: 1, false: 0}[tc.wantReleased] {
				t.Fatalf("%d releases", n)
			}
		})
	}
}
