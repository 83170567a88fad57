package engine

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/najdi/najdi/filter"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/internal/errs"
	"github.com/najdi/najdi/segment"
)

// This file is clusterBackend, the engine's backend over a search
// cluster's primitives (Options.Backend): collections, documents and
// retrieval on the cluster. The engine process keeps no collection state:
// every call reads the collection's record from the cluster, so several
// engines can serve one cluster. The stages above retrieval (plan,
// restore, the retrieval steps in retrieve.go, rank, passages, render,
// answer) are the same code as for the embedded store (localBackend).

// clusterBackend is the backend of an engine on a search cluster: b holds
// the collection records, the documents and the indexes.
type clusterBackend struct {
	e *Engine
	b Backend
}

// recordPrefix starts the backend keys of collection records.
const recordPrefix = "collection/"

// recordKey is the backend key of a collection's record: the owner in hex
// (any string), then the id.
func recordKey(owner, id string) string {
	return recordPrefix + hex.EncodeToString([]byte(owner)) + "/" + id
}

// backendIndex is the backend index name of a collection: its id, with
// the owner in hex after '~' (which ids never hold) unless the owner is
// the anonymous "".
func backendIndex(owner, id string) string {
	if owner == "" {
		return id
	}
	return id + "~" + hex.EncodeToString([]byte(owner))
}

// backendErr wraps an error of the backend with what the engine was doing;
// a kind the backend gave (unavailable: 503) is kept.
func backendErr(err error, format string, args ...any) error {
	if err == nil {
		return nil
	}
	msg := fmt.Sprintf(format, args...) + ": " + err.Error()
	kind := errs.KindOf(err)
	if kind == nil {
		kind = ErrUpstream
	}
	return &Error{Kind: kind, Message: msg, Cause: err}
}

// collection reads a collection's record from the cluster.
func (cb *clusterBackend) collection(ctx context.Context, owner, id string) (*collection, error) {
	raw, err := cb.b.GetRecord(ctx, recordKey(owner, id))
	if errors.Is(err, ErrNotFound) {
		if !ValidCollectionID(id) {
			return nil, invalidField("collection_id", "%q is not a valid collection id", id)
		}
		return nil, notFoundf("collection %q not found", id)
	}
	if err != nil {
		return nil, backendErr(err, "read collection %q", id)
	}
	var rec collRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("collection %q: decode record: %w", id, err)
	}
	c := newCollection(cb.e, owner, id, rec)
	c.index = backendIndex(owner, id)
	return c, nil
}

// saveRecord writes a collection's record.
func (cb *clusterBackend) saveRecord(ctx context.Context, c *collection, rec collRecord) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode collection: %w", err)
	}
	return backendErr(cb.b.PutRecord(ctx, recordKey(c.owner, c.id), raw), "save collection %q", c.id)
}

// filterFields returns the filter fields of a record: declared or inferred
// enum, enum_text and number fields.
func filterFields(rec *collRecord) map[string]filter.FieldType {
	out := map[string]filter.FieldType{}
	add := func(name, t string) {
		if t == FieldEnum || t == FieldEnumText || t == FieldNumber {
			out[name] = filter.FieldType(t)
		}
	}
	for name, t := range rec.Inferred {
		add(name, t)
	}
	for name, f := range rec.Config.Fields {
		add(name, f.Type)
	}
	return out
}

// info returns a collection's description with its document count.
func (cb *clusterBackend) info(ctx context.Context, c *collection) (Collection, error) {
	n, err := cb.b.Count(ctx, []string{c.index}, BackendFilter{})
	if err != nil {
		return Collection{}, backendErr(err, "count documents of collection %q", c.id)
	}
	var size int64
	if sz, ok := cb.b.(BackendSizer); ok {
		if size, err = sz.IndexBytes(ctx, c.index); err != nil {
			return Collection{}, backendErr(err, "size of collection %q", c.id)
		}
	}
	rec := c.record()
	return Collection{ID: c.id, Owner: c.owner, Config: rec.Config, DocumentCount: n, SizeBytes: size, CreatedAt: rec.Created, UpdatedAt: rec.Updated}, nil
}

