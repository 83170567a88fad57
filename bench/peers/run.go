package peers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"slices"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
)

// Config configures Run.
type Config struct {
	// BEIRDir is the BEIR SciFact directory.
	BEIRDir string
	// Cache is the cache directory ($NAJDI_CACHE): models, vector caches.
	Cache string
	// Work is the directory for the systems' data (emptied).
	Work string
	// Out receives REPORT.md and the PNG plots.
	Out string
	// NajdiBin, WeaviateBin, ClusterScript locate the systems.
	NajdiBin, WeaviateBin, WeaviateVersion, ClusterScript string
	// ClusterHome, ClusterPort (Elasticsearch; OpenSearch the next port)
	// and ClusterHeap configure the benchmark's own nodes.
	ClusterHome string
	ClusterPort int
	ClusterHeap string
	// Systems names the systems to run: najdi, weaviate, elasticsearch,
	// opensearch, bleve.
	Systems []string
	// Large is the size of the large collection in chunks (0: skipped).
	Large int
	// LargeSystems names the systems that also load the large collection
	// (empty: all).
	LargeSystems []string
	// Scale lists the najdi-only growth sizes (ascending, from Large on).
	Scale []int
	// ScaleBudget stops the growth when it has taken this long.
	ScaleBudget time.Duration
	// Settle is how long every system stays idle after the bulk loads of
	// a workload, before the warm-up and the timed runs, so that
	// background work a load leaves (Weaviate flushes its memtables to
	// disk segments after 60 s without writes) is done.
	Settle time.Duration
	// Repeats is the number of repetitions of the latency and QPS runs.
	Repeats int
	// Queries caps the timed queries per kind and repetition.
	Queries int
	// SatClients and SatTime bound each saturation run.
	SatClients int
	SatTime    time.Duration
	// ModelVectors embeds SciFact with the transformer (slow) instead of
	// static vectors.
	ModelVectors bool
	// SkipSciFact runs the large collection only (SciFact is still read:
	// its vocabulary and queries make the large collection).
	SkipSciFact bool
	// WeaviateREST talks to Weaviate over REST and GraphQL instead of gRPC.
	WeaviateREST bool
	// Command is the command line, for the report.
	Command string
}

// K is the result depth of every query.
const K = 10

// Run runs the whole benchmark and writes the report into cfg.Out.
func Run(ctx context.Context, cfg Config, log io.Writer) (*Report, error) {
	cfg = withDefaults(cfg)
	rep := newReport(cfg)
	models, lib := embed.CachePaths(cfg.Cache)
	modelDir := filepath.Join(models, "bge-small-en-v1.5")
	st, err := LoadStatic(modelDir)
	if err != nil {
		return nil, err
	}
	fmt.Fprintln(log, "loading SciFact and its vectors")
	sf, err := loadSciFact(ctx, cfg, modelDir, lib, st, rep, log)
	if err != nil {
		return nil, err
	}
	defer sf.close()
	stub, err := StartStub(sf.queries, sf.embed)
	if err != nil {
		return nil, err
	}
	defer stub.Close()
	rtt, err := stub.RoundTrip(ctx, sf.queries[0].Text, 200)
	if err != nil {
		return nil, err
	}
	rep.StubRTT = rtt
	fmt.Fprintf(log, "stub round trip p50 %s\n", rtt)

	systems := startSystems(ctx, cfg, stub, rep, log)
	defer func() {
		for _, s := range systems {
			s.Close()
		}
	}()
	if len(systems) == 0 {
		return nil, errors.New("no system started")
	}
	if !cfg.SkipSciFact {
		if err := runSciFact(ctx, cfg, rep, systems, sf, rtt, log); err != nil {
			return nil, err
		}
	}
	if cfg.Large > 0 {
		if err := runLarge(ctx, cfg, rep, systems, stub, st, sf, rtt, log); err != nil {
			return nil, err
		}
	}
	if err := rep.Write(cfg.Out); err != nil {
		return rep, err
	}
	return rep, nil
}

