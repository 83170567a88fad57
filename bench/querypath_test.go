package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/internal/testutil"
)

// TestQueryPathCollectionsProgress loads the query path's three
// collections from 30 SciFact documents with the real default model, in
// batches of 12: every batch prints its progress line (the load of "all"
// embeds for minutes on the full corpus and used to print nothing until
// its end), the vector counts are the model's real work (none for the
// keyword collection, one per title for "vec", title and abstract chunks
// for "all"), every collection holds the corpus, and a second load finds
// them full and embeds nothing.
func TestQueryPathCollectionsProgress(t *testing.T) {
	b, err := LoadBEIR(filepath.Join(testutil.SharedData(t), "beir", "scifact"))
	if err != nil {
		t.Fatal(err)
	}
	b.Docs = b.Docs[:30]
	models, lib := embed.CachePaths(embed.DefaultCacheDir())
	cachePath := filepath.Join(t.TempDir(), "vectors.bin")
	m, err := openCachedModel(models, lib, cachePath)
	if err != nil {
		t.Fatal(err)
	}
	defer m.Close()
	e, err := engine.Open(engine.Options{Dir: t.TempDir(), Embedders: singleProvider{m.cached}, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	var out bytes.Buffer
	if err := loadQueryPathCollections(ctx, e, b, m.cache, cachePath, 12, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	embedded := map[string]int{}
	var progress []string
	for _, l := range lines {
		var name string
		var done, total, n int
		if _, err := fmt.Sscanf(strings.TrimSpace(l), "%s %d/%d documents, %d chunk vectors", &name, &done, &total, &n); err == nil {
			name = strings.TrimSuffix(name, ":")
			progress = append(progress, fmt.Sprintf("%s %d/%d", name, done, total))
			embedded[name] = n
		}
	}
	want := []string{"kw 12/30", "kw 24/30", "kw 30/30", "vec 12/30", "vec 24/30", "vec 30/30", "all 12/30", "all 24/30", "all 30/30"}
	if strings.Join(progress, ", ") != strings.Join(want, ", ") {
		t.Fatalf("progress lines %q, want %q; output:\n%s", progress, want, out.String())
	}
	titles := map[string]bool{}
	for _, d := range b.Docs {
		titles[d.Title] = true
	}
	if embedded["kw"] != 0 || embedded["vec"] != len(titles) || embedded["all"] < len(b.Docs) {
		t.Fatalf("vectors embedded: %v; want kw 0, vec %d (distinct titles), all ≥ %d (a chunk or more per document)", embedded, len(titles), len(b.Docs))
	}
	for _, name := range []string{"kw", "vec", "all"} {
		info, err := e.GetCollection(ctx, "", name)
		if err != nil || info.DocumentCount != int64(len(b.Docs)) {
			t.Fatalf("collection %s: %d documents, %v; want %d", name, info.DocumentCount, err, len(b.Docs))
		}
	}
	// A second load finds every collection full: nothing ingested, nothing
	// embedded, one line each.
	before := m.cache.size()
	out.Reset()
	if err := loadQueryPathCollections(ctx, e, b, m.cache, cachePath, 12, &out); err != nil {
		t.Fatal(err)
	}
	if got := strings.Count(out.String(), "holds the 30 documents already"); got != 3 || strings.Contains(out.String(), "documents, ") || m.cache.size() != before {
		t.Fatalf("second load embedded %d vectors, output:\n%s", m.cache.size()-before, out.String())
	}
	// The saved cache holds every vector: a reload embeds nothing.
	c2, err := loadVecCache(cachePath)
	if err != nil || c2.size() != before {
		t.Fatalf("reloaded cache: %d vectors, %v; want %d", c2.size(), err, before)
	}
}
