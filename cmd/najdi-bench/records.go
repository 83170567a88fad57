package main

import (
	"flag"
	"fmt"
	"os"
	"runtime/pprof"

	"github.com/najdi/najdi/bench"
)

// runRecords measures record-format ingestion through the engine.
func runRecords(args []string) error {
	fs := flag.NewFlagSet("records", flag.ContinueOnError)
	var cfg bench.RecordsConfig
	fs.StringVar(&cfg.File, "file", "", "CSV file to ingest (default: generate -rows × -cols)")
	fs.IntVar(&cfg.Rows, "rows", 25, "rows of the generated CSV")
	fs.IntVar(&cfg.Cols, "cols", 120, "columns of the generated CSV")
	fs.Uint64Var(&cfg.Seed, "seed", 1, "seed of the generated CSV")
	modelFlags(fs, &cfg.Models, &cfg.ORTLib)
	fs.StringVar(&cfg.Model, "model", "", "embedding model of the collection (default: the language's default)")
	prof := fs.String("cpuprofile", "", "write a CPU profile of the run to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *prof != "" {
		f, err := os.Create(*prof)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return fmt.Errorf("cpu profile: %w", err)
		}
		defer pprof.StopCPUProfile()
	}
	return bench.RunRecords(cfg, os.Stdout)
}