// BackendSizer is a Backend that reports how many bytes an index takes on
// its disks (a collection's size_bytes; 0 without it).
type BackendSizer interface {
	IndexBytes(ctx context.Context, index string) (int64, error)
}

// putCollection creates the index first, then the record, which makes the
// collection exist.
func (cb *clusterBackend) putCollection(ctx context.Context, owner, id string, cfg CollectionConfig) (Collection, bool, error) {
	e := cb.e
	old, err := cb.collection(ctx, owner, id)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Collection{}, false, err
	}
	if old != nil && cfg.modelDefaulted {
		cfg.EmbeddingConfig = old.config().EmbeddingConfig
	}
	if err := e.checkEmbedding(cfg.EmbeddingConfig); err != nil {
		return Collection{}, false, err
	}
	now := e.opts.Now().UTC()
	if old != nil {
		info, err := cb.info(ctx, old)
		if err != nil {
			return Collection{}, false, err
		}
		prev := old.config()
		if prev.EmbeddingConfig.Key() != cfg.EmbeddingConfig.Key() && info.DocumentCount > 0 {
			return Collection{}, false, modelConflict(id, prev.EmbeddingConfig.Key(), cfg.EmbeddingConfig.Key())
		}
		rec := old.record()
		rec.Config, rec.Updated = cfg, now
		if err := cb.b.AddFields(ctx, old.index, filterFields(&rec)); err != nil {
			return Collection{}, false, backendErr(err, "map the fields of collection %q", id)
		}
		if err := cb.saveRecord(ctx, old, rec); err != nil {
			return Collection{}, false, err
		}
		old.setRecord(rec)
		info.Config, info.UpdatedAt = cfg, now
		return info, false, nil
	}
	rec := collRecord{Config: cfg, Inferred: map[string]string{}, Created: now, Updated: now}
	c := newCollection(e, owner, id, rec)
	c.index = backendIndex(owner, id)
	dims := 0
	if emb, err := e.embedder(cfg.EmbeddingConfig); err != nil {
		return Collection{}, false, err
	} else if emb != nil {
		dims = emb.Dims()
	}
	if err := cb.b.CreateIndex(ctx, c.index, filterFields(&rec), dims); err != nil {
		return Collection{}, false, backendErr(err, "create collection %q", id)
	}
	if err := cb.saveRecord(ctx, c, rec); err != nil {
		return Collection{}, false, err
	}
	return Collection{ID: id, Owner: owner, Config: cfg, CreatedAt: now, UpdatedAt: now}, true, nil
}

// deleteCollection removes the record (the collection is gone), then the
// index.
func (cb *clusterBackend) deleteCollection(ctx context.Context, owner, id string) error {
	c, err := cb.collection(ctx, owner, id)
	if err != nil {
		return err
	}
	if err := cb.b.DeleteRecord(ctx, recordKey(owner, id)); err != nil {
		return backendErr(err, "delete collection %q", id)
	}
	return backendErr(cb.b.DropIndex(ctx, c.index), "delete the documents of collection %q", id)
}

