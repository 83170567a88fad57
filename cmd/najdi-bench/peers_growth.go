package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/najdi/najdi/bench/peers"
	"github.com/najdi/najdi/embed"
)

func init() { commands["growth"] = runGrowth }

// runGrowth grows one najdi hybrid collection of the large peer chunks in
// phases run as separate commands, so that the ingest stays outside the
// measured window: `-phase ingest -size N` brings the kept collection in
// -data to N chunks (and merges it), `-phase measure -size N` times the
// queries and reads the memory, `-phase report` writes
// bench/peers/growth/REPORT.md from the accumulated points.
func runGrowth(args []string) error {
	fs := flag.NewFlagSet("growth", flag.ContinueOnError)
	var cfg peers.GrowthConfig
	phase := fs.String("phase", "", "ingest, measure or report")
	fs.StringVar(&cfg.BEIRDir, "beir", "../shared/data/beir/scifact", "BEIR SciFact directory")
	fs.StringVar(&cfg.Cache, "cache", embed.DefaultCacheDir(), "cache directory (models, vector caches)")
	fs.StringVar(&cfg.Data, "data", filepath.Join(os.TempDir(), "najdi-growth"), "the engine's data directory, kept between phases")
	fs.IntVar(&cfg.Max, "max", 1_000_000, "chunks generated (the vector cache's size); sizes are prefixes")
	fs.IntVar(&cfg.Size, "size", 100_000, "collection size of this phase, in chunks")
	fs.IntVar(&cfg.Queries, "queries", 200, "timed queries per kind (at most the 300 SciFact test queries)")
	fs.Int64Var(&cfg.MemoryLimit, "memory-limit", 0, "Go soft memory limit of the measure phase in bytes (0: none), as najdi serve --memory-limit")
	fs.IntVar(&cfg.MaxSegments, "max-segments", 0, "the engine's MaxSegments during the ingest phase (0: its default, 8); more means fewer background merges while growing")
	fs.StringVar(&cfg.ProfileKind, "cpuprofile-kind", "", "measure phase: write a CPU profile of the timed queries of this kind (keyword, vector, hybrid, …) next to the data")
	fs.BoolVar(&cfg.NoMerge, "no-merge", false, "leave the segments as the background merger left them (default: merge to one segment after the ingest)")
	fs.StringVar(&cfg.Points, "points", "", "JSON file accumulating the measured points (default: -data/../growth-points.json)")
	fs.StringVar(&cfg.Out, "out", "bench/peers/growth", "directory of REPORT.md and growth.png (phase report)")
	var rc peers.GrowthReportConfig
	fs.Float64Var(&rc.WeaviateRSS, "weaviate-rss-mib", 0, "Weaviate's RSS after ingest of the large peer run, MiB (0: not shown)")
	fs.IntVar(&rc.WeaviateChunks, "weaviate-chunks", 100_000, "chunks Weaviate held for -weaviate-rss-mib")
	fs.StringVar(&rc.WeaviateSource, "weaviate-source", "bench/peers/large/REPORT.md", "where -weaviate-rss-mib comes from")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if cfg.Points == "" {
		cfg.Points = filepath.Join(filepath.Dir(filepath.Clean(cfg.Data)), "growth-points.json")
	}
	cfg.Command = "najdi-bench growth " + strings.Join(args, " ")
	ctx := context.Background()
	switch *phase {
	case "ingest":
		return peers.GrowIngest(ctx, cfg, os.Stdout)
	case "measure":
		pt, err := peers.GrowMeasure(ctx, cfg, os.Stdout)
		if err != nil {
			return err
		}
		if cfg.ProfileKind != "" {
			fmt.Println("profiled run: its point is not recorded")
			return nil
		}
		pt.Command = cfg.Command
		_, err = peers.AppendPoint(cfg.Points, pt)
		return err
	case "report":
		pts, err := peers.ReadPoints(cfg.Points)
		if err != nil {
			return err
		}
		rc.Command = cfg.Command
		return peers.WriteGrowthReport(cfg.Out, pts, rc)
	}
	return fmt.Errorf("-phase %q: want ingest, measure or report", *phase)
}
