package engine

import (
	"cmp"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/vector"
)

// This file is the embedded store's hybrid retrieval of one group
// (localSearch.hybrid): the same candidates and evidence as the stages
// keyword, semantic, exact and complete run one after the other
// (candidates), computed as independent tasks on the machine's cores.
//
// After the query terms are weighed (with the statistics of every searched
// segment), each segment's work depends on that segment alone: its BM25
// top-k, its nearest chunks, and the evidence of its candidates that one
// retriever missed. Each segment makes two tasks (segTask: a keyword half
// and a semantic half that need nothing of each other), all run at once on
// GOMAXPROCS goroutines, then joined by document. Before, a hybrid request
// on SciFact as the peer benchmark ingests it (3 segments) spent about
// 55 % of its time in the vector searches, 18 % in BM25, 20 % completing
// evidence and 7 % in the candidate map, on one core
// (docs/profiles/hybpath.md; bench/README.md, "Hybrid request path").

// concurrentHybrid turns the concurrent hybrid retrieval on (tests compare
// it with the sequential stages).
var concurrentHybrid = true

// hybridWorkers is the number of goroutines a hybrid retrieval runs its
// tasks on (the caller's included); 0 means GOMAXPROCS.
var hybridWorkers = 0

// hybridRetriever is a searcher that can retrieve a hybrid group's scored
// candidates at once (the embedded store).
type hybridRetriever interface {
	// hybrid returns the candidates of group g, whose keyword retrieval
	// runs on some collection, with the evidence of both retrievers and
	// the exact-identifier marks, as keyword, semantic, exact, hits and
	// complete leave them. It adds the time it waited for the query
	// vector to p.tm.embed.
	hybrid(g *group, qt queryTerms, qv *queryVec, cand int) ([]*hit, error)
}

// segTask is the retrieval of one segment of a searched collection in
// two independent halves. The keyword half fetches the BM25 top-k and
// scores every chunk of those documents; the semantic half fetches the
// nearest chunks and computes the BM25 score of their documents. join
// then keeps, per candidate, the evidence complete would give it: the
// chunks of the documents semantic search missed, the BM25 scores of
// those keyword search missed. Each half computes a little evidence join
// drops (the chunks of keyword hits semantic search found too, the BM25
// scores of semantic hits keyword search found too: the same scores, as
// every BM25 algorithm of invindex gives the same float), so that the
// halves need nothing of each other and run on two cores at once.
type segTask struct {
	c     *collection
	seg   *segment.Segment
	allow *roaring.Bitmap
	key   bool // keyword retrieval runs on c

	kw    []invindex.Hit // BM25 top-k, by document
	kwCh  [][]chunkHit   // every chunk of kw[i] (nil without vectors)
	sem   []chunkHit     // nearest chunks, by document
	semKw []float64      // calibrated BM25 score of each document of sem, in order (keyword on)
	hits  []hit          // the candidates, by document (then those exact adds)
	cbuf  []uint32
	vbuf  []vector.Result
}

// keyword fetches the cand best BM25 matches (keywordCandidates).
func (t *segTask) keyword(qt queryTerms, cand int) {
	if !t.key {
		return
	}
	t.kw = t.seg.Text.Search(qt.terms, qt.bm25, cand, t.allow, t.seg.Deleted, 0, nil)
	slices.SortFunc(t.kw, func(a, b invindex.Hit) int { return cmp.Compare(a.Doc, b.Doc) })
}

// keywordChunks scores every chunk of the keyword hits exactly, from one
// slab (docChunks).
func (t *segTask) keywordChunks(qvec []float32) {
	if t.seg.Vectors == nil || len(t.kw) == 0 {
		return
	}
	n := 0
	for _, kh := range t.kw {
		lo, hi := t.seg.ChunkRange(kh.Doc)
		n += int(hi - lo)
	}
	slab := make([]chunkHit, 0, n)
	t.kwCh = make([][]chunkHit, len(t.kw))
	for i, kh := range t.kw {
		lo, hi := t.seg.ChunkRange(kh.Doc)
		start := len(slab)
		for c := lo; c < hi; c++ {
			slab = append(slab, chunkHit{id: c, cos: float64(t.seg.Vectors.Dot(qvec, c))})
		}
		t.kwCh[i] = slab[start:len(slab):len(slab)]
	}
}

