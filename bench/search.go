package bench

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"time"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// SearchConfig configures RunSearch, the end-to-end retrieval benchmark that
// goes through the engine exactly as the server does.
type SearchConfig struct {
	// BEIRDir is the BEIR data set directory (default ../shared/data/beir/scifact).
	BEIRDir string
	// Dir is the engine's data directory; "" uses a temporary one. A
	// directory that already holds the collection is reused (no re-ingest).
	Dir string
	// Models and ORTLib locate the embedding models and ONNX Runtime.
	Models, ORTLib string
	// MaxResults is the depth of each search (default 100, for recall@100).
	MaxResults int
	// Qrels names the judgments to evaluate with: "test" (default) or
	// "train" (use train to tune ranking constants, test to report).
	Qrels string
	// Sweep evaluates a grid of fusion weights and semantic calibration
	// bounds instead of the three default modes.
	Sweep bool
	// Split also ingests the corpus into two collections (even and odd
	// documents) and reports the top-10 overlap of a two-collection search
	// with the one-collection search.
	Split bool
	// Model is the collection's embedding_config.model ("" for the
	// language's default, see engine.LanguageModel).
	Model string
	// Language is the collection's search_config.language ("" for en).
	Language string
	// NoAnswers skips the extractive-answer evaluation.
	NoAnswers bool
	// MaxQueries, when positive, evaluates that many judged queries, evenly
	// spaced over the file order, instead of all of them.
	MaxQueries int
	// SweepWeights, SweepFloors and SweepCeilings are the grid of Sweep:
	// keyword weights, semantic floors and ceilings (defaults 0.2–0.5,
	// 0.45–0.65 and 0.90).
	SweepWeights, SweepFloors, SweepCeilings []float64
}

// SearchModeResult is the quality and latency of one ranking mode.
type SearchModeResult struct {
	Mode          string
	NDCG10        float64
	Recall10      float64
	Recall100     float64
	P50, P99, Avg time.Duration
}

// RunSearch ingests a BEIR corpus (title + text) into a collection with the
// default embedding model and reports nDCG@10, recall@100 and latency for
// keyword-only, dense-only and hybrid ranking.
func RunSearch(cfg SearchConfig, w io.Writer) error {
	cfg.BEIRDir = cmp.Or(cfg.BEIRDir, "../shared/data/beir/scifact")
	cfg.MaxResults = cmp.Or(cfg.MaxResults, 100)
	b, err := searchData(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "%d documents, %d queries (%s judgments)\n", len(b.Docs), len(b.Queries), cmp.Or(cfg.Qrels, "test"))
	dir, remove, err := workDir(cfg.Dir, "najdi-bench-search")
	if err != nil {
		return err
	}
	defer remove()
	cfg.Dir = dir
	prov, err := engine.NewModelProvider(cfg.Models, cfg.ORTLib)
	if err != nil {
		return err
	}
	defer prov.Close()
	ctx := context.Background()
	open := func(r engine.RankerConfig) (*engine.Engine, error) {
		return engine.Open(engine.Options{Dir: cfg.Dir, Embedders: prov, Ranker: r})
	}
	if err := searchCollections(ctx, open, b, cfg, w); err != nil {
		return err
	}
	if cfg.Sweep {
		return searchSweep(ctx, open, b, cfg, w)
	}
	hybridTop, err := searchModes(ctx, open, b, cfg, w)
	if err != nil {
		return err
	}
	if !cfg.NoAnswers {
		if err := searchAnswers(ctx, open, b, w); err != nil {
			return err
		}
	}
	if cfg.Split {
		return searchSplit(ctx, open, b, cfg, hybridTop, w)
	}
	return nil
}

// searchData loads the data set with the judgments cfg.Qrels names and
// keeps cfg.MaxQueries evenly spaced queries.
func searchData(cfg SearchConfig) (*BEIR, error) {
	b, err := LoadBEIR(cfg.BEIRDir)
	if err != nil {
		return nil, err
	}
	if cfg.Qrels == "train" {
		if err := searchUseQrels(b, cfg.BEIRDir, "train"); err != nil {
			return nil, err
		}
	}
	if n := len(b.Queries); cfg.MaxQueries > 0 && cfg.MaxQueries < n {
		qs := make([]BEIRQuery, cfg.MaxQueries)
		for i := range qs {
			qs[i] = b.Queries[i*n/cfg.MaxQueries]
		}
		b.Queries = qs
	}
	return b, nil
}

