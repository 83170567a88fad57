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
	b, err := LoadBEIR(sc.BEIRDir)
	if err != nil {
		return err
	}
	if sc.Qrels == "train" {
		if err := searchUseQrels(b, sc.BEIRDir, "train"); err != nil {
			return err
		}
	}
	if n := len(b.Queries); sc.MaxQueries > 0 && sc.MaxQueries < n {
		qs := make([]BEIRQuery, sc.MaxQueries)
		for i := range qs {
			qs[i] = b.Queries[i*n/sc.MaxQueries]
		}
		b.Queries = qs
	}
	if sc.Dir == "" {
		return fmt.Errorf("rerank: -dir must name an engine directory holding SciFact (najdi-bench search -dir DIR ingests it)")
	}
	prov, err := engine.NewModelProvider(sc.Models, sc.ORTLib)
	if err != nil {
		return err
	}
	defer prov.Close()
	ce, err := rerank.Load(cfg.Reranker, rerank.Options{LibraryPath: sc.ORTLib})
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
	fmt.Fprintf(w, "%d queries (%s judgments), reranker %s\n", len(b.Queries), cmp.Or(sc.Qrels, "test"), ce.Manifest().Name)
	if cfg.Tune {
		return rerankTune(ctx, e, ce, b, cfg, w)
	}
	topK := cfg.TopK
	if len(topK) == 0 {
		topK = []int{engine.DefaultRerankTopK}
	}
	depth := 100
	reps := max(1, cfg.Repeat)
	fmt.Fprintf(w, "%-16s %3s %8s %9s %10s %9s %9s %9s %11s %s\n", "mode", "run", "nDCG@10", "recall@10", "recall@100", "p50", "p90", "mean", "CPU/query", "load average (start → end)")
	for _, k := range append([]int{0}, topK...) {
		for rep := range reps {
			load0 := loadAverage()
			cpu0, _ := ingestCPUTime()
			var lat []time.Duration
			var ndcg, r10, r100 float64
			hl := false
			for _, q := range b.Queries {
				req := engine.SearchRequest{Query: q.Text, MaxResults: &depth, Highlight: &hl, IncludeFields: []string{"none"}}
				if k > 0 {
					req.Rerank = &engine.RerankRequest{TopK: &k}
				}
				start := time.Now()
				res, err := e.Search(ctx, "", []string{"all"}, req)
				if err != nil {
					return err
				}
				lat = append(lat, time.Since(start))
				ranked := make([]string, len(res.Documents))
				for i, d := range res.Documents {
					ranked[i] = d.DocumentID
				}
				ndcg += NDCGAt(10, ranked, b.Qrels[q.ID])
				r10 += RecallAt(10, ranked, b.Qrels[q.ID])
				r100 += RecallAt(100, ranked, b.Qrels[q.ID])
			}
			cpu1, _ := ingestCPUTime()
			n := float64(len(b.Queries))
			slices.Sort(lat)
			var sum time.Duration
			for _, l := range lat {
				sum += l
			}
			mode := "hybrid"
			if k > 0 {
				mode = fmt.Sprintf("hybrid+rerank%d", k)
			}
			fmt.Fprintf(w, "%-16s %3d %8.4f %9.4f %10.4f %9s %9s %9s %11s %s → %s\n", mode, rep+1, ndcg/n, r10/n, r100/n,
				lat[len(lat)/2].Round(time.Millisecond), lat[len(lat)*9/10].Round(time.Millisecond), (sum / time.Duration(len(lat))).Round(time.Millisecond),
				((cpu1 - cpu0) / time.Duration(len(lat))).Round(time.Millisecond), load0, loadAverage())
		}
	}
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