// withDefaults fills the unset bounds of cfg.
func withDefaults(cfg Config) Config {
	if cfg.Repeats <= 0 {
		cfg.Repeats = 2
	}
	if cfg.SatClients <= 0 {
		cfg.SatClients = 4
	}
	if cfg.SatTime <= 0 {
		cfg.SatTime = 5 * time.Second
	}
	return cfg
}

// sciFact is the SciFact collection as the systems receive it, and the
// embedding function the stub serves najdi's chunks with.
type sciFact struct {
	beir    *bench.BEIR
	docs    []Doc
	queries []Query
	embed   func(texts []string, query bool) ([][]float32, error)
	closers []io.Closer
}

func (s *sciFact) close() {
	for _, c := range s.closers {
		c.Close()
	}
}

// staticEmbedder embeds texts with the static vectors.
func staticEmbedder(st *Static) func([]string, bool) ([][]float32, error) {
	return func(texts []string, _ bool) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = st.Embed(t)
		}
		return out, nil
	}
}

// loadSciFact reads SciFact with static vectors or, with cfg.ModelVectors,
// with bge-small-en-v1.5 vectors (cached), and says which in rep.
func loadSciFact(ctx context.Context, cfg Config, modelDir, lib string, st *Static, rep *Report, log io.Writer) (*sciFact, error) {
	sf := &sciFact{embed: staticEmbedder(st)}
	var err error
	if !cfg.ModelVectors {
		if sf.beir, sf.docs, sf.queries, err = SciFactStatic(cfg.BEIRDir, st); err != nil {
			return nil, err
		}
		rep.Vectors = "SciFact: static vectors (below) of the title and abstract joined, and of each query; najdi's chunks get the static vector of their own text. " +
			"The transformer (bge-small-en-v1.5) embeds about one abstract per second on this shared machine during the run, too slow for the session: `-model-vectors` uses it instead on a quieter machine. " +
			"With static vectors the vector and hybrid nDCG@10 measure how each system uses the same weak vectors, not the model's quality. " + staticDoc
		return sf, nil
	}
	model, err := embed.LoadLocal(modelDir, embed.LocalOptions{LibraryPath: lib})
	if err != nil {
		return nil, fmt.Errorf("load bge-small-en-v1.5: %w", err)
	}
	sf.closers = append(sf.closers, model)
	store, err := openVecStore(filepath.Join(cfg.Cache, "bench", "peers-scifact-bge-small.vec"))
	if err != nil {
		sf.close()
		return nil, err
	}
	sf.closers = append(sf.closers, store)
	if sf.beir, sf.docs, sf.queries, err = SciFactData(ctx, cfg.BEIRDir, model, store, log); err != nil {
		sf.close()
		return nil, err
	}
	me := &modelEmbedder{m: model, store: store}
	sf.embed = func(texts []string, _ bool) ([][]float32, error) { return me.passages(ctx, texts) }
	rep.Vectors = "SciFact: bge-small-en-v1.5 (ONNX, this repository's embed package) — documents: title and abstract joined, the model's 512-token window; queries with the model's query instruction; najdi's chunks embedded by the same model. " + staticDoc
	return sf, nil
}

// runSciFact runs the SciFact workload on every system, then drops the
// SciFact indexes so that the large collection's memory and disk figures
// hold only it.
func runSciFact(ctx context.Context, cfg Config, rep *Report, systems []System, sf *sciFact, rtt time.Duration, log io.Writer) error {
	w := &Workload{Name: "SciFact", Docs: len(sf.docs), Queries: len(sf.queries), stubRTT: rtt}
	rep.Workloads = append(rep.Workloads, w)
	if err := runWorkload(ctx, cfg, w, systems, "scifact", sf.docs, sf.queries, log); err != nil {
		return err
	}
	quality(w, sf.beir)
	for _, s := range systems {
		if err := s.Drop(ctx, "scifact"); err != nil {
			fmt.Fprintf(log, "  %s: drop scifact: %v\n", s.Name(), err)
		}
	}
	runtime.GC()
	return nil
}