// searchCollections creates and fills the collections the run searches
// ("all", and with cfg.Split "even" and "odd"), skipping those that hold
// documents already, and merges each into one segment.
func searchCollections(ctx context.Context, open func(engine.RankerConfig) (*engine.Engine, error), b *BEIR, cfg SearchConfig, w io.Writer) error {
	e, err := open(engine.DefaultRanker())
	if err != nil {
		return err
	}
	defer e.Close()
	colls := []string{"all"}
	if cfg.Split {
		colls = append(colls, "even", "odd")
	}
	for _, name := range colls {
		c, err := e.GetCollection(ctx, "", name)
		if err == nil && c.DocumentCount > 0 {
			continue
		}
		cc := engine.CollectionConfig{SearchConfig: engine.SearchConfig{Language: cfg.Language}, EmbeddingConfig: engine.EmbeddingConfig{Model: cfg.Model}}
		info, _, err := e.PutCollection(ctx, "", name, cc)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "collection %s: language %s, model %s\n", name, info.Config.SearchConfig.Language, info.Config.EmbeddingConfig.Key())
		start := time.Now()
		n, err := searchIngest(ctx, e, name, b)
		if err != nil {
			return err
		}
		if err := e.MergeNow("", name); err != nil {
			return err
		}
		el := time.Since(start)
		fmt.Fprintf(w, "ingest %s: %d documents in %s (%.1f docs/s, embedding included)\n", name, n, el.Round(time.Millisecond), float64(n)/el.Seconds())
	}
	return nil
}

// searchIngest ingests the documents of collection name ("even" and "odd"
// hold every other document) in batches of 500 and returns their number.
func searchIngest(ctx context.Context, e *engine.Engine, name string, b *BEIR) (int, error) {
	var docs []engine.DocumentInput
	n := 0
	flush := func() error {
		if len(docs) == 0 {
			return nil
		}
		res, err := e.Ingest(ctx, "", name, engine.IngestRequest{Documents: docs})
		if err != nil {
			return err
		}
		if len(res.Errors) > 0 {
			return fmt.Errorf("ingest errors: %v", res.Errors[0])
		}
		n += len(docs)
		docs = docs[:0]
		return nil
	}
	for i, d := range b.Docs {
		if (name == "even" && i%2 == 1) || (name == "odd" && i%2 == 0) {
			continue
		}
		in := engine.DocumentInput{DocumentID: d.ID}
		if d.Title != "" {
			in.Sections = append(in.Sections, sectionOf("title", d.Title))
		}
		in.Sections = append(in.Sections, sectionOf("p", d.Text))
		docs = append(docs, in)
		if len(docs) == 500 {
			if err := flush(); err != nil {
				return n, err
			}
		}
	}
	return n, flush()
}

// searchModes evaluates keyword, dense and hybrid ranking on "all" and
// returns the hybrid top documents by query.
func searchModes(ctx context.Context, open func(engine.RankerConfig) (*engine.Engine, error), b *BEIR, cfg SearchConfig, w io.Writer) (map[string][]string, error) {
	modes := []struct {
		name string
		rk   func(engine.RankerConfig) engine.RankerConfig
	}{
		{"keyword", func(r engine.RankerConfig) engine.RankerConfig { r.SemanticWeight = 0; return r }},
		{"dense", func(r engine.RankerConfig) engine.RankerConfig { r.KeywordWeight = 0; return r }},
		{"hybrid", func(r engine.RankerConfig) engine.RankerConfig { return r }},
	}
	fmt.Fprintf(w, "%-8s %8s %9s %10s %9s %9s %9s\n", "mode", "nDCG@10", "recall@10", "recall@100", "p50", "p99", "mean")
	var hybridTop map[string][]string
	for _, m := range modes {
		e, err := open(m.rk(engine.DefaultRanker()))
		if err != nil {
			return nil, err
		}
		r, tops, err := evalMode(ctx, e, b, []string{"all"}, cfg.MaxResults)
		e.Close()
		if err != nil {
			return nil, err
		}
		r.Mode = m.name
		if m.name == "hybrid" {
			hybridTop = tops
		}
		fmt.Fprintf(w, "%-8s %8.4f %9.4f %10.4f %9s %9s %9s\n", r.Mode, r.NDCG10, r.Recall10, r.Recall100, r.P50.Round(time.Microsecond), r.P99.Round(time.Microsecond), r.Avg.Round(time.Microsecond))
	}
	return hybridTop, nil
}

