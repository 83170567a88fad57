package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/rerank"
)

// RerankConfig configures RunRerank.
type RerankConfig struct {
	// Search locates the BEIR data, the engine directory (which must hold
	// the collection "all" that RunSearch ingests), models and judgments.
	Search SearchConfig
	// Reranker is the cross-encoder directory.
	Reranker string
	// Tune scores the top TuneDepth hybrid candidates of every query once
	// with the cross-encoder and evaluates a grid of depths and weights
	// offline (use with train judgments).
	Tune bool
	// TuneDepth is the candidates scored when tuning (default 50).
	TuneDepth int
	// TopK lists the rerank.top_k values evaluated through the engine
	// (default 20).
	TopK []int
	// Repeat runs every top_k value this many times in a row, to show the
	// spread of latency (default 1).
	Repeat int
	// Scores caches the cross-encoder scores of Tune in a JSON file: read
	// when it exists, written otherwise.
	Scores string
	// CachedOnly evaluates Tune on the queries of Scores only (a run
	// stopped early), computing nothing.
	CachedOnly bool
	// MaxTokens caps the cross-encoder's pair length (rerank.Options;
	// 0: the model's).
	MaxTokens int
	// Ks and Weights are the grid of Tune (defaults 5–50 and 0.3–1).
	Ks      []int
	Weights []float64
}

// RunRerank measures hybrid search with and without reranking on a BEIR
// set: nDCG@10, per-query wall latency and process CPU time per query
// through engine.Search (the cross-encoder for an English collection, the
// embedding similarity for a Czech one), with the load average around each
// run, or, with Tune,
// a grid of reranking depths and weights computed offline from one
// cross-encoder pass.
func RunRerank(cfg RerankConfig, w io.Writer) error {
	sc := cfg.Search
	if sc.BEIRDir == "" {
		sc.BEIRDir = "../shared/data/beir/scifact"
	}
	b, err := loadRerankQueries(sc)
	if err != nil {
		return err
	}
	if sc.Dir == "" {
		return fmt.Errorf("rerank: -dir must name an engine directory holding SciFact (najdi-bench search -dir DIR ingests it)")
	}
	prov, err := engine.NewModelProvider(sc.Models, sc.ORTLib)
	if err != nil {
		return err
	}
	defer prov.Close()
	ce, err := rerank.Load(cfg.Reranker, rerank.Options{LibraryPath: sc.ORTLib, MaxTokens: cfg.MaxTokens})
	if err != nil {
		return err
	}
	defer ce.Close()
	e, err := engine.Open(engine.Options{Dir: sc.Dir, Embedders: prov, Reranker: ce})
	if err != nil {
		return err
	}
	defer e.Close()
	ctx := context.Background()
	if c, err := e.GetCollection(ctx, "", "all"); err != nil || c.DocumentCount == 0 {
		return fmt.Errorf("rerank: %s holds no SciFact collection \"all\" (run najdi-bench search -dir %s first)", sc.Dir, sc.Dir)
	}
	fmt.Fprintf(w, "%d queries (%s judgments), reranker %s, pairs of at most %d tokens\n", len(b.Queries), cmp.Or(sc.Qrels, "test"), ce.Manifest().Name, ce.Manifest().MaxTokens)
	if cfg.Tune {
		return rerankTune(ctx, e, ce, b, cfg, w)
	}
	topK := cfg.TopK
	if len(topK) == 0 {
		topK = []int{engine.DefaultRerankTopK}
	}
	reps := max(1, cfg.Repeat)
	fmt.Fprintf(w, "%-16s %3s %8s %9s %10s %9s %9s %9s %11s %s\n", "mode", "run", "nDCG@10", "recall@10", "recall@100", "p50", "p95", "mean", "CPU/query", "load average (start → end)")
	for _, k := range append([]int{0}, topK...) {
		for rep := range reps {
			if err := rerankEngineRun(ctx, e, b, k, rep, w); err != nil {
				return err
			}
		}
	}
	return nil
}

