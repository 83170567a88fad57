package main

import (
	"flag"
	"fmt"
	"os"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
)

// runNLU runs the NLU quality and latency workload (bench.RunNLU).
func runNLU(args []string) error {
	fs := flag.NewFlagSet("nlu", flag.ContinueOnError)
	var cfg bench.NLUConfig
	fs.StringVar(&cfg.DataDir, "data", "../shared/data", "shared/data directory")
	fs.IntVar(&cfg.PerIntent, "per-intent", bench.DefaultNLUPerIntent, "SNIPS training utterances per intent")
	fs.IntVar(&cfg.LatencyRuns, "runs", bench.DefaultNLULatencyRuns, "timed analyses per pipeline")
	fs.IntVar(&cfg.Phrases, "phrases", bench.DefaultNLUPhrases, "size of the synthetic phrase set")
	fs.IntVar(&cfg.FewShotPerIntent, "few-shot", bench.DefaultNLUFewShot, "training utterances per intent of the few-shot workload")
	fs.IntVar(&cfg.FewShotDraws, "few-shot-draws", bench.DefaultNLUFewShotDraws, "random few-shot training sets")
	fs.BoolVar(&cfg.TrainTimeOnly, "train-time-only", false, "time only the training of 150 intents × 10 examples")
	fs.IntVar(&cfg.TrainTimeRuns, "train-time-runs", 1, "timed trainings with -train-time-only")
	model := fs.String("embed", "bge-small-en-v1.5", "installed embedding model of the intent classifier (the server's default model; empty: none)")
	nerModel := fs.String("ner-states", "bge-small-en-v1.5", "installed embedding model whose word vectors the contextual English name tagger reads (empty: lexical tagger only)")
	csModel := fs.String("embed-cs", "multilingual-e5-small", "installed embedding model of the Czech few-shot workload (empty: none)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	reg := embed.NewRegistry(embed.CachePaths(embed.DefaultCacheDir()))
	defer reg.Close()
	for _, m := range []struct {
		name, what string
		use        func(*embed.Local)
	}{
		{*csModel, "Czech embedding model", func(l *embed.Local) {
			cfg.CzechEmbedder, cfg.CzechEmbedderName = engine.IntentEmbedderOf(oneModel{l}, *csModel), *csModel
		}},
		{*model, "embedding model", func(l *embed.Local) {
			cfg.Embedder, cfg.EmbedderName = engine.IntentEmbedderOf(oneModel{l}, *model), *model
		}},
		{*nerModel, "word-vector model", func(l *embed.Local) { cfg.WordStates = l.WordStates }},
	} {
		if m.name == "" {
			continue
		}
		l, err := reg.Local(m.name)
		if err != nil {
			return fmt.Errorf("%s: %w", m.what, err)
		}
		m.use(l)
	}
	return bench.RunNLU(cfg, os.Stdout)
}

// oneModel provides one loaded model whatever the configuration asks for,
// so the workloads embed intents through the server's own hook
// (engine.IntentEmbedderOf).
type oneModel struct{ l *embed.Local }

// Embedder returns the model.
func (o oneModel) Embedder(engine.EmbeddingConfig) (engine.Embedder, error) { return o.l, nil }
