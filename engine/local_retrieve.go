package engine

import (
	"cmp"
	"math"
	"slices"
	"sort"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/filter"
	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/vector"
)

// This file is the embedded store's retrieval (localSearch, the searcher
// of localBackend): per segment of a snapshot, the filter as a roaring
// bitmap minus deletes, BM25 block-max WAND top-k, IVF vector top-k,
// identifier postings, and exact chunk and BM25 scores for completion.

// localSearch is one search on the embedded store: a snapshot of each
// searched collection's segments (segs[i] of p.colls[i]) and the
// documents each segment may return (allow[i][j], nil: every live one).
type localSearch struct {
	e     *Engine
	p     *plan
	segs  [][]*segment.Segment
	allow [][]*roaring.Bitmap
	cs    candidateSet

	segsBuf  [1][]*segment.Segment
	allowBuf [1][]*roaring.Bitmap
	// hitBuf is reused by keywordTop.
	hitBuf []invindex.Hit
}

// search snapshots the searched collections, after reading their visible
// commit generations (version.go), and evaluates the filter on every
// segment.
func (b *localBackend) search(p *plan) (searcher, error) {
	s := &localSearch{e: b.e, p: p}
	s.segs, s.allow = s.segsBuf[:0], s.allowBuf[:0]
	if len(p.colls) > 1 {
		s.segs = make([][]*segment.Segment, 0, len(p.colls))
		s.allow = make([][]*roaring.Bitmap, 0, len(p.colls))
	}
	p.visible = make(map[*collection]uint64, len(p.colls))
	for _, c := range p.colls {
		p.visible[c] = c.visibleGen() // before the snapshot
		segs := c.snapshot()
		var allow []*roaring.Bitmap
		if p.flt == nil && len(segs) <= len(noFilter) {
			allow = noFilter[:len(segs):len(segs)] // read only
		} else {
			allow = make([]*roaring.Bitmap, len(segs))
			if err := allowed(p.flt, segs, allow); err != nil {
				return nil, err
			}
		}
		s.segs = append(s.segs, segs)
		s.allow = append(s.allow, allow)
	}
	return s, nil
}

// noFilter is the allow list of the segments of a search without a filter
// (every entry nil: every live document), shared read-only by searches
// rather than allocated by each.
var noFilter [64]*roaring.Bitmap

// of returns the position of a searched collection in p.colls.
func (s *localSearch) of(c *collection) int {
	for i, x := range s.p.colls {
		if x == c {
			return i
		}
	}
	panic("engine: collection not searched")
}

func (s *localSearch) filterOnly() ([]*hit, error) {
	if len(s.p.colls) == 1 {
		return s.cs.filterOnly(s.p.colls[0], s.segs[0], s.allow[0]), nil
	}
	var out []*hit
	for i, c := range s.p.colls {
		out = append(out, s.cs.filterOnly(c, s.segs[i], s.allow[i])...)
	}
	return out, nil
}

func (s *localSearch) weigh(g *group, cand int) (queryTerms, error) {
	// The statistics of the group's collections: the documents analyzed
	// in the query's language, as a cluster weighs a group with its
	// indices' statistics (mixed-language searches rank alike on both).
	var n uint64
	var total float64
	for _, c := range g.colls {
		for _, seg := range s.segs[s.of(c)] {
			n += uint64(seg.Text.NumDocs())
			total += seg.Text.TotalLength()
		}
	}
	avg := 1.0
	if n > 0 {
		avg = total / float64(n)
	}
	return weighQuery(s.e.opts.Ranker, g.an, s.p.query, g.order, g.counts, n, avg, func(t string) uint64 {
		var df uint64
		for _, c := range g.colls {
			for _, seg := range s.segs[s.of(c)] {
				df += uint64(seg.Text.DocFreq(t))
			}
		}
		return df
	}), nil
}

