package bench

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/najdi/najdi/cluster"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
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
	// Embedder, when set, gives every passage and query vector instead of
	// the model and its cache (a cheap deterministic embedder, so that a
	// large corpus measures the backends, not the model).
	Embedder engine.Embedder
	// Large are the texts of a second corpus, one document (one chunk)
	// each, measured like SciFact but only in the collections LargeColls
	// names (kw, vec, hyb; default hyb) with LargeQueries timed queries
	// per kind (default Queries).
	Large        []string
	LargeColls   []string
	LargeQueries int
	// NoSciFact leaves SciFact out (measures cfg.Large alone).
	NoSciFact bool
	// Keep leaves the collections on every backend after the run (cluster
	// indices under the fixed prefix KeepPrefix, the embedded store in
	// Work); Reuse searches the collections a kept run left instead of
	// ingesting them again when every backend holds all their documents.
	Keep, Reuse bool
}

// KeepPrefix is the cluster index prefix of RunCluster with Keep or Reuse
// (otherwise a prefix per run, dropped at the end).
const KeepPrefix = "najdi-bench-keep-"

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

// clusterSet is one corpus RunCluster measures: its documents and the
// timed queries.
type clusterSet struct {
	idx     int // collections are named s<idx><kind>: 0 SciFact, 1 the large corpus
	name    string
	inputs  []engine.DocumentInput
	queries []string
	colls   map[string]bool // the collections of clusterColls measured
}

// clusterBackend is one backend under measurement.
type clusterBackend struct {
	name string
	b    engine.Backend
	c    *cluster.Client
}

// RunCluster measures the engine on its embedded store and on each
// cluster with the same documents, vectors and queries: ingest throughput
// of a keyword-only, a vector-only and a hybrid collection of SciFact
// (and of cfg.Large, one chunk per text, when given), the latency of
// keyword, vector, hybrid and filtered searches, the disk each backend
// uses and the memory the corpus adds. The backends are interleaved: each
// ingest batch and each timed query runs on every backend in turn, so
// that a change of the machine's load hits all alike. It writes a table
// per corpus to w.
func RunCluster(cfg ClusterConfig, w io.Writer) error {
	b, err := LoadBEIR(cfg.BEIRDir)
	if err != nil {
		return err
	}
	docs := b.Docs
	if cfg.Docs > 0 && cfg.Docs < len(docs) {
		docs = docs[:cfg.Docs]
	}
	queries, err := clusterQueries(cfg, b)
	if err != nil {
		return err
	}
	inputs := make([]engine.DocumentInput, len(docs))
	for i, d := range docs {
		inputs[i] = fullDoc(d)
		inputs[i].Fields = map[string]any{"bucket": fmt.Sprintf("b%d", i%10)}
	}
	sets := clusterSets(cfg, inputs, queries)
	emb := cfg.Embedder
	if emb == nil {
		if emb, err = modelEmbedder(cfg, inputs, queries, w); err != nil {
			return err
		}
	}
	backends, drop, err := clusterBackends(cfg)
	defer drop()
	if err != nil {
		return err
	}
	for _, set := range sets {
		if err := measureClusterSet(cfg, set, set.idx, backends, emb, w); err != nil {
			return fmt.Errorf("%s: %w", set.name, err)
		}
	}
	return nil
}

// clusterQueries returns the texts of the first cfg.Queries queries of the
// BEIR set that have no relevance judgements (timed queries, not scored).
func clusterQueries(cfg ClusterConfig, b *BEIR) ([]string, error) {
	var queries []string
	err := beirReadJSONL(filepath.Join(cfg.BEIRDir, "queries.jsonl"), func(line []byte) error {
		var q BEIRQuery
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		if len(b.Qrels[q.ID]) == 0 && len(queries) < cfg.Queries {
			queries = append(queries, q.Text)
		}
		return nil
	})
	return queries, err
}

