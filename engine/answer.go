package engine

import (
	"context"
	"errors"
	"time"

	"github.com/google/uuid"

	"github.com/najdi/najdi/rerank"
	"github.com/najdi/najdi/summary"
)

// LLMAnswerer generates an answer from retrieved documents; summary.LLM
// implements it for OpenAI-compatible chat endpoints.
type LLMAnswerer interface {
	Answer(ctx context.Context, question string, docs []summary.Doc, cfg summary.Config) (summary.AnswerResult, error)
}

// Answer answers a question from the summaries of the top documents of one
// or several collections: extractively by default, with the configured LLM
// when the engine has one.
func (e *Engine) Answer(ctx context.Context, owner string, collections []string, req SearchRequest) (SearchResponse, error) {
	start := e.opts.Now()
	t0 := time.Now()
	p, err := e.plan(ctx, owner, collections, req)
	if err != nil {
		return SearchResponse{}, err
	}
	p.tm.mark = t0
	if p.query == "" {
		return SearchResponse{}, invalidField("query", "the answer endpoint needs a question in \"query\"")
	}
	if req.IncludeContent == nil {
		p.full = false
		p.docsOut = req.Highlight != nil && *req.Highlight
	}
	p.loadAll = true
	hits, err := e.retrieve(ctx, p)
	if err != nil {
		return SearchResponse{}, err
	}
	p.tm.retrieve = p.tm.lap() - p.tm.embed - p.tm.fuse
	if hits, err = e.loadHits(p, hits); err != nil {
		return SearchResponse{}, err
	}
	p.tm.load = p.tm.lap()
	cfg, err := e.summaryConfig(p)
	if err != nil {
		return SearchResponse{}, err
	}
	ans, err := e.answerFrom(ctx, p, req, summaryDocs(hits), cfg)
	if err != nil {
		return SearchResponse{}, err
	}
	resp := e.answerResponse(p, hits, ans)
	p.tm.render = p.tm.lap()
	resp.Metadata.TookMS = e.msSince(start)
	resp.Metadata.Timings = p.tm.report()
	return resp, nil
}

// answerFrom answers the question from docs: with the configured LLM when
// the engine has one, else extractively, its sentences picked by the
// reranker's scorer when the request asks for it (answerScorer) and by
// question-term weights otherwise or when the scorer fails.
func (e *Engine) answerFrom(ctx context.Context, p *plan, req SearchRequest, docs []summary.Doc, cfg summary.Config) (summary.AnswerResult, error) {
	if e.opts.Answerer != nil && len(docs) > 0 {
		ans, err := e.opts.Answerer.Answer(ctx, p.query, docs, cfg)
		if err != nil {
			switch {
			case errors.Is(err, summary.ErrUpstreamTimeout):
				return ans, kindError(ErrUpstreamTimeout, err, "the answer model did not answer in time")
			case errors.Is(err, summary.ErrUpstream):
				return ans, kindError(ErrUpstream, err, "the answer model failed")
			}
		}
		return ans, err
	}
	res, err := summary.Summarize(p.query, docs, cfg, false)
	if err != nil {
		return summary.AnswerResult{}, &Error{Kind: ErrInvalid, Message: "summary: " + err.Error(), Cause: err}
	}
	ans, err := summary.ExtractiveScored(ctx, p.query, res, docs, e.answerScorer(p, req))
	if err != nil {
		if ctx.Err() != nil {
			return ans, ctx.Err()
		}
		// The scorer is an improvement, not a dependency (a reranker that
		// is not installed, a failing embedding endpoint): the
		// question-term weights still answer.
		ans = summary.Extractive(p.query, res, docs)
	}
	return ans, nil
}

// answerResponse renders the answer, its sources, the summaries and (when
// asked) the documents into a response.
func (e *Engine) answerResponse(p *plan, hits []*hit, ans summary.AnswerResult) SearchResponse {
	resp := SearchResponse{SearchID: newID()}
	p.pageMetadata(&resp.Metadata)
	if p.changed {
		resp.Metadata.EffectiveQueries = []string{p.query}
	}
	a := ans.Answer
	resp.Answer = &a
	if p.docsOut {
		resp.Documents = make([]ResultDoc, 0, len(hits))
		for _, h := range hits {
			resp.Documents = append(resp.Documents, e.render(p, h))
		}
	}
	applySummary(p, ans.Summary, &resp)
	resp.Metadata.Tokens = &Tokens{PromptTokens: ans.PromptTokens, Tokenizer: ans.Summary.Tokenizer}
	resp.Metadata.AnswerSources = make([]string, 0, len(ans.Sources))
	for _, s := range ans.Sources {
		resp.Metadata.AnswerSources = append(resp.Metadata.AnswerSources, s.DocumentID)
	}
	return resp
}

func newID() string { return uuid.NewString() }

// answerScorer returns the scorer that picks the sentences of an
// extractive answer: the reranker's (the cross-encoder for an English
// collection when the server has one, the similarity of sentence windows
// under the collection's embedding model otherwise), or nil for the
// question-term weights alone: unless the request says "rerank": true (or
// an object), or when the collection has neither. The scorer reads up to
// 72 sentences, each a cross-encoder pass, which costs seconds of CPU on
// a small machine: like reranking a search, it is asked for, not default.
func (e *Engine) answerScorer(p *plan, req SearchRequest) summary.Scorer {
	if req.Rerank == nil || req.Rerank.Off {
		return nil
	}
	cfg := p.colls[0].config()
	if crossEncodes(cfg) {
		if e.opts.Reranker == nil {
			return nil
		}
		return e.opts.Reranker
	}
	if cfg.EmbeddingConfig.Keyword() {
		return nil
	}
	emb, err := e.embedder(cfg.EmbeddingConfig)
	if err != nil || emb == nil {
		return nil
	}
	return &rerank.Similarity{Emb: emb}
}

