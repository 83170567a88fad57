package main

import (
	"errors"
	"flag"
	"os"
	"path/filepath"

	"github.com/najdi/najdi/bench"
)

// runVector runs the vector workload, or with -embed builds its real-vector
// fixture from SciFact with the local embedding model.
func runVector(args []string) error {
	fs := flag.NewFlagSet("vector", flag.ContinueOnError)
	cache := os.Getenv("NAJDI_CACHE")
	if cache == "" {
		home, _ := os.UserHomeDir()
		cache = filepath.Join(home, ".cache", "najdi")
	}
	vecDir := filepath.Join(cache, "vectors")
	doEmbed := fs.Bool("embed", false, "embed SciFact texts into -out instead of benchmarking")
	var ec bench.EmbedConfig
	fs.StringVar(&ec.Dir, "dir", "../shared/data/beir/scifact", "BEIR SciFact directory (with -embed)")
	fs.StringVar(&ec.ModelDir, "model", filepath.Join(cache, "models", "bge-small-en-v1.5"), "embedding model directory (with -embed)")
	fs.StringVar(&ec.LibraryPath, "ort", filepath.Join(cache, "onnxruntime", "libonnxruntime.so"), "libonnxruntime.so (with -embed)")
	fs.StringVar(&ec.OutDir, "out", vecDir, "output directory (with -embed)")
	fs.IntVar(&ec.Limit, "embed-limit", 0, "most corpus texts embedded; 0 = all (with -embed)")
	fs.IntVar(&ec.Threads, "threads", 0, "ONNX Runtime threads; 0 = all cores (with -embed)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *doEmbed {
		return bench.EmbedVectors(ec, os.Stdout)
	}
	return errors.New("vector: benchmark not implemented yet")
}
