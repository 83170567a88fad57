package engine

import (
	"context"
	"slices"
	"sort"
	"strings"
	"unicode"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/filter"
	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/text"
	"github.com/najdi/najdi/vector"
)

// retrieve finds, scores and sorts the top documents.
func (e *Engine) retrieve(ctx context.Context, p *plan) ([]*hit, error) {
	if err := e.restoreQuery(p); err != nil {
		return nil, err
	}
	qvec, err := e.queryVector(ctx, p)
	if err != nil {
		return nil, err
	}
	if e.remote() {
		all, err := e.retrieveRemote(ctx, p, qvec)
		if err != nil {
			return nil, err
		}
		if err := e.rerank(ctx, p, all); err != nil {
			return nil, err
		}
		return p.page(all), nil
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
	if err := e.rerank(ctx, p, all); err != nil {
		return nil, err
	}
	return p.page(all), nil
}

// page ranks the candidates, cuts them at min_score and returns the
// requested page.
func (p *plan) page(all []*hit) []*hit {
	p.timeFuse(func() { rankHits(all) })
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
	return all[min(p.offset, len(all)):min(end, len(all))]
}

// pageMetadata reports the relevance cut-off and paging in md.
func (p *plan) pageMetadata(md *Metadata) {
	md.BelowMinScore = p.cut
	md.NextOffset = p.next
}

// queryVector embeds the query when the collections search semantically.
// Collections searched together must share their embedding model, so that
// their semantic scores are comparable; nil means keyword only.
func (e *Engine) queryVector(ctx context.Context, p *plan) ([]float32, error) {
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
	if !useSem {
		return nil, nil
	}
	emb, err := e.embedder(p.colls[0].config().EmbeddingConfig)
	if err != nil {
		return nil, err
	}
	return e.queryEmbedding(ctx, p, emb, semKey)
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

// docKey identifies a document of a segment during a search.
type docKey struct {
	seg   *segment.Segment
	local uint32
}

// retrieveCollection finds the candidates of one collection, in stage
// order: the allowed documents, keyword candidates, semantic candidates,
// exact identifier matches, then the evidence of the retriever that missed
// a candidate. It returns them scored (rank.go), without those scoring 0.
func (e *Engine) retrieveCollection(p *plan, c *collection, qvec []float32) ([]*hit, error) {
	segs := c.snapshot()
	allow := make([]*roaring.Bitmap, len(segs))
	if err := allowed(p.flt, segs, allow); err != nil {
		return nil, err
	}
	cs := newCandidates()
	if p.query == "" {
		return cs.filterOnly(c, segs, allow), nil
	}
	rk := e.opts.Ranker
	// Enough candidates for the page; on the first page exactly as many as
	// without paging, so rankings do not change.
	cand := max(rk.Candidates, p.offset+p.max)
	qt := e.queryTermsFor(p, c)
	keywordOn := c.config().FulltextConfig.On() || qvec == nil
	keyword := keywordOn && len(qt.terms) > 0 && qt.max > 0
	if keyword {
		e.keywordCandidates(cs, segs, allow, qt, cand)
	}
	if qvec != nil {
		e.semanticCandidates(cs, segs, allow, qvec, cand)
	}
	if keywordOn && len(qt.ids) > 0 {
		e.markExact(cs, segs, allow, qt, qvec != nil, cand)
	}
	out := cs.list(c)
	if qvec != nil {
		e.complete(out, qt, qvec, keyword)
	}
	p.timeFuse(func() { rk.scoreHits(out, keywordOn, qvec != nil) })
	return out, nil
}

// candidates collects the candidate documents of one collection, one hit
// per document of a segment; list and filterOnly set each hit's
// collection. Hits are allocated in slabs (candidateSet), not one by one.
type candidates = *candidateSet

// candidateSet holds the candidates by document and the slab their hits
// are cut from: a full slab is replaced, never grown, so hits keep their
// addresses.
type candidateSet struct {
	m    map[docKey]*hit
	slab []hit
}

// hitSlab is the number of hits allocated at once: a search of 100
// candidates makes 2 allocations instead of 100, and wastes at most
// hitSlab-1 hits.
const hitSlab = 64

// newCandidates returns an empty set.
func newCandidates() candidates { return &candidateSet{m: make(map[docKey]*hit, 64)} }

// get returns the hit of a document, added on first sight.
func (cs *candidateSet) get(s *segment.Segment, local uint32) *hit {
	k := docKey{s, local}
	h := cs.m[k]
	if h == nil {
		if len(cs.slab) == cap(cs.slab) {
			cs.slab = make([]hit, 0, hitSlab)
		}
		cs.slab = append(cs.slab, hit{seg: s, local: local, docID: s.Docs[local]})
		h = &cs.slab[len(cs.slab)-1]
		cs.m[k] = h
	}
	return h
}

// list returns the candidates of collection c in no particular order.
func (cs *candidateSet) list(c *collection) []*hit {
	out := make([]*hit, 0, len(cs.m))
	for _, h := range cs.m {
		h.c = c
		out = append(out, h)
	}
	return out
}

// allowed sets allow[i] to the documents segment i may return: the
// filter's matches minus deletes; nil (every live document) without a
// filter.
func allowed(flt filter.Query, segs []*segment.Segment, allow []*roaring.Bitmap) error {
	for i, s := range segs {
		if flt == nil {
			continue
		}
		bm := roaring.New()
		if err := filter.Eval(flt, s.Fields, bm); err != nil {
			return kindError(ErrInvalid, err, "filter")
		}
		bm.AndNot(s.Deleted)
		allow[i] = bm
	}
	return nil
}

// filterOnly returns every allowed document, in id order, with score 1:
// the result of a search with a filter and no query.
func (cs *candidateSet) filterOnly(c *collection, segs []*segment.Segment, allow []*roaring.Bitmap) []*hit {
	var out []*hit
	for i, s := range segs {
		it := allow[i].Iterator()
		for it.HasNext() {
			h := cs.get(s, it.Next())
			h.c = c
			h.score, h.key, h.byKey = 1, 1, true
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].docID < out[j].docID })
	return out
}

// keywordCandidates adds the cand best BM25 matches of each segment with
// their calibrated keyword scores.
func (e *Engine) keywordCandidates(cs candidates, segs []*segment.Segment, allow []*roaring.Bitmap, qt queryTerms, cand int) {
	rk := e.opts.Ranker
	var buf []invindex.Hit
	for i, s := range segs {
		buf = s.Text.Search(qt.terms, qt.bm25, cand, allow[i], s.Deleted, 0, buf[:0])
		for _, kh := range buf {
			h := cs.get(s, kh.Doc)
			h.key = rk.keywordScore(float64(kh.Score) / qt.max)
			h.byKey = true
		}
	}
}

// semanticCandidates adds the documents of each segment's 3·cand nearest
// chunks, with those chunks as their semantic evidence.
func (e *Engine) semanticCandidates(cs candidates, segs []*segment.Segment, allow []*roaring.Bitmap, qvec []float32, cand int) {
	for i, s := range segs {
		if s.Vectors == nil {
			continue
		}
		for _, ch := range e.searchVectors(s, qvec, cand*3, allow[i]) {
			ref := s.Chunks[ch.id]
			h := cs.get(s, ref.Doc)
			h.bySem = true
			h.bestCh = append(h.bestCh, ch)
		}
	}
}

// complete fills in the evidence of candidates found by only one
// retriever, so that every candidate is scored on both: the chunks of
// keyword-only candidates and, when keyword search runs, the BM25 scores
// of semantic-only ones.
func (e *Engine) complete(hs []*hit, qt queryTerms, qvec []float32, keyword bool) {
	for _, h := range hs {
		if !h.bySem && h.seg.Vectors != nil {
			h.bestCh = e.docChunks(h.seg, h.local, qvec)
		}
	}
	if keyword {
		e.completeKeyword(hs, qt)
	}
}

// queryTerms analyzes the query for a collection and computes BM25 term
// weights from the collection-wide statistics of segs.
type queryTerms struct {
	terms   []invindex.QueryTerm
	weights map[string]float64 // term → idf, for passages
	max     float64            // maximum attainable BM25 score
	bm25    invindex.BM25
	an      *text.Analyzer
	ids     [][]string     // terms of the query's identifier-like tokens
	counts  map[string]int // occurrences of each term in the query
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
	avg := 1.0
	if n > 0 {
		avg = total / float64(n)
	}
	return weighQuery(e.opts.Ranker, an, q, order, counts, n, avg, func(t string) uint64 {
		var df uint64
		for _, s := range segs {
			df += uint64(s.Text.DocFreq(t))
		}
		return df
	})
}

// weighQuery weighs the analyzed query terms (order: distinct terms in
// query order, counts: occurrences) by BM25 idf over the statistics of the
// searched collections: n documents of average length avg, document
// frequencies df.
func weighQuery(rk RankerConfig, an *text.Analyzer, q string, order []string, counts map[string]int, n uint64, avg float64, df func(string) uint64) queryTerms {
	qt := queryTerms{weights: map[string]float64{}, an: an, ids: identifierTerms(an, q), counts: counts}
	if n == 0 {
		avg = 1
	}
	qt.bm25 = invindex.BM25{K1: rk.K1, B: rk.B, AvgDocLen: float32(avg)}
	dfs := make(map[string]uint64, len(order))
	for _, t := range order {
		d := df(t)
		dfs[t] = d
		idf := invindex.BM25IDF(max(n, 1), d)
		if d == 0 {
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

// identifierTerms returns, for each identifier-like token of the query,
// the analyzed terms it consists of. A token (a run of non-space
// characters, trimmed of surrounding punctuation) is identifier-like when
// it mixes letters and digits: BRCA1, ZX-48213, COVID-19, v2.3.1, ISO3166.
// Such tokens name things exactly, and the embedding models know nothing
// of them, so documents holding every one of them rank first (see tier).
func identifierTerms(an *text.Analyzer, q string) [][]string {
	var out [][]string
	for _, tok := range strings.Fields(q) {
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

// searchVectors returns the best chunks of segment s for query q among the
// chunks of allowed, non-deleted documents. The allowed chunk set is built
// from the documents' contiguous chunk ranges, at a cost proportional to
// the allowed (or deleted) documents, not to the chunks.
func (e *Engine) searchVectors(s *segment.Segment, q []float32, k int, allowDocs *roaring.Bitmap) []chunkHit {
	var allow *roaring.Bitmap
	switch {
	case allowDocs != nil:
		allow = roaring.New()
		it := allowDocs.Iterator()
		for it.HasNext() {
			if lo, hi := s.ChunkRange(it.Next()); lo < hi {
				allow.AddRange(uint64(lo), uint64(hi))
			}
		}
	case !s.Deleted.IsEmpty():
		allow = roaring.New()
		allow.AddRange(0, uint64(len(s.Chunks)))
		it := s.Deleted.Iterator()
		for it.HasNext() {
			if lo, hi := s.ChunkRange(it.Next()); lo < hi {
				allow.RemoveRange(uint64(lo), uint64(hi))
			}
		}
	}
	res := s.Vectors.Search(q, k, e.opts.Ranker.NProbe, allow, nil)
	out := make([]chunkHit, len(res))
	for i, r := range res {
		out[i] = chunkHit{id: r.ID, cos: float64(r.Score)}
	}
	return out
}

// docChunks scores every chunk of one document exactly.
func (e *Engine) docChunks(s *segment.Segment, local uint32, q []float32) []chunkHit {
	lo, hi := s.ChunkRange(local)
	out := make([]chunkHit, 0, hi-lo)
	for i := lo; i < hi; i++ {
		out = append(out, chunkHit{id: i, cos: float64(dot(q, s.Vectors.Vector(i)))})
	}
	return out
}

func dot(a, b []float32) float32 { return vector.DotFloat32(a, b) }

// markExact marks the candidates that hold every identifier of the query.
// In hybrid search it also adds such documents that neither retriever
// found, when there are at most cand of them in a segment: an identifier
// the embedding model cannot represent must not depend on the semantic
// candidates.
func (e *Engine) markExact(cs candidates, segs []*segment.Segment, allow []*roaring.Bitmap, qt queryTerms, add bool, cand int) {
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
			if h := cs.m[docKey{s, local}]; h != nil {
				h.exact = true
			} else if add {
				cs.get(s, local).exact = true
			}
		}
	}
}

// exactDocs returns the documents of a text index that hold every term of
// every identifier, nil when there are no identifiers.
func exactDocs(ti *invindex.TextIndex, ids [][]string) *roaring.Bitmap {
	if len(ids) == 0 {
		return nil
	}
	var out *roaring.Bitmap
	for _, terms := range ids {
		for _, t := range terms {
			if bm := ti.TermBitmap(t); out == nil {
				out = bm
			} else {
				out.And(bm)
			}
			if out.IsEmpty() {
				return out
			}
		}
	}
	return out
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
