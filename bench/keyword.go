package bench

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/text"
)

// ErrInvalidConfig reports a benchmark configuration that fails Validate.
var ErrInvalidConfig = errors.New("bench: invalid config")

// Defaults of KeywordConfig.
const (
	// DefaultTitleBoost multiplies the term frequencies and length of the
	// title section (BM25F-style weighted tf); tuned on SciFact, see
	// RunKeyword's report.
	DefaultTitleBoost = 2
	// DefaultKeywordDepth is the number of results retrieved per query
	// (recall is measured at this depth).
	DefaultKeywordDepth = 100
	// DefaultKeywordRepeat is how many times the query set is run to
	// measure latency.
	DefaultKeywordRepeat = 5
)

// KeywordConfig configures the BEIR keyword (BM25) workload. Zero fields
// take the documented defaults.
type KeywordConfig struct {
	// Dir is the BEIR data set directory (corpus.jsonl, queries.jsonl,
	// qrels/test.tsv); required.
	Dir string
	// TitleBoost weighs title terms against body terms; 0 means
	// DefaultTitleBoost.
	TitleBoost float32
	// BM25 holds K1 and B (zero means invindex defaults); AvgDocLen is
	// computed from the corpus.
	BM25 invindex.BM25
	// Depth is the number of hits retrieved per query; 0 means
	// DefaultKeywordDepth.
	Depth int
	// Repeat is how many times the queries are run for latency; 0 means
	// DefaultKeywordRepeat.
	Repeat int
	// Bleve also indexes and queries the data with bleve (English analyzer,
	// title and text fields) for comparison.
	Bleve bool
}

// Validate reports a configuration that cannot run.
func (c KeywordConfig) Validate() error {
	switch {
	case c.Dir == "":
		return fmt.Errorf("keyword: Dir is required: %w", ErrInvalidConfig)
	case c.TitleBoost < 0, c.Depth < 0, c.Repeat < 0:
		return fmt.Errorf("keyword: negative TitleBoost, Depth or Repeat: %w", ErrInvalidConfig)
	}
	return nil
}

func (c KeywordConfig) withDefaults() KeywordConfig {
	c.TitleBoost = cmp.Or(c.TitleBoost, DefaultTitleBoost)
	c.Depth = cmp.Or(c.Depth, DefaultKeywordDepth)
	c.Repeat = cmp.Or(c.Repeat, DefaultKeywordRepeat)
	return c
}

// KeywordResult is the quality and speed of one engine on one data set.
type KeywordResult struct {
	Engine    string
	NDCG10    float64 // mean nDCG@10
	Recall100 float64 // mean recall@100 (at Depth if smaller)
	IndexTime time.Duration
	Mean      time.Duration // query latency, analysis included
	P50, P99  time.Duration
}

// keywordRanker answers one query with ranked document ids.
type keywordRanker func(query string, depth int) ([]string, error)

// EvalKeyword indexes the data set with text.Analyzer and invindex (and
// bleve if configured) and evaluates the judged queries.
func EvalKeyword(cfg KeywordConfig) ([]KeywordResult, *BEIR, error) {
	if err := cfg.Validate(); err != nil {
		return nil, nil, err
	}
	cfg = cfg.withDefaults()
	data, err := LoadBEIR(cfg.Dir)
	if err != nil {
		return nil, nil, err
	}
	start := time.Now()
	kw := NewKeywordIndex(data.Docs, text.NewAnalyzer(text.English), cfg.TitleBoost)
	res, err := evalRanker("najdi", data, time.Since(start), cfg, func(q string, depth int) ([]string, error) {
		return kw.Rank(q, cfg.BM25, depth), nil
	})
	if err != nil {
		return nil, nil, err
	}
	results := []KeywordResult{res}
	if cfg.Bleve {
		start := time.Now()
		rank, closeFn, err := newBleveRanker(data.Docs)
		if err != nil {
			return nil, nil, err
		}
		defer closeFn()
		res, err := evalRanker("bleve", data, time.Since(start), cfg, rank)
		if err != nil {
			return nil, nil, err
		}
		results = append(results, res)
	}
	return results, data, nil
}

func evalRanker(name string, data *BEIR, indexTime time.Duration, cfg KeywordConfig, rank keywordRanker) (KeywordResult, error) {
	res := KeywordResult{Engine: name, IndexTime: indexTime}
	var lat []time.Duration
	for rep := range cfg.Repeat {
		for _, q := range data.Queries {
			start := time.Now()
			ranked, err := rank(q.Text, cfg.Depth)
			lat = append(lat, time.Since(start))
			if err != nil {
				return res, fmt.Errorf("%s query %s: %w", name, q.ID, err)
			}
			if rep == 0 {
				res.NDCG10 += NDCGAt(10, ranked, data.Qrels[q.ID])
				res.Recall100 += RecallAt(100, ranked, data.Qrels[q.ID])
			}
		}
	}
	n := float64(len(data.Queries))
	res.NDCG10 /= n
	res.Recall100 /= n
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	res.Mean = sum / time.Duration(len(lat))
	res.P50 = lat[len(lat)/2]
	res.P99 = lat[min(len(lat)-1, len(lat)*99/100)]
	return res, nil
}