// searchAnswers evaluates the engine's extractive answers over the hybrid
// top 5.
func searchAnswers(ctx context.Context, open func(engine.RankerConfig) (*engine.Engine, error), b *BEIR, w io.Writer) error {
	e, err := open(engine.DefaultRanker())
	if err != nil {
		return err
	}
	a, err := evalAnswers(ctx, e, b, 5, false)
	e.Close()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "answer (engine Answer, hybrid top 5, extractive): quotes a relevant document %.3f (%d of %d); top document relevant %.3f; no answer %d; p50 %s\n",
		a.Rate(), a.Relevant, a.Queries, float64(a.TopRelevant)/float64(max(1, a.Queries)), a.NoAnswer, a.P50.Round(time.Microsecond))
	return nil
}

// searchSplit compares a hybrid search over "even" and "odd" with the one
// over "all" (hybridTop).
func searchSplit(ctx context.Context, open func(engine.RankerConfig) (*engine.Engine, error), b *BEIR, cfg SearchConfig, hybridTop map[string][]string, w io.Writer) error {
	e, err := open(engine.DefaultRanker())
	if err != nil {
		return err
	}
	r, tops, err := evalMode(ctx, e, b, []string{"even", "odd"}, cfg.MaxResults)
	e.Close()
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "two collections (even,odd) hybrid: nDCG@10 %.4f, mean top-10 overlap with one collection %.3f\n", r.NDCG10, Overlap(hybridTop, tops, 10))
	return nil
}

func sectionOf(typ, content string) ingest.Section {
	return ingest.Section{Type: typ, Content: content}
}

// evalMode runs every test query and scores the ranking.
func evalMode(ctx context.Context, e *engine.Engine, b *BEIR, colls []string, depth int) (SearchModeResult, map[string][]string, error) {
	var r SearchModeResult
	var lat []time.Duration
	tops := map[string][]string{}
	hl := false
	for _, q := range b.Queries {
		start := time.Now()
		res, err := e.Search(ctx, "", colls, engine.SearchRequest{Query: q.Text, MaxResults: &depth, Highlight: &hl, IncludeFields: []string{"none"}})
		if err != nil {
			return r, nil, err
		}
		lat = append(lat, time.Since(start))
		ranked := make([]string, len(res.Documents))
		for i, d := range res.Documents {
			ranked[i] = d.DocumentID
		}
		tops[q.ID] = ranked
		r.NDCG10 += NDCGAt(10, ranked, b.Qrels[q.ID])
		r.Recall10 += RecallAt(10, ranked, b.Qrels[q.ID])
		r.Recall100 += RecallAt(100, ranked, b.Qrels[q.ID])
	}
	n := float64(len(b.Queries))
	r.NDCG10 /= n
	r.Recall10 /= n
	r.Recall100 /= n
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	var sum time.Duration
	for _, l := range lat {
		sum += l
	}
	r.P50, r.P99, r.Avg = lat[len(lat)/2], lat[len(lat)*99/100], sum/time.Duration(len(lat))
	return r, tops, nil
}

// AnswerResult counts extractive answers whose first source is judged
// relevant.
type AnswerResult struct {
	Queries, Relevant, TopRelevant, NoAnswer int
	P50                                      time.Duration
}

// Rate is the share of queries whose answer quotes a relevant document.
func (a AnswerResult) Rate() float64 { return float64(a.Relevant) / float64(max(1, a.Queries)) }

