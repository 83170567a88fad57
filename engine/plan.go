package engine

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"slices"
	"unicode/utf8"

	"github.com/najdi/najdi/filter"
	"github.com/najdi/najdi/internal/strictjson"
)

// plan is a validated search request.
type plan struct {
	// ctx is the request's context (for a Backend's calls).
	ctx        context.Context
	req        SearchRequest
	query      string // after diacritics restoration
	changed    bool
	max        int
	offset     int
	minScore   float64 // documents need score >= minScore (> 0 unless minSet)
	minSet     bool    // MinScore was given; else score > 0 is required
	cut        int     // candidates below the cut-off
	next       *int    // offset of the next page
	sections   bool
	full       bool
	summaries  bool
	summaryStr bool
	highlight  bool
	docsOut    bool
	fields     map[string]bool
	flt        filter.Query
	colls      []*collection
	// visible is each collection's installed commit generation when the
	// embedded store took its snapshot, read before it (localBackend.search,
	// version.go).
	visible map[*collection]uint64
	// collsBuf holds colls without allocating for one collection.
	collsBuf [1]*collection
	// grps are the groups of collections searched alike, with their
	// weighed query terms (plan.groups, candidates); group0 and groupsBuf
	// hold them without allocating in the common case of one.
	grps      []*group
	group0    group
	groupsBuf [1]*group
	// returned counts the content bytes rendered so far (see
	// MaxResponseContentBytes).
	returned int
	// tm times the stages of the search (metadata.timings).
	tm stageTimes
	// loadAll loads every part of the hits' bodies (answers).
	loadAll bool
	// rerankK is the number of candidates to rerank (0: no reranking).
	rerankK int
	// contentSlab and docSlab hold the rendered contents and loaded
	// documents of the page (contentPtr, cutHits).
	contentSlab []string
	docSlab     []Document
}

// plan validates a search request into a plan, in the order its errors are
// reported: collections, output shape, summary settings, query, filter.
func (e *Engine) plan(ctx context.Context, owner string, ids []string, req SearchRequest) (*plan, error) {
	// White space as the OpenAPI document's \S pattern of an answer's
	// query reads it.
	p := &plan{ctx: ctx, req: req, query: strictjson.TrimSpace(req.Query)}
	colls, err := e.planCollections(owner, ids, p.collsBuf[:0])
	if err != nil {
		return nil, err
	}
	p.colls = colls
	if err := p.planOutput(req); err != nil {
		return nil, err
	}
	if err := e.planSummary(p, req); err != nil {
		return nil, err
	}
	if n := utf8.RuneCountInString(req.Query); n > MaxQueryChars { // as sent (OpenAPI maxLength)
		return nil, invalidField("query", "%d characters, more than the limit of %d", n, MaxQueryChars)
	}
	if err := p.planFilter(req); err != nil {
		return nil, err
	}
	if err := p.planRetrievers(req.Retrievers); err != nil {
		return nil, err
	}
	if p.query == "" && p.flt == nil {
		// Neither a query nor a filter: every document, as the filter
		// match_all returns them (Elasticsearch's empty search). It is
		// set after planFilter, so it needs no filterable collection.
		p.flt = filter.MatchAll{}
	}
	if err := e.planRerank(p, req); err != nil {
		return nil, err
	}
	return p, nil
}

// planRetrievers checks SearchRequest.Retrievers: empty, or a retriever
// every searched collection has (keyword needs fulltext on, semantic an
// embedding model), so that a request never runs a retriever a
// collection's configuration turns off or silently runs the other one.
func (p *plan) planRetrievers(r string) error {
	switch r {
	case "":
		return nil
	case RetrieveKeyword:
		for _, c := range p.colls {
			if !c.config().FulltextConfig.On() {
				return invalidField("retrievers", "%q: collection %q has no keyword retriever (fulltext_config.enabled is false); search it with \"semantic\" or without retrievers", r, c.id)
			}
		}
	case RetrieveSemantic:
		for _, c := range p.colls {
			if c.config().EmbeddingConfig.Keyword() {
				return invalidField("retrievers", "%q: collection %q has no semantic retriever (embedding_config.model is \"none\"); search it with \"keyword\" or without retrievers", r, c.id)
			}
		}
	default:
		return invalidField("retrievers", "%q is not a retriever: use %q or %q (or leave it out for the collections' configured retrievers)", r, RetrieveKeyword, RetrieveSemantic)
	}
	return nil
}

// planCollections resolves the named collections of the owner, each once,
// appended to colls.
func (e *Engine) planCollections(owner string, ids []string, colls []*collection) ([]*collection, error) {
	if len(ids) == 0 {
		return nil, invalidf("name at least one collection")
	}
	for i, id := range ids {
		if slices.Contains(ids[:i], id) {
			continue // a, a searches a once, as Elasticsearch's a,a/_search does
		}
		c, err := e.collection(owner, id)
		if err != nil {
			return nil, err
		}
		colls = append(colls, c)
	}
	return colls, nil
}

