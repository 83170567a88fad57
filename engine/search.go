package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/google/uuid"

	"github.com/najdi/najdi/filter"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/text"
)

// Limits and defaults of search requests.
const (
	DefaultMaxResults = 10
	MaxMaxResults     = 1000
	// MaxResultWindow bounds offset + max_results: a page deeper than
	// that needs more candidates than a search should gather
	// (Elasticsearch's index.max_result_window has the same default).
	MaxResultWindow = 10000
	defaultPassages = 3
)

// SearchRequest is the body of search, query and answer requests.
type SearchRequest struct {
	Query             string                `json:"query"`
	MaxResults        *int                  `json:"max_results,omitempty"`
	ResultFormat      string                `json:"result_format,omitempty"`
	IncludeContent    []string              `json:"include_content,omitempty"`
	IncludeFields     []string              `json:"include_fields,omitempty"`
	Highlight         *bool                 `json:"highlight,omitempty"`
	Filter            json.RawMessage       `json:"filter,omitempty"`
	SummaryConfig     *RequestSummaryConfig `json:"summary_config,omitempty"`
	RestoreDiacritics *bool                 `json:"restore_diacritics,omitempty"`
	// Offset skips that many documents of the ranking (paging: the page
	// is documents offset .. offset+max_results-1), default 0.
	Offset *int `json:"offset,omitempty"`
	// MinScore is the relevance cut-off: documents scoring below it are
	// left out. Unset, documents with a score of 0 (no evidence from
	// either retriever) are left out; 0 keeps them too.
	MinScore *float64 `json:"min_score,omitempty"`

	// SimpleFilters are the query endpoint's filter:{field}=value
	// parameters (field, value), ANDed.
	SimpleFilters [][2]string `json:"-"`
}

// RequestSummaryConfig overrides the collection's summary settings.
type RequestSummaryConfig struct {
	MaxTokens         int     `json:"max_tokens,omitempty"`
	SummarySeparator  *string `json:"summary_separator,omitempty"`
	DocumentSeparator *string `json:"document_separator,omitempty"`
	Tokenizer         string  `json:"tokenizer,omitempty"`
}

// ParseSearchRequest decodes a request body strictly: unknown fields,
// values of the wrong type and a summary_config.max_tokens below 1 are
// rejected with ErrInvalid naming the field by its JSON path.
func ParseSearchRequest(body []byte) (SearchRequest, error) {
	var r SearchRequest
	if len(bytes.TrimSpace(body)) == 0 {
		return r, invalidf("the request body is empty: send a JSON object with at least \"query\" or \"filter\"")
	}
	if err := decodeRequest("search request", body, &r); err != nil {
		return r, err
	}
	if err := checkMaxTokens(body); err != nil {
		return r, err
	}
	return r, nil
}

// SearchResponse is the response of search, query and answer requests.
// Documents and Summaries are nil when not asked for (omitted from the
// JSON) and non-nil when asked for, so that no hits encode as [].
type SearchResponse struct {
	SearchID  string      `json:"search_id"`
	Documents []ResultDoc `json:"documents,omitzero"`
	Summaries []Summary   `json:"summaries,omitzero"`
	Summary   *string     `json:"summary,omitempty"`
	Answer    *string     `json:"answer,omitempty"`
	Metadata  Metadata    `json:"metadata"`
}

// ResultDoc is one retrieved document.
type ResultDoc struct {
	DocumentID   string           `json:"document_id"`
	CollectionID string           `json:"collection_id,omitempty"`
	Score        float64          `json:"score"`
	Source       string           `json:"source"`
	Content      *string          `json:"content,omitempty"`
	Sections     []ingest.Section `json:"sections,omitempty"`
	Fields       map[string]any   `json:"fields,omitempty"`
	Passages     []Passage        `json:"passages,omitempty"`
	// Truncated reports content or sections cut at the returned-content
	// limits (MaxReturnedContentBytes, MaxResponseContentBytes).
	Truncated bool `json:"truncated,omitempty"`
}

