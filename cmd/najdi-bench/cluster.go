package main

import (
	"flag"
	"os"
	"path/filepath"
	"strings"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
)

// runCluster compares the embedded store with search clusters: ingest
// throughput, search latency and disk on SciFact (bench/README.md).
func runCluster(args []string) error {
	fs := flag.NewFlagSet("cluster", flag.ContinueOnError)
	cache := embed.DefaultCacheDir()
	models, lib := embed.CachePaths(cache)
	var cfg bench.ClusterConfig
	var clusters string
	fs.StringVar(&cfg.BEIRDir, "beir", "../shared/data/beir/scifact", "BEIR SciFact directory")
	fs.IntVar(&cfg.Docs, "docs", 0, "documents of the corpus to use (0: all)")
	fs.IntVar(&cfg.Queries, "queries", 200, "timed queries per kind (SciFact queries without test judgements)")
	fs.StringVar(&clusters, "clusters", "http://127.0.0.1:9250,http://127.0.0.1:9251", "comma-separated cluster URLs (make cluster-up)")
	fs.StringVar(&cfg.Work, "work", filepath.Join(os.TempDir(), "najdi-bench-cluster"), "scratch directory for the embedded store")
	fs.StringVar(&cfg.Models, "models", models, "embedding models directory")
	fs.StringVar(&cfg.ORTLib, "ort-lib", lib, "ONNX Runtime library")
	fs.StringVar(&cfg.Cache, "cache", filepath.Join(cache, "bench", "cluster-vectors.bin"), "passage vector cache (reruns skip embedding)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, u := range strings.Split(clusters, ",") {
		if u = strings.TrimSpace(u); u != "" {
			cfg.Clusters = append(cfg.Clusters, u)
		}
	}
	return bench.RunCluster(cfg, os.Stdout)
}
