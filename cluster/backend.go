package cluster

import (
	"context"
	"encoding/json"

	"github.com/najdi/najdi/filter"
)

// Backend is the proposed boundary between najdi's engine and where
// documents live: the embedded store (segments in Pebble, invindex,
// vector) or a search cluster (this package's Client). Everything above it
// stays in the engine and is shared by both backends: request validation
// and filter parsing/validation, query analysis (package text) and
// diacritics restoration, embedding, fusion and score calibration,
// passages, summaries, answers and NLU. So scores, passages and budgets
// mean the same on both.
//
// Contract, as the embedded engine keeps it today:
//   - A write is durable and visible to every reader when the call returns.
//   - Keyword scores are najdi's BM25 (Σ idf × tf / (tf + k1 × norm), no
//     (k1 + 1) factor) over the terms the engine's analyzer produced, with
//     statistics over all the searched collections; Stats carries them so
//     the engine calibrates scores as it does now.
//   - Vector search returns the best chunk per document by cosine
//     similarity among the documents the filter allows.
//   - Filters arrive parsed and validated (package filter); the backend
//     evaluates exactly filter.Eval's semantics (the differential test of
//     this package checks it against real nodes).
//   - Errors wrap the kinds of errors.go, which map to najdi's HTTP
//     statuses (ErrUnavailable is 503).
//
// Client implements it. The embedded implementation would wrap today's
// engine internals (collection snapshot → segments → invindex / vector /
// filter.Eval); the engine then calls a Backend wherever it now walks
// segments.
type Backend interface {
	// CreateCollection creates an empty collection (ErrConflict if it
	// exists); DropCollection deletes it and its documents; Collections
	// lists the names; AddFields maps filter fields discovered at ingest.
	CreateCollection(ctx context.Context, name string, s Schema) error
	DropCollection(ctx context.Context, name string) error
	Collections(ctx context.Context) ([]string, error)
	AddFields(ctx context.Context, name string, fields map[string]filter.FieldType) error

	// Ingest stores documents (analyzed terms, stored body, filter fields,
	// embedded chunks), replacing documents with the same ids; the
	// per-document failures are returned, the error is for the call.
	Ingest(ctx context.Context, coll string, docs []Document) ([]DocError, error)
	// Delete removes documents and returns the ids that existed.
	Delete(ctx context.Context, coll string, ids []string) ([]string, error)
	// Get returns a document's stored body (ErrNotFound if none); List
	// pages through the ids in ascending order.
	Get(ctx context.Context, coll, id string) (json.RawMessage, error)
	List(ctx context.Context, coll, after string, n int) ([]string, string, error)

	// Keyword is BM25 top-k over analyzed query terms with the term
	// statistics; Vector is cosine top-k by best chunk; FilterIDs is the
	// set of documents a filter selects; Count counts them. Several
	// collections in one call are one multi-index search.
	Keyword(ctx context.Context, colls []string, terms []QueryTerm, flt Filter, k int) (*KeywordResult, error)
	Vector(ctx context.Context, colls []string, vec []float32, flt Filter, k int) ([]VectorHit, error)
	FilterIDs(ctx context.Context, coll string, flt Filter) ([]string, error)
	Count(ctx context.Context, colls []string, flt Filter) (int64, error)

	// PutMeta, GetMeta, DeleteMeta and ListMeta keep najdi's own records
	// (collection configs and owners, NLU models, phrase sets, jobs) beside
	// the documents, so a najdi process holds no state of its own.
	PutMeta(ctx context.Context, key string, value json.RawMessage) error
	GetMeta(ctx context.Context, key string) (json.RawMessage, error)
	DeleteMeta(ctx context.Context, key string) error
	ListMeta(ctx context.Context, prefix string) ([]string, error)
}

var _ Backend = (*Client)(nil)
