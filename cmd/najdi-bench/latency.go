package main

import (
	"flag"
	"os"

	"github.com/najdi/najdi/bench"
)

// runLatency measures hybrid search latency on a large chunk collection and
// ingest throughput against raw embedding throughput.
func runLatency(args []string) error {
	fs := flag.NewFlagSet("latency", flag.ContinueOnError)
	var cfg bench.LatencyConfig
	sciFactFlags(fs, &cfg.SciFactSetup, "engine data directory (reused when it holds the collection)", "latency-vectors.bin")
	fs.IntVar(&cfg.Chunks, "chunks", 100000, "collection size in chunks")
	fs.IntVar(&cfg.Queries, "queries", 300, "timed queries")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return bench.RunLatency(cfg, os.Stdout)
}