// Passage is a relevant span of one section: Text equals the section's
// content between Offsets[0] and Offsets[1], counted in Unicode code points.
type Passage struct {
	Text         string  `json:"text"`
	Offsets      [2]int  `json:"offsets"`
	SectionIndex int     `json:"section_index"`
	Score        float64 `json:"score"`
}

// Summary is the excerpt of one document.
type Summary struct {
	DocumentID   string `json:"document_id"`
	CollectionID string `json:"collection_id,omitempty"`
	Content      string `json:"content"`
}

// Metadata describes how a response was produced.
type Metadata struct {
	Tokens                 *Tokens  `json:"tokens,omitempty"`
	OriginalDocumentsCount *int     `json:"original_documents_count,omitempty"`
	SummaryDocumentsCount  *int     `json:"summary_documents_count,omitempty"`
	SummaryMethod          string   `json:"summary_method,omitempty"`
	Message                string   `json:"message,omitempty"`
	EffectiveQueries       []string `json:"effective_queries,omitempty"`
	AnswerSources          []string `json:"answer_sources,omitzero"` // non-nil in answers
	TookMS                 float64  `json:"took_ms"`
	// BelowMinScore counts the candidate documents the relevance cut-off
	// (min_score) left out of the ranking.
	BelowMinScore int `json:"below_min_score"`
	// NextOffset is the offset of the next page, present when the ranking
	// holds more documents than this page reaches.
	NextOffset *int `json:"next_offset,omitempty"`
}

// Tokens reports token counts.
type Tokens struct {
	PromptTokens int `json:"prompt_tokens"`
}

// hit is one candidate document during search.
type hit struct {
	c        *collection
	seg      *segment.Segment
	local    uint32
	key      float64 // calibrated keyword score
	sem      float64 // calibrated semantic score
	bestCh   []chunkHit
	score    float64
	byKey    bool
	bySem    bool
	exact    bool // holds every identifier of the query (see tier)
	docID    string
	doc      *Document
	passages []Passage
}

type chunkHit struct {
	id  uint32
	cos float64
}

// plan is a validated search request.
type plan struct {
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
	// stats are the segments whose statistics (N, document frequencies,
	// average length) weigh keyword terms: those of every searched
	// collection, so that scores are comparable across collections.
	stats []*segment.Segment
	// terms caches each collection's analyzed, weighted query terms.
	terms map[*collection]queryTerms
	// returned counts the content bytes rendered so far (see
	// MaxResponseContentBytes).
	returned int
}

// queryTermsFor returns the collection's weighted query terms, computed once
// per request.
func (e *Engine) queryTermsFor(p *plan, c *collection) queryTerms {
	if qt, ok := p.terms[c]; ok {
		return qt
	}
	if p.terms == nil {
		p.terms = map[*collection]queryTerms{}
	}
	qt := e.keywordQuery(c, p.stats, p.query)
	p.terms[c] = qt
	return qt
}

