package bench

import (
	"cmp"
	"fmt"
	"io"
	"slices"
	"time"

	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/summary"
	"github.com/najdi/najdi/text"
)

// Defaults of SummaryConfig.
const (
	// DefaultSummaryTopK is the number of retrieved documents summarized.
	DefaultSummaryTopK = 5
	// DefaultSummaryMaxTokens is the summary budget.
	DefaultSummaryMaxTokens = 1000
)

// SummaryConfig configures the summary workload: keyword retrieval (BM25
// over text.Analyzer and invindex, as RunKeyword) of the top TopK
// documents per judged query, their summaries within MaxTokens and the
// extractive answer. Zero fields take the documented defaults.
type SummaryConfig struct {
	// Dir is the BEIR data set directory; required.
	Dir string
	// TopK is the number of documents summarized per query; 0 means
	// DefaultSummaryTopK.
	TopK int
	// MaxTokens is the summary budget; 0 means DefaultSummaryMaxTokens.
	MaxTokens int
	// Tokenizer is "o200k_base" (default) or "cl100k_base".
	Tokenizer string
	// Budgets, when set, are extra budgets whose methods and answer rates
	// are reported too (a sweep).
	Budgets []int
}

// Validate reports a configuration that cannot run.
func (c SummaryConfig) Validate() error {
	switch {
	case c.Dir == "":
		return fmt.Errorf("summary: Dir is required: %w", ErrInvalidConfig)
	case c.TopK < 0, c.MaxTokens < 0:
		return fmt.Errorf("summary: negative TopK or MaxTokens: %w", ErrInvalidConfig)
	}
	for _, b := range c.Budgets {
		if b <= 0 {
			return fmt.Errorf("summary: budget %d must be positive: %w", b, ErrInvalidConfig)
		}
	}
	return nil
}

func (c SummaryConfig) withDefaults() SummaryConfig {
	c.TopK = cmp.Or(c.TopK, DefaultSummaryTopK)
	c.MaxTokens = cmp.Or(c.MaxTokens, DefaultSummaryMaxTokens)
	return c
}

// SummaryResult is the outcome of the summary workload at one budget and
// evidence setting.
type SummaryResult struct {
	MaxTokens int
	Evidence  bool // documents carried keyword passages (text.Passages) as evidence
	Queries   int
	// AnswerRelevant counts answers whose first quoted document is judged
	// relevant; NoAnswer counts answers that found nothing.
	AnswerRelevant, NoAnswer int
	// TopRelevant and AnyRelevant count queries whose top document, or any
	// of the top K, is judged relevant (the retrieval bound).
	TopRelevant, AnyRelevant int
	Methods                  map[string]int
	PromptTokens             int // summed over queries
	AllIncluded              int // queries whose summaries hold all top K documents
	Summarize, Answer        []time.Duration
}

// summaryQuery is one judged query with its retrieved documents.
type summaryQuery struct {
	id   string
	text string
	docs []summary.Doc
	ev   []summary.Doc // docs with evidence
}

