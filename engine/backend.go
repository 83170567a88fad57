package engine

import (
	"context"

	"github.com/najdi/najdi/filter"
)

// Backend is where a cluster-backed engine keeps collections and
// documents and how it retrieves them: the storage and retrieval
// primitives beneath the engine's search pipeline. Package cluster
// implements it for Elasticsearch 8.x and OpenSearch 2.x/3.x
// (cluster.EngineBackend); Options.Backend selects it. Without one, the
// engine keeps everything in its own store (segments in Pebble, invindex,
// vector), which offers the same primitives on segment snapshots
// (retrieve.go).
//
// Everything above it is the engine's and shared by both: request
// validation and filter parsing, query analysis and diacritics
// restoration, embedding, field typing, BM25 term weights and score
// calibration, fusion, passages, summaries and answers. So scores,
// passages and token budgets mean the same on both.
//
// Contract:
//   - A write is durable and visible to every reader when the call returns.
//   - Keyword scores are najdi's BM25 (Σ idf × tf / (tf + k1 × norm), no
//     (k1 + 1) factor) over the terms the engine's analyzer produced, with
//     the statistics of all the named indices.
//   - Vector search returns the nearest chunks by cosine similarity
//     among those of the documents the filter allows.
//   - Filters arrive parsed and validated (package filter); the backend
//     evaluates exactly filter.Eval's semantics.
//   - Errors wrap the kinds of internal/errs (a backend that cannot be
//     reached is ErrUnavailable, 503).
//
// Index names are the engine's (one per collection and owner, see
// backendIndex); record keys are the engine's too.
type Backend interface {
	// Describe names the backend for logs ("elasticsearch 8.19.8").
	Describe() string

	// PutRecord, GetRecord, DeleteRecord and ListRecords keep the engine's
	// own records (collection configurations) beside the documents, so an
	// engine process holds no state of its own. GetRecord of a missing key
	// is ErrNotFound.
	PutRecord(ctx context.Context, key string, value []byte) error
	GetRecord(ctx context.Context, key string) ([]byte, error)
	DeleteRecord(ctx context.Context, key string) error
	ListRecords(ctx context.Context, prefix string) ([]string, error)

	// CreateIndex creates an empty index for a collection with its filter
	// fields and embedding dimension (0: no vectors); it is not an error
	// when the index exists. DropIndex deletes it with its documents;
	// AddFields maps filter fields found later.
	CreateIndex(ctx context.Context, index string, fields map[string]filter.FieldType, dims int) error
	DropIndex(ctx context.Context, index string) error
	AddFields(ctx context.Context, index string, fields map[string]filter.FieldType) error

	// Write stores documents, replacing those with the same ids; the
	// documents not stored are returned one by one, and when the error is
	// not nil every document not confirmed is among them.
	Write(ctx context.Context, index string, docs []BackendDoc) ([]BackendDocError, error)
	// Exists reports which of ids are stored.
	Exists(ctx context.Context, index string, ids []string) (map[string]bool, error)
	// Delete removes documents and returns the ids that existed.
	Delete(ctx context.Context, index string, ids []string) ([]string, error)
	// Get returns a document's stored body (ErrNotFound when none); List
	// pages through the ids in ascending byte order ("" cursor: the first
	// page; the returned cursor is "" after the last).
	Get(ctx context.Context, index, id string) ([]byte, error)
	List(ctx context.Context, index, after string, n int) ([]string, string, error)
	// Count counts the documents of indices the filter allows.
	Count(ctx context.Context, indices []string, flt BackendFilter) (int64, error)
	// FilterIDs returns every document id of an index the filter allows,
	// ascending.
	FilterIDs(ctx context.Context, index string, flt BackendFilter) ([]string, error)

	// Keyword returns the k best documents of indices by BM25 over the
	// analyzed query terms among those the filter allows, with the term
	// statistics of all the indices (k 0: statistics only).
	Keyword(ctx context.Context, indices []string, terms []BackendTerm, flt BackendFilter, k int) (BackendKeyword, error)
	// Vector returns the k chunks nearest to vec by cosine similarity,
	// best first, among those of the documents the filter allows (several
	// chunks of a document may be among them).
	Vector(ctx context.Context, indices []string, vec []float32, flt BackendFilter, k int) ([]BackendVectorHit, error)
	// Match returns up to k documents holding every one of terms.
	Match(ctx context.Context, indices []string, terms []string, flt BackendFilter, k int) ([]BackendHit, error)
	// Chunks returns the stored chunks (with vectors) of documents of an
	// index, in document order.
	Chunks(ctx context.Context, index string, ids []string) (map[string][]BackendChunk, error)
}

// BackendDoc is one document as a Backend stores it.
type BackendDoc struct {
	ID string
	// Terms are the BM25F-weighted term frequencies of the searchable text
	// (section boosts applied); Length is their sum.
	Terms  map[string]float32
	Length float32
	// Body is the stored document (its sections and fields), returned by
	// Get.
	Body []byte
	// Fields are the values of the document's filter fields (strings for
	// enum and enum_text, float64 for number).
	Fields map[string][]any
	// Chunks are the embedded chunks.
	Chunks []BackendChunk
}

// BackendChunk is one embedded span of a document: section and rune
// offsets as in segment.ChunkRef.
type BackendChunk struct {
	Vector              []float32
	Section, Start, End int
}

// BackendDocError is a document a Backend did not store.
type BackendDocError struct {
	ID  string
	Err error
}

// BackendFilter selects documents: a validated filter (nil: all) with the
// field types it was validated against, and optionally a set of ids.
type BackendFilter struct {
	Query  filter.Query
	Schema filter.Schema
	IDs    []string
}

// BackendTerm is an analyzed query term and how often the query holds it.
type BackendTerm struct {
	Term  string
	Count int
}

// BackendHit is a document of an index with a score.
type BackendHit struct {
	Index, ID string
	Score     float64
}

// BackendKeyword is a keyword search's hits and the statistics of the
// searched indices: documents, each term's document frequency and the
// average weighted length.
type BackendKeyword struct {
	Hits      []BackendHit
	Docs      int64
	DocFreq   map[string]int64
	AvgLength float64
}

// BackendVectorHit is a chunk found by a vector search, and its document.
type BackendVectorHit struct {
	Index, ID  string
	Similarity float64
	Chunk      BackendChunk
}
