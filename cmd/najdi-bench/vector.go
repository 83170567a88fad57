package main

import (
	"flag"
	"os"
	"path/filepath"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
)

// runVector runs the vector workload (recall@k, QPS and latency of the IVF
// index over real vectors, sweeping nprobe), or with -embed builds its
// real-vector fixture from SciFact with the local embedding model.
func runVector(args []string) error {
	fs := flag.NewFlagSet("vector", flag.ContinueOnError)
	cache := embed.DefaultCacheDir()
	vecDir := filepath.Join(cache, "vectors")
	var cfg bench.VectorConfig
	fs.StringVar(&cfg.Vectors, "vectors", filepath.Join(vecDir, bench.VectorCorpusFile), "corpus vectors (raw little-endian float32 rows)")
	fs.StringVar(&cfg.Queries, "queries", filepath.Join(vecDir, bench.VectorQueryFile), "query vectors; empty = hold out corpus rows")
	fs.IntVar(&cfg.Dims, "dims", bench.DefaultVectorDims, "vector dimensions")
	fs.IntVar(&cfg.Limit, "limit", 0, "most corpus vectors read; 0 = all")
	fs.IntVar(&cfg.MaxQueries, "max-queries", 0, "most queries run; 0 = all")
	fs.IntVar(&cfg.K, "k", bench.DefaultVectorK, "k of recall@k")
	listFlag(fs, &cfg.NProbes, "nprobe", "4,8,16,32,64,128", "nprobe values swept besides the default")
	listFlag(fs, &cfg.Filters, "filters", "0.5,0.1,0.02", "allowed fractions of the filtered runs")
	fs.IntVar(&cfg.Options.NList, "nlist", 0, "IVF lists; 0 = auto")
	fs.IntVar(&cfg.Options.NProbe, "default-nprobe", 0, "the index's default nprobe; 0 = auto")
	fs.IntVar(&cfg.Options.Rerank, "rerank", 0, "candidates re-ranked in float32; 0 = default")
	fs.Int64Var(&cfg.Options.Seed, "seed", 1, "k-means seed")
	fs.BoolVar(&cfg.Options.NoSpill, "no-spill", false, "do not spill vectors into a second list")

	doEmbed := fs.Bool("embed", false, "embed SciFact texts into -out instead of benchmarking")
	var ec bench.EmbedConfig
	fs.StringVar(&ec.Dir, "dir", scifactDir, "BEIR SciFact directory (with -embed)")
	fs.StringVar(&ec.ModelDir, "model", filepath.Join(cache, "models", "bge-small-en-v1.5"), "embedding model directory (with -embed)")
	fs.StringVar(&ec.LibraryPath, "ort", filepath.Join(cache, "onnxruntime", "libonnxruntime.so"), "libonnxruntime.so (with -embed)")
	fs.StringVar(&ec.OutDir, "out", vecDir, "output directory (with -embed)")
	fs.IntVar(&ec.Limit, "embed-limit", bench.DefaultEmbedLimit, "most corpus texts embedded; 0 = all, about 140k (with -embed)")
	fs.IntVar(&ec.Threads, "threads", 0, "ONNX Runtime threads; 0 = all cores (with -embed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *doEmbed {
		return bench.EmbedVectors(ec, os.Stdout)
	}
	return bench.RunVector(cfg, os.Stdout)
}
