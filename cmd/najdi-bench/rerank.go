package main

import (
	"flag"
	"os"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/rerank"
)

// runRerank measures hybrid search with and without reranking (the
// cross-encoder, or the embedding similarity with -similarity), and
// extractive answers with -answers.
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
	fs.IntVar(&cfg.MaxTokens, "max-tokens", 0, "cap on the cross-encoder's pair length in tokens (default the model's, 512)")
	fs.IntVar(&cfg.Repeat, "repeat", 1, "run every -top-k value this many times (latency spread)")
	similarity := fs.Bool("similarity", false, "measure the embedding-similarity reranker (Czech and auto collections) on -beir/-dir: a grid of features, depths (-ks) and weights (-weights) offline")
	simDepth := fs.Int("depth", 50, "with -similarity: hybrid candidates fetched per query")
	vectors := fs.String("vectors", "", "with -similarity: cache of window embeddings (read if present, else written)")
	viaEngine := fs.Bool("engine", false, "with -similarity: also run \"rerank\": true through the engine on the same queries")
	answers := fs.Bool("answers", false, "measure extractive answers on questions with known answers (countries.json, country-codes.csv) and SciFact claims, sentences picked by term weights and by the reranker's scorer")
	docsDir := fs.String("docs", "../shared/data/docs", "with -answers: directory of countries.json and country-codes.csv")
	lang := fs.String("language", "en", "with -answers: language of the countries collection (cs asks in Czech)")
	sfDir := fs.String("scifact-dir", "", "with -answers: engine directory holding SciFact (collection \"all\") to measure claim answers too")
	step := fs.Int("step", 5, "with -answers: take every step-th country")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *answers {
		return bench.RunAnswers(bench.AnswersConfig{Docs: *docsDir, Dir: cfg.Search.Dir, Models: cfg.Search.Models, ORTLib: cfg.Search.ORTLib,
			Reranker: cfg.Reranker, Language: *lang, Step: *step, SciFactDir: *sfDir, BEIRDir: cfg.Search.BEIRDir, MaxQueries: cfg.Search.MaxQueries}, os.Stdout)
	}
	if *similarity {
		return bench.RunRerankSimilarity(bench.SimilarityConfig{Search: cfg.Search, Depth: *simDepth, Ks: cfg.Ks,
			Weights: cfg.Weights, Vectors: *vectors, Engine: *viaEngine, CachedOnly: cfg.CachedOnly}, os.Stdout)
	}
	return bench.RunRerank(cfg, os.Stdout)
}
