package engine

import (
	"context"

	"github.com/najdi/najdi/ingest"
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
	return e.be.document(ctx, c, id)
}

// DeleteDocument deletes a document.
func (e *Engine) DeleteDocument(ctx context.Context, owner, coll, id string) error {
	c, err := e.collection(owner, coll)
	if err != nil {
		return err
	}
	return e.be.deleteDocument(ctx, c, id)
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
	ids, err := e.be.listDocuments(ctx, c, cursor, limit+1)
	if err != nil {
		return nil, "", err
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
