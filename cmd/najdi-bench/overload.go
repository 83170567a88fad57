package main

import (
	"flag"
	"os"
	"time"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
)

// runOverload measures search latency idle and while ingestion is
// saturated, on a loopback server in this process, and counts the 429s.
func runOverload(args []string) error {
	fs := flag.NewFlagSet("overload", flag.ContinueOnError)
	var cfg bench.OverloadConfig
	fs.StringVar(&cfg.Dir, "dir", "", "engine data directory (default: a temporary one)")
	fs.IntVar(&cfg.SeedDocs, "seed-docs", 5000, "documents of the searched collection")
	fs.IntVar(&cfg.JobDocs, "job-docs", 2000, "documents per submitted async job")
	fs.IntVar(&cfg.Searchers, "searchers", 4, "concurrent searching clients")
	fs.IntVar(&cfg.Submitters, "submitters", 4, "clients submitting async jobs (plus one of sync ingests)")
	fs.DurationVar(&cfg.Idle, "idle", 10*time.Second, "idle phase duration")
	fs.DurationVar(&cfg.Saturated, "saturated", 120*time.Second, "saturated phase duration (the memory trend is fitted over its second half)")
	fs.IntVar(&cfg.MaxSubmissions, "max-submissions", 2000, "bound on the ingest requests sent")
	models, lib := embed.CachePaths(embed.DefaultCacheDir())
	fs.StringVar(&cfg.Model, "model", "", "embedding model of the collections (default: none, keyword only)")
	fs.StringVar(&cfg.Models, "models", models, "embedding models directory")
	fs.StringVar(&cfg.ORTLib, "ort-lib", lib, "ONNX Runtime library")
	fs.IntVar(&cfg.Words, "words", 200, "words per generated record")
	fs.BoolVar(&cfg.NoPrefill, "no-prefill", false, "leave the ingested collection empty until the saturated phase (default: filled with the ids the jobs replace)")
	fs.Int64Var(&cfg.MemoryLimit, "memory-limit", 0, "Go soft memory limit in bytes for the run (0: none), as the server's --memory-limit")
	fs.IntVar(&cfg.Repeat, "repeat", 1, "runs to make; with more than one, the spread is reported")
	fs.StringVar(&cfg.ProfileDir, "profile", "", "directory for CPU, mutex, block profiles, an execution trace and heap profiles (every -heap-profile-every) of the saturated phase")
	fs.DurationVar(&cfg.HeapProfileEvery, "heap-profile-every", 15*time.Second, "interval of the heap profiles written with -profile")
	fs.IntVar(&cfg.Engine.IngestWorkers, "ingest-workers", 0, "server --ingest-workers (0: default)")
	fs.IntVar(&cfg.Engine.MaxIngests, "max-ingests", 0, "server --max-ingests (0: default)")
	fs.IntVar(&cfg.Engine.MaxIngestJobs, "max-ingest-jobs", 0, "server --max-ingest-jobs (0: default)")
	fs.IntVar(&cfg.Engine.MaxIngestJobsPerOwner, "max-ingest-jobs-per-owner", 0, "server --max-ingest-jobs-per-owner (0: default)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return bench.RunOverload(cfg, os.Stdout)
}