// clusterSets returns the corpora to measure: SciFact (unless cfg.NoSciFact)
// in its keyword, vector and hybrid collections, and the large corpus of
// cfg.Large in the collection kinds of cfg.LargeColls (hybrid by default).
func clusterSets(cfg ClusterConfig, inputs []engine.DocumentInput, queries []string) []clusterSet {
	var sets []clusterSet
	if !cfg.NoSciFact {
		sets = append(sets, clusterSet{idx: 0, name: fmt.Sprintf("SciFact (%d documents)", len(inputs)), inputs: inputs, queries: queries, colls: map[string]bool{"kw": true, "vec": true, "hyb": true}})
	}
	if len(cfg.Large) > 0 {
		large := make([]engine.DocumentInput, len(cfg.Large))
		for i, t := range cfg.Large {
			large[i] = engine.DocumentInput{DocumentID: fmt.Sprintf("c%07d", i), Sections: []ingest.Section{{Type: "p", Content: t}}, Fields: map[string]any{"bucket": fmt.Sprintf("b%d", i%10)}}
		}
		colls := map[string]bool{}
		for _, c := range cfg.LargeColls {
			colls[c] = true
		}
		if len(colls) == 0 {
			colls["hyb"] = true
		}
		lq := queries
		if cfg.LargeQueries > 0 && cfg.LargeQueries < len(lq) {
			lq = lq[:cfg.LargeQueries]
		}
		sets = append(sets, clusterSet{idx: 1, name: fmt.Sprintf("large (%d one-chunk documents)", len(large)), inputs: large, queries: lq, colls: colls})
	}
	return sets
}

// clusterBackends returns the embedded backend and one per cluster URL of
// cfg, and drop, which removes the bench's collections from the clusters
// (nothing with cfg.Keep; a kept run that does not reuse starts empty, so
// its ingest is measured fresh). Call drop even when err is not nil.
func clusterBackends(cfg ClusterConfig) (backends []clusterBackend, drop func(), err error) {
	var clients []*cluster.Client
	drop = func() {
		for _, c := range clients {
			_ = c.DropCollectionsWithPrefix(context.Background())
		}
	}
	backends = append(backends, clusterBackend{name: "embedded"})
	prefix := fmt.Sprintf("najdi-bench-%d-", time.Now().Unix())
	if cfg.Keep || cfg.Reuse {
		prefix = KeepPrefix
	}
	for _, u := range cfg.Clusters {
		r := engine.DefaultRanker()
		c, err := cluster.New(context.Background(), cluster.Config{URL: u, Prefix: prefix, K1: float64(r.K1), B: float64(r.B)})
		if err != nil {
			return nil, drop, err
		}
		switch {
		case !cfg.Keep:
			clients = append(clients, c)
		case !cfg.Reuse:
			if err := c.DropCollectionsWithPrefix(context.Background()); err != nil {
				return nil, drop, err
			}
		}
		backends = append(backends, clusterBackend{name: fmt.Sprintf("%s %s", c.Info().Flavour, c.Info().Version), b: cluster.EngineBackend{C: c}, c: c})
	}
	return backends, drop, nil
}

// modelEmbedder returns the default model behind the passage vector cache
// and a query memo, after a warm-up that embeds every uncached chunk and
// every query once, outside the timings.
func modelEmbedder(cfg ClusterConfig, inputs []engine.DocumentInput, queries []string, w io.Writer) (engine.Embedder, error) {
	prov, err := engine.NewModelProvider(cfg.Models, cfg.ORTLib)
	if err != nil {
		return nil, err
	}
	// The provider lives as long as the process (the bench's last step).
	base, err := prov.Embedder(engine.EmbeddingConfig{})
	if err != nil {
		return nil, err
	}
	cache, err := loadVecCache(cfg.Cache)
	if err != nil {
		return nil, err
	}
	emb := &queryMemo{cachedEmbedder: &cachedEmbedder{Embedder: base, cache: cache}, m: map[string][]float32{}}
	e, err := engine.Open(engine.Options{Dir: filepath.Join(cfg.Work, "warmup"), Embedders: singleProvider{emb}})
	if err != nil {
		return nil, err
	}
	defer e.Close()
	ctx := context.Background()
	start := time.Now()
	if _, _, err := e.PutCollection(ctx, "", "hyb", engine.CollectionConfig{}); err != nil {
		return nil, err
	}
	for i := 0; i < len(inputs); i += 500 {
		if _, err := e.Ingest(ctx, "", "hyb", engine.IngestRequest{Documents: inputs[i:min(i+500, len(inputs))]}); err != nil {
			return nil, err
		}
		if err := cache.save(cfg.Cache); err != nil {
			return nil, err
		}
	}
	for _, q := range queries {
		if _, err := emb.EmbedQueries(ctx, []string{q}); err != nil {
			return nil, err
		}
	}
	fmt.Fprintf(w, "warm-up (model embedding of uncached chunks and of the queries): %s\n\n", time.Since(start).Round(time.Second))
	return emb, nil
}