// rerankTune scores each query's top TuneDepth hybrid candidates once and
// reports nDCG@10 for reranking depths k and weights a of the
// cross-encoder probability against the fused score (the engine's rule:
// a·p + (1−a)·fused over the top k, the rest below in their order).
func rerankTune(ctx context.Context, e *engine.Engine, ce *rerank.CrossEncoder, b *BEIR, cfg RerankConfig, w io.Writer) error {
	depth := cmp.Or(cfg.TuneDepth, 50)
	texts := map[string]string{}
	for _, d := range b.Docs {
		texts[d.ID] = d.Title + "\n" + d.Text
		if d.Title == "" {
			texts[d.ID] = d.Text
		}
	}
	type cand struct {
		ID    string  `json:"id"`
		Fused float64 `json:"fused"`
		Prob  float64 `json:"prob"`
	}
	cache := map[string][]cand{}
	if cfg.Scores != "" {
		if data, err := os.ReadFile(cfg.Scores); err == nil {
			if err := json.Unmarshal(data, &cache); err != nil {
				return fmt.Errorf("scores %s: %w", cfg.Scores, err)
			}
		}
	}
	ks, as := cfg.Ks, cfg.Weights
	if len(ks) == 0 {
		ks = []int{5, 10, 20, 30, 50}
	}
	if len(as) == 0 {
		as = []float64{1, 0.9, 0.8, 0.7, 0.6, 0.5, 0.3}
	}
	sum := make([][]float64, len(ks))
	for i := range sum {
		sum[i] = make([]float64, len(as))
	}
	var base float64
	hl := false
	start := time.Now()
	// Even positions first: a run stopped halfway has cached the queries
	// that -max-queries of half the number selects.
	order := make([]BEIRQuery, 0, len(b.Queries))
	for par := range 2 {
		for i := par; i < len(b.Queries); i += 2 {
			order = append(order, b.Queries[i])
		}
	}
	if cfg.CachedOnly {
		kept := order[:0]
		for _, q := range order {
			if len(cache[q.ID]) >= depth {
				kept = append(kept, q)
			}
		}
		order = kept
		fmt.Fprintf(w, "%d queries with cached scores\n", len(order))
	}
	var scoreWall, scoreCPU time.Duration
	pairs := 0
	for qi, q := range order {
		cs, ok := cache[q.ID]
		if !ok || len(cs) < depth {
			res, err := e.Search(ctx, "", []string{"all"}, engine.SearchRequest{Query: q.Text, MaxResults: &depth, Highlight: &hl, IncludeFields: []string{"none"}})
			if err != nil {
				return err
			}
			cs = make([]cand, len(res.Documents))
			ps := make([]string, len(res.Documents))
			for i, d := range res.Documents {
				cs[i] = cand{ID: d.DocumentID, Fused: d.Score}
				ps[i] = texts[d.DocumentID]
			}
			cpu0, _ := ingestCPUTime()
			t0 := time.Now()
			probs, err := ce.Score(ctx, q.Text, ps)
			if err != nil {
				return err
			}
			scoreWall += time.Since(t0)
			cpu1, _ := ingestCPUTime()
			scoreCPU += cpu1 - cpu0
			pairs += len(ps)
			for i := range cs {
				cs[i].Prob = probs[i]
			}
			cache[q.ID] = cs
			if cfg.Scores != "" && (qi+1)%5 == 0 {
				if err := writeJSON(cfg.Scores, cache); err != nil {
					return err
				}
			}
		}
		cs = cs[:min(depth, len(cs))]
		ranked := make([]string, len(cs))
		for i, c := range cs {
			ranked[i] = c.ID
		}
		base += NDCGAt(10, ranked, b.Qrels[q.ID])
		for ki, k := range ks {
			for ai, a := range as {
				top := slices.Clone(cs[:min(k, len(cs))])
				sort.SliceStable(top, func(i, j int) bool {
					si := a*top[i].Prob + (1-a)*top[i].Fused
					sj := a*top[j].Prob + (1-a)*top[j].Fused
					return si > sj
				})
				r := make([]string, 0, 10)
				for _, c := range top {
					r = append(r, c.ID)
				}
				for _, c := range cs[min(k, len(cs)):] {
					r = append(r, c.ID)
				}
				sum[ki][ai] += NDCGAt(10, r, b.Qrels[q.ID])
			}
		}
		if (qi+1)%25 == 0 {
			fmt.Fprintf(w, "  %d queries scored (%s)\n", qi+1, time.Since(start).Round(time.Second))
		}
	}
	if cfg.Scores != "" {
		if err := writeJSON(cfg.Scores, cache); err != nil {
			return err
		}
	}
	if pairs > 0 {
		fmt.Fprintf(w, "cross-encoder: %d pairs scored, %s wall (%s a pair), %s process CPU (%s a pair)\n", pairs,
			scoreWall.Round(time.Millisecond), (scoreWall / time.Duration(pairs)).Round(time.Millisecond),
			scoreCPU.Round(10*time.Millisecond), (scoreCPU / time.Duration(pairs)).Round(time.Millisecond))
	}
	n := float64(len(order))
	fmt.Fprintf(w, "hybrid without reranking: nDCG@10 %.4f\n", base/n)
	fmt.Fprintf(w, "nDCG@10 by depth k (rows) and cross-encoder weight a (columns)\n%6s", "k\\a")
	for _, a := range as {
		fmt.Fprintf(w, " %7.2f", a)
	}
	fmt.Fprintln(w)
	bestK, bestA, best := 0, 0.0, math.Inf(-1)
	for ki, k := range ks {
		fmt.Fprintf(w, "%6d", k)
		for ai, a := range as {
			v := sum[ki][ai] / n
			fmt.Fprintf(w, " %7.4f", v)
			if v > best {
				bestK, bestA, best = k, a, v
			}
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintf(w, "best: k %d, a %.2f, nDCG@10 %.4f\n", bestK, bestA, best)
	return nil
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
