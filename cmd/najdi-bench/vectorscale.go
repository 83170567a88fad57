package main

import (
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/najdi/najdi/bench"
)

// runVectorScale runs the vector-scale workload: recall@k of the IVF index
// against exact search and both latencies, on a corpus read from a file or
// synthesized around real vectors (bench.SynthesizeVectors).
func runVectorScale(args []string) error {
	fs := flag.NewFlagSet("vecscale", flag.ContinueOnError)
	cache := os.Getenv("NAJDI_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "najdi")
	}
	vecDir := filepath.Join(cache, "vectors")
	var cfg bench.VectorScaleConfig
	fs.StringVar(&cfg.Corpus, "corpus", "", "corpus rows (raw float32) searched as is; empty = synthesize around -seeds")
	seeds := fs.String("seeds", filepath.Join(vecDir, bench.VectorCorpusFile), "comma-separated real vector files the synthetic corpus grows around")
	seedLimit := fs.Int("seed-limit", 4000, "most seed rows read from each seed file")
	fs.IntVar(&cfg.N, "n", 1_000_000, "corpus size")
	fs.StringVar(&cfg.Queries, "queries", filepath.Join(vecDir, bench.VectorQueryFile), "query rows; empty = hold out the corpus's last rows")
	fs.IntVar(&cfg.MaxQueries, "max-queries", 200, "most queries")
	fs.IntVar(&cfg.ExactQueries, "exact-queries", 20, "queries the exact search is timed on")
	listFlag(fs, &cfg.Ks, "k", "10,300", "k of recall@k")
	listFlag(fs, &cfg.NProbes, "nprobe", "", "nprobe values swept besides the default")
	fs.IntVar(&cfg.Options.NList, "nlist", 0, "IVF lists; 0 = auto")
	fs.IntVar(&cfg.Options.NProbe, "default-nprobe", 0, "the index's default nprobe; 0 = auto")
	fs.Int64Var(&cfg.Options.Seed, "seed", 1, "k-means seed")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, f := range strings.Split(*seeds, ",") {
		if f = strings.TrimSpace(f); f != "" {
			cfg.Seeds = append(cfg.Seeds, f)
		}
	}
	cfg.SeedLimit = *seedLimit
	if cfg.Corpus == "" {
		cfg.Cache = filepath.Join(cache, "bench", "synth-04-12-"+strconv.Itoa(*seedLimit)+"-"+strconv.Itoa(cfg.N)+".f32")
	}
	return bench.RunVectorScale(cfg, os.Stdout)
}
