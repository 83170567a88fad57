package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/najdi/najdi/cluster"
	"github.com/najdi/najdi/engine"
)

// ClusterConfig configures RunCluster.
type ClusterConfig struct {
	// BEIRDir is the SciFact directory.
	BEIRDir string
	// Docs bounds the corpus (0: all).
	Docs int
	// Queries is the number of timed queries per kind (SciFact queries
	// without test judgements: never the test split).
	Queries int
	// Clusters are the cluster URLs to measure besides the embedded store.
	Clusters []string
	// Work is a scratch directory for the embedded store.
	Work string
	// Models and ORTLib locate the embedding model; Cache is a passage
	// vector cache (texts → vectors of the default model), so that every
	// backend ingests the same vectors and ingest times exclude the model.
	Models, ORTLib, Cache string
}

// clusterColls are the three collections RunCluster builds per backend.
var clusterColls = []struct {
	name string
	cfg  func() engine.CollectionConfig
}{
	{"kw", func() engine.CollectionConfig {
		return engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}, Fields: bucketField()}
	}},
	{"vec", func() engine.CollectionConfig {
		off := false
		return engine.CollectionConfig{FulltextConfig: engine.FulltextConfig{Enabled: &off}, Fields: bucketField()}
	}},
	{"hyb", func() engine.CollectionConfig { return engine.CollectionConfig{Fields: bucketField()} }},
}

// bucketField declares the enum field of the filtered searches (10 % of
// the documents per value).
func bucketField() map[string]engine.FieldSpec {
	return map[string]engine.FieldSpec{"bucket": {Type: engine.FieldEnum}}
}

// queryMemo embeds each query once with the real model (a warm-up pass
// fills it), so timed searches exclude query embedding on every backend.
type queryMemo struct {
	*cachedEmbedder
	mu sync.Mutex
	m  map[string][]float32
}

func (q *queryMemo) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		q.mu.Lock()
		v, ok := q.m[t]
		q.mu.Unlock()
		if !ok {
			vs, err := q.cachedEmbedder.EmbedQueries(ctx, []string{t})
			if err != nil {
				return nil, err
			}
			v = vs[0]
			q.mu.Lock()
			q.m[t] = v
			q.mu.Unlock()
		}
		out[i] = v
	}
	return out, nil
}