func (e *Engine) plan(owner string, ids []string, req SearchRequest) (*plan, error) {
	p := &plan{req: req, query: strings.TrimSpace(req.Query)}
	if len(ids) == 0 {
		return nil, invalidf("name at least one collection")
	}
	seen := map[string]bool{}
	for _, id := range ids {
		if seen[id] {
			return nil, invalidField("collections", "collection %q is named twice", id)
		}
		seen[id] = true
		c, err := e.collection(owner, id)
		if err != nil {
			return nil, err
		}
		p.colls = append(p.colls, c)
	}
	p.max = DefaultMaxResults
	if req.MaxResults != nil {
		p.max = *req.MaxResults
		if p.max < 1 || p.max > MaxMaxResults {
			return nil, invalidField("max_results", "must be between 1 and %d, got %d", MaxMaxResults, p.max)
		}
	}
	if req.Offset != nil {
		p.offset = *req.Offset
		if p.offset < 0 {
			return nil, invalidField("offset", "must be 0 or more, got %d", p.offset)
		}
		if p.offset+p.max > MaxResultWindow {
			return nil, invalidField("offset", "offset + max_results must be at most %d, got %d + %d", MaxResultWindow, p.offset, p.max)
		}
	}
	if req.MinScore != nil {
		p.minScore, p.minSet = *req.MinScore, true
		if math.IsNaN(p.minScore) || p.minScore < 0 || p.minScore > 1 {
			return nil, invalidField("min_score", "must be between 0 and 1, got %v", p.minScore)
		}
	}
	switch req.ResultFormat {
	case "", "flat":
	case "sections":
		p.sections = true
	default:
		return nil, invalidField("result_format", "%q is not supported (use flat or sections)", req.ResultFormat)
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
			return nil, invalidField("include_content", "%q is not supported (use full, summaries or summary)", v)
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
	if rs := req.SummaryConfig; rs != nil && rs.MaxTokens < 0 {
		return nil, invalidField("summary_config.max_tokens", "must be positive, got %d", rs.MaxTokens)
	}
	if rs := req.SummaryConfig; rs != nil && rs.Tokenizer != "" {
		// A bad tokenizer is a 400 before the search runs, not after it.
		if _, err := e.summaryTokenizer(p, rs.Tokenizer); err != nil {
			return nil, err
		}
	}
	if n := utf8.RuneCountInString(p.query); n > MaxQueryChars {
		return nil, invalidField("query", "%d characters, more than the limit of %d", n, MaxQueryChars)
	}
	if len(bytes.TrimSpace(req.Filter)) > 0 && string(bytes.TrimSpace(req.Filter)) != "null" {
		q, err := filter.Parse(req.Filter)
		if err != nil {
			return nil, &Error{Kind: ErrInvalid, Message: "filter: " + err.Error(), Cause: err}
		}
		p.flt = q
	}
	if len(req.SimpleFilters) > 0 {
		q, err := filter.ParseQueryParams(req.SimpleFilters)
		if err != nil {
			return nil, &Error{Kind: ErrInvalid, Message: "filter parameters: " + err.Error(), Cause: err}
		}
		if p.flt == nil {
			p.flt = q
		} else {
			p.flt = &filter.Bool{Filter: []filter.Query{p.flt, q}}
		}
	}
	if p.flt != nil {
		for _, c := range p.colls {
			cfg := c.config()
			if !cfg.FulltextConfig.On() || cfg.FulltextConfig.Engine != "elastic" {
				return nil, invalidField("filter", "collection %q cannot filter: filtering needs fulltext_config.enabled true and fulltext_config.engine \"elastic\"", c.id)
			}
			if err := p.flt.Validate(collSchema{c}); err != nil {
				return nil, &Error{Kind: ErrInvalid, Message: fmt.Sprintf("filter on collection %q: %v", c.id, err), Cause: err, Details: map[string]any{"collection_id": c.id}}
			}
		}
	}
	if p.query == "" && p.flt == nil {
		return nil, invalidField("query", "send a query, a filter, or both")
	}
	return p, nil
}

// collSchema exposes a collection's field types to the filter package.
type collSchema struct{ c *collection }

func (s collSchema) FieldType(name string) (filter.FieldType, bool) {
	t, ok := s.c.fieldType(name)
	return filter.FieldType(t), ok
}

// Search runs a search over one or several collections of the owner.
func (e *Engine) Search(ctx context.Context, owner string, collections []string, req SearchRequest) (SearchResponse, error) {
	start := nowFunc()
	p, err := e.plan(owner, collections, req)
	if err != nil {
		return SearchResponse{}, err
	}
	hits, err := e.retrieve(ctx, p)
	if err != nil {
		return SearchResponse{}, err
	}
	resp := SearchResponse{SearchID: uuid.NewString()}
	if p.changed {
		resp.Metadata.EffectiveQueries = []string{p.query}
	}
	if hits, err = e.loadHits(p, hits); err != nil {
		return SearchResponse{}, err
	}
	p.pageMetadata(&resp.Metadata)
	if p.docsOut {
		resp.Documents = make([]ResultDoc, 0, len(hits))
		for _, h := range hits {
			resp.Documents = append(resp.Documents, e.render(p, h))
		}
	}
	if p.summaries || p.summaryStr {
		if err := e.summarize(ctx, p, hits, &resp); err != nil {
			return SearchResponse{}, err
		}
	}
	resp.Metadata.TookMS = msSince(start)
	return resp, nil
}

// retrieve finds, scores and sorts the top documents.
func (e *Engine) retrieve(ctx context.Context, p *plan) ([]*hit, error) {
	if err := e.restoreQuery(p); err != nil {
		return nil, err
	}
	var semKey string
	useSem := false
	if p.query != "" {
		for i, c := range p.colls {
			ec := c.config().EmbeddingConfig
			if i == 0 {
				semKey = ec.Key()
				useSem = !ec.Keyword()
				continue
			}
			if ec.Key() != semKey && (useSem || !ec.Keyword()) {
				return nil, invalidField("collections", "collections %q and %q use different embedding models (%q, %q): their semantic scores are not comparable; search them separately", p.colls[0].id, c.id, semKey, ec.Key())
			}
		}
	}
	var qvec []float32
	if useSem {
		emb, err := e.embedder(p.colls[0].config().EmbeddingConfig)
		if err != nil {
			return nil, err
		}
		vs, err := e.embedQueries(ctx, emb, []string{p.query})
		if err != nil {
			return nil, err
		}
		qvec = vs[0]
	}
	p.stats = nil
	for _, c := range p.colls {
		p.stats = append(p.stats, c.snapshot()...)
	}
	var all []*hit
	for _, c := range p.colls {
		hs, err := e.retrieveCollection(p, c, qvec)
		if err != nil {
			return nil, err
		}
		all = append(all, hs...)
	}
	tier(all)
	sort.SliceStable(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.score != b.score {
			return a.score > b.score
		}
		if a.c.id != b.c.id {
			return a.c.id < b.c.id
		}
		return a.docID < b.docID
	})
	keep := all[:0]
	for _, h := range all {
		if h.score > p.minScore || (p.minSet && h.score == p.minScore) {
			keep = append(keep, h)
		}
	}
	p.cut = len(all) - len(keep)
	all = keep
	end := p.offset + p.max
	if len(all) > end && end < MaxResultWindow {
		p.next = &end
	}
	all = all[min(p.offset, len(all)):min(end, len(all))]
	return all, nil
}