func (s *localSearch) keyword(g *group, qt queryTerms, cand int) error {
	for j, c := range g.colls {
		if g.keyOn[j] {
			i := s.of(c)
			s.e.keywordCandidates(&s.cs, c, s.segs[i], s.allow[i], qt, cand)
		}
	}
	return nil
}

func (s *localSearch) semantic(g *group, qvec []float32, cand int) error {
	need := 0
	if !g.anyKeyword() {
		// Vector only: no fusion needs the other candidates.
		need = max(s.p.offset+s.p.max, s.p.rerankK) + 1
	}
	for _, c := range g.colls {
		i := s.of(c)
		if need > 0 {
			s.e.semanticOnly(s.p, &s.cs, c, s.segs[i], s.allow[i], qvec, cand, need)
		} else {
			s.e.semanticCandidates(&s.cs, c, s.segs[i], s.allow[i], qvec, cand)
		}
	}
	return nil
}

func (s *localSearch) exact(g *group, ids [][]string, add bool, cand int) error {
	for j, c := range g.colls {
		if g.keyOn[j] {
			i := s.of(c)
			s.e.markExact(&s.cs, c, s.segs[i], s.allow[i], ids, add, cand)
		}
	}
	return nil
}

func (s *localSearch) hits(g *group) []*hit { return s.cs.list() }

// complete scores every chunk of the candidates semantic search missed
// exactly, and, when keyword search ran, the BM25 score of those it
// missed.
func (s *localSearch) complete(g *group, hs []*hit, qt queryTerms, qvec []float32, keyword bool) error {
	for _, h := range hs {
		if needsChunks(h) && h.seg.Vectors != nil {
			h.bestCh = s.e.docChunksIn(&s.cs, h.seg, h.local, qvec)
		}
	}
	if keyword {
		s.e.completeKeyword(g, hs, qt)
	}
	return nil
}

// docKey identifies a document of a segment during a search.
type docKey struct {
	seg   *segment.Segment
	local uint32
}

// candidateSet holds the candidate documents of one group of a search,
// one hit per document of a segment, by document, and the slab their hits
// are cut from: a full slab is replaced, never grown, so hits keep their
// addresses. Hits are allocated in slabs, not one by one.
type candidateSet struct {
	m    map[docKey]*hit
	slab []hit
	// chunkSlab holds the chunk evidence of docChunks (chunks).
	chunkSlab []chunkHit
	// chunkBuf and vecBuf are reused by searchVectors.
	chunkBuf []uint32
	vecBuf   []vector.Result
}

// chunks returns an empty slice with room for n chunk hits, cut from a
// slab of the set's (replaced when full, never grown, so earlier slices
// stay as they are): completing a hybrid search's keyword candidates
// scores the chunks of about a hundred documents.
func (cs *candidateSet) chunks(n int) []chunkHit {
	if cs == nil || n > chunkSlab/4 {
		return make([]chunkHit, 0, n)
	}
	if cap(cs.chunkSlab)-len(cs.chunkSlab) < n {
		cs.chunkSlab = make([]chunkHit, 0, chunkSlab)
	}
	l := len(cs.chunkSlab)
	cs.chunkSlab = cs.chunkSlab[:l+n]
	return cs.chunkSlab[l : l : l+n]
}

// chunkSlab is the size of the slabs of candidateSet.chunks.
const chunkSlab = 512

// hitSlab is the number of hits allocated at once: a search of 100
// candidates makes 2 allocations instead of 100, and wastes at most
// hitSlab-1 hits.
const hitSlab = 64

// firstHitSlab is the size of a search's first slab of hits: a keyword
// search fetching its page (keywordTop, 11 hits for 10 results) fills
// it without allocating and zeroing room for 64.
const firstHitSlab = 16

