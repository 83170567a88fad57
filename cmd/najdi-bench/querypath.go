package main

import (
	"flag"
	"os"

	"github.com/najdi/najdi/bench"
)

// runQueryPath measures keyword, vector-only and hybrid requests end to end
// through the HTTP server (bench.RunQueryPath).
func runQueryPath(args []string) error {
	fs := flag.NewFlagSet("querypath", flag.ContinueOnError)
	var cfg bench.QueryPathConfig
	sciFactFlags(fs, &cfg.SciFactSetup, "engine data directory (reused when it holds the collections; a `search -dir` directory holds \"all\")", "querypath-vectors.bin")
	fs.IntVar(&cfg.Queries, "queries", 300, "SciFact queries per pass")
	fs.IntVar(&cfg.Passes, "passes", 3, "passes over the queries per series")
	fs.StringVar(&cfg.ProfileDir, "profile", "", "directory for a CPU profile per series")
	fs.BoolVar(&cfg.QueryCache, "query-cache", false, "keep the engine's cache of query vectors on")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return bench.RunQueryPath(cfg, os.Stdout)
}