// rankedIDs searches collection "all" with req and returns the document
// ids in rank order and the wall time of the search.
func rankedIDs(ctx context.Context, e *engine.Engine, req engine.SearchRequest) ([]string, time.Duration, error) {
	start := time.Now()
	res, err := e.Search(ctx, "", []string{"all"}, req)
	if err != nil {
		return nil, 0, err
	}
	took := time.Since(start)
	ranked := make([]string, len(res.Documents))
	for i, d := range res.Documents {
		ranked[i] = d.DocumentID
	}
	return ranked, took, nil
}

// searchFigures are the sums over the queries of one searchPass and its
// latencies, sorted.
type searchFigures struct {
	lat             []time.Duration
	sum             time.Duration
	ndcg, r10, r100 float64
}

// searchPass searches every query of b through engine.Search for depth
// documents, reranked with rr when it is not nil, and sums nDCG@10,
// recall@10 and recall@100 over the queries.
func searchPass(ctx context.Context, e *engine.Engine, b *BEIR, depth int, rr *engine.RerankRequest) (searchFigures, error) {
	var f searchFigures
	hl := false
	for _, q := range b.Queries {
		req := engine.SearchRequest{Query: q.Text, MaxResults: &depth, Highlight: &hl, IncludeFields: []string{"none"}, Rerank: rr}
		ranked, took, err := rankedIDs(ctx, e, req)
		if err != nil {
			return f, err
		}
		f.lat = append(f.lat, took)
		f.sum += took
		f.ndcg += NDCGAt(10, ranked, b.Qrels[q.ID])
		f.r10 += RecallAt(10, ranked, b.Qrels[q.ID])
		f.r100 += RecallAt(100, ranked, b.Qrels[q.ID])
	}
	slices.Sort(f.lat)
	return f, nil
}

// rerankEngineRun searches every query of b through engine.Search, with
// "rerank": {"top_k": k} when k > 0, and prints one row: quality, wall
// latency, process CPU time per query and the load average around the run.
func rerankEngineRun(ctx context.Context, e *engine.Engine, b *BEIR, k, rep int, w io.Writer) error {
	depth := 100
	load0 := loadAverage()
	cpu0, _ := ingestCPUTime()
	var rr *engine.RerankRequest
	if k > 0 {
		rr = &engine.RerankRequest{TopK: &k}
	}
	pass, err := searchPass(ctx, e, b, depth, rr)
	if err != nil {
		return err
	}
	cpu1, _ := ingestCPUTime()
	n := float64(len(b.Queries))
	lat, sum, ndcg, r10, r100 := pass.lat, pass.sum, pass.ndcg, pass.r10, pass.r100
	mode := "hybrid"
	if k > 0 {
		mode = fmt.Sprintf("hybrid+rerank%d", k)
	}
	fmt.Fprintf(w, "%-16s %3d %8.4f %9.4f %10.4f %9s %9s %9s %11s %s → %s\n", mode, rep+1, ndcg/n, r10/n, r100/n,
		lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)*95/100].Round(time.Millisecond), (sum / time.Duration(len(lat))).Round(time.Millisecond),
		((cpu1 - cpu0) / time.Duration(len(lat))).Round(time.Millisecond), load0, loadAverage())
	return nil
}

// loadAverage returns the 1-, 5- and 15-minute load averages of
// /proc/loadavg ("?" where unavailable).
func loadAverage() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

// tuneCand is one candidate of rerankTune: its fused first-stage score and
// the cross-encoder's probability, cached in RerankConfig.Scores.
type tuneCand struct {
	ID    string  `json:"id"`
	Fused float64 `json:"fused"`
	Prob  float64 `json:"prob"`
}

// tuneRun is one run of rerankTune: the score cache, the grid and its
// nDCG@10 sums, and the cross-encoder's cost so far.
type tuneRun struct {
	e      *engine.Engine
	ce     *rerank.CrossEncoder
	b      *BEIR
	texts  map[string]string // document text by id
	cache  map[string][]tuneCand
	depth  int
	ks     []int
	as     []float64
	sum    [][]float64 // nDCG@10 sums by depth and weight
	base   float64     // nDCG@10 sum without reranking
	wall   time.Duration
	cpu    time.Duration
	pairs  int
	scored int // queries scored since the cache was last written
}

