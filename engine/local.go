package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/segment"
)

// localBackend is the embedded store: collections in the engine's table
// (Engine.colls, loaded by Open), documents in segments of the Pebble
// store with their text and vector indexes, written by one synced batch
// per flush and merged in the background (merge.go). Its retrieval is
// local_retrieve.go.
type localBackend struct{ e *Engine }

func (b *localBackend) collection(_ context.Context, owner, id string) (*collection, error) {
	e := b.e
	e.mu.RLock()
	c, ok := e.colls[collKey{owner, id}]
	e.mu.RUnlock()
	if !ok {
		if !ValidCollectionID(id) {
			return nil, invalidField("collection_id", "%q is not a valid collection id", id)
		}
		return nil, notFoundf("collection %q not found", id)
	}
	return c, nil
}

func (b *localBackend) putCollection(_ context.Context, owner, id string, cfg CollectionConfig) (Collection, bool, error) {
	e := b.e
	if cfg.modelDefaulted {
		// A configuration that names no model keeps an existing
		// collection's model: its vectors were made with it.
		e.mu.RLock()
		if c, ok := e.colls[collKey{owner, id}]; ok {
			cfg.EmbeddingConfig = c.config().EmbeddingConfig
		}
		e.mu.RUnlock()
	}
	if err := e.checkEmbedding(cfg.EmbeddingConfig); err != nil {
		return Collection{}, false, err
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	k := collKey{owner, id}
	now := e.opts.Now().UTC()
	if c, ok := e.colls[k]; ok {
		c.wmu.Lock()
		defer c.wmu.Unlock()
		old := c.config()
		if old.EmbeddingConfig.Key() != cfg.EmbeddingConfig.Key() && c.docCount() > 0 {
			return Collection{}, false, modelConflict(id, old.EmbeddingConfig.Key(), cfg.EmbeddingConfig.Key())
		}
		rec := c.record()
		rec.Config = cfg
		rec.Updated = now
		if err := b.saveCollection(owner, id, rec); err != nil {
			return Collection{}, false, err
		}
		c.setRecord(rec)
		return c.info(), false, nil
	}
	rec := collRecord{Num: uint32(e.store.NextID()), Config: cfg, Created: now, Updated: now, NamesKnown: true}
	if err := b.saveCollection(owner, id, rec); err != nil {
		return Collection{}, false, err
	}
	c := newCollection(e, owner, id, rec)
	e.colls[k] = c
	return c.info(), true, nil
}

func (b *localBackend) saveCollection(owner, id string, rec collRecord) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode collection: %w", err)
	}
	batch := b.e.store.NewBatch()
	batch.PutCollection(owner, id, raw)
	return batch.Commit()
}

