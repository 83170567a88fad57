package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"runtime/pprof"
	"strconv"
	"strings"
	"time"

	"github.com/najdi/najdi/bench/peers"
	"github.com/najdi/najdi/embed"
)

// runPeers runs najdi side by side with Weaviate, Elasticsearch, OpenSearch
// and bleve on the same data and vectors and writes bench/peers/REPORT.md
// with its plots (make bench-peers installs the peers first).
func runPeers(args []string) error {
	fs := flag.NewFlagSet("peers", flag.ContinueOnError)
	cache := embed.DefaultCacheDir()
	var cfg peers.Config
	systems := fs.String("systems", "najdi,weaviate,elasticsearch,opensearch,bleve", "systems to run, comma-separated")
	largeSystems := fs.String("large-systems", "", "systems that also load the large collection, comma-separated (empty: all)")
	scale := fs.String("scale", "100000,250000,500000,1000000", "najdi growth sizes in chunks, comma-separated (empty: none)")
	fs.StringVar(&cfg.BEIRDir, "beir", "../shared/data/beir/scifact", "BEIR SciFact directory")
	fs.StringVar(&cfg.Cache, "cache", cache, "cache directory (models, vector caches)")
	fs.StringVar(&cfg.Work, "work", filepath.Join(os.TempDir(), "najdi-peers"), "data directory of the systems (emptied)")
	fs.StringVar(&cfg.Out, "out", "bench/peers", "directory of REPORT.md and the plots")
	fs.StringVar(&cfg.NajdiBin, "najdi", "bin/najdi", "najdi binary")
	fs.StringVar(&cfg.WeaviateBin, "weaviate", "", "weaviate-server binary (scripts/install-weaviate.sh)")
	fs.StringVar(&cfg.WeaviateVersion, "weaviate-version", "v1.35.2", "Weaviate version, for the report")
	fs.StringVar(&cfg.ClusterScript, "cluster-script", "scripts/cluster.sh", "script starting Elasticsearch and OpenSearch")
	fs.BoolVar(&cfg.ModelVectors, "model-vectors", false, "embed SciFact with bge-small-en-v1.5 (slow on 2 cores) instead of static vectors")
	fs.BoolVar(&cfg.SkipSciFact, "no-scifact", false, "skip the SciFact workload (run the large collection only)")
	fs.BoolVar(&cfg.WeaviateREST, "weaviate-rest", false, "talk to Weaviate over REST and GraphQL instead of gRPC")
	clusterHome := filepath.Join(cache, "peers-cluster")
	if os.Geteuid() == 0 {
		clusterHome = "/var/cache/najdi-peers-cluster" // the node's user cannot enter /root
	}
	fs.StringVar(&cfg.ClusterHome, "cluster-home", clusterHome, "where the benchmark's own Elasticsearch and OpenSearch nodes are installed and keep their data")
	fs.IntVar(&cfg.ClusterPort, "cluster-port", 9260, "HTTP port of the benchmark's Elasticsearch node; OpenSearch gets the next one")
	fs.StringVar(&cfg.ClusterHeap, "cluster-heap", "1g", "JVM heap of the Elasticsearch and OpenSearch nodes")
	fs.IntVar(&cfg.Large, "large", 100000, "large-collection size for all systems, in chunks (0: skip)")
	fs.DurationVar(&cfg.ScaleBudget, "scale-budget", 40*time.Minute, "stop the najdi growth run once it has taken this long")
	fs.IntVar(&cfg.Repeats, "repeats", 2, "repetitions of the latency and QPS runs")
	fs.DurationVar(&cfg.Settle, "settle", 70*time.Second, "idle time after the bulk loads of a workload, before the timed runs (Weaviate flushes its memtables after 60 s without writes)")
	fs.IntVar(&cfg.Queries, "queries", 300, "timed queries per kind and repetition (at most the 300 SciFact test queries)")
	fs.IntVar(&cfg.SatClients, "clients", 4, "client goroutines of the saturation runs")
	fs.DurationVar(&cfg.SatTime, "sat-time", 5*time.Second, "duration of each saturation run")
	render := fs.String("render", "", "render REPORT.md and the plots into -out again from the report.json a run left in its -work directory, and stop")
	cpuProfile := fs.String("cpuprofile", "", "write a CPU profile of the benchmark's own process (the load generator, clients and stub; bleve) to this file")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			return err
		}
		defer f.Close()
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer pprof.StopCPUProfile()
	}
	if *render != "" {
		return peers.Render(*render, cfg.Out)
	}
	cfg.Systems = peers.ParseSystems(*systems)
	cfg.LargeSystems = peers.ParseSystems(*largeSystems)
	for _, f := range strings.Split(*scale, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		n, err := strconv.Atoi(f)
		if err != nil {
			return fmt.Errorf("-scale: %q: %w", f, err)
		}
		cfg.Scale = append(cfg.Scale, n)
	}
	cfg.Command = "najdi-bench peers " + strings.Join(args, " ")
	_, err := peers.Run(context.Background(), cfg, os.Stdout)
	return err
}