// RunKeyword runs the keyword workload and prints a report to w: nDCG@10,
// recall@100, index time and query latency for najdi's BM25 (and bleve with
// the ratios when cfg.Bleve is set).
func RunKeyword(cfg KeywordConfig, w io.Writer) error {
	results, data, err := EvalKeyword(cfg)
	if err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	fmt.Fprintf(w, "keyword %s: %d docs, %d judged queries, title boost %.2f, k1 %.2f, b %.2f, depth %d, %d runs\n",
		cfg.Dir, len(data.Docs), len(data.Queries), cfg.TitleBoost, cfg.BM25.K1, cfg.BM25.B, cfg.Depth, cfg.Repeat)
	fmt.Fprintf(w, "%-8s %8s %10s %10s %10s %10s %10s\n", "engine", "nDCG@10", "recall@100", "index", "mean", "p50", "p99")
	for _, r := range results {
		fmt.Fprintf(w, "%-8s %8.4f %10.4f %10s %10s %10s %10s\n", r.Engine, r.NDCG10, r.Recall100,
			r.IndexTime.Round(time.Millisecond), r.Mean.Round(time.Microsecond), r.P50.Round(time.Microsecond), r.P99.Round(time.Microsecond))
	}
	if len(results) == 2 {
		a, b := results[0], results[1]
		fmt.Fprintf(w, "najdi/bleve: nDCG@10 ×%.3f, recall@100 ×%.3f, index time ×%.2f, mean latency ×%.2f, p99 ×%.2f\n",
			a.NDCG10/b.NDCG10, a.Recall100/b.Recall100, a.IndexTime.Seconds()/b.IndexTime.Seconds(),
			a.Mean.Seconds()/b.Mean.Seconds(), a.P99.Seconds()/b.P99.Seconds())
	}
	return nil
}

// KeywordIndex is a BM25 index over BEIR documents built directly on
// invindex (no engine): the title is one section weighted by a boost, the
// text another with weight 1.
type KeywordIndex struct {
	idx *invindex.TextIndex
	ids []string
	an  *text.Analyzer
}

// NewKeywordIndex analyzes and indexes docs; document i gets number i.
func NewKeywordIndex(docs []BEIRDoc, an *text.Analyzer, titleBoost float32) *KeywordIndex {
	b := invindex.NewTextBuilder()
	counts := map[string]float32{}
	var terms []string
	var tfs []invindex.TermFreq
	ids := make([]string, len(docs))
	for i, d := range docs {
		ids[i] = d.ID
		clear(counts)
		terms = an.AppendTerms(terms[:0], d.Title)
		length := titleBoost * float32(len(terms))
		for _, t := range terms {
			counts[t] += titleBoost
		}
		terms = an.AppendTerms(terms[:0], d.Text)
		length += float32(len(terms))
		for _, t := range terms {
			counts[t]++
		}
		tfs = tfs[:0]
		for t, c := range counts {
			tfs = append(tfs, invindex.TermFreq{Term: t, Freq: c})
		}
		b.Add(uint32(i), tfs, length)
	}
	return &KeywordIndex{idx: b.Build(), ids: ids, an: an}
}

// Index returns the underlying text index.
func (k *KeywordIndex) Index() *invindex.TextIndex { return k.idx }

// Rank returns the ids of the best depth documents for query. A query term
// repeated n times has n times its idf weight (as a Lucene boolean query of
// repeated clauses would).
func (k *KeywordIndex) Rank(query string, p invindex.BM25, depth int) []string {
	terms := k.an.AppendTerms(nil, query)
	slices.Sort(terms)
	n := uint64(k.idx.NumDocs())
	if p.AvgDocLen == 0 && n > 0 {
		p.AvgDocLen = float32(k.idx.TotalLength() / float64(n))
	}
	var q []invindex.QueryTerm
	for i := 0; i < len(terms); {
		j := i + 1
		for j < len(terms) && terms[j] == terms[i] {
			j++
		}
		idf := invindex.BM25IDF(n, uint64(k.idx.DocFreq(terms[i])))
		q = append(q, invindex.QueryTerm{Term: terms[i], Weight: idf * float32(j-i)})
		i = j
	}
	hits := k.idx.Search(q, p, depth, nil, nil, 0, nil)
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = k.ids[h.Doc]
	}
	return ids
}