// runLarge runs the large collection (static vectors) on the systems
// named by cfg.LargeSystems, then najdi's growth run.
func runLarge(ctx context.Context, cfg Config, rep *Report, systems []System, stub *Stub, st *Static, sf *sciFact, rtt time.Duration, log io.Writer) error {
	maxN := cfg.Large
	if len(cfg.Scale) > 0 {
		maxN = max(maxN, cfg.Scale[len(cfg.Scale)-1])
	}
	fmt.Fprintf(log, "making %d large-collection chunks and their static vectors\n", maxN)
	texts := LargeTexts(sf.beir, maxN, 1)
	all, err := LargeDocs(texts, st, filepath.Join(cfg.Cache, "bench", fmt.Sprintf("peers-large-static-%d.f32", maxN)))
	if err != nil {
		return err
	}
	lq := make([]Query, len(sf.queries))
	for i, q := range sf.queries {
		lq[i] = Query{ID: q.ID, Text: q.Text, Vector: st.Embed(q.Text)}
	}
	stub.SetQueries(lq)
	stub.SetEmbedder(staticEmbedder(st))
	lw := &Workload{Name: fmt.Sprintf("large (%s chunks, static vectors)", count(cfg.Large)), Docs: cfg.Large, Queries: len(lq), stubRTT: rtt}
	rep.Workloads = append(rep.Workloads, lw)
	largeSys := systems
	if len(cfg.LargeSystems) > 0 {
		largeSys = nil
		for _, s := range systems {
			if slices.Contains(cfg.LargeSystems, strings.ToLower(s.Name())) {
				largeSys = append(largeSys, s)
			} else {
				rep.Notes = append(rep.Notes, fmt.Sprintf("%s did not load the large collection in this run (-large-systems).", s.Name()))
			}
		}
	}
	if err := runWorkload(ctx, cfg, lw, largeSys, "large", all[:cfg.Large], lq, log); err != nil {
		return err
	}
	exactRecall(lw, all[:cfg.Large], lq)
	// The peers are stopped before najdi's growth run, which goes on with
	// najdi's large collections.
	var nj *najdi
	for _, s := range systems {
		if n, ok := s.(*najdi); ok {
			nj = n
		} else {
			s.Close()
		}
	}
	if nj != nil && len(cfg.Scale) > 0 {
		if err := runScale(ctx, cfg, rep, nj, all, lq, rtt, log); err != nil {
			fmt.Fprintf(log, "growth run stopped: %v\n", err)
			rep.Notes = append(rep.Notes, "The growth run stopped early: "+err.Error())
		}
	}
	return nil
}

func count(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return fmt.Sprintf("%dM", n/1_000_000)
	case n >= 1000 && n%1000 == 0:
		return fmt.Sprintf("%dk", n/1000)
	}
	return fmt.Sprint(n)
}

func startSystems(ctx context.Context, cfg Config, stub *Stub, rep *Report, log io.Writer) []System {
	var out []System
	for _, name := range cfg.Systems {
		fmt.Fprintf(log, "starting %s\n", name)
		var s System
		var err error
		switch name {
		case "najdi":
			s, err = StartNajdi(ctx, NajdiOptions{Bin: cfg.NajdiBin, Dir: filepath.Join(cfg.Work, "najdi"), StubURL: stub.URL, Stub: stub, Dims: 384})
		case "weaviate":
			s, err = StartWeaviate(ctx, WeaviateOptions{Bin: cfg.WeaviateBin, Dir: filepath.Join(cfg.Work, "weaviate"), Version: cfg.WeaviateVersion, REST: cfg.WeaviateREST})
		case "elasticsearch", "opensearch":
			port := cfg.ClusterPort
			if name == "opensearch" {
				port++
			}
			s, err = StartElastic(ctx, ElasticOptions{Flavour: name, Script: cfg.ClusterScript, Heap: cfg.ClusterHeap,
				Env: []string{"NAJDI_CLUSTER_HOME=" + cfg.ClusterHome, fmt.Sprintf("NAJDI_CLUSTER_PORT=%d", port), "NAJDI_CLUSTER_HEAP=" + cfg.ClusterHeap}})
		case "bleve":
			s, err = StartBleve(filepath.Join(cfg.Work, "bleve"))
		default:
			err = fmt.Errorf("unknown system %q", name)
		}
		if err != nil {
			fmt.Fprintf(log, "  %s not run: %v\n", name, err)
			rep.Notes = append(rep.Notes, fmt.Sprintf("%s was not run: %v", name, err))
			continue
		}
		rep.Settings = append(rep.Settings, [2]string{s.Name(), s.Settings()})
		out = append(out, s)
	}
	return out
}