// planOutput settles what the response holds: how many documents, in which
// format, with which content, passages and fields.
func (p *plan) planOutput(req SearchRequest) error {
	p.max = DefaultMaxResults
	if req.MaxResults != nil {
		p.max = *req.MaxResults
		if p.max < 1 || p.max > MaxMaxResults {
			return invalidField("max_results", "must be between 1 and %d, got %d", MaxMaxResults, p.max)
		}
	}
	if req.Offset != nil {
		p.offset = *req.Offset
		if p.offset < 0 {
			return invalidField("offset", "must be 0 or more, got %d", p.offset)
		}
		if p.offset+p.max > MaxResultWindow {
			return invalidField("offset", "offset + max_results must be at most %d, got %d + %d", MaxResultWindow, p.offset, p.max)
		}
	}
	if req.MinScore != nil {
		p.minScore, p.minSet = *req.MinScore, true
		if math.IsNaN(p.minScore) || p.minScore < 0 || p.minScore > 1 {
			return invalidField("min_score", "must be between 0 and 1, got %v", p.minScore)
		}
	}
	switch req.ResultFormat {
	case "", "flat":
	case "sections":
		p.sections = true
	default:
		return invalidField("result_format", "%q is not supported (use flat or sections)", req.ResultFormat)
	}
	inc := req.IncludeContent
	if len(inc) == 0 {
		inc = []string{"full"}
	}
	for _, v := range inc {
		switch v {
		case "full":
			p.full = true
		case "summaries":
			p.summaries = true
		case "summary":
			p.summaryStr = true
		default:
			return invalidField("include_content", "%q is not supported (use full, summaries or summary)", v)
		}
	}
	p.highlight = req.Highlight == nil || *req.Highlight
	// Documents are returned with full content, or with passages only when
	// highlight was asked for explicitly next to summaries.
	p.docsOut = p.full || (req.Highlight != nil && *req.Highlight)
	if len(req.IncludeFields) > 0 {
		p.fields = map[string]bool{}
		for _, f := range req.IncludeFields {
			p.fields[f] = true
		}
	}
	return nil
}

// planSummary validates the request's summary settings.
func (e *Engine) planSummary(p *plan, req SearchRequest) error {
	if rs := req.SummaryConfig; rs != nil && rs.MaxTokens < 0 {
		return invalidField("summary_config.max_tokens", "must be positive, got %d", rs.MaxTokens)
	}
	if rs := req.SummaryConfig; rs != nil && rs.Tokenizer != "" {
		// A bad tokenizer is a 400 before the search runs, not after it.
		if _, err := e.summaryTokenizer(p, rs.Tokenizer); err != nil {
			return err
		}
	}
	return nil
}

// planFilter parses the filter and the simple filter parameters (ANDed)
// and validates them against the field types of every collection.
func (p *plan) planFilter(req SearchRequest) error {
	if len(bytes.TrimSpace(req.Filter)) > 0 && string(bytes.TrimSpace(req.Filter)) != "null" {
		q, err := filter.Parse(req.Filter)
		if err != nil {
			return &Error{Kind: ErrInvalid, Message: err.Error(), Cause: err} // names its path, "filter…"
		}
		p.flt = q
	}
	if len(req.SimpleFilters) > 0 {
		q, err := filter.ParseQueryParams(req.SimpleFilters)
		if err != nil {
			return &Error{Kind: ErrInvalid, Message: "filter parameters: " + err.Error(), Cause: err}
		}
		if p.flt == nil {
			p.flt = q
		} else {
			p.flt = &filter.Bool{Filter: []filter.Query{p.flt, q}}
		}
	}
	if p.flt == nil {
		return nil
	}
	for _, c := range p.colls {
		cfg := c.config()
		if !cfg.FulltextConfig.On() || cfg.FulltextConfig.Engine != "elastic" {
			return invalidField("filter", "collection %q cannot filter: filtering needs fulltext_config.enabled true and fulltext_config.engine \"elastic\"", c.id)
		}
		if err := p.flt.Validate(collSchema{c}); err != nil {
			return &Error{Kind: ErrInvalid, Message: fmt.Sprintf("collection %q: %v", c.id, err), Cause: err, Details: map[string]any{"collection_id": c.id}}
		}
	}
	return nil
}

// collSchema exposes a collection's field types to the filter package.
type collSchema struct{ c *collection }

func (s collSchema) FieldType(name string) (filter.FieldType, bool) {
	t, ok := s.c.fieldType(name)
	return filter.FieldType(t), ok
}
