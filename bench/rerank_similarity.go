package bench

import (
	"cmp"
	"context"
	"encoding/gob"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/rerank"
)

// SimilarityConfig configures RunRerankSimilarity.
type SimilarityConfig struct {
	// Search locates the data set (BEIRDir), the engine directory holding
	// its collection "all" (Dir, filled by najdi-bench search), the models,
	// the judgments (Qrels) and MaxQueries.
	Search SearchConfig
	// Depth is the hybrid candidates fetched per query (default 50).
	Depth int
	// Ks and Weights are the grid: rerank depths and weights a of the
	// similarity score against the fused score (defaults 10,20,50 and
	// 0..1).
	Ks      []int
	Weights []float64
	// Vectors caches window embeddings in a gob file (read when present,
	// written at the end).
	Vectors string
	// Engine also evaluates reranking through engine.Search ("rerank":
	// true) on the same queries.
	Engine bool
	// CachedOnly evaluates only the queries whose candidates' windows are
	// all in Vectors already (a run stopped early), embedding nothing.
	CachedOnly bool
}

// simFeatures are the similarity features of one candidate.
type simFeatures struct {
	id    string
	fused float64
	s1    float64 // best cosine over single sentences
	s2    float64 // best cosine over sentences and pairs (rerank.Windows span 2)
	whole float64 // cosine of the whole text (first windowMaxRunes)
}

// RunRerankSimilarity measures the embedding-similarity reranker
// (rerank.Similarity) on a BEIR-format set such as the Czech Debian set:
// for each query it fetches the hybrid top Depth, embeds every candidate's
// sentence windows once (cached across queries), and reports nDCG@10 of the
// grid of features, depths and weights, offline. With Engine it also runs
// the engine's own reranking path ("rerank": true) and reports nDCG@10 and
// latency, which must agree with the offline figure of the shipped
// constants.
func RunRerankSimilarity(cfg SimilarityConfig, w io.Writer) error {
	sc := cfg.Search
	b, err := loadRerankQueries(sc)
	if err != nil {
		return err
	}
	prov, err := engine.NewModelProvider(sc.Models, sc.ORTLib)
	if err != nil {
		return err
	}
	defer prov.Close()
	e, err := engine.Open(engine.Options{Dir: sc.Dir, Embedders: prov})
	if err != nil {
		return err
	}
	defer e.Close()
	ctx := context.Background()
	info, err := e.GetCollection(ctx, "", "all")
	if err != nil || info.DocumentCount == 0 {
		return fmt.Errorf("rerank-similarity: %s holds no collection \"all\" (run najdi-bench search -beir %s -dir %s first)", sc.Dir, sc.BEIRDir, sc.Dir)
	}
	emb, err := prov.Embedder(info.Config.EmbeddingConfig)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d queries (%s judgments), collection language %s, model %s\n", len(b.Queries), cmp.Or(sc.Qrels, "test"),
		info.Config.SearchConfig.Language, info.Config.EmbeddingConfig.Key())
	r := newSimRun(ctx, cfg, e, emb, b)
	if cfg.Vectors != "" {
		if err := readGob(cfg.Vectors, &r.vecs); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
	}
	if err := r.score(w); err != nil {
		return err
	}
	if err := r.report(w); err != nil {
		return err
	}
	if !cfg.Engine {
		return nil
	}
	return simEngine(ctx, e, b, r.depth, w)
}

// simFeature names one similarity feature of the grid.
type simFeature struct {
	name string
	f    func(c simFeatures) float64
}

// simFeatureGrid lists the features the grid compares.
var simFeatureGrid = []simFeature{
	{"sentence", func(c simFeatures) float64 { return c.s1 }},
	{"sentence+pair", func(c simFeatures) float64 { return c.s2 }},
	{"sentence+pair+whole", func(c simFeatures) float64 { return max(c.s2, c.whole) }},
	{"whole", func(c simFeatures) float64 { return c.whole }},
}

// simRun is one run of RunRerankSimilarity: the data, the window
// embeddings cached so far and the grid's nDCG@10 sums.
type simRun struct {
	ctx   context.Context
	cfg   SimilarityConfig
	e     *engine.Engine
	emb   rerank.Embedder
	b     *BEIR
	texts map[string]string    // document text by id
	vecs  map[string][]float32 // window embeddings by window text
	depth int
	ks    []int
	as    []float64
	sum   [][][]float64 // nDCG@10 sums by feature, depth and weight
	base  float64       // nDCG@10 sum without reranking
	n     int           // queries evaluated
	top   []float64     // best window cosine of each query's top candidate
}