// get returns the hit of a document of collection c, added on first
// sight.
func (cs *candidateSet) get(c *collection, s *segment.Segment, local uint32) *hit {
	k := docKey{s, local}
	h := cs.m[k]
	if h == nil {
		if cs.m == nil {
			cs.m = hitMaps.Get().(map[docKey]*hit)
		}
		if len(cs.slab) == cap(cs.slab) {
			n := hitSlab
			if cap(cs.slab) == 0 {
				n = firstHitSlab
			}
			cs.slab = make([]hit, 0, n)
		}
		cs.slab = append(cs.slab, hit{c: c, seg: s, local: local, docID: s.Docs[local]})
		h = &cs.slab[len(cs.slab)-1]
		cs.m[k] = h
	}
	return h
}

// list returns the candidates in no particular order and empties the
// set (the hits keep their addresses).
func (cs *candidateSet) list() []*hit {
	out := make([]*hit, 0, len(cs.m))
	for _, h := range cs.m {
		out = append(out, h)
	}
	if cs.m != nil {
		clear(cs.m)
		hitMaps.Put(cs.m)
		cs.m = nil
	}
	return out
}

// hitMaps recycles the maps of candidate sets (empty, their room kept):
// a hybrid search holds a few hundred candidates, and growing a map to
// that size per search cost rehashing.
var hitMaps = sync.Pool{New: func() any { return make(map[docKey]*hit, 64) }}

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
			h := cs.get(c, s, it.Next())
			h.score, h.key, h.byKey = 1, 1, true
			out = append(out, h)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].docID < out[j].docID })
	return out
}

// keywordCandidates adds the cand best BM25 matches of each segment with
// their calibrated keyword scores.
func (e *Engine) keywordCandidates(cs *candidateSet, c *collection, segs []*segment.Segment, allow []*roaring.Bitmap, qt queryTerms, cand int) {
	rk := e.opts.Ranker
	var buf []invindex.Hit
	for i, s := range segs {
		buf = s.Text.Search(qt.terms, qt.bm25, cand, allow[i], s.Deleted, 0, buf[:0])
		for _, kh := range buf {
			h := cs.get(c, s, kh.Doc)
			h.key = rk.keywordScore(float64(kh.Score) / qt.max)
			h.byKey = true
		}
	}
}

// maxChunksPerCand is the most chunks a semantic search asks a segment
// for per document candidate (semanticK).
const maxChunksPerCand = 3

// minChunksPerCand is the least: 1; maxChunksPerCand restores the former
// 3·cand for every segment (benchmarks compare the two).
var minChunksPerCand = 1

// semanticK returns the number of nearest chunks the semantic retriever
// asks segment s for, so that they hold about cand distinct documents:
// cand times the segment's chunks per document (rounded), at least cand
// and at most maxChunksPerCand·cand. A collection of one-chunk documents
// (records, short passages) asks for cand chunks, which are cand
// documents; documents of three chunks or more ask for 3·cand, as every
// segment did before. For one-chunk documents 3·cand chunks bought
// nothing the page shows (on 100,000 of them, the hybrid top 10 of every
// query was the same: bench/README.md) and cost a search for k above
// vector.KScaleFrom: 1.5× the lists and, on large indexes, a 4-bit
// shortlist twice as long per result.
func semanticK(s *segment.Segment, cand int) int {
	docs := len(s.Docs)
	if docs == 0 {
		return cand
	}
	k := int(math.Round(float64(cand) * float64(len(s.Chunks)) / float64(docs)))
	return min(maxChunksPerCand*cand, max(minChunksPerCand*cand, k))
}

