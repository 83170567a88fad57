package engine

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/text"
	"github.com/najdi/najdi/vector"
)

// retrieve finds, scores and sorts the top documents: the same steps on
// every backend (candidates), then reranking and the page. The query is
// embedded concurrently with the keyword side of the search (the filter,
// weighing, BM25): the semantic stage waits for the vector, so a model run
// hides the keyword retrieval instead of preceding it.
func (e *Engine) retrieve(ctx context.Context, p *plan) ([]*hit, error) {
	if err := e.restoreQuery(p); err != nil {
		return nil, err
	}
	qv, err := e.startQueryVector(ctx, p)
	if err != nil {
		return nil, err
	}
	all, err := e.candidates(p, qv)
	// The embedding always ends before retrieve returns (no goroutine
	// outlives the request), and its error comes first, as when the query
	// was embedded before anything else.
	if _, verr := qv.wait(); verr != nil {
		return nil, verr
	}
	if err != nil {
		return nil, err
	}
	if err := e.rerank(ctx, p, all); err != nil {
		return nil, err
	}
	return p.page(all), nil
}

// queryVec is the query vector of a search, possibly still being embedded.
// A nil *queryVec is a keyword-only search (no vector).
type queryVec struct {
	done chan struct{} // closed when vec and err are set; nil when set at start
	vec  []float32
	err  error
	at   time.Time // when vec and err were set (with done)
}

// wait returns the query vector once it is embedded (nil for a keyword-only
// search).
func (q *queryVec) wait() ([]float32, error) {
	if q == nil {
		return nil, nil
	}
	if q.done != nil {
		<-q.done
	}
	return q.vec, q.err
}

// waitTimed is wait that adds the time the search waited for an
// embedding in flight to p.tm.embed: the latency the embedding added to
// the search, net of the retrieval it hid.
func (q *queryVec) waitTimed(p *plan) ([]float32, error) {
	if q == nil || q.done == nil {
		return q.wait()
	}
	t := time.Now()
	v, err := q.wait()
	p.tm.embed += time.Since(t)
	return v, err
}

// startQueryVector checks the semantic side of the search and starts
// embedding the query (queryVector) unless its vector is cached. It returns
// nil when the search is keyword only. The embedding goroutine ends on its
// own (the embedder honours ctx); callers wait for it before returning.
func (e *Engine) startQueryVector(ctx context.Context, p *plan) (*queryVec, error) {
	emb, key, err := e.queryEmbedder(p)
	if err != nil || emb == nil {
		return nil, err
	}
	if v, ok := e.cachedQueryEmbedding(p, key); ok {
		return &queryVec{vec: v}, nil
	}
	q := &queryVec{done: make(chan struct{})}
	go func() {
		defer close(q.done)
		q.vec, q.err = e.queryEmbedding(ctx, p, emb, key)
		q.at = time.Now()
	}()
	return q, nil
}

// candidates finds the candidates of the searched collections, in stage
// order, through the backend's searcher: per group of collections
// analyzed alike, the query terms weighed by the backend's keyword
// statistics, keyword candidates (BM25 top-k), semantic
// candidates (the nearest chunks), exact identifier matches, then the
// evidence of the retriever that missed a candidate. It returns them
// scored (rank.go).
func (e *Engine) candidates(p *plan, qv *queryVec) ([]*hit, error) {
	s, err := e.be.search(p)
	if err != nil {
		return nil, err
	}
	if p.query == "" {
		return s.filterOnly()
	}
	rk := e.opts.Ranker
	// Enough candidates for the page; on the first page exactly as many as
	// without paging, so rankings do not change.
	cand := max(rk.Candidates, p.offset+p.max)
	var all []*hit
	semantic := qv != nil
	grps := p.groups(semantic)
	pager, _ := s.(keywordPager)
	end := p.offset + p.max
	paged := pager != nil && p.keywordPaged(semantic, len(grps)) && end+1 < cand
	for _, g := range grps {
		qt, err := s.weigh(g, cand)
		if err != nil {
			return nil, err
		}
		g.qt = qt
		keyword := len(qt.terms) > 0 && qt.max > 0
		if hr, ok := s.(hybridRetriever); ok && concurrentHybrid && semantic && keyword && g.anyKeyword() {
			hs, err := hr.hybrid(g, qt, qv, cand)
			if err != nil {
				return nil, err
			}
			p.timeFuse(func() {
				for i, h := range hs {
					rk.scoreHits(hs[i:i+1], g.keywordOn(h.c), semantic)
				}
			})
			all = append(all, hs...)
			continue
		}
		if keyword && g.anyKeyword() {
			exact := false
			if paged && len(qt.ids) == 0 {
				// The page's matches first, end+1; equal scores across
				// the page's edge (texts alike in their matches and
				// length, duplicates) leave it unproven, and twice or
				// four times as many matches pass them at a fraction of
				// the full candidates' cost.
				for k := end + 1; !exact && (k == end+1 || k <= cand/2); k *= 2 {
					exact = pager.keywordTop(g, qt, k, end)
					if keywordTopHook != nil {
						keywordTopHook(k, exact)
					}
				}
			}
			if !exact {
				if err := s.keyword(g, qt, cand); err != nil {
					return nil, err
				}
			}
		}
		// The semantic stage needs the vector: here the keyword side is
		// done and the search waits for the embedding.
		qvec, err := qv.waitTimed(p)
		if err != nil {
			return nil, err
		}
		if semantic {
			if err := s.semantic(g, qvec, cand); err != nil {
				return nil, err
			}
		}
		if len(qt.ids) > 0 && g.anyKeyword() {
			if err := s.exact(g, qt.ids, semantic, cand); err != nil {
				return nil, err
			}
		}
		hs := s.hits(g)
		if semantic {
			if err := s.complete(g, hs, qt, qvec, keyword && g.anyKeyword()); err != nil {
				return nil, err
			}
		}
		p.timeFuse(func() {
			for i, h := range hs {
				rk.scoreHits(hs[i:i+1], g.keywordOn(h.c), semantic)
			}
		})
		all = append(all, hs...)
	}
	return all, nil
}