// runWorkload loads docs into every system, then runs the latency, quality
// and saturation measurements.
func runWorkload(ctx context.Context, cfg Config, w *Workload, systems []System, index string, docs []Doc, queries []Query, log io.Writer) error {
	w.Systems = map[string]*SystemResult{}
	for _, s := range systems {
		sr := &SystemResult{Latency: map[Kind][]Lat{}, QPS: map[Kind][]float64{}, Results: map[Kind][][]string{}}
		w.Systems[s.Name()] = sr
		w.Order = append(w.Order, s.Name())
		if err := ingestOne(ctx, w, s, sr, index, docs, log); err != nil {
			return err
		}
		// The next system's timed load gets the cores to itself.
		quiet, err := waitQuiet(ctx, s, quietWindow, quietMax)
		if err != nil {
			return err
		}
		sr.Quiet = quiet
		if quiet >= 2*quietWindow {
			fmt.Fprintf(log, "  %s: %s worked in the background for %s after its load\n", w.Name, s.Name(), quiet.Round(time.Second))
		}
	}
	qs := queries
	if cfg.Queries > 0 && len(qs) > cfg.Queries {
		qs = qs[:cfg.Queries]
	}
	if cfg.Settle > 0 {
		fmt.Fprintf(log, "  %s: idle for %s after the bulk loads\n", w.Name, cfg.Settle)
		select {
		case <-time.After(cfg.Settle):
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	footprint(ctx, w, systems, index, func(sr *SystemResult) *int64 { return &sr.RSSSettled })
	if err := warmUp(ctx, w, systems, index, qs); err != nil {
		return err
	}
	for r := 0; r < cfg.Repeats; r++ {
		fmt.Fprintf(log, "  %s: latency, repetition %d/%d\n", w.Name, r+1, cfg.Repeats)
		for _, k := range Kinds {
			if err := measureLatency(ctx, w, systems, index, k, qs, r); err != nil {
				return err
			}
		}
		if err := measureQPS(ctx, cfg, w, systems, index, qs, r, log); err != nil {
			return err
		}
	}
	footprint(ctx, w, systems, index, func(sr *SystemResult) *int64 { return &sr.RSSQueried })
	w.QueryIDs = make([]string, len(qs))
	for i, q := range qs {
		w.QueryIDs[i] = q.ID
	}
	return nil
}

// footprint reads the RSS of every system that loaded w into the field
// of its result that at names (the disk size is read after the load).
func footprint(ctx context.Context, w *Workload, systems []System, index string, at func(*SystemResult) *int64) {
	for _, s := range systems {
		if sr := w.Systems[s.Name()]; sr != nil && sr.Err == "" {
			*at(sr), _, _ = s.Footprint(ctx, index)
		}
	}
}

// live tells whether s answers kind k in workload w (it offers k and its
// ingest did not fail).
func live(w *Workload, s System, k Kind) bool {
	return s.Supports(k) && w.Systems[s.Name()].Err == ""
}

// ingestOne creates index on s, loads docs (timed), and records the
// footprint; for najdi it also loads the keyword-only and vector-only
// collections. An ingest failure is recorded in sr, not returned.
func ingestOne(ctx context.Context, w *Workload, s System, sr *SystemResult, index string, docs []Doc, log io.Writer) error {
	n, isNajdi := s.(*najdi)
	if isNajdi {
		// Fill the stub's cache with the vectors and their JSON of the
		// chunks najdi will ask for, so that the timed ingest receives
		// precomputed vectors as the peers do (and does not wait on the
		// model, or share the cores with the stub computing static
		// vectors). A najdi server of its own takes this ingest, so the
		// measured one holds no trace of it.
		fmt.Fprintf(log, "  %s: %s warm-up ingest in a separate server (fills the stub's vector cache)\n", w.Name, s.Name())
		if err := n.warmStub(ctx, index, docs); err != nil {
			return err
		}
		if n.opt.Stub != nil {
			n.opt.Stub.ResetMisses()
		}
	}
	if isNajdi {
		// The keyword-only load, in a najdi server of its own while the
		// machine is quiet, before the timed one.
		kw, err := n.IngestKeyword(ctx, index, docs)
		if err != nil {
			return err
		}
		sr.IngestKeyword = kw
	}
	if err := s.Create(ctx, index); err != nil {
		return err
	}
	runtime.GC()
	t0 := time.Now()
	if err := s.Ingest(ctx, index, docs); err != nil {
		sr.Err = err.Error()
		fmt.Fprintf(log, "  %s: ingest failed: %v\n", s.Name(), err)
		return nil
	}
	sr.Ingest = time.Since(t0)
	if isNajdi && n.opt.Stub != nil {
		if m := n.opt.Stub.Misses(); m > 0 {
			fmt.Fprintf(log, "  %s: the stub embedded %d passages during najdi's timed ingest\n", w.Name, m)
		}
	}
	if e, ok := s.(*elastic); ok {
		t1 := time.Now()
		if err := e.Optimize(ctx, index); err != nil {
			return err
		}
		sr.Optimize = time.Since(t1)
	}
	time.Sleep(2 * time.Second)
	sr.RSS, sr.Disk, _ = s.Footprint(ctx, index)
	if isNajdi {
		if n.opt.Stub != nil {
			n.opt.Stub.ForgetPassages()
			debug.FreeOSMemory()
		}
	}
	fmt.Fprintf(log, "  %s: %s ingested %d in %s (RSS %d MiB, disk %d MiB)\n", w.Name, s.Name(), len(docs), sr.Ingest.Round(time.Millisecond), sr.RSS>>20, sr.Disk>>20)
	return nil
}

// warmUp has every system answer up to 100 queries of every kind before
// the timed runs (JIT compilers, caches).
func warmUp(ctx context.Context, w *Workload, systems []System, index string, qs []Query) error {
	for _, s := range systems {
		for _, k := range Kinds {
			if !live(w, s, k) {
				continue
			}
			for _, q := range qs[:min(100, len(qs))] {
				if _, err := s.Search(ctx, index, k, q, K); err != nil {
					return fmt.Errorf("%s %s warm-up: %w", s.Name(), k, err)
				}
			}
		}
	}
	return nil
}

// measureLatency runs the queries of kind k at concurrency 1 in repetition
// r, the systems taking turns query by query (rotated per query and
// repetition), and appends each system's percentiles.
func measureLatency(ctx context.Context, w *Workload, systems []System, index string, k Kind, qs []Query, r int) error {
	lats := map[string][]time.Duration{}
	tooks := map[string][]time.Duration{}
	exEmbed := map[string][]time.Duration{}
	results := map[string][][]string{}
	for qi, q := range qs {
		for j := range systems {
			s := systems[(qi+j+r)%len(systems)]
			if !live(w, s, k) {
				continue
			}
			t0 := time.Now()
			res, err := s.Search(ctx, index, k, q, K)
			d := time.Since(t0)
			if err != nil {
				return fmt.Errorf("%s %s query %s: %w", s.Name(), k, q.ID, err)
			}
			lats[s.Name()] = append(lats[s.Name()], d)
			tooks[s.Name()] = append(tooks[s.Name()], res.Took)
			exEmbed[s.Name()] = append(exEmbed[s.Name()], d-res.Embed)
			results[s.Name()] = append(results[s.Name()], res.IDs)
		}
	}
	for name, ds := range lats {
		sr := w.Systems[name]
		l := Lat{P50: pctl(ds, 50), P99: pctl(ds, 99), TookP50: pctl(tooks[name], 50)}
		if name == "najdi" && k != Keyword {
			l.Stub = w.stubRTT
			l.ExEmbedP50 = pctl(exEmbed[name], 50)
		}
		sr.Latency[k] = append(sr.Latency[k], l)
		if r == 0 {
			sr.Results[k] = results[name]
		}
	}
	return nil
}

// measureQPS runs the keyword and hybrid saturation runs of repetition r,
// one system at a time (rotated per repetition).
func measureQPS(ctx context.Context, cfg Config, w *Workload, systems []System, index string, qs []Query, r int, log io.Writer) error {
	for _, k := range []Kind{Keyword, Hybrid} {
		for j := range systems {
			s := systems[(j+r)%len(systems)]
			if !live(w, s, k) {
				continue
			}
			q, err := saturate(ctx, s, index, k, qs, cfg.SatClients, cfg.SatTime)
			if err != nil {
				return err
			}
			w.Systems[s.Name()].QPS[k] = append(w.Systems[s.Name()].QPS[k], q)
			fmt.Fprintf(log, "  %s: %s %s QPS %.0f\n", w.Name, s.Name(), k, q)
		}
	}
	return nil
}

// saturate runs clients goroutines sending queries of kind k for d and
// returns the completed queries per second.
func saturate(ctx context.Context, s System, index string, k Kind, qs []Query, clients int, d time.Duration) (float64, error) {
	var done atomic.Int64
	var next atomic.Int64
	var firstErr error
	var once sync.Once
	ctx, cancel := context.WithTimeout(ctx, d+time.Minute)
	defer cancel()
	deadline := time.Now().Add(d)
	var wg sync.WaitGroup
	start := time.Now()
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for time.Now().Before(deadline) {
				q := qs[int(next.Add(1))%len(qs)]
				if _, err := s.Search(ctx, index, k, q, K); err != nil {
					once.Do(func() { firstErr = fmt.Errorf("%s %s saturation: %w", s.Name(), k, err) })
					return
				}
				done.Add(1)
			}
		}()
	}
	wg.Wait()
	return float64(done.Load()) / time.Since(start).Seconds(), firstErr
}

