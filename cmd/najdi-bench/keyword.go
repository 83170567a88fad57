package main

import (
	"flag"
	"os"

	"github.com/najdi/najdi/bench"
)

// runKeyword runs the BEIR keyword (BM25) workload: najdi's text index
// against bleve on a BEIR data set.
func runKeyword(args []string) error {
	fs := flag.NewFlagSet("keyword", flag.ContinueOnError)
	var cfg bench.KeywordConfig
	fs.StringVar(&cfg.Dir, "data", "../shared/data/beir/scifact", "BEIR data set directory")
	titleBoost := fs.Float64("title-boost", bench.DefaultTitleBoost, "weight of title terms")
	k1 := fs.Float64("k1", 1.2, "BM25 k1")
	b := fs.Float64("b", 0.75, "BM25 b")
	fs.IntVar(&cfg.Depth, "depth", bench.DefaultKeywordDepth, "results retrieved per query")
	fs.IntVar(&cfg.Repeat, "repeat", bench.DefaultKeywordRepeat, "runs of the query set for latency")
	fs.BoolVar(&cfg.Bleve, "bleve", true, "also run bleve for comparison")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg.TitleBoost = float32(*titleBoost)
	cfg.BM25.K1, cfg.BM25.B = float32(*k1), float32(*b)
	return bench.RunKeyword(cfg, os.Stdout)
}
