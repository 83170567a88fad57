package main

import (
	"flag"
	"os"

	"github.com/najdi/najdi/bench"
)

// runSearch runs the end-to-end retrieval benchmark (keyword, dense, hybrid).
func runSearch(args []string) error {
	fs := flag.NewFlagSet("search", flag.ContinueOnError)
	var cfg bench.SearchConfig
	fs.StringVar(&cfg.BEIRDir, "beir", scifactDir, "BEIR data set directory")
	fs.StringVar(&cfg.Dir, "dir", "", "engine data directory (reused when it holds the collection)")
	modelFlags(fs, &cfg.Models, &cfg.ORTLib)
	fs.StringVar(&cfg.Qrels, "qrels", "test", "judgments to evaluate with: test or train (tune on train)")
	fs.BoolVar(&cfg.Sweep, "sweep", false, "evaluate a grid of ranking constants (use with -qrels train)")
	fs.BoolVar(&cfg.Split, "split", false, "also compare a two-collection search with the one-collection search")
	fs.StringVar(&cfg.Model, "model", "", "embedding model of the collection (default: the language's default)")
	fs.StringVar(&cfg.Language, "language", "", "search_config.language of the collection: en, cs or auto (default en)")
	fs.BoolVar(&cfg.NoAnswers, "no-answers", false, "skip the extractive-answer evaluation")
	fs.IntVar(&cfg.MaxQueries, "max-queries", 0, "evaluate this many judged queries, evenly spaced (default all)")
	listFlag(fs, &cfg.SweepWeights, "sweep-weights", "", "keyword weights of -sweep, comma-separated (default 0.2,0.3,0.35,0.4,0.5)")
	listFlag(fs, &cfg.SweepFloors, "sweep-floors", "", "semantic floors of -sweep, comma-separated (default 0.45,0.55,0.65)")
	listFlag(fs, &cfg.SweepCeilings, "sweep-ceilings", "", "semantic ceilings of -sweep, comma-separated (default 0.90)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return bench.RunSearch(cfg, os.Stdout)
}