func (e *Engine) summarize(ctx context.Context, p *plan, hits []*hit, resp *SearchResponse) error {
	cfg, err := e.summaryConfig(p)
	if err != nil {
		return err
	}
	res, err := summary.Summarize(p.query, summaryDocs(hits), cfg, p.summaryStr)
	if err != nil {
		return &Error{Kind: ErrInvalid, Message: "summary: " + err.Error(), Cause: err}
	}
	applySummary(p, res, resp)
	return nil
}

// summaryConfig resolves the summary settings: request, else the first
// collection's configuration, else defaults.
func (e *Engine) summaryConfig(p *plan) (summary.Config, error) {
	cc := p.colls[0].config().SummaryConfig
	cfg := summary.Config{MaxTokens: cc.MaxTokens, Tokenizer: nil}
	if cc.SummarySeparator != nil {
		cfg.SummarySeparator = *cc.SummarySeparator
	}
	if cc.DocumentSeparator != nil {
		cfg.DocumentSeparator = *cc.DocumentSeparator
	}
	tok := cc.Tokenizer
	if rs := p.req.SummaryConfig; rs != nil {
		if rs.MaxTokens > 0 {
			cfg.MaxTokens = rs.MaxTokens
		}
		if rs.SummarySeparator != nil {
			cfg.SummarySeparator = *rs.SummarySeparator
		}
		if rs.DocumentSeparator != nil {
			cfg.DocumentSeparator = *rs.DocumentSeparator
		}
		if rs.Tokenizer != "" {
			tok = rs.Tokenizer
		}
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = DefaultMaxTokens
	}
	t, err := e.summaryTokenizer(p, tok)
	if err != nil {
		return cfg, err
	}
	cfg.Tokenizer = t
	cfg.Analyzer = analyzerFor(p.colls[0].config().SearchConfig.Language, p.query)
	return cfg, nil
}

// summaryTokenizer resolves a summary tokenizer name for the plan's
// collections. plan calls it for a tokenizer named in the request, so that
// a bad name is a 400 before any retrieval. "embedding" is the local
// tokenizer of the first collection's embedding model that has one; when
// none has (keyword-only collections, remote models), the budget is
// counted with DefaultTokenizer, and the response's
// metadata.tokens.tokenizer says so.
func (e *Engine) summaryTokenizer(p *plan, tok string) (summary.Tokenizer, error) {
	var embTok summary.Tokenizer
	if tok == summary.Embedding {
		var err error
		if embTok, err = e.embeddingTokenizer(p); err != nil {
			return nil, err
		}
		if embTok == nil {
			tok = DefaultTokenizer
		}
	}
	t, err := summary.NewTokenizer(tok, embTok)
	if err != nil {
		return nil, &Error{Kind: ErrInvalid, Message: "summary_config.tokenizer: " + err.Error(), Cause: err, Details: map[string]any{"field": "summary_config.tokenizer"}}
	}
	return t, nil
}

// embeddingTokenizer returns the local tokenizer of the first of the
// plan's collections whose embedding model has one, or nil.
func (e *Engine) embeddingTokenizer(p *plan) (summary.Tokenizer, error) {
	for _, c := range p.colls {
		emb, err := e.embedder(c.config().EmbeddingConfig)
		if err != nil {
			return nil, err
		}
		if tc, ok := emb.(TokenCounter); ok {
			return summary.EmbeddingTokenizer(tc), nil
		}
	}
	return nil, nil
}

// summaryDocs converts hits to the summary package's documents, with the
// passages of both retrievers as evidence.
func summaryDocs(hits []*hit) []summary.Doc {
	docs := make([]summary.Doc, len(hits))
	for i, h := range hits {
		d := summary.Doc{ID: h.docID, CollectionID: h.c.id, Score: h.score}
		for _, s := range h.doc.Sections {
			d.Sections = append(d.Sections, summary.Section{Type: s.Type, Content: s.Content})
		}
		for _, p := range h.passages {
			d.Evidence = append(d.Evidence, summary.Evidence{Section: p.SectionIndex, Start: p.Offsets[0], End: p.Offsets[1], Score: p.Score})
		}
		docs[i] = d
	}
	return docs
}

func applySummary(p *plan, res summary.Result, resp *SearchResponse) {
	multi := len(p.colls) > 1
	if p.summaries {
		resp.Summaries = make([]Summary, 0, len(res.Summaries))
		for _, s := range res.Summaries {
			out := Summary{DocumentID: s.DocumentID, Content: s.Content}
			if multi {
				out.CollectionID = s.CollectionID
			}
			resp.Summaries = append(resp.Summaries, out)
		}
	}
	if p.summaryStr {
		s := res.String
		resp.Summary = &s
	}
	oc, sc := res.OriginalCount, res.SummaryCount
	resp.Metadata.Tokens = &Tokens{PromptTokens: res.PromptTokens, Tokenizer: res.Tokenizer}
	resp.Metadata.OriginalDocumentsCount = &oc
	resp.Metadata.SummaryDocumentsCount = &sc
	resp.Metadata.SummaryMethod = res.Method
	resp.Metadata.Message = res.Message
}