// semantic fetches the semanticK nearest chunks (semanticCandidates).
func (t *segTask) semantic(qvec []float32, cand, nprobe int) {
	if t.seg.Vectors == nil {
		return
	}
	allow := t.seg.AllowedChunks(t.allow, &t.cbuf)
	t.vbuf = t.seg.Vectors.Search(qvec, semanticK(t.seg, cand), nprobe, allow, t.vbuf)
	chs := make([]chunkHit, len(t.vbuf))
	for i, r := range t.vbuf {
		chs[i] = chunkHit{id: r.ID, cos: float64(r.Score)}
	}
	seg := t.seg
	slices.SortFunc(chs, func(a, b chunkHit) int { return cmp.Compare(seg.Chunks[a.id].Doc, seg.Chunks[b.id].Doc) })
	t.sem = chs
}

// semanticKeyword computes the calibrated BM25 score of the documents of
// the nearest chunks (completeKeyword): one search over those documents.
func (t *segTask) semanticKeyword(rk RankerConfig, qt queryTerms) {
	if !t.key || len(t.sem) == 0 {
		return
	}
	var docs []uint32
	bm := roaring.New()
	for _, ch := range t.sem {
		d := t.seg.Chunks[ch.id].Doc
		if len(docs) == 0 || docs[len(docs)-1] != d {
			docs = append(docs, d)
			bm.Add(d)
		}
	}
	t.semKw = make([]float64, len(docs))
	for _, r := range t.seg.Text.Search(qt.terms, qt.bm25, len(docs), bm, t.seg.Deleted, 0, nil) {
		if i, found := slices.BinarySearch(docs, r.Doc); found {
			t.semKw[i] = rk.keywordScore(float64(r.Score) / qt.max)
		}
	}
}

// join makes the candidates of the segment from the keyword hits and the
// nearest chunks' documents, joined by document (both in document order),
// with the evidence the sequential stages give them.
func (t *segTask) join(rk RankerConfig, qt queryTerms) {
	kw, kwCh, chs, semKw := t.kw, t.kwCh, t.sem, t.semKw
	t.hits = make([]hit, 0, len(kw)+len(chs))
	for len(kw) > 0 || len(chs) > 0 {
		var doc uint32
		switch {
		case len(kw) == 0:
			doc = t.seg.Chunks[chs[0].id].Doc
		case len(chs) == 0:
			doc = kw[0].Doc
		default:
			doc = min(kw[0].Doc, t.seg.Chunks[chs[0].id].Doc)
		}
		t.hits = append(t.hits, hit{c: t.c, seg: t.seg, local: doc, docID: t.seg.Docs[doc]})
		h := &t.hits[len(t.hits)-1]
		var chunks []chunkHit
		if len(kw) > 0 && kw[0].Doc == doc {
			h.key = rk.keywordScore(float64(kw[0].Score) / qt.max)
			h.byKey = true
			kw = kw[1:]
			if len(kwCh) > 0 {
				chunks = kwCh[0]
				kwCh = kwCh[1:]
			}
		}
		k := 0
		for k < len(chs) && t.seg.Chunks[chs[k].id].Doc == doc {
			k++
		}
		if k > 0 {
			h.bySem = true
			h.bestCh = chs[:k:k]
			chs = chs[k:]
			if len(semKw) > 0 {
				if !h.byKey {
					h.key = semKw[0]
				}
				semKw = semKw[1:]
			}
		} else if t.seg.Vectors != nil {
			h.bestCh = chunks
		}
	}
}