// keywordPager is a searcher that can fetch the keyword candidates of a
// page rather than of fusion (the embedded store).
type keywordPager interface {
	// keywordTop adds the k best BM25 matches of each searched part (a
	// segment) of the group's keyword collections, as keyword does with
	// k = cand, and reports whether they hold the first end documents of
	// the ranking keyword would give, for certain: every document it did
	// not fetch scores at most the lowest score of a part that returned k
	// matches (bound), so the page is exact when at least end fetched
	// documents score above every such bound. When it reports false
	// (equal scores across the page's edge) the caller asks again with
	// k twice and four times end+1, each call over the hits of the one
	// before, and then adds the full keyword candidates (keyword). On
	// 300 SciFact queries over 1M chunks, 99 pages were unproven at
	// k = 11 and every one of them was proven at k = 22.
	keywordTop(g *group, qt queryTerms, k, end int) bool
}

// keywordTopHook, when set (tests), sees each keywordTop call's k and
// whether it proved the page.
var keywordTopHook func(k int, exact bool)

// keywordPaging turns keywordPaged on (tests compare both ways).
var keywordPaging = true

// keywordPaged tells whether a search may fetch the keyword candidates of
// its page only (keywordPager) instead of Ranker.Candidates: the keyword
// retriever ranks alone (no query vector), in one group of collections,
// with no min_score (whose below_min_score counts the candidates below
// it) and no reranking (which reorders a top-k of its own). The ranking
// of such a search is its documents' calibrated BM25 scores, a monotone
// function of BM25, so the best BM25 matches of each segment hold its
// page; only the exact-identifier tier (qt.ids, checked by the caller)
// could lift a document from further down. Fetching the page's top-k
// instead of 100 lets block-max WAND skip most postings: the threshold a
// top-11 heap reaches is far higher than a top-100's.
func (p *plan) keywordPaged(semantic bool, groups int) bool {
	return keywordPaging && !semantic && groups == 1 && !p.minSet && p.rerankK == 0
}

// group is collections a search analyzes alike (their analyzers have the
// query's language), so that one weighing and one request per retriever
// serve them all. A single-collection search makes one group without
// allocating its lists.
type group struct {
	colls []*collection
	// keyOn[i] tells whether keyword retrieval runs on colls[i]: its
	// fulltext is on, or the search is keyword-only (no query vector).
	keyOn []bool
	lang  text.Language
	an    *text.Analyzer
	// order holds the distinct query terms in query order, counts their
	// occurrences.
	order  []string
	counts map[string]int
	// qt are the weighed query terms (set by candidates).
	qt queryTerms

	collsBuf [1]*collection
	keyOnBuf [1]bool
}

// keywordOn tells whether keyword retrieval runs on c, a collection of g.
func (g *group) keywordOn(c *collection) bool {
	for i, x := range g.colls {
		if x == c {
			return g.keyOn[i]
		}
	}
	return false
}

// anyKeyword tells whether keyword retrieval runs on a collection of g.
func (g *group) anyKeyword() bool {
	for _, on := range g.keyOn {
		if on {
			return true
		}
	}
	return false
}

// needsChunks tells whether complete must score a candidate's chunks:
// semantic search did not find it.
func needsChunks(h *hit) bool { return !h.bySem }

// needsKeyword tells whether complete must score a candidate by BM25 (when
// keyword search ran): keyword search did not find it, and keyword
// retrieval runs on its collection.
func (g *group) needsKeyword(h *hit) bool { return !h.byKey && g.keywordOn(h.c) }

