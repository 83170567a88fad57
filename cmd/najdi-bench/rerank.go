package main

import (
	"flag"
	"os"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/rerank"
)

// runRerank measures hybrid search with and without the cross-encoder.
func runRerank(args []string) error {
	fs := flag.NewFlagSet("rerank", flag.ContinueOnError)
	var cfg bench.RerankConfig
	fs.StringVar(&cfg.Search.BEIRDir, "beir", scifactDir, "BEIR data set directory")
	fs.StringVar(&cfg.Search.Dir, "dir", "", "engine data directory holding the collection \"all\" (najdi-bench search -dir DIR ingests it)")
	modelFlags(fs, &cfg.Search.Models, &cfg.Search.ORTLib)
	fs.StringVar(&cfg.Search.Qrels, "qrels", "test", "judgments: test or train (tune on train)")
	fs.IntVar(&cfg.Search.MaxQueries, "max-queries", 0, "evaluate this many judged queries, evenly spaced (default all)")
	fs.StringVar(&cfg.Reranker, "reranker", rerank.DefaultDir(embed.DefaultCacheDir()), "cross-encoder directory")
	fs.BoolVar(&cfg.Tune, "tune", false, "score the top -tune-depth candidates once and evaluate depths and weights offline (use -qrels train)")
	fs.IntVar(&cfg.TuneDepth, "tune-depth", 50, "candidates scored per query with -tune")
	listFlag(fs, &cfg.TopK, "top-k", "20", "rerank.top_k values evaluated through the engine, comma-separated")
	fs.StringVar(&cfg.Scores, "scores", "", "with -tune: cache of cross-encoder scores (read if present, else written)")
	fs.BoolVar(&cfg.CachedOnly, "cached-only", false, "with -tune and -scores: evaluate only the queries already scored")
	listFlag(fs, &cfg.Ks, "ks", "", "with -tune: depths of the grid, comma-separated (default 5,10,20,30,50)")
	listFlag(fs, &cfg.Weights, "weights", "", "with -tune: cross-encoder weights of the grid, comma-separated (default 1,0.9,0.8,0.7,0.6,0.5,0.3)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return bench.RunRerank(cfg, os.Stdout)
}
