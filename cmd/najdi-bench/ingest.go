package main

import (
	"flag"
	"os"

	"github.com/najdi/najdi/bench"
)

// runIngest runs the ingest parse-throughput workload (bench.RunIngestParse).
func runIngest(args []string) error {
	fs := flag.NewFlagSet("ingest", flag.ContinueOnError)
	var cfg bench.IngestConfig
	fs.StringVar(&cfg.DocsDir, "docs", "../shared/data/docs", "directory of the real files (shared/data/docs)")
	fs.Int64Var(&cfg.CSVBytes, "csv-bytes", bench.DefaultIngestCSVBytes, "size of the generated CSV in bytes; negative skips it")
	fs.Int64Var(&cfg.RepeatBytes, "repeat-bytes", bench.DefaultIngestRepeatBytes, "bytes of each real file to parse (the file repeated)")
	fs.DurationVar(&cfg.FileTime, "file-time", bench.DefaultIngestFileTime, "time limit for repeating each real file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	return bench.RunIngestParse(cfg, os.Stdout)
}
