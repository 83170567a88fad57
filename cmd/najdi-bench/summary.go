package main

import (
	"flag"
	"os"
	"strconv"
	"strings"

	"github.com/najdi/najdi/bench"
)

// runSummary runs the summary workload: summaries and extractive answers
// of BM25-retrieved documents, with the answer-from-relevant rate.
func runSummary(args []string) error {
	fs := flag.NewFlagSet("summary", flag.ContinueOnError)
	var cfg bench.SummaryConfig
	fs.StringVar(&cfg.Dir, "data", "../shared/data/beir/scifact", "BEIR data set directory")
	fs.IntVar(&cfg.TopK, "top", bench.DefaultSummaryTopK, "documents summarized per query")
	fs.IntVar(&cfg.MaxTokens, "max-tokens", bench.DefaultSummaryMaxTokens, "summary budget in tokens")
	fs.StringVar(&cfg.Tokenizer, "tokenizer", "o200k_base", "token counter: o200k_base or cl100k_base")
	budgets := fs.String("budgets", "", "extra budgets to sweep, comma-separated (e.g. 50,200,5000)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	for _, f := range strings.FieldsFunc(*budgets, func(r rune) bool { return r == ',' }) {
		b, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil {
			return err
		}
		cfg.Budgets = append(cfg.Budgets, b)
	}
	return bench.RunSummary(cfg, os.Stdout)
}