// pageMetadata reports the relevance cut-off and paging in md.
func (p *plan) pageMetadata(md *Metadata) {
	md.BelowMinScore = p.cut
	md.NextOffset = p.next
}

// queryTerms analyzes the query for a collection and computes BM25 term
// weights from the collection-wide statistics of segs.
type queryTerms struct {
	terms   []invindex.QueryTerm
	weights map[string]float64 // term → idf, for passages
	max     float64            // maximum attainable BM25 score
	bm25    invindex.BM25
	an      *text.Analyzer
	ids     [][]string // terms of the query's identifier-like tokens
}

func (e *Engine) keywordQuery(c *collection, segs []*segment.Segment, q string) queryTerms {
	cfg := c.config()
	an := analyzerFor(cfg.SearchConfig.Language, q)
	counts := map[string]int{}
	var order []string
	an.Analyze(q, func(t text.Token) {
		if counts[t.Term] == 0 {
			order = append(order, t.Term)
		}
		counts[t.Term]++
	})
	var n uint64
	var total float64
	for _, s := range segs {
		n += uint64(s.Text.NumDocs())
		total += s.Text.TotalLength()
	}
	rk := e.opts.Ranker
	qt := queryTerms{weights: map[string]float64{}, an: an, ids: identifierTerms(an, q)}
	avg := float32(1)
	if n > 0 {
		avg = float32(total / float64(n))
	}
	qt.bm25 = invindex.BM25{K1: rk.K1, B: rk.B, AvgDocLen: avg}
	dfs := make(map[string]uint64, len(order))
	for _, t := range order {
		var df uint64
		for _, s := range segs {
			df += uint64(s.Text.DocFreq(t))
		}
		dfs[t] = df
		idf := invindex.BM25IDF(max(n, 1), df)
		if df == 0 {
			idf = invindex.BM25IDF(max(n, 1), 0)
		}
		w := idf * float32(counts[t])
		qt.terms = append(qt.terms, invindex.QueryTerm{Term: t, Weight: w})
		qt.weights[t] = float64(idf)
		qt.max += float64(w) * float64(rk.K1+1)
	}
	// An identifier's terms are terms of the query (same analyzer).
	qt.ids = rareIdentifiers(qt.ids, len(order), n, func(t string) uint64 { return dfs[t] })
	return qt
}