// collections lists the owner's collections (every owner's with all).
func (cb *clusterBackend) collections(ctx context.Context, owner string, all bool) ([]Collection, error) {
	prefix := recordPrefix
	if !all {
		prefix = recordKey(owner, "")
	}
	keys, err := cb.b.ListRecords(ctx, prefix)
	if err != nil {
		return nil, backendErr(err, "list collections")
	}
	out := []Collection{}
	for _, k := range keys {
		hexOwner, id, ok := strings.Cut(strings.TrimPrefix(k, recordPrefix), "/")
		ob, herr := hex.DecodeString(hexOwner)
		if !ok || herr != nil {
			continue
		}
		c, err := cb.collection(ctx, string(ob), id)
		if errors.Is(err, ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		info, err := cb.info(ctx, c)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	return out, nil
}

// remoteDoc is what prepare keeps of a document for a cluster: its
// weighted terms and length.
type remoteDoc struct {
	terms  map[string]float32
	length float32
}

// prepare is the embedded store's analysis and chunking, with the terms
// of each document and the chunks' vectors kept in the batch instead of
// text and vector indexes; the segment holds only the documents and
// chunk locations.
func (cb *clusterBackend) prepare(w *writer, docs []pendingDoc) (*batch, error) {
	rec := w.c.record()
	b := &batch{seg: &segment.Segment{Docs: make([]string, len(docs)), Deleted: roaring.New()}}
	p := docPrep{tf: map[string]float32{}}
	for i, d := range docs {
		b.seg.Docs[i] = d.id
		_, length := w.analyzeDoc(&rec, b.seg, uint32(i), d, &p)
		b.terms = append(b.terms, remoteDoc{terms: maps.Clone(p.tf), length: length})
	}
	if w.emb != nil {
		vecs, err := w.vectors(&p)
		if err != nil {
			return nil, err
		}
		if len(vecs) > 0 {
			b.vecs = vecs
		}
	}
	return b, nil
}

// commit types the fields of docs, maps new filter fields, and writes the
// documents with their terms, chunks (seg.Chunks with bt.vecs) and bodies
// to the cluster. Documents the backend did not
// store are reported in w.res.Errors; when the backend fails part-way the
// error names the documents not stored (details failed_documents) and
// those stored (stored_documents), which stay stored.
func (cb *clusterBackend) commit(w *writer, bt *batch, docs []pendingDoc, ids []string) ([]DocStatus, error) {
	c, ctx, b, seg := w.c, w.ctx, cb.b, bt.seg
	c.wmu.Lock()
	defer c.wmu.Unlock()
	// Another engine may have inferred field types meanwhile.
	if fresh, err := cb.collection(ctx, c.owner, c.id); err != nil {
		return nil, w.partialFailure(err, nil, ids)
	} else {
		c.setRecord(fresh.record())
	}
	w.rec = c.record()
	before := len(filterFields(&w.rec))
	bodies, err := w.fields(seg, docs)
	if err != nil {
		return nil, err
	}
	if w.recDirty {
		if ff := filterFields(&w.rec); len(ff) != before {
			if err := b.AddFields(ctx, c.index, ff); err != nil {
				return nil, backendErr(err, "map the fields of collection %q", c.id)
			}
		}
		if err := cb.saveRecord(ctx, c, w.rec); err != nil {
			return nil, err
		}
		c.setRecord(w.rec)
		w.recDirty = false
	}
	out := make([]BackendDoc, len(docs))
	for i, d := range docs {
		out[i] = BackendDoc{ID: d.id, Terms: bt.terms[i].terms, Length: bt.terms[i].length, Body: bodies[i], Fields: w.filterValues(d)}
	}
	for i, ref := range seg.Chunks {
		var vec []float32
		if i < len(bt.vecs) {
			vec = bt.vecs[i]
		}
		out[ref.Doc].Chunks = append(out[ref.Doc].Chunks, BackendChunk{Vector: vec, Section: int(ref.Section), Start: int(ref.Start), End: int(ref.End)})
	}
	existed, err := b.Exists(ctx, c.index, uniqueIDs(docs))
	if err != nil {
		return nil, w.partialFailure(err, nil, ids)
	}
	failedDocs, werr := b.Write(ctx, c.index, out)
	failed := map[string]string{}
	for _, f := range failedDocs {
		failed[f.ID] = f.Err.Error()
	}
	status := make([]DocStatus, 0, len(ids))
	inBatch := map[string]bool{}
	for _, id := range ids {
		if msg, bad := failed[id]; bad {
			if werr == nil {
				w.res.Errors = append(w.res.Errors, IngestError{DocumentID: id, Message: "not stored by the search cluster: " + msg})
			}
			continue
		}
		st := DocStatus{DocumentID: id, Status: "created"}
		if existed[id] || inBatch[id] {
			st.Status = "replaced"
		}
		inBatch[id] = true
		status = append(status, st)
	}
	if werr != nil {
		var notStored []string
		for _, id := range ids {
			if _, bad := failed[id]; bad {
				notStored = append(notStored, id)
			}
		}
		return nil, w.partialFailure(werr, status, notStored)
	}
	return status, nil
}

// partialFailure is the error of an ingest the backend failed part-way:
// the documents of earlier batches and stored of this one were stored,
// those of notStored were not, and the upload's later documents were not
// read. Its details name both lists, so a client can send the rest again.
func (w *writer) partialFailure(err error, stored []DocStatus, notStored []string) error {
	w.res.Documents = append(w.res.Documents, stored...)
	ok := make([]string, 0, len(w.res.Documents))
	for _, s := range w.res.Documents {
		ok = append(ok, s.DocumentID)
	}
	kind := errs.KindOf(err)
	if kind == nil {
		kind = ErrUpstream
	}
	if notStored == nil {
		notStored = []string{}
	}
	return &Error{Kind: kind, Message: fmt.Sprintf("ingest into collection %q: the search cluster failed after %d documents of this upload were stored (details.stored_documents); %d documents of the current batch were not (details.failed_documents), nor were any later documents of the upload read: send them again: %v", w.c.id, len(ok), len(notStored), err),
		Details: map[string]any{"failed_documents": notStored, "stored_documents": ok}, Cause: err}
}

func uniqueIDs(docs []pendingDoc) []string {
	out := make([]string, len(docs))
	for i, d := range docs {
		out[i] = d.id
	}
	return out
}

// filterValues returns the values of d's filter fields as the field index
// holds them (see fields): strings of enum and enum_text fields, numbers
// of number fields.
func (w *writer) filterValues(d pendingDoc) map[string][]any {
	var out map[string][]any
	for _, f := range d.fields {
		typ, ok := fieldTypeOf(&w.rec, f.name)
		if !ok {
			continue
		}
		for _, v := range f.vals {
			if v.Kind == ingest.KindNull {
				continue
			}
			var x any
			switch typ {
			case FieldNumber:
				n, ok := numberOf(v)
				if !ok {
					continue
				}
				x = n
			case FieldEnum, FieldEnumText:
				x = v.Str
			default:
				continue
			}
			if out == nil {
				out = map[string][]any{}
			}
			out[f.name] = append(out[f.name], x)
		}
	}
	return out
}

// document reads a stored document.
func (cb *clusterBackend) document(ctx context.Context, c *collection, id string) (Document, error) {
	raw, err := cb.b.Get(ctx, c.index, id)
	if errors.Is(err, ErrNotFound) {
		return Document{}, notFoundf("document %q not found in collection %q", id, c.id)
	}
	if err != nil {
		return Document{}, backendErr(err, "read document %q", id)
	}
	var sd storedDoc
	if err := json.Unmarshal(raw, &sd); err != nil {
		return Document{}, fmt.Errorf("decode document %q: %w", id, err)
	}
	return Document{DocumentID: id, Sections: sd.Sections, Fields: sd.Fields}, nil
}

// deleteDocument deletes a document.
func (cb *clusterBackend) deleteDocument(ctx context.Context, c *collection, id string) error {
	found, err := cb.b.Delete(ctx, c.index, []string{id})
	if err != nil {
		return backendErr(err, "delete document %q", id)
	}
	if len(found) == 0 {
		return notFoundf("document %q not found in collection %q", id, c.id)
	}
	return nil
}

// listDocuments returns a page of document ids.
func (cb *clusterBackend) listDocuments(ctx context.Context, c *collection, after string, n int) ([]string, error) {
	ids, _, err := cb.b.List(ctx, c.index, after, n)
	if err != nil {
		return nil, backendErr(err, "list documents of collection %q", c.id)
	}
	return ids, nil
}

// vocabularySample returns no documents: the engine reads a cluster
// collection's record on every call and keeps nothing between them, so a
// vocabulary would be read anew (n documents) for every search that
// restores diacritics. The dictionary alone restores them.
func (cb *clusterBackend) vocabularySample(*collection, int) []string { return nil }

// load reads a hit's document (a cluster returns whole bodies).
func (cb *clusterBackend) load(p *plan, h *hit, _ bodyParts) (Document, error) {
	return cb.document(p.ctx, h.c, h.docID)
}

// remoteSchema is the field types a filter is validated against on the
// searched collections: each field's type in the first collection that
// types it.
type remoteSchema []*collection

func (s remoteSchema) FieldType(name string) (filter.FieldType, bool) {
	for _, c := range s {
		if t, ok := c.fieldType(name); ok {
			return filter.FieldType(t), true
		}
	}
	return "", false
}

// clusterSearch is one search on a cluster: per group of collections, one
// multi-index request per retriever.
type clusterSearch struct {
	cb      *clusterBackend
	p       *plan
	flt     BackendFilter
	byIndex map[string]*collection
	// kw is the keyword request of the current group (weigh): its hits
	// and statistics.
	kw BackendKeyword
	// cs holds the current group's candidates by index and document id.
	cs map[string]*hit
}

func (cb *clusterBackend) search(p *plan) (searcher, error) {
	s := &clusterSearch{cb: cb, p: p, flt: BackendFilter{Query: p.flt, Schema: remoteSchema(p.colls)}, byIndex: map[string]*collection{}, cs: map[string]*hit{}}
	for _, c := range p.colls {
		s.byIndex[c.index] = c
	}
	return s, nil
}

// indices returns the index names of a group's collections.
func (g *group) indices() []string {
	out := make([]string, len(g.colls))
	for i, c := range g.colls {
		out[i] = c.index
	}
	return out
}

// get returns the candidate of a document of an index, added on first
// sight.
func (s *clusterSearch) get(index, id string) *hit {
	key := index + "\x00" + id
	h := s.cs[key]
	if h == nil {
		h = &hit{c: s.byIndex[index], docID: id}
		s.cs[key] = h
	}
	return h
}

func (s *clusterSearch) filterOnly() ([]*hit, error) {
	var out []*hit
	for _, c := range s.p.colls {
		ids, err := s.cb.b.FilterIDs(s.p.ctx, c.index, s.flt)
		if err != nil {
			return nil, backendErr(err, "filter collection %q", c.id)
		}
		for _, id := range ids {
			out = append(out, &hit{c: c, docID: id, score: 1, key: 1, byKey: true})
		}
	}
	return out, nil
}

// weigh sends the group's keyword request (the top cand documents per
// collection when keyword retrieval runs on one of them) and weighs the
// query terms with the statistics it returns.
func (s *clusterSearch) weigh(g *group, cand int) (queryTerms, error) {
	terms := make([]BackendTerm, len(g.order))
	for i, t := range g.order {
		terms[i] = BackendTerm{Term: t, Count: g.counts[t]}
	}
	k := 0
	if g.anyKeyword() && len(terms) > 0 {
		k = cand * len(g.colls)
	}
	kw, err := s.cb.b.Keyword(s.p.ctx, g.indices(), terms, s.flt, k)
	if err != nil {
		return queryTerms{}, backendErr(err, "keyword search")
	}
	s.kw = kw
	return weighQuery(s.cb.e.opts.Ranker, g.an, s.p.query, g.order, g.counts, uint64(kw.Docs), kw.AvgLength, func(t string) uint64 { return uint64(kw.DocFreq[t]) }), nil
}

func (s *clusterSearch) keyword(g *group, qt queryTerms, cand int) error {
	rk := s.cb.e.opts.Ranker
	for _, kh := range s.kw.Hits {
		if c := s.byIndex[kh.Index]; c != nil && g.keywordOn(c) {
			h := s.get(kh.Index, kh.ID)
			h.key = rk.keywordScore(kh.Score / qt.max)
			h.byKey = true
		}
	}
	return nil
}

// semantic takes the 3·cand nearest chunks per collection, as the
// embedded store takes per segment: every one is evidence and a semantic
// passage of its document.
func (s *clusterSearch) semantic(g *group, qvec []float32, cand int) error {
	vh, err := s.cb.b.Vector(s.p.ctx, g.indices(), qvec, s.flt, 3*cand*len(g.colls))
	if err != nil {
		return backendErr(err, "semantic search")
	}
	for _, v := range vh {
		if s.byIndex[v.Index] == nil {
			continue
		}
		h := s.get(v.Index, v.ID)
		h.bySem = true
		h.refs = append(h.refs, segment.ChunkRef{Section: uint32(v.Chunk.Section), Start: uint32(v.Chunk.Start), End: uint32(v.Chunk.End)})
		h.bestCh = append(h.bestCh, chunkHit{id: uint32(len(h.refs) - 1), cos: v.Similarity})
	}
	return nil
}

// exact asks for cand documents per collection holding every identifier
// term (one more, to know whether there are more).
func (s *clusterSearch) exact(g *group, ids [][]string, add bool, cand int) error {
	var idTerms []string
	for _, ts := range ids {
		idTerms = append(idTerms, ts...)
	}
	n := cand * len(g.colls)
	mh, err := s.cb.b.Match(s.p.ctx, g.indices(), idTerms, s.flt, n+1)
	if err != nil {
		return backendErr(err, "identifier search")
	}
	add = add && len(mh) <= n
	for _, m := range mh {
		c := s.byIndex[m.Index]
		if c == nil || !g.keywordOn(c) {
			continue
		}
		if h := s.cs[m.Index+"\x00"+m.ID]; h != nil {
			h.exact = true
		} else if add {
			s.get(m.Index, m.ID).exact = true
		}
	}
	return nil
}

func (s *clusterSearch) hits(g *group) []*hit {
	out := make([]*hit, 0, len(s.cs))
	for _, h := range s.cs {
		out = append(out, h)
	}
	clear(s.cs)
	return out
}

// complete reads the stored chunks (with vectors) of the candidates that
// need them and scores each exactly, and asks for the BM25 scores of the
// candidates that need them, restricted to their ids.
func (s *clusterSearch) complete(g *group, hs []*hit, qt queryTerms, qvec []float32, keyword bool) error {
	b, ctx := s.cb.b, s.p.ctx
	rk := s.cb.e.opts.Ranker
	byColl := map[*collection][]*hit{}
	for _, h := range hs {
		if needsChunks(h) {
			byColl[h.c] = append(byColl[h.c], h)
		}
	}
	for c, chs := range byColl {
		ids := make([]string, len(chs))
		for i, h := range chs {
			ids[i] = h.docID
		}
		chunks, err := b.Chunks(ctx, c.index, ids)
		if err != nil {
			return backendErr(err, "read chunks")
		}
		for _, h := range chs {
			for _, ch := range chunks[h.docID] {
				h.refs = append(h.refs, segment.ChunkRef{Section: uint32(ch.Section), Start: uint32(ch.Start), End: uint32(ch.End)})
				h.bestCh = append(h.bestCh, chunkHit{id: uint32(len(h.refs) - 1), cos: float64(dot(qvec, ch.Vector))})
			}
		}
	}
	if !keyword {
		return nil
	}
	var ids []string
	byKey := map[string]*hit{}
	for _, h := range hs {
		if g.needsKeyword(h) {
			ids = append(ids, h.docID)
			byKey[h.c.index+"\x00"+h.docID] = h
		}
	}
	if len(ids) == 0 {
		return nil
	}
	terms := make([]BackendTerm, len(qt.terms))
	for i, t := range qt.terms {
		terms[i] = BackendTerm{Term: t.Term, Count: qt.counts[t.Term]}
	}
	f := s.flt
	f.IDs = ids
	kw, err := b.Keyword(ctx, g.indices(), terms, f, len(ids)*len(g.colls))
	if err != nil {
		return backendErr(err, "keyword scores")
	}
	for _, kh := range kw.Hits {
		if h := byKey[kh.Index+"\x00"+kh.ID]; h != nil {
			h.key = rk.keywordScore(kh.Score / qt.max)
		}
	}
	return nil
}