func (b *localBackend) deleteCollection(_ context.Context, owner, id string) error {
	e := b.e
	e.mu.Lock()
	defer e.mu.Unlock()
	k := collKey{owner, id}
	c, ok := e.colls[k]
	if !ok {
		return notFoundf("collection %q not found", id)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	batch := e.store.NewBatch()
	batch.DeleteCollection(owner, id, c.num)
	if err := batch.Commit(); err != nil {
		return err
	}
	c.dropped = true
	delete(e.colls, k)
	return nil
}

func (b *localBackend) collections(_ context.Context, owner string, all bool) ([]Collection, error) {
	e := b.e
	e.mu.RLock()
	out := make([]Collection, 0, len(e.colls))
	for k, c := range e.colls {
		if all || k.owner == owner {
			out = append(out, c.info())
		}
	}
	e.mu.RUnlock()
	return out, nil
}

func (b *localBackend) info(_ context.Context, c *collection) (Collection, error) {
	return c.info(), nil
}

// prepare analyzes and embeds docs into a new segment without its field
// index (see fields). Its stages: per document, analysis into BM25F term
// frequencies and chunking (analyzeDoc); the text index; then embedding
// of every chunk into the vector index (buildVectors).
func (b *localBackend) prepare(w *writer, docs []pendingDoc) (*batch, error) {
	rec := w.c.record()
	tb := invindex.NewTextBuilder()
	seg := &segment.Segment{ID: b.e.store.NextID(), Docs: make([]string, len(docs)), Deleted: roaring.New()}
	p := docPrep{tf: map[string]float32{}}
	for i, d := range docs {
		seg.Docs[i] = d.id
		terms, length := w.analyzeDoc(&rec, seg, uint32(i), d, &p)
		tb.Add(uint32(i), terms, length)
	}
	seg.Text = tb.Build()
	seg.InitChunkIndex()
	if w.emb != nil {
		idx, err := w.buildVectors(&p)
		if err != nil {
			return nil, err
		}
		seg.Vectors = idx
		// The float32 vectors go to the segment's vectors file here,
		// outside the write lock; a flush that never commits leaves an
		// orphan file that the next open removes.
		if err := seg.SaveVectors(b.e.store, w.c.num); err != nil {
			return nil, err
		}
	}
	return &batch{seg: seg}, nil
}

// commit types the fields of docs and writes them with their new segment
// and the deletes of the documents they replace in one batch, then
// installs the result, all under the collection's wmu; it asks the merger
// for work when the collection has too many segments.
func (b *localBackend) commit(w *writer, bt *batch, docs []pendingDoc, ids []string) ([]DocStatus, error) {
	status, nsegs, err := b.commitSegment(w, bt.seg, docs, ids)
	if err == nil && nsegs > b.e.opts.MaxSegments {
		b.e.kickMerge()
	}
	return status, err
}

// commitSegment is commit; it also returns the collection's number of
// segments after the commit. Under c.wmu it types the fields (w.fields),
// finds what the documents replace (replacements), marks them replacing,
// writes one batch (writeCommit) and installs the new segment
// (installCommit); a failed write unmarks them.
func (b *localBackend) commitSegment(w *writer, seg *segment.Segment, docs []pendingDoc, ids []string) ([]DocStatus, int, error) {
	c := w.c
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dropped {
		return nil, 0, notFoundf("collection %q was deleted during the ingest", c.id)
	}
	w.rec = c.record()
	bodies, err := w.fields(seg, docs)
	if err != nil {
		return nil, 0, err
	}
	segs, replaced, status := c.replacements(docs, ids)
	gen := c.markReplacing(ids)
	changed, err := b.writeCommit(w, seg, docs, bodies, segs, replaced)
	if err != nil {
		c.mu.Lock()
		c.installedLocked(gen)
		c.mu.Unlock()
		return nil, 0, err
	}
	if testHookCommitted != nil {
		testHookCommitted()
	}
	return status, c.installCommit(w, seg, docs, changed, gen), nil
}

// replacements returns the collection's segments, the local numbers of
// the documents docs replace by segment, and the status of each id
// ("replaced" when the collection or an earlier id of the batch holds it,
// else "created"). c.wmu is held.
func (c *collection) replacements(docs []pendingDoc, ids []string) ([]*segment.Segment, map[uint64][]uint32, []DocStatus) {
	c.mu.RLock()
	defer c.mu.RUnlock()
	replaced := map[uint64][]uint32{}
	for _, d := range docs {
		if l, ok := c.mu.loc[d.id]; ok {
			replaced[l.seg] = append(replaced[l.seg], l.local)
		}
	}
	status := make([]DocStatus, len(ids))
	inBatch := make(map[string]bool, len(ids))
	for i, id := range ids {
		status[i] = DocStatus{DocumentID: id, Status: "created"}
		if _, ok := c.mu.loc[id]; ok || inBatch[id] {
			status[i].Status = "replaced"
		}
		inBatch[id] = true
	}
	return c.mu.segs, replaced, status
}

// writeCommit writes one synced batch: the documents' bodies, the new
// segment, the new delete bitmaps of the segments (of segs) holding
// replaced documents, and the collection record when w changed it. It
// returns the segments with those deletes.
func (b *localBackend) writeCommit(w *writer, seg *segment.Segment, docs []pendingDoc, bodies [][]byte, segs []*segment.Segment, replaced map[uint64][]uint32) ([]*segment.Segment, error) {
	c := w.c
	batch := b.e.store.NewBatch()
	for i, d := range docs {
		batch.PutDocument(c.num, d.id, bodies[i])
	}
	if err := seg.Write(batch, c.num); err != nil {
		batch.Abort()
		return nil, err
	}
	var changed []*segment.Segment
	for sid, locals := range replaced {
		ns := withDeleted(segByID(segs, sid), locals)
		ns.WriteDeleted(batch, c.num)
		changed = append(changed, ns)
	}
	if w.recDirty {
		raw, err := json.Marshal(w.rec)
		if err != nil {
			batch.Abort()
			return nil, fmt.Errorf("encode collection: %w", err)
		}
		batch.PutCollection(c.owner, c.id, raw)
	}
	if err := batch.Commit(); err != nil {
		return nil, err
	}
	return changed, nil
}

// installCommit puts the committed segment and the changed ones in the
// collection's state, points the documents' ids at the new segment
// (generation gen) and takes w's record; it returns the number of
// segments. c.wmu is held.
func (c *collection) installCommit(w *writer, seg *segment.Segment, docs []pendingDoc, changed []*segment.Segment, gen uint64) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	// Segment ids are taken before the lock, so concurrent writers may
	// commit out of id order: keep the list sorted (segByID searches it).
	c.mu.segs = append(replaceSegs(c.mu.segs, changed), seg)
	slices.SortFunc(c.mu.segs, func(a, b *segment.Segment) int { return cmp.Compare(a.ID, b.ID) })
	for i, d := range docs {
		c.mu.loc[d.id] = docLoc{seg: seg.ID, local: uint32(i), gen: gen}
	}
	c.installedLocked(gen)
	c.invalidateVocabulary()
	c.lastSegment.Store(c.e.opts.Now().UnixNano())
	if w.recDirty {
		c.mu.rec = w.rec
		w.recDirty = false
	}
	return len(c.mu.segs)
}