func pctl(d []time.Duration, p int) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := slices.Clone(d)
	slices.Sort(s)
	return s[min(len(s)-1, len(s)*p/100)]
}

// quality fills nDCG@10 and recall@10 from the first repetition's results.
func quality(w *Workload, b *bench.BEIR) {
	for _, sr := range w.Systems {
		sr.NDCG = map[Kind]float64{}
		sr.Recall = map[Kind]float64{}
		for _, k := range []Kind{Keyword, Vector, Hybrid} {
			res := sr.Results[k]
			if len(res) == 0 {
				continue
			}
			var n, r float64
			for i, ids := range res {
				qr := b.Qrels[w.QueryIDs[i]]
				n += bench.NDCGAt(K, ids, qr)
				r += bench.RecallAt(K, ids, qr)
			}
			sr.NDCG[k] = n / float64(len(res))
			sr.Recall[k] = r / float64(len(res))
		}
	}
}

// exactTopK returns the ids of the k documents with the highest dot product
// with v (vectors are unit length: cosine).
func exactTopK(docs []Doc, v []float32, k int) []string {
	type hit struct {
		i int
		s float32
	}
	top := make([]hit, 0, k+1)
	for i, d := range docs {
		var s float32
		for j, x := range d.Vector {
			s += x * v[j]
		}
		if len(top) == k && s <= top[k-1].s {
			continue
		}
		top = append(top, hit{i, s})
		sort.Slice(top, func(a, b int) bool { return top[a].s > top[b].s })
		if len(top) > k {
			top = top[:k]
		}
	}
	ids := make([]string, len(top))
	for i, h := range top {
		ids[i] = docs[h.i].ID
	}
	return ids
}