// exact marks the candidates that hold every identifier of the query and
// adds those documents neither retriever found when there are at most
// cand of them (markExact in a hybrid search), with their evidence.
func (t *segTask) exact(e *Engine, ids [][]string, cand int, qt queryTerms, qvec []float32) {
	if !t.key || len(ids) == 0 {
		return
	}
	ex := exactDocs(t.seg.Text, ids)
	if t.allow != nil {
		ex.And(t.allow)
	} else {
		ex.AndNot(t.seg.Deleted)
	}
	add := ex.GetCardinality() <= uint64(cand)
	n := len(t.hits)
	it := ex.Iterator()
	for it.HasNext() {
		local := it.Next()
		if i, found := slices.BinarySearchFunc(t.hits[:n], local, func(h hit, d uint32) int { return cmp.Compare(h.local, d) }); found {
			t.hits[i].exact = true
		} else if add {
			t.hits = append(t.hits, hit{c: t.c, seg: t.seg, local: local, docID: t.seg.Docs[local], exact: true})
		}
	}
	if len(t.hits) == n {
		return
	}
	added := make([]*hit, 0, len(t.hits)-n)
	for i := n; i < len(t.hits); i++ {
		h := &t.hits[i]
		added = append(added, h)
		if t.seg.Vectors != nil {
			h.bestCh = e.docChunks(t.seg, h.local, qvec)
		}
	}
	e.completeKeywordSeg(t.seg, added, qt)
}

// runTasks runs task(0..n-1) on up to workers goroutines (the caller's
// included), in index order as they free up, and returns when all are
// done.
func runTasks(workers, n int, task func(i int)) {
	workers = min(workers, n)
	if workers <= 1 {
		for i := 0; i < n; i++ {
			task(i)
		}
		return
	}
	var next atomic.Int32
	work := func() {
		for {
			i := int(next.Add(1)) - 1
			if i >= n {
				return
			}
			task(i)
		}
	}
	var wg sync.WaitGroup
	wg.Add(workers - 1)
	for w := 1; w < workers; w++ {
		go func() {
			defer wg.Done()
			work()
		}()
	}
	work()
	wg.Wait()
}

// workers returns the number of goroutines of a hybrid retrieval.
func (s *localSearch) workers() int {
	if hybridWorkers > 0 {
		return hybridWorkers
	}
	return runtime.GOMAXPROCS(0)
}

func (s *localSearch) hybrid(g *group, qt queryTerms, qv *queryVec, cand int) ([]*hit, error) {
	var tasks []segTask
	for j, c := range g.colls {
		i := s.of(c)
		for si, seg := range s.segs[i] {
			tasks = append(tasks, segTask{c: c, seg: seg, allow: s.allow[i][si], key: g.keyOn[j]})
		}
	}
	n := len(tasks)
	// Segments by size, largest first: the longest tasks start first.
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		return cmp.Compare(tasks[b].seg.Text.NumDocs(), tasks[a].seg.Text.NumDocs())
	})
	rk := s.e.opts.Ranker
	start := time.Now()
	// While the query is being embedded the keyword halves go first, so
	// that the embedding hides them; with the vector at hand the semantic
	// halves (the longer ones) go first.
	pending := qv.done != nil
	select {
	case <-qv.done:
		pending = false
	default:
	}
	var kwLeft atomic.Int32
	kwLeft.Store(int32(n))
	var kwDone atomic.Int64 // unix ns at which the last BM25 top-k ended
	runTasks(s.workers(), 2*n, func(i int) {
		t := &tasks[order[i%n]]
		if pending == (i < n) {
			t.keyword(qt, cand)
			if kwLeft.Add(-1) == 0 {
				kwDone.Store(time.Now().UnixNano())
			}
			if qvec, err := qv.wait(); err == nil { // else returned below
				t.keywordChunks(qvec)
			}
			return
		}
		if qvec, err := qv.wait(); err == nil {
			t.semantic(qvec, cand, rk.NProbe)
			t.semanticKeyword(rk, qt)
		}
	})
	qvec, err := qv.wait()
	if err != nil {
		return nil, err
	}
	if qv.done != nil {
		// The time the search waited for the vector after the keyword
		// retrieval was done, as when the stages run one after the other.
		end := time.Unix(0, kwDone.Load())
		if n == 0 {
			end = start
		}
		if w := qv.at.Sub(end); w > 0 {
			s.p.tm.embed += w
		}
	}
	for i := range tasks {
		tasks[i].join(rk, qt)
		tasks[i].exact(s.e, qt.ids, cand, qt, qvec)
	}
	return taskHits(tasks), nil
}

// taskHits returns the candidates of every task.
func taskHits(tasks []segTask) []*hit {
	n := 0
	for i := range tasks {
		n += len(tasks[i].hits)
	}
	out := make([]*hit, 0, n)
	for i := range tasks {
		for j := range tasks[i].hits {
			out = append(out, &tasks[i].hits[j])
		}
	}
	return out
}