// clusterKind is one kind of timed search: a collection of clusterColls
// and an optional filter.
type clusterKind struct {
	name, coll string
	filter     json.RawMessage
}

// clusterKinds are the timed searches, in table order.
var clusterKinds = []clusterKind{
	{"keyword", "kw", nil},
	{"keyword + filter", "kw", json.RawMessage(`{"term":{"bucket":"b3"}}`)},
	{"vector", "vec", nil},
	{"hybrid", "hyb", nil},
	{"hybrid + filter", "hyb", json.RawMessage(`{"term":{"bucket":"b3"}}`)},
}

// target returns the collection kd searches in set and the retrievers of
// its requests: its own collection when the set has it, else the hybrid
// collection searched with that retriever alone (engine
// SearchRequest.Retrievers), so a large corpus is ingested once. ok is
// false when neither is measured.
func (kd clusterKind) target(set clusterSet) (coll, retrievers string, ok bool) {
	switch {
	case set.colls[kd.coll]:
		return kd.coll, "", true
	case !set.colls["hyb"]:
		return "", "", false
	case kd.coll == "kw":
		return "hyb", engine.RetrieveKeyword, true
	case kd.coll == "vec":
		return "hyb", engine.RetrieveSemantic, true
	}
	return "", "", false
}

// setResult is what measureClusterSet measures on one backend.
type setResult struct {
	e      *engine.Engine
	ingest map[string]time.Duration // collection → ingest time (absent: reused)
	lat    map[string][]time.Duration
	disk   int64
	rss    [2]int64 // node (clusters) before and after
}

// measureClusterSet ingests one corpus into every backend (or reuses the
// collections a kept run left, cfg.Reuse) and times its searches,
// interleaved, and writes its table.
func measureClusterSet(cfg ClusterConfig, set clusterSet, si int, backends []clusterBackend, emb engine.Embedder, w io.Writer) error {
	runtime.GC()
	selfBefore := selfRSS()
	res, err := openSetEngines(cfg, si, backends, emb)
	if err != nil {
		return err
	}
	defer func() {
		for _, r := range res {
			r.e.Close()
		}
	}()
	if err := ingestSet(cfg, set, si, backends, res); err != nil {
		return err
	}
	if err := timeSetQueries(set, si, backends, res); err != nil {
		return err
	}
	runtime.GC()
	selfAfter := selfRSS()
	if err := measureSetDisk(set, si, backends, res); err != nil {
		return err
	}
	writeSetTable(w, set, backends, res, selfAfter-selfBefore)
	return nil
}

// openSetEngines opens an engine per backend for corpus si (the embedded
// store in a directory of cfg.Work, emptied first unless cfg.Reuse) and
// reads each node's resident memory.
func openSetEngines(cfg ClusterConfig, si int, backends []clusterBackend, emb engine.Embedder) ([]*setResult, error) {
	var res []*setResult
	for _, be := range backends {
		dir := filepath.Join(cfg.Work, fmt.Sprintf("set%d-%s", si, strings.ReplaceAll(be.name, " ", "-")))
		if !cfg.Reuse {
			_ = os.RemoveAll(dir)
		}
		opts := engine.Options{Dir: dir, Embedders: singleProvider{emb}, Backend: be.b}
		if be.b == nil {
			opts.MergeInterval = time.Hour // merged once after the ingest (MergeNow), as before
		}
		e, err := engine.Open(opts)
		if err != nil {
			for _, r := range res {
				r.e.Close()
			}
			return nil, fmt.Errorf("%s: %w", be.name, err)
		}
		r := &setResult{e: e, ingest: map[string]time.Duration{}, lat: map[string][]time.Duration{}}
		if be.c != nil {
			r.rss[0] = nodeRSS(be.c.Info().Flavour)
		}
		res = append(res, r)
	}
	return res, nil
}