// newSimRun fills the grid's defaults (depths 10, 20, 50; weights 0..1).
func newSimRun(ctx context.Context, cfg SimilarityConfig, e *engine.Engine, emb rerank.Embedder, b *BEIR) *simRun {
	r := &simRun{ctx: ctx, cfg: cfg, e: e, emb: emb, b: b, texts: map[string]string{}, vecs: map[string][]float32{},
		depth: cmp.Or(cfg.Depth, 50), ks: cfg.Ks, as: cfg.Weights}
	for _, d := range b.Docs {
		r.texts[d.ID] = strings.TrimSpace(d.Title + "\n" + d.Text)
	}
	if len(r.ks) == 0 {
		r.ks = []int{10, 20, 50}
	}
	if len(r.as) == 0 {
		r.as = []float64{0, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 1}
	}
	r.sum = make([][][]float64, len(simFeatureGrid))
	for fi := range r.sum {
		r.sum[fi] = make([][]float64, len(r.ks))
		for ki := range r.ks {
			r.sum[fi][ki] = make([]float64, len(r.as))
		}
	}
	return r
}

// embedMissing embeds the windows of ws not cached yet.
func (r *simRun) embedMissing(ws []string) error {
	var need []string
	seen := map[string]bool{}
	for _, s := range ws {
		if _, ok := r.vecs[s]; !ok && !seen[s] {
			seen[s] = true
			need = append(need, s)
		}
	}
	for lo := 0; lo < len(need); lo += 64 {
		hi := min(lo+64, len(need))
		vs, err := r.emb.EmbedPassages(r.ctx, need[lo:hi])
		if err != nil {
			return err
		}
		for i, v := range vs {
			r.vecs[need[lo+i]] = v
		}
	}
	return nil
}

// score fetches every query's hybrid candidates, computes their features
// and adds each grid point's nDCG@10, saving the window cache every 10
// queries and at the end.
func (r *simRun) score(w io.Writer) error {
	var qtexts []string
	for _, q := range r.b.Queries {
		qtexts = append(qtexts, q.Text)
	}
	qvecs, err := r.emb.EmbedQueries(r.ctx, qtexts)
	if err != nil {
		return err
	}
	hl := false
	start := time.Now()
	for qi, q := range r.b.Queries {
		res, err := r.e.Search(r.ctx, "", []string{"all"}, engine.SearchRequest{Query: q.Text, MaxResults: &r.depth, Highlight: &hl, IncludeFields: []string{"none"}})
		if err != nil {
			return err
		}
		if r.cfg.CachedOnly && !simCached(res.Documents, r.texts, r.vecs) {
			continue
		}
		if err := r.scoreQuery(q, qvecs[qi], res.Documents); err != nil {
			return err
		}
		if (qi+1)%10 == 0 {
			fmt.Fprintf(w, "  %d queries (%s, %d windows embedded)\n", qi+1, time.Since(start).Round(time.Second), len(r.vecs))
			if r.cfg.Vectors != "" {
				if err := writeGob(r.cfg.Vectors, r.vecs); err != nil {
					return err
				}
			}
		}
	}
	if r.cfg.Vectors != "" {
		return writeGob(r.cfg.Vectors, r.vecs)
	}
	return nil
}

// scoreQuery computes the features of one query's candidates and adds
// nDCG@10 without reranking and at every grid point.
func (r *simRun) scoreQuery(q BEIRQuery, qvec []float32, docs []engine.ResultDoc) error {
	r.n++
	cs := make([]simFeatures, len(docs))
	ranked := make([]string, len(docs))
	for i, d := range docs {
		t := r.texts[d.DocumentID]
		w1, w2 := rerank.Windows(t, 1), rerank.Windows(t, 2)
		whole := []rune(t)
		wt := string(whole[:min(len(whole), 1500)])
		if err := r.embedMissing(append(append(slices.Clone(w1), w2...), wt)); err != nil {
			return err
		}
		c := simFeatures{id: d.DocumentID, fused: d.Score, s1: -1, s2: -1}
		for _, x := range w1 {
			c.s1 = max(c.s1, rerank.Cosine(qvec, r.vecs[x]))
		}
		for _, x := range w2 {
			c.s2 = max(c.s2, rerank.Cosine(qvec, r.vecs[x]))
		}
		c.whole = rerank.Cosine(qvec, r.vecs[wt])
		cs[i] = c
		ranked[i] = d.DocumentID
	}
	if len(cs) > 0 {
		r.top = append(r.top, cs[0].s2)
	}
	r.base += NDCGAt(10, ranked, r.b.Qrels[q.ID])
	for fi, ft := range simFeatureGrid {
		for ki, k := range r.ks {
			for ai, a := range r.as {
				r.sum[fi][ki][ai] += NDCGAt(10, simRerank(cs, k, a, ft.f), r.b.Qrels[q.ID])
			}
		}
	}
	return nil
}