func (e *Engine) retrieveCollection(p *plan, c *collection, qvec []float32) ([]*hit, error) {
	segs := c.snapshot()
	rk := e.opts.Ranker
	// One more than the page reaches, to know whether a next page exists.
	cand := max(rk.Candidates, p.offset+p.max+1)
	byDoc := map[docKey]*hit{}
	get := func(s *segment.Segment, local uint32) *hit {
		k := docKey{s, local}
		h := byDoc[k]
		if h == nil {
			h = &hit{c: c, seg: s, local: local, docID: s.Docs[local]}
			byDoc[k] = h
		}
		return h
	}
	// Allowed documents per segment: filter result minus deletes.
	allow := make([]*roaring.Bitmap, len(segs))
	for i, s := range segs {
		if p.flt == nil {
			continue
		}
		bm := roaring.New()
		if err := filter.Eval(p.flt, s.Fields, bm); err != nil {
			return nil, kindError(ErrInvalid, err, "filter")
		}
		bm.AndNot(s.Deleted)
		allow[i] = bm
	}
	if p.query == "" {
		// Filter only: every matching document, in id order, score 1.
		var out []*hit
		for i, s := range segs {
			it := allow[i].Iterator()
			for it.HasNext() {
				h := get(s, it.Next())
				h.score, h.key, h.byKey = 1, 1, true
				out = append(out, h)
			}
		}
		sort.Slice(out, func(i, j int) bool { return out[i].docID < out[j].docID })
		return out, nil
	}
	qt := e.queryTermsFor(p, c)
	cfg := c.config()
	keywordOn := cfg.FulltextConfig.On() || qvec == nil
	var buf []invindex.Hit
	if keywordOn && len(qt.terms) > 0 && qt.max > 0 {
		for i, s := range segs {
			buf = s.Text.Search(qt.terms, qt.bm25, cand, allow[i], s.Deleted, 0, buf[:0])
			for _, kh := range buf {
				h := get(s, kh.Doc)
				h.key = rk.keywordScore(float64(kh.Score) / qt.max)
				h.byKey = true
			}
		}
	}
	if qvec != nil {
		for i, s := range segs {
			if s.Vectors == nil {
				continue
			}
			for _, ch := range e.searchVectors(s, qvec, cand*3, allow[i]) {
				ref := s.Chunks[ch.id]
				h := get(s, ref.Doc)
				h.bySem = true
				h.bestCh = append(h.bestCh, ch)
			}
		}
	}
	if keywordOn && len(qt.ids) > 0 {
		e.markExact(segs, allow, qt, byDoc, get, qvec != nil, cand)
	}
	out := make([]*hit, 0, len(byDoc))
	for _, h := range byDoc {
		out = append(out, h)
	}
	// Complete the evidence of documents found by only one retriever, so
	// every candidate is scored on both.
	if qvec != nil {
		for _, h := range out {
			if !h.bySem && h.seg.Vectors != nil {
				h.bestCh = e.docChunks(h.seg, h.local, qvec)
			}
		}
		if keywordOn && len(qt.terms) > 0 && qt.max > 0 {
			e.completeKeyword(out, qt)
		}
	}
	for _, h := range out {
		if len(h.bestCh) > 0 {
			slices.SortFunc(h.bestCh, func(a, b chunkHit) int {
				if a.cos != b.cos {
					if a.cos > b.cos {
						return -1
					}
					return 1
				}
				return int(a.id) - int(b.id)
			})
			h.sem = rk.semanticScore(h.bestCh[0].cos)
		}
		h.score = rk.fuse(h.key, h.sem, keywordOn, qvec != nil)
		h.score = round6(h.score)
		h.byKey = h.byKey || h.exact
	}
	return out, nil
}