// evalAnswers asks every test query through engine.Answer (the product's
// path: the collection's hybrid retrieval of the top k documents, their
// summaries, the extractive answer) and checks the answer's first source
// against the qrels. termsOnly asks with "rerank": false: the answer
// sentence is picked by term weights, not by the reranker's scorer.
func evalAnswers(ctx context.Context, e *engine.Engine, b *BEIR, k int, termsOnly bool) (AnswerResult, error) {
	var a AnswerResult
	var lat []time.Duration
	hl := true
	for _, q := range b.Queries {
		start := time.Now()
		req := engine.SearchRequest{Query: q.Text, MaxResults: &k, Highlight: &hl}
		if termsOnly {
			req.Rerank = &engine.RerankRequest{Off: true}
		}
		res, err := e.Answer(ctx, "", []string{"all"}, req)
		if err != nil {
			return a, fmt.Errorf("answer %s: %w", q.ID, err)
		}
		lat = append(lat, time.Since(start))
		a.Queries++
		rel := b.Qrels[q.ID]
		if len(res.Documents) > 0 && rel[res.Documents[0].DocumentID] > 0 {
			a.TopRelevant++
		}
		switch src := res.Metadata.AnswerSources; {
		case len(src) == 0:
			a.NoAnswer++
		case rel[src[0]] > 0:
			a.Relevant++
		}
	}
	sort.Slice(lat, func(i, j int) bool { return lat[i] < lat[j] })
	if len(lat) > 0 {
		a.P50 = lat[len(lat)/2]
	}
	return a, nil
}

// Overlap is the mean fraction of shared documents in the top k of two
// rankings per query.
func Overlap(a, b map[string][]string, k int) float64 {
	var sum float64
	n := 0
	for q, ra := range a {
		rb := b[q]
		set := map[string]bool{}
		for _, d := range ra[:min(k, len(ra))] {
			set[d] = true
		}
		if len(set) == 0 {
			continue
		}
		hit := 0
		for _, d := range rb[:min(k, len(rb))] {
			if set[d] {
				hit++
			}
		}
		sum += float64(hit) / float64(len(set))
		n++
	}
	if n == 0 {
		return 0
	}
	return sum / float64(n)
}

// searchUseQrels replaces b's judgments and queries by those of a split.
func searchUseQrels(b *BEIR, dir, split string) error {
	q := map[string]map[string]int{}
	if err := beirReadQrels(dir+"/qrels/"+split+".tsv", q); err != nil {
		return err
	}
	all := map[string]BEIRQuery{}
	for _, x := range b.Queries {
		all[x.ID] = x
	}
	var qs []BEIRQuery
	err := beirReadJSONL(dir+"/queries.jsonl", func(line []byte) error {
		var x BEIRQuery
		if err := json.Unmarshal(line, &x); err != nil {
			return err
		}
		if len(q[x.ID]) > 0 {
			qs = append(qs, x)
		}
		return nil
	})
	if err != nil {
		return err
	}
	b.Queries, b.Qrels = qs, q
	return nil
}

// searchSweep reports hybrid nDCG@10 over a grid of ranking constants.
func searchSweep(ctx context.Context, open func(engine.RankerConfig) (*engine.Engine, error), b *BEIR, cfg SearchConfig, w io.Writer) error {
	or := func(v, def []float64) []float64 {
		if len(v) == 0 {
			return def
		}
		return v
	}
	weights := or(cfg.SweepWeights, []float64{0.2, 0.3, 0.35, 0.4, 0.5})
	floors := or(cfg.SweepFloors, []float64{0.45, 0.55, 0.65})
	ceilings := or(cfg.SweepCeilings, []float64{0.90})
	fmt.Fprintf(w, "%6s %6s %6s %6s %8s\n", "wkey", "floor", "ceil", "sat", "nDCG@10")
	for _, wk := range weights {
		for _, fl := range floors {
			for _, ce := range ceilings {
				if ce <= fl {
					continue
				}
				for _, sat := range []float64{0.3, 1} {
					r := engine.DefaultRanker()
					r.KeywordWeight, r.SemanticWeight = wk, 1-wk
					r.SemanticFloor, r.SemanticCeiling, r.KeywordSaturation = fl, ce, sat
					e, err := open(r)
					if err != nil {
						return err
					}
					res, _, err := evalMode(ctx, e, b, []string{"all"}, cfg.MaxResults)
					e.Close()
					if err != nil {
						return err
					}
					fmt.Fprintf(w, "%6.2f %6.2f %6.2f %6.2f %8.4f\n", wk, fl, r.SemanticCeiling, sat, res.NDCG10)
				}
			}
		}
	}
	return nil
}
