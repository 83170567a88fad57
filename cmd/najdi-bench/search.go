package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
)

// runSearch runs the end-to-end retrieval benchmark (keyword, dense, hybrid).
func runSearch(args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	models, lib := embed.CachePaths(embed.DefaultCacheDir())
	var cfg bench.SearchConfig
	fs.StringVar(&cfg.BEIRDir, "beir", "../shared/data/beir/scifact", "BEIR data set directory")
	fs.StringVar(&cfg.Dir, "dir", "", "engine data directory (reused when it holds the collection)")
	fs.StringVar(&cfg.Models, "models", models, "embedding models directory")
	fs.StringVar(&cfg.ORTLib, "ort-lib", lib, "ONNX Runtime library")
	fs.StringVar(&cfg.Qrels, "qrels", "test", "judgments to evaluate with: test or train (tune on train)")
	fs.BoolVar(&cfg.Sweep, "sweep", false, "evaluate a grid of ranking constants (use with -qrels train)")
	fs.BoolVar(&cfg.Split, "split", false, "also compare a two-collection search with the one-collection search")
	fs.StringVar(&cfg.Model, "model", "", "embedding model of the collection (default: the language's default)")
	fs.StringVar(&cfg.Language, "language", "", "search_config.language of the collection: en, cs or auto (default en)")
	fs.BoolVar(&cfg.NoAnswers, "no-answers", false, "skip the extractive-answer evaluation")
	fs.IntVar(&cfg.MaxQueries, "max-queries", 0, "evaluate this many judged queries, evenly spaced (default all)")
	var weights, floors, ceilings string
	fs.StringVar(&weights, "sweep-weights", "", "keyword weights of -sweep, comma-separated (default 0.2,0.3,0.35,0.4,0.5)")
	fs.StringVar(&floors, "sweep-floors", "", "semantic floors of -sweep, comma-separated (default 0.45,0.55,0.65)")
	fs.StringVar(&ceilings, "sweep-ceilings", "", "semantic ceilings of -sweep, comma-separated (default 0.90)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, g := range []struct {
		s   string
		dst *[]float64
	}{{weights, &cfg.SweepWeights}, {floors, &cfg.SweepFloors}, {ceilings, &cfg.SweepCeilings}} {
		for _, f := range strings.Split(g.s, ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			v, err := strconv.ParseFloat(f, 64)
			if err != nil {
				return fmt.Errorf("sweep grid value %q: %w", f, err)
			}
			*g.dst = append(*g.dst, v)
		}
	}
	return bench.RunSearch(cfg, os.Stdout)
}