// markExact marks the candidates that hold every identifier of the query.
// In hybrid search it also adds such documents that neither retriever
// found, when there are at most cand of them in a segment: an identifier
// the embedding model cannot represent must not depend on the semantic
// candidates.
func (e *Engine) markExact(segs []*segment.Segment, allow []*roaring.Bitmap, qt queryTerms, byDoc map[docKey]*hit,
	get func(*segment.Segment, uint32) *hit, add bool, cand int) {
	for i, s := range segs {
		ex := exactDocs(s.Text, qt.ids)
		if allow[i] != nil {
			ex.And(allow[i])
		} else {
			ex.AndNot(s.Deleted)
		}
		add := add && ex.GetCardinality() <= uint64(cand)
		it := ex.Iterator()
		for it.HasNext() {
			local := it.Next()
			if h := byDoc[docKey{s, local}]; h != nil {
				h.exact = true
			} else if add {
				get(s, local).exact = true
			}
		}
	}
}

// docKey identifies a document of a segment during a search.
type docKey struct {
	seg   *segment.Segment
	local uint32
}

// completeKeyword computes the BM25 score of semantic-only candidates.
func (e *Engine) completeKeyword(hs []*hit, qt queryTerms) {
	bySeg := map[*segment.Segment]*roaring.Bitmap{}
	byDoc := map[docKey]*hit{}
	for _, h := range hs {
		if h.byKey {
			continue
		}
		if bySeg[h.seg] == nil {
			bySeg[h.seg] = roaring.New()
		}
		bySeg[h.seg].Add(h.local)
		byDoc[docKey{h.seg, h.local}] = h
	}
	rk := e.opts.Ranker
	for s, bm := range bySeg {
		for _, r := range s.Text.Search(qt.terms, qt.bm25, int(bm.GetCardinality()), bm, s.Deleted, 0, nil) {
			byDoc[docKey{s, r.Doc}].key = rk.keywordScore(float64(r.Score) / qt.max)
		}
	}
}

// loadHits loads the hits' documents and cuts their passages. A document
// deleted since the search took its snapshot is dropped, not returned
// empty.
func (e *Engine) loadHits(p *plan, hits []*hit) ([]*hit, error) {
	keep := hits[:0]
	for _, h := range hits {
		d, err := e.loadDoc(h.c, h.docID)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		h.doc = &d
		if p.highlight && p.query != "" {
			h.passages = e.passages(p, h)
		}
		keep = append(keep, h)
	}
	return keep, nil
}

