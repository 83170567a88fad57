package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/bench/peers"
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
	vectors := fs.String("vectors", "static", "static: static bge-small-en-v1.5 vectors (bench/peers: the mean of the model's input-token embedding rows, no transformer layers), so that ingest and search measure the backends; model: the real default model (slow on a loaded machine)")
	large := fs.Int("large", 0, "also measure a corpus of this many one-chunk documents (two random SciFact abstract sentences each, bench/peers.LargeTexts seed 1); needs -vectors static")
	largeColls := fs.String("large-colls", "hyb", "collections of the -large corpus: comma-separated kw (keyword only), vec (vectors only), hyb (both); without kw and vec the keyword and vector searches run on hyb with that retriever alone")
	fs.IntVar(&cfg.LargeQueries, "large-queries", 0, "timed queries per kind on the -large corpus (0: -queries)")
	fs.BoolVar(&cfg.NoSciFact, "no-scifact", false, "measure the -large corpus only (SciFact's queries are still used)")
	fs.BoolVar(&cfg.Keep, "keep", false, "leave the collections on every backend after the run (cluster index prefix "+bench.KeepPrefix+", the embedded store in -work) for a later -reuse")
	fs.BoolVar(&cfg.Reuse, "reuse", false, "search the collections a -keep run left instead of ingesting them again, when every backend holds all their documents (their ingest and memory rows are not measured)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	cfg.LargeColls = strings.Split(*largeColls, ",")
	switch *vectors {
	case "model":
		if *large > 0 {
			return fmt.Errorf("-large needs -vectors static")
		}
	case "static":
		st, err := peers.LoadStatic(filepath.Join(models, "bge-small-en-v1.5"))
		if err != nil {
			return err
		}
		cfg.Embedder = staticEmbedder{st}
		if *large > 0 {
			b, err := bench.LoadBEIR(cfg.BEIRDir)
			if err != nil {
				return err
			}
			cfg.Large = peers.LargeTexts(b, *large, 1)
		}
	default:
		return fmt.Errorf("-vectors %q: want static or model", *vectors)
	}
	for _, u := range strings.Split(clusters, ",") {
		if u = strings.TrimSpace(u); u != "" {
			cfg.Clusters = append(cfg.Clusters, u)
		}
	}
	return bench.RunCluster(cfg, os.Stdout)
}

// staticEmbedder gives bench/peers' static vectors as an engine embedder.
type staticEmbedder struct{ st *peers.Static }

func (s staticEmbedder) Name() string { return "static-bge-small-en-v1.5" }
func (s staticEmbedder) Dims() int    { return s.st.Dims() }

func (s staticEmbedder) EmbedQueries(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = s.st.Embed(t)
	}
	return out, nil
}

func (s staticEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return s.EmbedQueries(ctx, texts)
}
