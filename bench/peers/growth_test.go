package peers

import (
	"context"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/najdi/najdi/embed"
)

// TestGrowthPhases grows a real collection in two ingest phases (2,000
// then 3,000 chunks, static vectors of the real model), measures each size
// in its own phase and renders the report: the second ingest adds only the
// missing chunks, the measure phase finds every chunk, vector search
// agrees with exact search, the memory breakdown is filled and the report
// shows both sizes with their slope.
func TestGrowthPhases(t *testing.T) {
	dir := t.TempDir()
	cfg := GrowthConfig{BEIRDir: filepath.Join("..", "..", "..", "shared", "data", "beir", "scifact"), Cache: embed.DefaultCacheDir(),
		Data: filepath.Join(dir, "data"), Max: 3000, Queries: 20, Points: filepath.Join(dir, "points.json"), VecCache: filepath.Join(dir, "vec.f32")}
	ctx := context.Background()
	for _, size := range []int{2000, 3000} {
		cfg.Size = size
		if err := GrowIngest(ctx, cfg, io.Discard); err != nil {
			t.Fatalf("ingest %d: %v", size, err)
		}
		pt, err := GrowMeasure(ctx, cfg, io.Discard)
		if err != nil {
			t.Fatalf("measure %d: %v", size, err)
		}
		if pt.IngestFrom != size-map[int]int{2000: 2000, 3000: 1000}[size] {
			t.Fatalf("size %d: ingest from %d", size, pt.IngestFrom)
		}
		if pt.Recall < 0.8 {
			t.Fatalf("size %d: vector recall@10 vs exact %.3f, want ≥ 0.8 (IVF on %d vectors)", size, pt.Recall, size)
		}
		for _, k := range Kinds {
			if pt.P50[k] <= 0 || pt.P99[k] < pt.P50[k] {
				t.Fatalf("size %d %s: p50 %s p99 %s", size, k, pt.P50[k], pt.P99[k])
			}
		}
		if pt.Stages[Hybrid]["retrieve"] <= 0 {
			t.Fatalf("size %d: no retrieve stage time: %v", size, pt.Stages[Hybrid])
		}
		m := pt.Mem
		if m.RSS <= 0 || m.Anon <= 0 || m.Anon > m.RSS || m.VecFiles <= 0 || m.VecFiles > m.File || pt.RSSQueriesAnon <= 0 || pt.RSSQueriesAnon > pt.RSSQueries || m.HeapLive <= m.Bench || pt.Disk <= 0 || pt.CollBytes <= 0 {
			t.Fatalf("size %d: memory %+v disk %d coll %d", size, m, pt.Disk, pt.CollBytes)
		}
		if _, err := AppendPoint(cfg.Points, pt); err != nil {
			t.Fatal(err)
		}
	}
	// Measuring a size again replaces its point.
	pts, err := ReadPoints(cfg.Points)
	if err != nil || len(pts) != 2 {
		t.Fatalf("points %d, %v", len(pts), err)
	}
	if _, err := AppendPoint(cfg.Points, &pts[1]); err != nil {
		t.Fatal(err)
	}
	if pts, _ = ReadPoints(cfg.Points); len(pts) != 2 {
		t.Fatalf("after re-measuring: %d points, want 2", len(pts))
	}
	// Shrinking is refused.
	cfg.Size = 2000
	if err := GrowIngest(ctx, cfg, io.Discard); err == nil || !strings.Contains(err.Error(), "more than -size") {
		t.Fatalf("ingest to a smaller size: %v", err)
	}
	out := filepath.Join(dir, "out")
	if err := WriteGrowthReport(out, pts, GrowthReportConfig{WeaviateRSS: 664, WeaviateChunks: 100000, WeaviateSource: "test"}); err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(out, "REPORT.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| 2k |", "| 3k |", "at 10M (estimate)", "RSS per 1M chunks against Weaviate", "anonymous RSS after GC", "Counting only najdi's anonymous memory", "inuse_space", "flat%"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("report lacks %q", want)
		}
	}
	if _, err := os.Stat(filepath.Join(out, "growth.png")); err != nil {
		t.Error(err)
	}
	// Two close sizes can show less anonymous memory after the queries at
	// the larger one (less garbage); the anonymous paragraph still appears,
	// with the slope as measured.
	shrunk := slices.Clone(pts)
	shrunk[1].RSSQueriesAnon = shrunk[0].RSSQueriesAnon / 2
	if md := growthMarkdown(shrunk, nil, GrowthReportConfig{WeaviateRSS: 664, WeaviateChunks: 100000, WeaviateSource: "test"}, ""); !strings.Contains(md, "Counting only najdi's anonymous memory") {
		t.Errorf("report of a shrinking anonymous RSS lacks the anonymous paragraph")
	}
}