// groups splits the searched collections into groups by the language of
// their query analyzer, analyzing the query once per group; p.grps keeps
// them. semantic tells whether the search has a query vector.
func (p *plan) groups(semantic bool) []*group {
	out := p.groupsBuf[:0]
	for _, c := range p.colls {
		cfg := c.config()
		lang := queryLanguage(cfg.SearchConfig.Language, p.query)
		var g *group
		for _, o := range out {
			if o.lang == lang {
				g = o
				break
			}
		}
		if g == nil {
			if len(out) == 0 {
				g = &p.group0
			} else {
				g = &group{}
			}
			g.colls, g.keyOn = g.collsBuf[:0], g.keyOnBuf[:0]
			g.lang, g.an = lang, text.NewAnalyzer(lang)
			g.counts = map[string]int{}
			g.an.Analyze(p.query, func(t text.Token) {
				if g.counts[t.Term] == 0 {
					g.order = append(g.order, t.Term)
				}
				g.counts[t.Term]++
			})
			out = append(out, g)
		}
		g.colls = append(g.colls, c)
		g.keyOn = append(g.keyOn, (cfg.FulltextConfig.On() && p.req.Retrievers != RetrieveSemantic) || !semantic)
	}
	p.grps = out
	return out
}

// page ranks the candidates, cuts them at min_score and returns the
// requested page.
func (p *plan) page(all []*hit) []*hit {
	end := p.offset + p.max
	p.timeFuse(func() {
		tier(all)
		keep := all[:0]
		for _, h := range all {
			if h.score > p.minScore || (p.minSet && h.score == p.minScore) {
				keep = append(keep, h)
			}
		}
		p.cut = len(all) - len(keep)
		all = keep
		// Only the page and the one document after it (next_offset) need
		// their ranks.
		rankTop(all, end+1)
	})
	if len(all) > end && end < MaxResultWindow {
		p.next = &end
	}
	return all[min(p.offset, len(all)):min(end, len(all))]
}

// pageMetadata reports the relevance cut-off and paging in md.
func (p *plan) pageMetadata(md *Metadata) {
	md.BelowMinScore = p.cut
	md.NextOffset = p.next
}

// queryEmbedder returns the embedder of the query and its embedding method
// key (EmbeddingConfig.Key) when the collections search semantically, nil
// when the search is keyword only. Collections searched together must
// share their embedding model, so that their semantic scores are
// comparable.
func (e *Engine) queryEmbedder(p *plan) (Embedder, string, error) {
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
				return nil, "", invalidField("collections", "collections %q and %q use different embedding models (%q, %q): their semantic scores are not comparable; search them separately", p.colls[0].id, c.id, semKey, ec.Key())
			}
		}
	}
	if !useSem || p.req.Retrievers == RetrieveKeyword {
		return nil, "", nil
	}
	emb, err := e.embedder(p.colls[0].config().EmbeddingConfig)
	if err != nil || emb == nil {
		return nil, "", err
	}
	return emb, semKey, nil
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
	// refs locate the chunks of bestCh (chunkHit.id indexes it) when the
	// hit comes from a Backend (seg is nil).
	refs []segment.ChunkRef
}

type chunkHit struct {
	id  uint32
	cos float64
}

// queryTerms are the analyzed query terms of a group of collections with
// their BM25 weights from the statistics of the searched collections.
type queryTerms struct {
	terms   []invindex.QueryTerm
	weights map[string]float64 // term → idf, for passages (set by queryTermsFor)
	idf     []float64          // idf of terms[i]
	max     float64            // maximum attainable BM25 score
	bm25    invindex.BM25
	an      *text.Analyzer
	ids     [][]string     // terms of the query's identifier-like tokens
	counts  map[string]int // occurrences of each term in the query
}

func dot(a, b []float32) float32 { return vector.DotFloat32(a, b) }

// queryTermsFor returns the weighed query terms of a searched collection
// (set by candidates).
func (e *Engine) queryTermsFor(p *plan, c *collection) queryTerms {
	for _, g := range p.grps {
		if slices.Contains(g.colls, c) {
			if g.qt.weights == nil {
				// Only passages read the map: built on first use, not by
				// every search.
				g.qt.weights = make(map[string]float64, len(g.qt.terms))
				for i, t := range g.qt.terms {
					g.qt.weights[t.Term] = g.qt.idf[i]
				}
			}
			return g.qt
		}
	}
	return queryTerms{}
}