// RunCluster measures the engine on its embedded store and on each
// cluster with the same documents, vectors and queries: ingest throughput
// of a keyword-only, a vector-only and a hybrid collection of SciFact, the
// latency of keyword, vector, hybrid and filtered hybrid searches, and the
// disk each backend uses. It writes a table to w.
func RunCluster(cfg ClusterConfig, w io.Writer) error {
	b, err := LoadBEIR(cfg.BEIRDir)
	if err != nil {
		return err
	}
	docs := b.Docs
	if cfg.Docs > 0 && cfg.Docs < len(docs) {
		docs = docs[:cfg.Docs]
	}
	var queries []string
	err = beirReadJSONL(filepath.Join(cfg.BEIRDir, "queries.jsonl"), func(line []byte) error {
		var q BEIRQuery
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		if len(b.Qrels[q.ID]) == 0 && len(queries) < cfg.Queries {
			queries = append(queries, q.Text)
		}
		return nil
	})
	if err != nil {
		return err
	}
	prov, err := engine.NewModelProvider(cfg.Models, cfg.ORTLib)
	if err != nil {
		return err
	}
	defer prov.Close()
	base, err := prov.Embedder(engine.EmbeddingConfig{})
	if err != nil {
		return err
	}
	cache, err := loadVecCache(cfg.Cache)
	if err != nil {
		return err
	}
	emb := &queryMemo{cachedEmbedder: &cachedEmbedder{Embedder: base, cache: cache}, m: map[string][]float32{}}
	inputs := make([]engine.DocumentInput, len(docs))
	for i, d := range docs {
		inputs[i] = fullDoc(d)
		inputs[i].Fields = map[string]any{"bucket": fmt.Sprintf("b%d", i%10)}
	}
	fmt.Fprintf(w, "SciFact: %d documents, %d queries (no test judgements), k = 10\n", len(docs), len(queries))

	type backend struct {
		name string
		b    engine.Backend
		c    *cluster.Client
	}
	backends := []backend{{name: "embedded"}}
	prefix := fmt.Sprintf("najdi-bench-%d-", time.Now().Unix())
	for _, u := range cfg.Clusters {
		r := engine.DefaultRanker()
		c, err := cluster.New(context.Background(), cluster.Config{URL: u, Prefix: prefix, K1: float64(r.K1), B: float64(r.B)})
		if err != nil {
			return err
		}
		defer func() { _ = c.DropCollectionsWithPrefix(context.Background()) }()
		backends = append(backends, backend{name: fmt.Sprintf("%s %s", c.Info().Flavour, c.Info().Version), b: cluster.EngineBackend{C: c}, c: c})
	}
	// Warm-up: embed every chunk once (the cache), outside the timings.
	{
		e, err := engine.Open(engine.Options{Dir: filepath.Join(cfg.Work, "warmup"), Embedders: singleProvider{emb}})
		if err != nil {
			return err
		}
		ctx := context.Background()
		start := time.Now()
		if _, _, err := e.PutCollection(ctx, "", "hyb", engine.CollectionConfig{}); err != nil {
			return err
		}
		for i := 0; i < len(inputs); i += 500 {
			if _, err := e.Ingest(ctx, "", "hyb", engine.IngestRequest{Documents: inputs[i:min(i+500, len(inputs))]}); err != nil {
				return err
			}
			if err := cache.save(cfg.Cache); err != nil {
				return err
			}
		}
		for _, q := range queries {
			if _, err := emb.EmbedQueries(ctx, []string{q}); err != nil {
				return err
			}
		}
		e.Close()
		fmt.Fprintf(w, "warm-up (model embedding of uncached chunks and of the queries): %s\n\n", time.Since(start).Round(time.Second))
	}
	type result struct {
		ingest  map[string]float64 // collection → documents per second
		lat     map[string][2]time.Duration
		disk    int64
		nodeRSS int64
	}
	kinds := []struct {
		name, coll string
		filter     json.RawMessage
	}{
		{"keyword", "kw", nil},
		{"vector", "vec", nil},
		{"hybrid", "hyb", nil},
		{"hybrid + filter", "hyb", json.RawMessage(`{"term":{"bucket":"b3"}}`)},
		{"keyword + filter", "kw", json.RawMessage(`{"term":{"bucket":"b3"}}`)},
	}
	var results []result
	for _, be := range backends {
		ctx := context.Background()
		dir := filepath.Join(cfg.Work, strings.ReplaceAll(be.name, " ", "-"))
		_ = os.RemoveAll(dir)
		e, err := engine.Open(engine.Options{Dir: dir, Embedders: singleProvider{emb}, Backend: be.b})
		if err != nil {
			return err
		}
		res := result{ingest: map[string]float64{}, lat: map[string][2]time.Duration{}}
		for _, c := range clusterColls {
			if _, _, err := e.PutCollection(ctx, "", c.name, c.cfg()); err != nil {
				return fmt.Errorf("%s: %w", be.name, err)
			}
			start := time.Now()
			for i := 0; i < len(inputs); i += 500 {
				r, err := e.Ingest(ctx, "", c.name, engine.IngestRequest{Documents: inputs[i:min(i+500, len(inputs))]})
				if err != nil || len(r.Errors) > 0 {
					return fmt.Errorf("%s: ingest %s: %v %v", be.name, c.name, err, r.Errors)
				}
			}
			res.ingest[c.name] = float64(len(inputs)) / time.Since(start).Seconds()
			if be.b == nil {
				if err := e.MergeNow("", c.name); err != nil {
					return err
				}
			}
		}
		k, hl := 10, false
		for _, kd := range kinds {
			var lat []time.Duration
			for pass := range 2 { // the first pass warms caches
				for _, q := range queries {
					t0 := time.Now()
					if _, err := e.Search(ctx, "", []string{kd.coll}, engine.SearchRequest{Query: q, MaxResults: &k, Highlight: &hl, Filter: kd.filter}); err != nil {
						return fmt.Errorf("%s: %s search: %w", be.name, kd.name, err)
					}
					if pass == 1 {
						lat = append(lat, time.Since(t0))
					}
				}
			}
			res.lat[kd.name] = [2]time.Duration{pct(lat, 50), pct(lat, 99)}
		}
		if be.c != nil {
			var names []string
			for _, c := range clusterColls {
				names = append(names, c.name)
			}
			if res.disk, err = be.c.StoreBytes(ctx, names); err != nil {
				return err
			}
			res.nodeRSS = nodeRSS(be.c.Info().Flavour)
		} else {
			for _, c := range clusterColls {
				info, err := e.GetCollection(ctx, "", c.name)
				if err != nil {
					return err
				}
				res.disk += info.SizeBytes
			}
		}
		e.Close()
		results = append(results, res)
	}
	fmt.Fprintf(w, "| | %s |\n| --- |%s\n", strings.Join(names(backends, func(b backend) string { return b.name }), " | "), strings.Repeat(" --- |", len(backends)))
	for _, c := range clusterColls {
		fmt.Fprintf(w, "| ingest %s (docs/s) |", c.name)
		for i, r := range results {
			fmt.Fprintf(w, " %.0f%s |", r.ingest[c.name], ratio(results[0].ingest[c.name], r.ingest[c.name], i, true))
		}
		fmt.Fprintln(w)
	}
	for _, kd := range kinds {
		fmt.Fprintf(w, "| %s p50 / p99 |", kd.name)
		for i, r := range results {
			l := r.lat[kd.name]
			fmt.Fprintf(w, " %s / %s%s |", msOf(l[0]), msOf(l[1]), ratio(l[0].Seconds(), results[0].lat[kd.name][0].Seconds(), i, false))
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "| disk, three collections (MB) |")
	for _, r := range results {
		fmt.Fprintf(w, " %.1f |", float64(r.disk)/1e6)
	}
	fmt.Fprintf(w, "\n| node resident memory (MB) |")
	for i, r := range results {
		if i == 0 {
			fmt.Fprintf(w, " (in najdi's process) |")
		} else {
			fmt.Fprintf(w, " %.0f |", float64(r.nodeRSS)/1e6)
		}
	}
	fmt.Fprintln(w)
	return nil
}

func names[T any](xs []T, f func(T) string) []string {
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = f(x)
	}
	return out
}

// ratio formats "(×r)" against the embedded column: for throughput the
// embedded value over this one (how many times slower), for latency this
// one over the embedded one.
func ratio(a, b float64, i int, throughput bool) string {
	if i == 0 || a <= 0 || b <= 0 {
		return ""
	}
	if throughput {
		return fmt.Sprintf(" (÷%.1f)", a/b)
	}
	return fmt.Sprintf(" (×%.1f)", a/b)
}

func msOf(d time.Duration) string { return fmt.Sprintf("%.1f ms", float64(d.Microseconds())/1000) }

// nodeRSS returns the resident memory of the local node scripts/cluster.sh
// started for flavour (0 when unknown).
func nodeRSS(f cluster.Flavour) int64 {
	out, err := exec.Command("scripts/cluster.sh", "pid", string(f)).Output()
	if err != nil {
		return 0
	}
	pid := strings.TrimSpace(string(out))
	data, err := os.ReadFile("/proc/" + pid + "/status")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1000
		}
	}
	return 0
}