// reusable tells whether every backend holds collection coll with n
// documents already (a kept run's, cfg.Reuse).
func reusable(ctx context.Context, coll string, n int, res []*setResult) bool {
	for _, r := range res {
		info, err := r.e.GetCollection(ctx, "", coll)
		if err != nil || info.DocumentCount != int64(n) {
			return false
		}
	}
	return true
}

// ingestSet ingests the corpus into each measured collection of every
// backend, batch by batch in turn, timing each backend, then merges the
// embedded store's collection. With cfg.Reuse a collection every backend
// already holds with all the documents is left as it is (not timed).
func ingestSet(cfg ClusterConfig, set clusterSet, si int, backends []clusterBackend, res []*setResult) error {
	ctx := context.Background()
	const batch = 500
	for _, c := range clusterColls {
		if !set.colls[c.name] {
			continue
		}
		coll := fmt.Sprintf("s%d%s", si, c.name)
		if cfg.Reuse && reusable(ctx, coll, len(set.inputs), res) {
			continue
		}
		for i, r := range res {
			if _, _, err := r.e.PutCollection(ctx, "", coll, c.cfg()); err != nil {
				return fmt.Errorf("%s: %w", backends[i].name, err)
			}
		}
		for lo := 0; lo < len(set.inputs); lo += batch {
			docs := set.inputs[lo:min(lo+batch, len(set.inputs))]
			for i, r := range res {
				t0 := time.Now()
				out, err := r.e.Ingest(ctx, "", coll, engine.IngestRequest{Documents: docs})
				if err != nil || len(out.Errors) > 0 {
					return fmt.Errorf("%s: ingest %s: %v %v", backends[i].name, c.name, err, out.Errors)
				}
				r.ingest[c.name] += time.Since(t0)
			}
		}
		for i, r := range res {
			if backends[i].b == nil {
				if err := r.e.MergeNow("", coll); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// timeSetQueries runs every kind's queries twice on every backend in turn
// and keeps the second pass's latencies (the first warms caches).
func timeSetQueries(set clusterSet, si int, backends []clusterBackend, res []*setResult) error {
	ctx := context.Background()
	k, hl := 10, false
	for _, kd := range clusterKinds {
		coll, retrievers, ok := kd.target(set)
		if !ok {
			continue
		}
		req := engine.SearchRequest{MaxResults: &k, Highlight: &hl, Filter: kd.filter, Retrievers: retrievers}
		colls := []string{fmt.Sprintf("s%d%s", si, coll)}
		for pass := range 2 {
			for _, q := range set.queries {
				req.Query = q
				for i, r := range res {
					t0 := time.Now()
					if _, err := r.e.Search(ctx, "", colls, req); err != nil {
						return fmt.Errorf("%s: %s search: %w", backends[i].name, kd.name, err)
					}
					if pass == 1 {
						r.lat[kd.name] = append(r.lat[kd.name], time.Since(t0))
					}
				}
			}
		}
	}
	return nil
}

// measureSetDisk reads the disk each backend uses for the measured
// collections (a cluster's store size, the embedded store's size_bytes)
// and each node's resident memory.
func measureSetDisk(set clusterSet, si int, backends []clusterBackend, res []*setResult) error {
	ctx := context.Background()
	var colls []string
	for _, c := range clusterColls {
		if set.colls[c.name] {
			colls = append(colls, fmt.Sprintf("s%d%s", si, c.name))
		}
	}
	for i, r := range res {
		if be := backends[i]; be.c != nil {
			var err error
			if r.disk, err = be.c.StoreBytes(ctx, colls); err != nil {
				return err
			}
			r.rss[1] = nodeRSS(be.c.Info().Flavour)
			continue
		}
		for _, coll := range colls {
			info, err := r.e.GetCollection(ctx, "", coll)
			if err != nil {
				return err
			}
			r.disk += info.SizeBytes
		}
	}
	return nil
}

// writeSetTable writes the corpus's table: ingest throughput, latency,
// disk and the memory the corpus added (self: the bench process's RSS
// growth). Rows of collections reused from a kept run say so.
func writeSetTable(w io.Writer, set clusterSet, backends []clusterBackend, res []*setResult, self int64) {
	n := float64(len(set.inputs))
	var measured []string
	reused := false
	for _, c := range clusterColls {
		if set.colls[c.name] {
			measured = append(measured, c.name)
			if _, ok := res[0].ingest[c.name]; !ok {
				reused = true
			}
		}
	}
	fmt.Fprintf(w, "### %s: collections %s, %d timed queries per kind, k = 10\n\n| | %s |\n| --- |%s\n", set.name, strings.Join(measured, ", "), len(set.queries), strings.Join(names(backends, func(b clusterBackend) string { return b.name }), " | "), strings.Repeat(" --- |", len(backends)))
	for _, c := range clusterColls {
		if !set.colls[c.name] {
			continue
		}
		fmt.Fprintf(w, "| ingest %s (docs/s) |", c.name)
		if _, ok := res[0].ingest[c.name]; !ok {
			fmt.Fprintf(w, "%s\n", strings.Repeat(" reused (-reuse) |", len(res)))
			continue
		}
		base := n / res[0].ingest[c.name].Seconds()
		for i, r := range res {
			rate := n / r.ingest[c.name].Seconds()
			fmt.Fprintf(w, " %.0f%s |", rate, ratio(base, rate, i, true))
		}
		fmt.Fprintln(w)
	}
	for _, kd := range clusterKinds {
		coll, retrievers, ok := kd.target(set)
		if !ok {
			continue
		}
		label := kd.name
		if retrievers != "" {
			label += fmt.Sprintf(" (%s collection, %s retrieval only)", coll, retrievers)
		}
		fmt.Fprintf(w, "| %s p50 / p99 |", label)
		base := pct(res[0].lat[kd.name], 50)
		for i, r := range res {
			p50, p99 := pct(r.lat[kd.name], 50), pct(r.lat[kd.name], 99)
			fmt.Fprintf(w, " %s / %s%s |", msOf(p50), msOf(p99), ratio(p50.Seconds(), base.Seconds(), i, false))
		}
		fmt.Fprintln(w)
	}
	per := 100000 / n
	fmt.Fprintf(w, "| disk, measured collections (MB) |")
	for _, r := range res {
		fmt.Fprintf(w, " %.1f |", float64(r.disk)/1e6)
	}
	fmt.Fprintf(w, "\n| disk per 100k documents, measured collections (MB) |")
	for _, r := range res {
		fmt.Fprintf(w, " %.0f |", float64(r.disk)/1e6*per)
	}
	if reused {
		fmt.Fprintf(w, "\n\n(memory not measured: collections reused from a kept run)\n\n")
		return
	}
	fmt.Fprintf(w, "\n| memory added by the corpus (MB) |")
	for i, r := range res {
		if i == 0 {
			fmt.Fprintf(w, " %.0f (bench process RSS, all engines) |", float64(self)/1e6)
		} else {
			fmt.Fprintf(w, " %.0f (node RSS %.0f → %.0f) |", float64(r.rss[1]-r.rss[0])/1e6, float64(r.rss[0])/1e6, float64(r.rss[1])/1e6)
		}
	}
	fmt.Fprintf(w, "\n\n")
}

// selfRSS returns this process's resident memory.
func selfRSS() int64 { return rssOf("self") }

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
	return rssOf(strings.TrimSpace(string(out)))
}

// rssOf returns the resident memory of process pid ("self": this one).
func rssOf(pid string) int64 {
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
