package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"

	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/segment"
)

// storedDoc is the body stored for each document (then zstd-compressed).
type storedDoc struct {
	Sections []ingest.Section `json:"s"`
	Fields   []FieldValue     `json:"f,omitempty"`
}

// GetDocument returns a stored document.
func (e *Engine) GetDocument(ctx context.Context, owner, coll, id string) (Document, error) {
	c, err := e.collection(owner, coll)
	if err != nil {
		return Document{}, err
	}
	if e.remote() {
		return e.loadRemoteDoc(ctx, c, id)
	}
	c.mu.RLock()
	_, ok := c.mu.loc[id]
	c.mu.RUnlock()
	if !ok {
		return Document{}, notFoundf("document %q not found in collection %q", id, coll)
	}
	return e.loadDoc(c, id)
}

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

// DeleteDocument deletes a document.
func (e *Engine) DeleteDocument(ctx context.Context, owner, coll, id string) error {
	c, err := e.collection(owner, coll)
	if err != nil {
		return err
	}
	if e.remote() {
		return e.deleteRemoteDocument(ctx, c, id)
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.RLock()
	l, ok := c.mu.loc[id]
	segs := c.mu.segs
	c.mu.RUnlock()
	if !ok {
		return notFoundf("document %q not found in collection %q", id, coll)
	}
	s := segByID(segs, l.seg)
	ns := withDeleted(s, []uint32{l.local})
	b := e.store.NewBatch()
	b.DeleteDocument(c.num, id)
	ns.WriteDeleted(b, c.num)
	if err := b.Commit(); err != nil {
		return err
	}
	c.mu.Lock()
	c.mu.segs = replaceSegs(c.mu.segs, []*segment.Segment{ns})
	delete(c.mu.loc, id)
	c.invalidateVocabulary()
	c.mu.Unlock()
	return nil
}

// ListDocuments returns up to limit document ids after cursor in id order,
// and the cursor of the next page ("" at the end).
func (e *Engine) ListDocuments(ctx context.Context, owner, coll string, limit int, cursor string) ([]string, string, error) {
	c, err := e.collection(owner, coll)
	if err != nil {
		return nil, "", err
	}
	if limit <= 0 {
		limit = 100
	}
	if limit > 10000 {
		return nil, "", invalidField("limit", "must be at most 10000, got %d", limit)
	}
	if e.remote() {
		return e.listRemoteDocuments(ctx, c, limit, cursor)
	}
	c.mu.RLock()
	ids := make([]string, 0, len(c.mu.loc))
	for id := range c.mu.loc {
		if id > cursor {
			ids = append(ids, id)
		}
	}
	c.mu.RUnlock()
	sort.Strings(ids)
	next := ""
	if len(ids) > limit {
		ids = ids[:limit]
		next = ids[limit-1]
	}
	return ids, next, nil
}