// document loads document id of c.
func (b *localBackend) document(_ context.Context, c *collection, id string) (Document, error) {
	c.mu.RLock()
	_, ok := c.mu.loc[id]
	c.mu.RUnlock()
	if !ok {
		return Document{}, notFoundf("document %q not found in collection %q", id, c.id)
	}
	return b.e.loadDoc(c, id)
}

func (b *localBackend) deleteDocument(_ context.Context, c *collection, id string) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.RLock()
	l, ok := c.mu.loc[id]
	segs := c.mu.segs
	c.mu.RUnlock()
	if !ok {
		return notFoundf("document %q not found in collection %q", id, c.id)
	}
	s := segByID(segs, l.seg)
	ns := withDeleted(s, []uint32{l.local})
	batch := b.e.store.NewBatch()
	batch.DeleteDocument(c.num, id)
	ns.WriteDeleted(batch, c.num)
	if err := batch.Commit(); err != nil {
		return err
	}
	c.mu.Lock()
	c.mu.segs = replaceSegs(c.mu.segs, []*segment.Segment{ns})
	delete(c.mu.loc, id)
	c.invalidateVocabulary()
	c.mu.Unlock()
	return nil
}

func (b *localBackend) listDocuments(_ context.Context, c *collection, after string, n int) ([]string, error) {
	c.mu.RLock()
	ids := make([]string, 0, len(c.mu.loc))
	for id := range c.mu.loc {
		if id > after {
			ids = append(ids, id)
		}
	}
	c.mu.RUnlock()
	sort.Strings(ids)
	return ids[:min(n, len(ids))], nil
}

// vocabularySample returns the first n live documents in segment order
// (oldest segment first, then by position).
func (b *localBackend) vocabularySample(c *collection, n int) []string {
	ids := make([]string, 0, n)
	for _, s := range c.snapshot() {
		for local, id := range s.Docs {
			if len(ids) == n {
				return ids
			}
			if !s.Deleted.Contains(uint32(local)) {
				ids = append(ids, id)
			}
		}
	}
	return ids
}

// load loads the parts bp of a hit's body; when the response uses no part
// of it (bp.none), it only checks that the hit's copy is still the live
// one (loadMatched, version.go).
func (b *localBackend) load(p *plan, h *hit, bp bodyParts) (Document, error) {
	if bp.none() {
		if !h.c.matched(h, p.visible[h.c]) {
			return Document{}, errChanged
		}
		return Document{DocumentID: h.docID}, nil
	}
	return b.e.loadMatched(p, h, bp)
}

// none tells whether the response uses no part of the bodies.
func (bp bodyParts) none() bool { return bp.sections != nil && len(bp.sections) == 0 && bp.noFields }

// errChanged reports a hit whose document was deleted or replaced since
// the search matched it; search drops such hits.
var errChanged = &Error{Kind: ErrNotFound, Message: "document changed during the search"}

// loadDoc loads a stored document.
func (e *Engine) loadDoc(c *collection, id string) (Document, error) {
	return e.loadDocParts(c, id, bodyParts{})
}

// loadDocParts loads a document with the parts of its body bp asks for.
func (e *Engine) loadDocParts(c *collection, id string, bp bodyParts) (Document, error) {
	raw, err := e.store.Document(c.num, id)
	if errors.Is(err, segment.ErrNotFound) {
		return Document{}, notFoundf("document %q not found in collection %q", id, c.id)
	}
	if err != nil {
		return Document{}, err
	}
	sd, err := decodeStoredDoc(raw, bp)
	if err != nil {
		return Document{}, fmt.Errorf("decode document %q: %w", id, err)
	}
	return Document{DocumentID: id, Sections: sd.Sections, Fields: sd.Fields}, nil
}

// withDeleted returns a copy of s whose delete bitmap also holds locals.
func withDeleted(s *segment.Segment, locals []uint32) *segment.Segment {
	ns := *s
	ns.Deleted = s.Deleted.Clone()
	ns.Deleted.AddMany(locals)
	return &ns
}

// replaceSegs returns segs with the segments of equal id replaced by repl.
func replaceSegs(segs, repl []*segment.Segment) []*segment.Segment {
	out := make([]*segment.Segment, 0, len(segs)+1)
	for _, s := range segs {
		for _, r := range repl {
			if r.ID == s.ID {
				s = r
				break
			}
		}
		out = append(out, s)
	}
	return out
}