// rerankTune scores each query's top TuneDepth hybrid candidates once and
// reports nDCG@10 for reranking depths k and weights a of the
// cross-encoder probability against the fused score (the engine's rule:
// a·p + (1−a)·fused over the top k, the rest below in their order).
func rerankTune(ctx context.Context, e *engine.Engine, ce *rerank.CrossEncoder, b *BEIR, cfg RerankConfig, w io.Writer) error {
	r, err := newTuneRun(e, ce, b, cfg)
	if err != nil {
		return err
	}
	order := tuneOrder(b.Queries)
	if cfg.CachedOnly {
		kept := order[:0]
		for _, q := range order {
			if len(r.cache[q.ID]) >= r.depth {
				kept = append(kept, q)
			}
		}
		order = kept
		fmt.Fprintf(w, "%d queries with cached scores\n", len(order))
	}
	start := time.Now()
	for qi, q := range order {
		cs, err := r.candidates(ctx, q)
		if err != nil {
			return err
		}
		if cfg.Scores != "" && r.scored == 5 {
			if err := writeJSON(cfg.Scores, r.cache); err != nil {
				return err
			}
			r.scored = 0
		}
		r.add(q, cs)
		if (qi+1)%25 == 0 {
			fmt.Fprintf(w, "  %d queries scored (%s)\n", qi+1, time.Since(start).Round(time.Second))
		}
	}
	if cfg.Scores != "" {
		if err := writeJSON(cfg.Scores, r.cache); err != nil {
			return err
		}
	}
	r.report(len(order), w)
	return nil
}

// newTuneRun reads the score cache and fills the grid's defaults (depths
// 5–50, weights 0.3–1).
func newTuneRun(e *engine.Engine, ce *rerank.CrossEncoder, b *BEIR, cfg RerankConfig) (*tuneRun, error) {
	r := &tuneRun{e: e, ce: ce, b: b, texts: map[string]string{}, cache: map[string][]tuneCand{},
		depth: cmp.Or(cfg.TuneDepth, 50), ks: cfg.Ks, as: cfg.Weights}
	for _, d := range b.Docs {
		r.texts[d.ID] = d.Title + "\n" + d.Text
		if d.Title == "" {
			r.texts[d.ID] = d.Text
		}
	}
	if cfg.Scores != "" {
		if data, err := os.ReadFile(cfg.Scores); err == nil {
			if err := json.Unmarshal(data, &r.cache); err != nil {
				return nil, fmt.Errorf("scores %s: %w", cfg.Scores, err)
			}
		}
	}
	if len(r.ks) == 0 {
		r.ks = []int{5, 10, 20, 30, 50}
	}
	if len(r.as) == 0 {
		r.as = []float64{1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.3}
	}
	r.sum = make([][]float64, len(r.ks))
	for i := range r.sum {
		r.sum[i] = make([]float64, len(r.as))
	}
	return r, nil
}

// tuneOrder puts even positions first: a run stopped halfway has cached
// the queries that -max-queries of half the number selects.
func tuneOrder(qs []BEIRQuery) []BEIRQuery {
	order := make([]BEIRQuery, 0, len(qs))
	for par := range 2 {
		for i := par; i < len(qs); i += 2 {
			order = append(order, qs[i])
		}
	}
	return order
}

// candidates returns the query's top depth hybrid candidates with their
// cross-encoder probabilities, from the cache or scored now.
func (r *tuneRun) candidates(ctx context.Context, q BEIRQuery) ([]tuneCand, error) {
	if cs, ok := r.cache[q.ID]; ok && len(cs) >= r.depth {
		return cs[:r.depth], nil
	}
	hl := false
	res, err := r.e.Search(ctx, "", []string{"all"}, engine.SearchRequest{Query: q.Text, MaxResults: &r.depth, Highlight: &hl, IncludeFields: []string{"none"}})
	if err != nil {
		return nil, err
	}
	cs := make([]tuneCand, len(res.Documents))
	ps := make([]string, len(res.Documents))
	for i, d := range res.Documents {
		cs[i] = tuneCand{ID: d.DocumentID, Fused: d.Score}
		ps[i] = r.texts[d.DocumentID]
	}
	cpu0, _ := ingestCPUTime()
	t0 := time.Now()
	probs, err := r.ce.Score(ctx, q.Text, ps)
	if err != nil {
		return nil, err
	}
	r.wall += time.Since(t0)
	cpu1, _ := ingestCPUTime()
	r.cpu += cpu1 - cpu0
	r.pairs += len(ps)
	for i := range cs {
		cs[i].Prob = probs[i]
	}
	r.cache[q.ID] = cs
	r.scored++
	return cs, nil
}