// report prints the spread of the top candidates' cosines, nDCG@10
// without reranking and the grid with its best point.
func (r *simRun) report(w io.Writer) error {
	slices.Sort(r.top)
	if len(r.top) > 0 {
		fmt.Fprintf(w, "best window cosine of the top candidate: p10 %.3f, p50 %.3f, p90 %.3f\n",
			r.top[len(r.top)/10], r.top[len(r.top)/2], r.top[len(r.top)*9/10])
	}
	if r.n == 0 {
		return fmt.Errorf("rerank-similarity: no query evaluated")
	}
	n := float64(r.n)
	fmt.Fprintf(w, "%d queries evaluated; hybrid without reranking: nDCG@10 %.4f\n", r.n, r.base/n)
	type best struct {
		feat string
		k    int
		a, v float64
	}
	top := best{v: math.Inf(-1)}
	for fi, ft := range simFeatureGrid {
		fmt.Fprintf(w, "feature %s: nDCG@10 by depth k (rows) and similarity weight a (columns)\n%6s", ft.name, "k\\a")
		for _, a := range r.as {
			fmt.Fprintf(w, " %7.2f", a)
		}
		fmt.Fprintln(w)
		for ki, k := range r.ks {
			fmt.Fprintf(w, "%6d", k)
			for ai, a := range r.as {
				v := r.sum[fi][ki][ai] / n
				fmt.Fprintf(w, " %7.4f", v)
				if v > top.v+1e-9 {
					top = best{ft.name, k, a, v}
				}
			}
			fmt.Fprintln(w)
		}
	}
	fmt.Fprintf(w, "best: feature %s, k %d, a %.2f, nDCG@10 %.4f\n", top.feat, top.k, top.a, top.v)
	return nil
}

// simCached reports whether every window of the documents is in vecs.
func simCached(docs []engine.ResultDoc, texts map[string]string, vecs map[string][]float32) bool {
	for _, d := range docs {
		t := texts[d.DocumentID]
		whole := []rune(t)
		ws := append(rerank.Windows(t, 1), rerank.Windows(t, 2)...)
		for _, x := range append(ws, string(whole[:min(len(whole), 1500)])) {
			if _, ok := vecs[x]; !ok {
				return false
			}
		}
	}
	return true
}

// simRerank orders the first k candidates by a·score(f) + (1−a)·fused, the
// rest below in their order.
func simRerank(cs []simFeatures, k int, a float64, f func(simFeatures) float64) []string {
	top := slices.Clone(cs[:min(k, len(cs))])
	sc := func(c simFeatures) float64 { return a*rerank.SimilarityScore(f(c)) + (1-a)*c.fused }
	sort.SliceStable(top, func(i, j int) bool { return sc(top[i]) > sc(top[j]) })
	out := make([]string, 0, len(cs))
	for _, c := range top {
		out = append(out, c.id)
	}
	for _, c := range cs[min(k, len(cs)):] {
		out = append(out, c.id)
	}
	return out
}

// simEngine evaluates hybrid search with and without "rerank": true
// through engine.Search.
func simEngine(ctx context.Context, e *engine.Engine, b *BEIR, depth int, w io.Writer) error {
	fmt.Fprintf(w, "%-16s %8s %9s %9s %9s %9s\n", "through engine", "nDCG@10", "recall@10", "p50", "p90", "mean")
	for _, on := range []bool{false, true} {
		var rr *engine.RerankRequest
		if on {
			rr = &engine.RerankRequest{}
		}
		pass, err := searchPass(ctx, e, b, depth, rr)
		if err != nil {
			return err
		}
		lat, s, ndcg, r10 := pass.lat, pass.sum, pass.ndcg, pass.r10
		n := float64(len(b.Queries))
		mode := "hybrid"
		if on {
			mode = "hybrid+rerank"
		}
		fmt.Fprintf(w, "%-16s %8.4f %9.4f %9s %9s %9s\n", mode, ndcg/n, r10/n, lat[len(lat)/2].Round(time.Millisecond),
			lat[len(lat)*9/10].Round(time.Millisecond), (s / time.Duration(len(lat))).Round(time.Millisecond))
	}
	return nil
}

// readGob decodes a gob file into v.
func readGob(path string, v any) error {
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := gob.NewDecoder(f).Decode(v); err != nil {
		return fmt.Errorf("read %s: %w", path, err)
	}
	return nil
}

// writeGob encodes v into path atomically.
func writeGob(path string, v any) error {
	f, err := os.Create(path + ".tmp")
	if err != nil {
		return err
	}
	if err := gob.NewEncoder(f).Encode(v); err != nil {
		f.Close()
		return fmt.Errorf("write %s: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(path+".tmp", path)
}
