// Command najdi-bench runs najdi's benchmark and quality workloads from the
// bench package: retrieval quality on BEIR, ingest throughput, vector recall,
// NLU accuracy and latency. Each subcommand binds flags to one workload.
//
//	najdi-bench <command> [flags]
package main

import (
	"fmt"
	"os"
	"sort"
)

// commands maps a subcommand name to its runner; each runner lives in its
// own file of this package and parses its own flags.
var commands = map[string]func(args []string) error{
	"ingest":     runIngest,
	"keyword":    runKeyword,
	"vector":     runVector,
	"vecscale":   runVectorScale,
	"nlu":        runNLU,
	"diacritics": runDiacritics,
	"summary":    runSummary,
	"search":     runSearch,
	"rerank":     runRerank,
	"records":    runRecords,
	"latency":    runLatency,
	"overload":   runOverload,
	"querypath":  runQueryPath,
	"peers":      runPeers,
	"cluster":    runCluster,
}

func main() {
	if len(os.Args) < 2 || commands[os.Args[1]] == nil {
		names := make([]string, 0, len(commands))
		for n := range commands {
			names = append(names, n)
		}
		sort.Strings(names)
		fmt.Fprintf(os.Stderr, "usage: najdi-bench <command> [flags]\ncommands: %v\n", names)
		os.Exit(2)
	}
	if err := commands[os.Args[1]](os.Args[2:]); err != nil {
		fmt.Fprintf(os.Stderr, "najdi-bench %s: %v\n", os.Args[1], err)
		os.Exit(1)
	}
}