// add adds the query's nDCG@10 without reranking and at every grid point.
func (r *tuneRun) add(q BEIRQuery, cs []tuneCand) {
	ranked := make([]string, len(cs))
	for i, c := range cs {
		ranked[i] = c.ID
	}
	r.base += NDCGAt(10, ranked, r.b.Qrels[q.ID])
	for ki, k := range r.ks {
		for ai, a := range r.as {
			top := slices.Clone(cs[:min(k, len(cs))])
			sort.SliceStable(top, func(i, j int) bool {
				si := a*top[i].Prob + (1-a)*top[i].Fused
				sj := a*top[j].Prob + (1-a)*top[j].Fused
				return si > sj
			})
			out := make([]string, 0, len(cs))
			for _, c := range top {
				out = append(out, c.ID)
			}
			for _, c := range cs[min(k, len(cs)):] {
				out = append(out, c.ID)
			}
			r.sum[ki][ai] += NDCGAt(10, out, r.b.Qrels[q.ID])
		}
	}
}

// report prints the cross-encoder's cost, nDCG@10 without reranking and
// the grid over n queries with its best point.
func (r *tuneRun) report(n int, w io.Writer) {
	if r.pairs > 0 {
		fmt.Fprintf(w, "cross-encoder: %d pairs scored, %s wall (%s a pair), %s process CPU (%s a pair)\n", r.pairs,
			r.wall.Round(time.Millisecond), (r.wall / time.Duration(r.pairs)).Round(time.Millisecond),
			r.cpu.Round(10*time.Millisecond), (r.cpu / time.Duration(r.pairs)).Round(time.Millisecond))
	}
	nf := float64(n)
	fmt.Fprintf(w, "hybrid without reranking: nDCG@10 %.4f\n", r.base/nf)
	fmt.Fprintf(w, "nDCG@10 by depth k (rows) and cross-encoder weight a (columns)\n%6s", "k\\a")
	for _, a := range r.as {
		fmt.Fprintf(w, " %7.2f", a)
	}
	fmt.Fprintln(w)
	bestK, bestA, best := 0, 0.0, math.Inf(-1)
	for ki, k := range r.ks {
		fmt.Fprintf(w, "%6d", k)
		for ai, a := range r.as {
			v := r.sum[ki][ai] / nf
			fmt.Fprintf(w, " %7.4f", v)
			if v > best {
				bestK, bestA, best = k, a, v
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "best: k %d, a %.2f, nDCG@10 %.4f\n", bestK, bestA, best)
}

// writeJSON writes v to path atomically.
func writeJSON(path string, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	if err := os.WriteFile(path+".tmp", data, 0o644); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}

// loadRerankQueries loads the BEIR set of sc with the qrels of its split
// (sc.Qrels "train" switches to the train qrels) and keeps at most
// sc.MaxQueries queries, evenly spaced over the set.
func loadRerankQueries(sc SearchConfig) (*BEIR, error) {
	b, err := LoadBEIR(sc.BEIRDir)
	if err != nil {
		return nil, err
	}
	if sc.Qrels == "train" {
		if err := searchUseQrels(b, sc.BEIRDir, "train"); err != nil {
			return nil, err
		}
	}
	if n := len(b.Queries); sc.MaxQueries > 0 && sc.MaxQueries < n {
		qs := make([]BEIRQuery, sc.MaxQueries)
		for i := range qs {
			qs[i] = b.Queries[i*n/sc.MaxQueries]
		}
		b.Queries = qs
	}
	return b, nil
}