// semanticCandidates adds the documents of each segment's semanticK
// nearest chunks, with those chunks as their semantic evidence.
func (e *Engine) semanticCandidates(cs *candidateSet, c *collection, segs []*segment.Segment, allow []*roaring.Bitmap, qvec []float32, cand int) {
	for i, s := range segs {
		if s.Vectors == nil {
			continue
		}
		// Grouped by document, each document's chunks are its evidence
		// as they lie (scoreHits orders them), without an allocation per
		// document.
		chs := e.searchVectors(cs, s, qvec, semanticK(s, cand), allow[i])
		slices.SortFunc(chs, func(a, b chunkHit) int { return cmp.Compare(s.Chunks[a.id].Doc, s.Chunks[b.id].Doc) })
		for j := 0; j < len(chs); {
			doc := s.Chunks[chs[j].id].Doc
			k := j + 1
			for k < len(chs) && s.Chunks[chs[k].id].Doc == doc {
				k++
			}
			h := cs.get(c, s, doc)
			h.bySem = true
			if len(h.bestCh) == 0 {
				h.bestCh = chs[j:k:k]
			} else {
				h.bestCh = append(h.bestCh, chs[j:k]...)
			}
			j = k
		}
	}
}

// semanticOnly adds the candidates of a search with the semantic
// retriever alone (no keyword retrieval in the group): per segment, the
// documents of the nearest chunks until need documents are found (one
// more than the page, so that next_offset is known, or the documents to
// rerank), each with every chunk scored exactly as its semantic evidence.
//
// Ranked by their best chunk, the first need documents among the k
// nearest chunks are the need best documents, so semantic candidates
// (semanticK chunks, for fusion) are not needed: the search asks for 3·need
// chunks, and 4× more at a time while they hold fewer than need
// documents and the segment has more (a search for a fixed number of
// chunks missed documents when a few long documents held them all). It
// scans the IVF lists a search for semanticK chunks scans (or more for a
// larger k, vector.DefaultProbes), so that the page's recall is the same:
// on 10k and 100k static vectors recall@10 against exact search is
// 0.978 and 0.963 both ways, and the candidates re-scored in float32 drop
// from 4·3·cand to max(64, 4·3·need). A filtered search scales the
// lists by the filter as before.
func (e *Engine) semanticOnly(p *plan, cs *candidateSet, c *collection, segs []*segment.Segment, allow []*roaring.Bitmap, qvec []float32, cand, need int) {
	for i, s := range segs {
		if s.Vectors == nil {
			continue
		}
		chunks := s.AllowedChunks(allow[i], &cs.chunkBuf)
		for k := 3 * need; ; k *= 4 {
			nprobe := e.opts.Ranker.NProbe
			if nprobe == 0 && s.Vectors.NList() > 0 {
				nprobe = vector.DefaultProbes(s.Vectors.Options().NProbe, max(k, semanticK(s, cand)))
			}
			cs.vecBuf = s.Vectors.Search(qvec, k, nprobe, chunks, cs.vecBuf)
			if len(cs.vecBuf) < k || e.enoughDocs(p, s, cs.vecBuf, need) {
				break
			}
		}
		for _, r := range cs.vecBuf {
			local := s.Chunks[r.ID].Doc
			h := cs.get(c, s, local)
			if !h.bySem {
				h.bySem = true
				h.bestCh = e.docChunksIn(cs, s, local, qvec)
			}
		}
	}
}

// enoughDocs tells whether the nearest chunks res (best first) of
// segment s hold the need best documents of the segment, in the order
// search ranks them (score, then document id): at least need documents,
// and every document they miss scores below the need-th (its best chunk
// is not above the last of res) or is cut by min_score. Ties matter:
// cosines at or above the semantic ceiling all score 1, ranked by id.
func (e *Engine) enoughDocs(p *plan, s *segment.Segment, res []vector.Result, need int) bool {
	if len(res) < need {
		return false
	}
	rk := e.opts.Ranker
	score := func(cos float32) float64 { return round6(rk.fuse(0, rk.semanticScore(float64(cos)), false, true)) }
	rest := score(res[len(res)-1].Score) // the most a missed document scores
	if rest < p.minScore || (rest == p.minScore && !p.minSet) {
		return true // every missed document is cut
	}
	seen := make(map[uint32]struct{}, need)
	for _, r := range res {
		d := s.Chunks[r.ID].Doc
		if _, ok := seen[d]; ok {
			continue
		}
		seen[d] = struct{}{}
		if len(seen) == need {
			return rest < score(r.Score)
		}
	}
	return false
}

