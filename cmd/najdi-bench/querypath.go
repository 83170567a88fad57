package main

import (
	"flag"
	"os"
	"path/filepath"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
)

// runQueryPath measures keyword, vector-only and hybrid requests end to end
// through the HTTP server (bench.RunQueryPath).
func runQueryPath(args []string) error {
	fs := flag.NewFlagSet("querypath", flag.ContinueOnError)
	cache := embed.DefaultCacheDir()
	var cfg bench.QueryPathConfig
	fs.StringVar(&cfg.BEIRDir, "beir", scifactDir, "BEIR SciFact directory")
	fs.StringVar(&cfg.Dir, "dir", "", "engine data directory (reused when it holds the collections; a `search -dir` directory holds \"all\")")
	modelFlags(fs, &cfg.Models, &cfg.ORTLib)
	fs.StringVar(&cfg.Cache, "cache", filepath.Join(cache, "bench", "querypath-vectors.bin"), "passage vector cache (reruns skip embedding)")
	fs.IntVar(&cfg.Queries, "queries", 300, "SciFact queries per pass")
	fs.IntVar(&cfg.Passes, "passes", 3, "passes over the queries per series")
	fs.StringVar(&cfg.ProfileDir, "profile", "", "directory for a CPU profile per series")
	fs.BoolVar(&cfg.QueryCache, "query-cache", false, "keep the engine's cache of query vectors on")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return bench.RunQueryPath(cfg, os.Stdout)
}
