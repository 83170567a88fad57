package engine

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/najdi/najdi/filter"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/internal/errs"
	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/text"
)

// This file is the engine over a Backend (Options.Backend): collections,
// documents and retrieval on a search cluster. The engine process keeps
// no collection state: every call reads the collection's record from the
// backend, so several engines can serve one cluster. The stages above
// retrieval (plan, restore, rank, passages, render, answer) are the same
// code as for the embedded store.

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

// remote reports whether the engine serves its collections from a Backend.
func (e *Engine) remote() bool { return e.opts.Backend != nil }

// remoteCollection reads a collection's record from the backend.
func (e *Engine) remoteCollection(ctx context.Context, owner, id string) (*collection, error) {
	raw, err := e.opts.Backend.GetRecord(ctx, recordKey(owner, id))
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
	c := newCollection(e, owner, id, rec)
	c.index = backendIndex(owner, id)
	return c, nil
}

// saveRemoteRecord writes a collection's record.
func (e *Engine) saveRemoteRecord(ctx context.Context, c *collection, rec collRecord) error {
	raw, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encode collection: %w", err)
	}
	return backendErr(e.opts.Backend.PutRecord(ctx, recordKey(c.owner, c.id), raw), "save collection %q", c.id)
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

// remoteInfo returns a collection's description with its document count.
func (e *Engine) remoteInfo(ctx context.Context, c *collection) (Collection, error) {
	n, err := e.opts.Backend.Count(ctx, []string{c.index}, BackendFilter{})
	if err != nil {
		return Collection{}, backendErr(err, "count documents of collection %q", c.id)
	}
	var size int64
	if sz, ok := e.opts.Backend.(BackendSizer); ok {
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

// putRemoteCollection is PutCollection on a backend: the index first, then
// the record, which makes the collection exist.
func (e *Engine) putRemoteCollection(ctx context.Context, owner, id string, cfg CollectionConfig) (Collection, bool, error) {
	old, err := e.remoteCollection(ctx, owner, id)
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
		info, err := e.remoteInfo(ctx, old)
		if err != nil {
			return Collection{}, false, err
		}
		prev := old.config()
		if prev.EmbeddingConfig.Key() != cfg.EmbeddingConfig.Key() && info.DocumentCount > 0 {
			return Collection{}, false, &Error{Kind: ErrConflict, Message: fmt.Sprintf("collection %q holds documents embedded with %q; changing embedding_config.model to %q would make them unsearchable: create a new collection instead", id, prev.EmbeddingConfig.Key(), cfg.EmbeddingConfig.Key())}
		}
		rec := old.record()
		rec.Config, rec.Updated = cfg, now
		if err := e.opts.Backend.AddFields(ctx, old.index, filterFields(&rec)); err != nil {
			return Collection{}, false, backendErr(err, "map the fields of collection %q", id)
		}
		if err := e.saveRemoteRecord(ctx, old, rec); err != nil {
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
	if err := e.opts.Backend.CreateIndex(ctx, c.index, filterFields(&rec), dims); err != nil {
		return Collection{}, false, backendErr(err, "create collection %q", id)
	}
	if err := e.saveRemoteRecord(ctx, c, rec); err != nil {
		return Collection{}, false, err
	}
	return Collection{ID: id, Owner: owner, Config: cfg, CreatedAt: now, UpdatedAt: now}, true, nil
}

// deleteRemoteCollection removes the record (the collection is gone),
// then the index.
func (e *Engine) deleteRemoteCollection(ctx context.Context, owner, id string) error {
	c, err := e.remoteCollection(ctx, owner, id)
	if err != nil {
		return err
	}
	if err := e.opts.Backend.DeleteRecord(ctx, recordKey(owner, id)); err != nil {
		return backendErr(err, "delete collection %q", id)
	}
	return backendErr(e.opts.Backend.DropIndex(ctx, c.index), "delete the documents of collection %q", id)
}

// listRemoteCollections lists the owner's collections (every owner's with
// all).
func (e *Engine) listRemoteCollections(ctx context.Context, owner string, all bool) ([]Collection, error) {
	prefix := recordPrefix
	if !all {
		prefix = recordKey(owner, "")
	}
	keys, err := e.opts.Backend.ListRecords(ctx, prefix)
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
		c, err := e.remoteCollection(ctx, string(ob), id)
		if errors.Is(err, ErrNotFound) {
			continue // deleted meanwhile
		}
		if err != nil {
			return nil, err
		}
		info, err := e.remoteInfo(ctx, c)
		if err != nil {
			return nil, err
		}
		out = append(out, info)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID != out[j].ID {
			return out[i].ID < out[j].ID
		}
		return out[i].Owner < out[j].Owner
	})
	return out, nil
}

// remoteDoc is what prepare keeps of a document for a backend: its
// weighted terms and length.
type remoteDoc struct {
	terms  map[string]float32
	length float32
}

// commitRemote types the fields of docs, maps new filter fields, and
// writes the documents with their terms, chunks (seg.Chunks with
// w.remoteVecs) and bodies to the backend. Documents the backend did not
// store are reported in w.res.Errors; when the backend fails part-way the
// error names the documents not stored (details failed_documents) and
// those stored (stored_documents), which stay stored.
func (w *writer) commitRemote(seg *segment.Segment, docs []pendingDoc, ids []string) ([]DocStatus, error) {
	c, ctx, b := w.c, w.ctx, w.e.opts.Backend
	c.wmu.Lock()
	defer c.wmu.Unlock()
	// Another engine may have inferred field types meanwhile.
	if fresh, err := w.e.remoteCollection(ctx, c.owner, c.id); err != nil {
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
		if err := w.e.saveRemoteRecord(ctx, c, w.rec); err != nil {
			return nil, err
		}
		c.setRecord(w.rec)
		w.recDirty = false
	}
	out := make([]BackendDoc, len(docs))
	for i, d := range docs {
		out[i] = BackendDoc{ID: d.id, Terms: w.remoteDocs[i].terms, Length: w.remoteDocs[i].length, Body: bodies[i], Fields: w.filterValues(d)}
	}
	for i, ref := range seg.Chunks {
		var vec []float32
		if i < len(w.remoteVecs) {
			vec = w.remoteVecs[i]
		}
		out[ref.Doc].Chunks = append(out[ref.Doc].Chunks, BackendChunk{Vector: vec, Section: int(ref.Section), Start: int(ref.Start), End: int(ref.End)})
	}
	w.remoteDocs, w.remoteVecs = w.remoteDocs[:0], nil
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

// getRemoteDocument reads a stored document.
func (e *Engine) loadRemoteDoc(ctx context.Context, c *collection, id string) (Document, error) {
	raw, err := e.opts.Backend.Get(ctx, c.index, id)
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

// deleteRemoteDocument deletes a document.
func (e *Engine) deleteRemoteDocument(ctx context.Context, c *collection, id string) error {
	found, err := e.opts.Backend.Delete(ctx, c.index, []string{id})
	if err != nil {
		return backendErr(err, "delete document %q", id)
	}
	if len(found) == 0 {
		return notFoundf("document %q not found in collection %q", id, c.id)
	}
	return nil
}

// listRemoteDocuments pages through document ids as ListDocuments does.
func (e *Engine) listRemoteDocuments(ctx context.Context, c *collection, limit int, cursor string) ([]string, string, error) {
	ids, _, err := e.opts.Backend.List(ctx, c.index, cursor, limit+1)
	if err != nil {
		return nil, "", backendErr(err, "list documents of collection %q", c.id)
	}
	next := ""
	if len(ids) > limit {
		ids = ids[:limit]
		next = ids[limit-1]
	}
	if ids == nil {
		ids = []string{}
	}
	return ids, next, nil
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

// retrieveRemote is retrieve's candidate stage on a backend: one
// multi-index request per retriever for the collections that analyze the
// query alike (all of them unless their languages differ), then the same
// calibration and fusion as the embedded engine.
func (e *Engine) retrieveRemote(ctx context.Context, p *plan, qvec []float32) ([]*hit, error) {
	b := e.opts.Backend
	byIndex := map[string]*collection{}
	for _, c := range p.colls {
		byIndex[c.index] = c
	}
	flt := BackendFilter{Query: p.flt, Schema: remoteSchema(p.colls)}
	if p.query == "" {
		var out []*hit
		for _, c := range p.colls {
			ids, err := b.FilterIDs(ctx, c.index, flt)
			if err != nil {
				return nil, backendErr(err, "filter collection %q", c.id)
			}
			for _, id := range ids {
				out = append(out, &hit{c: c, docID: id, score: 1, key: 1, byKey: true})
			}
		}
		return out, nil
	}
	// Collections whose analyzers give the same query terms search together.
	type group struct {
		colls []*collection
		an    *text.Analyzer
		order []string
		count map[string]int
	}
	var groups []*group
	for _, c := range p.colls {
		an := analyzerFor(c.config().SearchConfig.Language, p.query)
		counts := map[string]int{}
		var order []string
		an.Analyze(p.query, func(t text.Token) {
			if counts[t.Term] == 0 {
				order = append(order, t.Term)
			}
			counts[t.Term]++
		})
		var g *group
		for _, o := range groups {
			if strings.Join(o.order, " ") == strings.Join(order, " ") && fmt.Sprint(o.count) == fmt.Sprint(counts) {
				g = o
			}
		}
		if g == nil {
			g = &group{an: an, order: order, count: counts}
			groups = append(groups, g)
		}
		g.colls = append(g.colls, c)
	}
	rk := e.opts.Ranker
	cand := max(rk.Candidates, p.offset+p.max)
	var all []*hit
	for _, g := range groups {
		indices := make([]string, len(g.colls))
		for i, c := range g.colls {
			indices[i] = c.index
		}
		terms := make([]BackendTerm, len(g.order))
		for i, t := range g.order {
			terms[i] = BackendTerm{Term: t, Count: g.count[t]}
		}
		// Hits per collection, as the embedded engine takes them.
		anyKeyword := false
		for _, c := range g.colls {
			anyKeyword = anyKeyword || c.config().FulltextConfig.On() || qvec == nil
		}
		k := 0
		if anyKeyword && len(terms) > 0 {
			k = cand * len(g.colls)
		}
		kw, err := b.Keyword(ctx, indices, terms, flt, k)
		if err != nil {
			return nil, backendErr(err, "keyword search")
		}
		qt := weighQuery(rk, g.an, p.query, g.order, g.count, uint64(kw.Docs), kw.AvgLength, func(t string) uint64 { return uint64(kw.DocFreq[t]) })
		if p.terms == nil {
			p.terms = map[*collection]queryTerms{}
		}
		cs := map[string]*hit{}
		get := func(index, id string) *hit {
			key := index + "\x00" + id
			h := cs[key]
			if h == nil {
				h = &hit{c: byIndex[index], docID: id}
				cs[key] = h
			}
			return h
		}
		keywordOn := func(c *collection) bool { return c.config().FulltextConfig.On() || qvec == nil }
		keyword := len(qt.terms) > 0 && qt.max > 0
		if keyword {
			for _, kh := range kw.Hits {
				if c := byIndex[kh.Index]; c != nil && keywordOn(c) {
					h := get(kh.Index, kh.ID)
					h.key = rk.keywordScore(kh.Score / qt.max)
					h.byKey = true
				}
			}
		}
		if qvec != nil {
			// The 3·cand nearest chunks per collection, as the embedded
			// engine takes per segment: every one is evidence and a
			// semantic passage of its document.
			vh, err := b.Vector(ctx, indices, qvec, flt, 3*cand*len(g.colls))
			if err != nil {
				return nil, backendErr(err, "semantic search")
			}
			for _, v := range vh {
				if byIndex[v.Index] == nil {
					continue
				}
				h := get(v.Index, v.ID)
				h.bySem = true
				h.refs = append(h.refs, segment.ChunkRef{Section: uint32(v.Chunk.Section), Start: uint32(v.Chunk.Start), End: uint32(v.Chunk.End)})
				h.bestCh = append(h.bestCh, chunkHit{id: uint32(len(h.refs) - 1), cos: v.Similarity})
			}
		}
		if len(qt.ids) > 0 {
			var idTerms []string
			for _, ts := range qt.ids {
				idTerms = append(idTerms, ts...)
			}
			mh, err := b.Match(ctx, indices, idTerms, flt, cand*len(g.colls)+1)
			if err != nil {
				return nil, backendErr(err, "identifier search")
			}
			add := qvec != nil && len(mh) <= cand*len(g.colls)
			for _, m := range mh {
				c := byIndex[m.Index]
				if c == nil || !keywordOn(c) {
					continue
				}
				if h := cs[m.Index+"\x00"+m.ID]; h != nil {
					h.exact = true
				} else if add {
					get(m.Index, m.ID).exact = true
				}
			}
		}
		hs := make([]*hit, 0, len(cs))
		for _, h := range cs {
			hs = append(hs, h)
		}
		if qvec != nil {
			if err := e.completeRemote(ctx, hs, qt, qvec, indices, flt, keyword); err != nil {
				return nil, err
			}
		}
		for _, c := range g.colls {
			p.terms[c] = qt
			var mine []*hit
			for _, h := range hs {
				if h.c == c {
					mine = append(mine, h)
				}
			}
			all = append(all, rk.scoreHits(mine, keywordOn(c), qvec != nil)...)
		}
	}
	return all, nil
}

// completeRemote gives every candidate both evidences, as complete does:
// the exact similarity of every chunk of keyword-only candidates, and the
// BM25 score of semantic-only ones.
func (e *Engine) completeRemote(ctx context.Context, hs []*hit, qt queryTerms, qvec []float32, indices []string, flt BackendFilter, keyword bool) error {
	b := e.opts.Backend
	rk := e.opts.Ranker
	byColl := map[*collection][]*hit{}
	for _, h := range hs {
		if !h.bySem {
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
	var semOnly []string
	byKey := map[string]*hit{}
	for _, h := range hs {
		if !h.byKey {
			semOnly = append(semOnly, h.docID)
			byKey[h.c.index+"\x00"+h.docID] = h
		}
	}
	if len(semOnly) == 0 {
		return nil
	}
	terms := make([]BackendTerm, len(qt.terms))
	for i, t := range qt.terms {
		terms[i] = BackendTerm{Term: t.Term, Count: qt.counts[t.Term]}
	}
	f := flt
	f.IDs = semOnly
	kw, err := b.Keyword(ctx, indices, terms, f, len(semOnly)*len(indices))
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