// overlap returns |a ∩ b| / |b|.
func overlap(a, b []string) float64 {
	if len(b) == 0 {
		return 0
	}
	set := map[string]bool{}
	for _, x := range a {
		set[x] = true
	}
	n := 0
	for _, x := range b {
		if set[x] {
			n++
		}
	}
	return float64(n) / float64(len(b))
}

// exactRecall fills each system's vector recall@10 against exact search and
// the time of the exact search (brute force in Go, one core).
func exactRecall(w *Workload, docs []Doc, qs []Query) {
	byID := map[string]Query{}
	for _, q := range qs {
		byID[q.ID] = q
	}
	exact := make([][]string, len(w.QueryIDs))
	t0 := time.Now()
	for i, id := range w.QueryIDs {
		exact[i] = exactTopK(docs, byID[id].Vector, K)
	}
	w.ExactTime = time.Since(t0) / time.Duration(max(1, len(w.QueryIDs)))
	for _, sr := range w.Systems {
		res := sr.Results[Vector]
		if len(res) == 0 {
			continue
		}
		var r float64
		for i, ids := range res {
			r += overlap(ids, exact[i])
		}
		sr.ExactRecall = r / float64(len(res))
	}
}

// runScale grows najdi's large hybrid collection ("large", already
// holding cfg.Large chunks; vector-only queries with retrievers
// "semantic") through cfg.Scale and measures latency, memory and disk at
// each size.
func runScale(ctx context.Context, cfg Config, rep *Report, n *najdi, all []Doc, qs []Query, rtt time.Duration, log io.Writer) error {
	if cfg.Queries > 0 && len(qs) > cfg.Queries {
		qs = qs[:cfg.Queries]
	}
	begin := time.Now()
	have := cfg.Large
	for _, size := range cfg.Scale {
		if size > len(all) || size < have {
			continue
		}
		if have > 0 && time.Since(begin) > cfg.ScaleBudget {
			rep.Notes = append(rep.Notes, fmt.Sprintf("The growth run stopped at %s chunks: its time budget (%s) was spent.", count(have), cfg.ScaleBudget))
			break
		}
		part := all[have:size]
		t0 := time.Now()
		if err := n.ingest(ctx, "large", part, true); err != nil {
			return err
		}
		ing := time.Since(t0)
		have = size
		time.Sleep(2 * time.Second)
		pt := ScalePoint{N: size, Queries: len(qs), Ingest: ing, Latency: map[Kind]time.Duration{}}
		pt.RSS, pt.Disk, _ = n.Footprint(ctx, "large")
		exact := make([][]string, len(qs))
		t1 := time.Now()
		for i, q := range qs {
			exact[i] = exactTopK(all[:size], q.Vector, K)
		}
		pt.Exact = time.Since(t1) / time.Duration(len(qs))
		for _, k := range []Kind{Vector, Hybrid, Filter1} {
			var ds []time.Duration
			var rec float64
			for i, q := range qs {
				req := najdiRequest(k, q.Text, K)
				var raw []byte
				t := time.Now()
				if err := doJSON(ctx, "POST", n.url+"/v1/collections/large/search", req, (*rawJSON)(&raw)); err != nil {
					return err
				}
				ds = append(ds, time.Since(t))
				res, err := parseNajdi(raw)
				if err != nil {
					return err
				}
				if k == Vector {
					rec += overlap(res.IDs, exact[i])
				}
			}
			pt.Latency[k] = pctl(ds, 50)
			if k == Vector {
				pt.Recall = rec / float64(len(qs))
			}
		}
		pt.Stub = rtt
		rep.Scale = append(rep.Scale, pt)
		fmt.Fprintf(log, "  growth %s: ingest %s, vector p50 %s (recall@10 vs exact %.3f, exact %s), hybrid p50 %s, RSS %d MiB, disk %d MiB\n",
			count(size), ing.Round(time.Second), pt.Latency[Vector], pt.Recall, pt.Exact, pt.Latency[Hybrid], pt.RSS>>20, pt.Disk>>20)
		if err := rep.Write(cfg.Out); err != nil { // keep partial results
			return err
		}
	}
	return nil
}

// rawJSON keeps an answer's bytes.
type rawJSON []byte

// UnmarshalJSON implements json.Unmarshaler.
func (r *rawJSON) UnmarshalJSON(b []byte) error {
	*r = append((*r)[:0], b...)
	return nil
}

// ParseSystems splits a comma-separated list of system names.
func ParseSystems(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(strings.ToLower(f)); f != "" {
			out = append(out, f)
		}
	}
	return out
}