// RunSummary runs the summary workload and writes a report to w: for each
// judged query, the BM25 top K documents are summarized within the budget
// and answered extractively; it reports how often the answer quotes a
// relevant document (next to the retrieval bounds), the summary methods
// used, prompt sizes and the latency of Summarize and Extractive.
func RunSummary(cfg SummaryConfig, w io.Writer) error {
	if err := cfg.Validate(); err != nil {
		return err
	}
	cfg = cfg.withDefaults()
	tk, err := summary.NewTokenizer(cfg.Tokenizer, nil)
	if err != nil {
		return fmt.Errorf("summary: %w", err)
	}
	data, err := LoadBEIR(cfg.Dir)
	if err != nil {
		return err
	}
	an := text.NewAnalyzer(text.English)
	start := time.Now()
	kw := NewKeywordIndex(data.Docs, an, DefaultTitleBoost)
	byID := make(map[string]*BEIRDoc, len(data.Docs))
	for i := range data.Docs {
		byID[data.Docs[i].ID] = &data.Docs[i]
	}
	fmt.Fprintf(w, "summary: %d documents indexed in %s; %d judged queries; top %d; tokenizer %s\n",
		len(data.Docs), time.Since(start).Round(time.Millisecond), len(data.Queries), cfg.TopK, tk.Name())
	qs := make([]summaryQuery, 0, len(data.Queries))
	for _, q := range data.Queries {
		sq := summaryQuery{id: q.ID, text: q.Text}
		terms := map[string]float64{}
		for _, t := range an.AppendTerms(nil, q.Text) {
			terms[t] = 1
		}
		for rank, id := range kw.Rank(q.Text, invindex.BM25{}, cfg.TopK) {
			d := byID[id]
			sd := summary.Doc{ID: id, Score: 1 / float64(rank+1), Sections: []summary.Section{{Type: "title", Content: d.Title}, {Type: "text", Content: d.Text}}}
			sq.docs = append(sq.docs, sd)
			for _, p := range text.Passages(an, terms, []string{d.Title, d.Text}, text.PassageOptions{}) {
				sd.Evidence = append(sd.Evidence, summary.Evidence{Section: p.Section, Start: p.Start, End: p.End, Score: p.Score})
			}
			sq.ev = append(sq.ev, sd)
		}
		qs = append(qs, sq)
	}
	budgets := append([]int{cfg.MaxTokens}, cfg.Budgets...)
	for _, b := range budgets {
		for _, ev := range []bool{false, true} {
			res, err := summaryEval(qs, data.Qrels, summary.Config{MaxTokens: b, Tokenizer: tk, Analyzer: an}, ev, cfg.TopK)
			if err != nil {
				return err
			}
			summaryPrint(w, res)
		}
	}
	return nil
}

func summaryEval(qs []summaryQuery, qrels map[string]map[string]int, sc summary.Config, evidence bool, topK int) (SummaryResult, error) {
	res := SummaryResult{MaxTokens: sc.MaxTokens, Evidence: evidence, Methods: map[string]int{}}
	for _, q := range qs {
		docs := q.docs
		if evidence {
			docs = q.ev
		}
		res.Queries++
		rel := qrels[q.id]
		if len(docs) > 0 && rel[docs[0].ID] > 0 {
			res.TopRelevant++
		}
		if slices.ContainsFunc(docs, func(d summary.Doc) bool { return rel[d.ID] > 0 }) {
			res.AnyRelevant++
		}
		t0 := time.Now()
		r, err := summary.Summarize(q.text, docs, sc, true)
		t1 := time.Now()
		if err != nil {
			return res, fmt.Errorf("summary query %s: %w", q.id, err)
		}
		a := summary.Extractive(q.text, r, docs)
		res.Summarize = append(res.Summarize, t1.Sub(t0))
		res.Answer = append(res.Answer, time.Since(t1))
		res.Methods[r.Method]++
		res.PromptTokens += r.PromptTokens
		if r.SummaryCount == min(topK, len(docs)) {
			res.AllIncluded++
		}
		switch {
		case len(a.Sources) == 0:
			res.NoAnswer++
		case rel[a.Sources[0].DocumentID] > 0:
			res.AnswerRelevant++
		}
	}
	return res, nil
}

func summaryPrint(w io.Writer, r SummaryResult) {
	n := float64(max(1, r.Queries))
	fmt.Fprintf(w, "\nbudget %d tokens, evidence %v: %d queries\n", r.MaxTokens, r.Evidence, r.Queries)
	fmt.Fprintf(w, "  answer quotes a relevant document: %.3f (%d); no answer: %d\n", float64(r.AnswerRelevant)/n, r.AnswerRelevant, r.NoAnswer)
	fmt.Fprintf(w, "  retrieval bounds: top document relevant %.3f, any of top K relevant %.3f\n", float64(r.TopRelevant)/n, float64(r.AnyRelevant)/n)
	fmt.Fprintf(w, "  summary string: mean %.0f tokens; all top K included for %d queries; methods %v\n", float64(r.PromptTokens)/n, r.AllIncluded, r.Methods)
	for _, l := range []struct {
		name string
		d    []time.Duration
	}{{"Summarize", r.Summarize}, {"Extractive", r.Answer}} {
		slices.Sort(l.d)
		if len(l.d) == 0 {
			continue
		}
		var sum time.Duration
		for _, d := range l.d {
			sum += d
		}
		fmt.Fprintf(w, "  %s latency: mean %s p50 %s p99 %s\n", l.name, (sum / time.Duration(len(l.d))).Round(time.Microsecond),
			l.d[len(l.d)/2].Round(time.Microsecond), l.d[len(l.d)*99/100].Round(time.Microsecond))
	}
}