// searchVectors returns the best chunks of segment s for query q among the
// chunks of allowed, non-deleted documents (segment.AllowedChunks: a cost
// proportional to the allowed or deleted documents, not to the chunks).
func (e *Engine) searchVectors(cs *candidateSet, s *segment.Segment, q []float32, k int, allowDocs *roaring.Bitmap) []chunkHit {
	allow := s.AllowedChunks(allowDocs, &cs.chunkBuf)
	cs.vecBuf = s.Vectors.Search(q, k, e.opts.Ranker.NProbe, allow, cs.vecBuf)
	out := make([]chunkHit, len(cs.vecBuf))
	for i, r := range cs.vecBuf {
		out[i] = chunkHit{id: r.ID, cos: float64(r.Score)}
	}
	return out
}

// docChunks scores every chunk of one document exactly.
func (e *Engine) docChunks(s *segment.Segment, local uint32, q []float32) []chunkHit {
	return e.docChunksIn(nil, s, local, q)
}

// docChunksIn is docChunks with the result cut from cs's slab (cs.chunks;
// nil: allocated).
func (e *Engine) docChunksIn(cs *candidateSet, s *segment.Segment, local uint32, q []float32) []chunkHit {
	lo, hi := s.ChunkRange(local)
	out := cs.chunks(int(hi - lo))
	for i := lo; i < hi; i++ {
		out = append(out, chunkHit{id: i, cos: float64(s.Vectors.Dot(q, i))})
	}
	return out
}

// markExact marks the candidates that hold every identifier of the query.
// In hybrid search it also adds such documents that neither retriever
// found, when there are at most cand of them in a segment: an identifier
// the embedding model cannot represent must not depend on the semantic
// candidates.
func (e *Engine) markExact(cs *candidateSet, c *collection, segs []*segment.Segment, allow []*roaring.Bitmap, ids [][]string, add bool, cand int) {
	for i, s := range segs {
		ex := exactDocs(s.Text, ids)
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
				cs.get(c, s, local).exact = true
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

// completeKeyword computes the BM25 score of the candidates of g that
// need it (needsKeyword).
func (e *Engine) completeKeyword(g *group, hs []*hit, qt queryTerms) {
	// The hits to complete, segment by segment (in order of first
	// appearance), each segment's by document: a search per segment over
	// those documents, its results found back by binary search (maps of
	// a few hundred hits cost more than the scoring).
	var need []*hit
	for _, h := range hs {
		if g.needsKeyword(h) {
			need = append(need, h)
		}
	}
	for len(need) > 0 {
		s := need[0].seg
		n := 0
		for i, h := range need {
			if h.seg == s {
				need[n], need[i] = need[i], need[n]
				n++
			}
		}
		e.completeKeywordSeg(s, need[:n], qt)
		need = need[n:]
	}
}

// completeKeywordSeg computes the BM25 score of hits mine, all of segment
// s: a search over those documents, its results found back by binary
// search. It reorders mine.
func (e *Engine) completeKeywordSeg(s *segment.Segment, mine []*hit, qt queryTerms) {
	rk := e.opts.Ranker
	slices.SortFunc(mine, func(a, b *hit) int { return cmp.Compare(a.local, b.local) })
	bm := roaring.New()
	for _, h := range mine {
		bm.Add(h.local)
	}
	for _, r := range s.Text.Search(qt.terms, qt.bm25, len(mine), bm, s.Deleted, 0, nil) {
		i, found := slices.BinarySearchFunc(mine, r.Doc, func(h *hit, d uint32) int { return cmp.Compare(h.local, d) })
		if found {
			mine[i].key = rk.keywordScore(float64(r.Score) / qt.max)
		}
	}
}
