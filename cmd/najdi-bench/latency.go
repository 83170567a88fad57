package main

import (
	"flag"
	"os"
	"path/filepath"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
)

// runLatency measures hybrid search latency on a large chunk collection and
// ingest throughput against raw embedding throughput.
func runLatency(args []string) error {
	fs := flag.NewFlagSet("latency", flag.ContinueOnError)
	cache := embed.DefaultCacheDir()
	var cfg bench.LatencyConfig
	fs.StringVar(&cfg.BEIRDir, "beir", scifactDir, "BEIR SciFact directory")
	fs.IntVar(&cfg.Chunks, "chunks", 100000, "collection size in chunks")
	fs.StringVar(&cfg.Dir, "dir", "", "engine data directory (reused when it holds the collection)")
	modelFlags(fs, &cfg.Models, &cfg.ORTLib)
	fs.StringVar(&cfg.Cache, "cache", filepath.Join(cache, "bench", "latency-vectors.bin"), "passage vector cache (reruns skip embedding)")
	fs.IntVar(&cfg.Queries, "queries", 300, "timed queries")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return bench.RunLatency(cfg, os.Stdout)
}