// passages merges keyword passages and the best semantic chunks.
func (e *Engine) passages(p *plan, h *hit) []Passage {
	secs := make([]string, len(h.doc.Sections))
	for i, s := range h.doc.Sections {
		if p.fields != nil && !p.fields[s.Type] {
			continue // passages only point to returned sections
		}
		secs[i] = s.Content
	}
	qt := e.queryTermsFor(p, h.c)
	var out []Passage
	for _, ps := range text.Passages(qt.an, qt.weights, secs, text.PassageOptions{MaxPassages: defaultPassages}) {
		out = append(out, Passage{Text: ps.Text, Offsets: [2]int{ps.Start, ps.End}, SectionIndex: ps.Section, Score: round6(ps.Score)})
	}
	rk := e.opts.Ranker
	for i, ch := range h.bestCh {
		if i >= defaultPassages {
			break
		}
		ref := h.seg.Chunks[ch.id]
		sec := int(ref.Section)
		if sec >= len(secs) || secs[sec] == "" {
			continue
		}
		runes := []rune(secs[sec])
		st, en := int(ref.Start), int(ref.End)
		if en > len(runes) || st >= en {
			continue
		}
		score := rk.semanticScore(ch.cos)
		if score <= 0 {
			continue
		}
		out = append(out, Passage{Text: string(runes[st:en]), Offsets: [2]int{st, en}, SectionIndex: sec, Score: round6(score)})
	}
	slices.SortStableFunc(out, func(a, b Passage) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return a.SectionIndex*1e6 + a.Offsets[0] - (b.SectionIndex*1e6 + b.Offsets[0])
	})
	// Drop passages overlapping a better one.
	keep := out[:0]
	for _, ps := range out {
		overlap := false
		for _, k := range keep {
			if k.SectionIndex == ps.SectionIndex && ps.Offsets[0] < k.Offsets[1] && k.Offsets[0] < ps.Offsets[1] {
				overlap = true
				break
			}
		}
		if !overlap {
			keep = append(keep, ps)
		}
		if len(keep) == defaultPassages {
			break
		}
	}
	return keep
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// render shapes a hit for the response.
func (e *Engine) render(p *plan, h *hit) ResultDoc {
	rd := ResultDoc{DocumentID: h.docID, Score: h.score, Source: source(h)}
	if len(p.colls) > 1 {
		rd.CollectionID = h.c.id
	}
	var inc func(string) bool
	if p.fields != nil {
		inc = func(n string) bool { return p.fields[n] }
	}
	if p.full {
		limit := min(MaxReturnedContentBytes, MaxResponseContentBytes-p.returned)
		if p.sections {
			rd.Sections = []ingest.Section{}
			for _, s := range h.doc.Sections {
				if inc == nil || inc(s.Type) {
					if len(s.Content) > limit {
						// Cut here; the sections after it are left out.
						s.Content, rd.Truncated = cutUTF8(s.Content, limit), true
						p.returned += len(s.Content)
						rd.Sections = append(rd.Sections, s)
						break
					}
					limit -= len(s.Content)
					p.returned += len(s.Content)
					rd.Sections = append(rd.Sections, s)
				}
			}
		} else {
			c := h.doc.Content(inc)
			if len(c) > limit {
				c, rd.Truncated = cutUTF8(c, limit), true
			}
			p.returned += len(c)
			rd.Content = &c
		}
		rd.Fields = FieldsMap(h.doc.Fields, inc)
	}
	if p.highlight && p.query != "" {
		rd.Passages = h.passages
		if rd.Passages == nil {
			rd.Passages = []Passage{}
		}
		if p.sections && inc != nil {
			// section_index refers to the returned sections.
			idx := map[int]int{}
			n := 0
			for i, s := range h.doc.Sections {
				if inc(s.Type) {
					idx[i] = n
					n++
				}
			}
			for i := range rd.Passages {
				rd.Passages[i].SectionIndex = idx[rd.Passages[i].SectionIndex]
			}
		}
	}
	return rd
}

// cutUTF8 returns the longest prefix of s of at most n bytes that ends at
// a character boundary.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func source(h *hit) string {
	switch {
	case h.byKey && h.bySem:
		return "sem-key"
	case h.bySem:
		return "sem"
	}
	return "key"
}