// weighQuery weighs the analyzed query terms (order: distinct terms in
// query order, counts: occurrences) by BM25 idf over the statistics of the
// searched collections: n documents of average length avg, document
// frequencies df.
func weighQuery(rk RankerConfig, an *text.Analyzer, q string, order []string, counts map[string]int, n uint64, avg float64, df func(string) uint64) queryTerms {
	qt := queryTerms{an: an, ids: identifierTerms(an, q), counts: counts}
	if n == 0 {
		avg = 1
	}
	qt.bm25 = invindex.BM25{K1: rk.K1, B: rk.B, AvgDocLen: float32(avg)}
	qt.terms = make([]invindex.QueryTerm, 0, len(order))
	qt.idf = make([]float64, 0, len(order))
	dfs := make([]uint64, len(order)) // of order's terms
	for i, t := range order {
		d := df(t)
		dfs[i] = d
		idf := invindex.BM25IDF(max(n, 1), d)
		if d == 0 {
			idf = invindex.BM25IDF(max(n, 1), 0)
		}
		w := idf * float32(counts[t])
		qt.terms = append(qt.terms, invindex.QueryTerm{Term: t, Weight: w})
		qt.idf = append(qt.idf, float64(idf))
		qt.max += float64(w) * float64(rk.K1+1)
	}
	// An identifier's terms are terms of the query (same analyzer).
	qt.ids = rareIdentifiers(qt.ids, len(order), n, func(t string) uint64 {
		if i := slices.Index(order, t); i >= 0 {
			return dfs[i]
		}
		return 0 // as the map it replaced answered
	})
	return qt
}

// identifierTerms returns, for each identifier-like token of the query,
// the analyzed terms it consists of. A token (a run of non-space
// characters, trimmed of surrounding punctuation) is identifier-like when
// it mixes letters and digits: BRCA1, ZX-48213, COVID-19, v2.3.1, ISO3166.
// Such tokens name things exactly, and the embedding models know nothing
// of them, so documents holding every one of them rank first (see tier).
func identifierTerms(an *text.Analyzer, q string) [][]string {
	var out [][]string
	for tok := range strings.FieldsSeq(q) {
		tok = strings.TrimFunc(tok, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		letters, digits := false, false
		for _, r := range tok {
			letters = letters || unicode.IsLetter(r)
			digits = digits || unicode.IsDigit(r)
		}
		if !letters || !digits {
			continue
		}
		var terms []string
		an.Analyze(tok, func(t text.Token) {
			if !slices.Contains(terms, t.Term) {
				terms = append(terms, t.Term)
			}
		})
		if len(terms) > 0 {
			out = append(out, terms)
		}
	}
	return out
}

// rareIdentifiers keeps the identifiers of a query of nterms distinct
// terms that decide its ranking: identifiers rare in the corpus of n
// documents (one of their terms is in at most max(rareMinDocs,
// n/rareShare) documents), in a query that is mostly about them (their
// terms are at least a third of the query's). A unique code names one
// thing, and its exact matches belong first; a frequent one (a gene name
// throughout a biomedical corpus), or one in a long sentence about
// something else, is ranked by the fused score like any other word.
func rareIdentifiers(ids [][]string, nterms int, n uint64, df func(term string) uint64) [][]string {
	limit := max(rareMinDocs, n/rareShare)
	var out [][]string
	idTerms := 0
	for _, terms := range ids {
		if slices.ContainsFunc(terms, func(t string) bool { return df(t) <= limit }) {
			out = append(out, terms)
			idTerms += len(terms)
		}
	}
	if 3*idTerms < nterms {
		return nil
	}
	return out
}

// The rareness bound of rareIdentifiers.
const (
	rareMinDocs = 3
	rareShare   = 1000
)

// keywordTop implements keywordPager on the embedded store: per segment of
// the group's keyword collections the k best BM25 matches (see
// keywordCandidates), then the check that the fetched documents hold the
// first end of the ranking.
func (s *localSearch) keywordTop(g *group, qt queryTerms, k, end int) bool {
	rk := s.e.opts.Ranker
	bound, capped := 0.0, false
	buf := s.hitBuf[:0]
	for j, c := range g.colls {
		if !g.keyOn[j] {
			continue
		}
		i := s.of(c)
		for si, seg := range s.segs[i] {
			buf = seg.Text.Search(qt.terms, qt.bm25, k, s.allow[i][si], seg.Deleted, 0, buf[:0])
			low := math.Inf(1)
			for _, kh := range buf {
				h := s.cs.get(c, seg, kh.Doc)
				h.key = rk.keywordScore(float64(kh.Score) / qt.max)
				h.byKey = true
				low = min(low, h.key)
			}
			if len(buf) >= k {
				// The documents it did not return score at most low;
				// compared as ranked (scoreHits rounds the fused score,
				// which is the keyword score without a query vector).
				if r := round6(low); !capped || r > bound {
					bound, capped = r, true
				}
			}
		}
	}
	s.hitBuf = buf
	if !capped {
		return true // every match of every segment was fetched
	}
	above := 0
	for _, h := range s.cs.m {
		if round6(h.key) > bound {
			above++
		}
	}
	return above >= end
}
