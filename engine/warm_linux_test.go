package engine

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestWarmVectors checks the merger's page-cache upkeep (warmVectors): a
// collection's vectors file left in the page cache is not read again, and
// once its pages are dropped (posix_fadvise DONTNEED, as memory pressure
// would) the merger has it read back within a few of its checks.
func TestWarmVectors(t *testing.T) {
	defer func(d time.Duration) { warmInterval = d }(warmInterval)
	warmInterval = 20 * time.Millisecond
	// In the package's directory, not os.TempDir: a tmpfs keeps every page
	// in memory and cannot drop one.
	dir, err := os.MkdirTemp(".", ".warmvectors-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	e, err := Open(Options{Dir: dir, Embedders: wordsEmbedder{}, FlushDocs: 10000, MergeInterval: 10 * time.Millisecond, IdleMerge: -1, Logger: slog.New(slog.DiscardHandler)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, _, err := e.PutCollection(ctx, "", "c", CollectionConfig{}); err != nil {
		t.Fatal(err)
	}
	var csv strings.Builder
	csv.WriteString("id,text\n")
	for i := range 8000 {
		fmt.Fprintf(&csv, "d%d,word%d word%d lake\n", i, i%97, i%89)
	}
	if _, err := e.Ingest(ctx, "", "c", IngestRequest{Format: "csv", Data: []byte(csv.String())}); err != nil {
		t.Fatal(err)
	}
	c, err := e.collection("", "c")
	if err != nil {
		t.Fatal(err)
	}
	segs := c.snapshot()
	if len(segs) != 1 || segs[0].Vectors == nil {
		t.Fatalf("%d segments, want one with vectors", len(segs))
	}
	x := segs[0].Vectors
	res, size := x.FileResidency()
	if size != 4*8000*32 || res != size {
		t.Fatalf("vectors file: %d of %d bytes cached, want all of %d", res, size, 4*8000*32)
	}
	time.Sleep(10 * warmInterval)
	if n := e.vecWarms.Load(); n != 0 {
		t.Fatalf("a cached vectors file was read back %d times", n)
	}

	var files []string
	err = filepath.WalkDir(dir, func(path string, _ os.DirEntry, err error) error {
		if strings.HasSuffix(path, ".f32") {
			files = append(files, path)
		}
		return err
	})
	if err != nil || len(files) != 1 {
		t.Fatalf("vectors files %v, %v", files, err)
	}
	f, err := os.Open(files[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := unix.Fadvise(int(f.Fd()), 0, 0, unix.FADV_DONTNEED); err != nil {
		t.Fatal(err)
	}
	if res, _ := x.FileResidency(); res*8 > size {
		t.Fatalf("dropped file: %d of %d bytes still cached", res, size)
	}
	deadline := time.Now().Add(20 * time.Second)
	for {
		res, _ := x.FileResidency()
		if res == size && e.vecWarms.Load() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d of %d bytes cached after %d read-backs", res, size, e.vecWarms.Load())
		}
		time.Sleep(5 * time.Millisecond)
	}
}
