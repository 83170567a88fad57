package engine

import (
	"context"

	"github.com/najdi/najdi/filter"
	"github.com/najdi/najdi/segment"
)

// backend is the seam between the engine's pipeline and where collections
// and documents live. The embedded store (localBackend, local.go and
// local_retrieve.go: segments in Pebble, invindex, vector) and a search
// cluster (clusterBackend, remote.go, over the primitives of Backend)
// implement it; Engine.be is one of them, chosen by Options.Backend.
//
// Everything else is the engine's and runs the same on both: request
// validation and filter parsing, the write path's parsing, field typing,
// analysis, chunking and embedding (writer*.go), query analysis,
// diacritics restoration and embedding, the order of the retrieval steps
// and their candidate budgets (retrieve.go), BM25 term weights, score
// calibration and fusion (rank.go), reranking, paging, passages,
// rendering, summaries and answers.
type backend interface {
	// collection returns a collection of an owner (ErrNotFound when none).
	collection(ctx context.Context, owner, id string) (*collection, error)
	// putCollection creates a collection (true) or replaces the
	// configuration of an existing one, keeping its documents; cfg is
	// validated and normalized.
	putCollection(ctx context.Context, owner, id string, cfg CollectionConfig) (Collection, bool, error)
	// deleteCollection removes a collection and its documents.
	deleteCollection(ctx context.Context, owner, id string) error
	// collections describes the owner's collections (every owner's with
	// all), in any order.
	collections(ctx context.Context, owner string, all bool) ([]Collection, error)
	// info describes a collection with its document count.
	info(ctx context.Context, c *collection) (Collection, error)

	// prepare turns analyzed documents into what commit stores, outside
	// the collection's write lock: the documents' chunk locations always
	// (batch.seg.Chunks), and the backend's indexes or terms and vectors.
	prepare(w *writer, docs []pendingDoc) (*batch, error)
	// commit types the fields of docs (writer.fields) and stores them,
	// replacing documents of the same ids, durably and visibly when it
	// returns; it returns the status of each input id (ids, in input
	// order; a document a backend refused is in w.res.Errors instead).
	commit(w *writer, b *batch, docs []pendingDoc, ids []string) ([]DocStatus, error)
	// document returns a stored document (ErrNotFound when none).
	document(ctx context.Context, c *collection, id string) (Document, error)
	// deleteDocument deletes a document (ErrNotFound when none).
	deleteDocument(ctx context.Context, c *collection, id string) error
	// listDocuments returns up to n document ids greater than after, in
	// ascending byte order.
	listDocuments(ctx context.Context, c *collection, after string, n int) ([]string, error)

	// vocabularySample returns the ids of up to n live documents of a
	// collection whose words make its diacritics vocabulary (restore.go),
	// the same ids for the same collection state.
	vocabularySample(c *collection, n int) []string

	// search starts the retrieval of a planned search (retrieve.go drives
	// it); an embedded store evaluates the filter here.
	search(p *plan) (searcher, error)
	// load returns the body parts bp of a hit's document, or ErrNotFound
	// when it was deleted or replaced after the search matched it.
	load(p *plan, h *hit, bp bodyParts) (Document, error)
}

// Both implementations of the seam.
var (
	_ backend = (*localBackend)(nil)
	_ backend = (*clusterBackend)(nil)
)

// searcher is a backend's retrieval for one search: the primitives whose
// order, budgets and flags retrieve.go decides. Calls name a group of
// collections analyzed alike; candidates of a group are one hit per
// document, accumulated across calls and returned by hits.
type searcher interface {
	// filterOnly returns every document of the searched collections the
	// filter allows, with score 1: a search without a query.
	filterOnly() ([]*hit, error)
	// weigh returns the group's query terms weighed with the keyword
	// statistics of the searched collections (weighQuery). A backend may
	// fetch the keyword top-k (cand per collection) in the same request,
	// as the cluster does.
	weigh(g *group, cand int) (queryTerms, error)
	// keyword adds the BM25 top-k of the group's keyword collections
	// (g.keyOn) with their calibrated keyword scores.
	keyword(g *group, qt queryTerms, cand int) error
	// semantic adds the documents of the chunks nearest to qvec (up to
	// 3·cand per collection or segment: semanticK), each chunk as semantic
	// evidence.
	semantic(g *group, qvec []float32, cand int) error
	// exact marks the candidates of keyword collections that hold every
	// term of every identifier of ids; with add it also adds such
	// documents when there are at most cand of them.
	exact(g *group, ids [][]string, add bool, cand int) error
	// hits returns the group's candidates, in no particular order.
	hits(g *group) []*hit
	// complete gives the candidates found by one retriever the other's
	// evidence: every chunk's similarity for those with needsChunks, the
	// BM25 score for those with needsKeyword.
	complete(g *group, hs []*hit, qt queryTerms, qvec []float32, keyword bool) error
}

// batch is a flush's documents prepared for commit: seg holds their ids
// and chunk locations, and on the embedded store the text and vector
// indexes; terms and vecs are what a cluster stores instead of indexes
// (each document's weighted terms, each chunk's vector).
type batch struct {
	seg   *segment.Segment
	terms []remoteDoc
	vecs  [][]float32
}

// Backend is what a search cluster implements to hold an engine's
// collections and documents: the storage and retrieval primitives, in
// plain ids and index names, that the engine's clusterBackend (remote.go)
// turns into its backend seam. Package cluster implements it for
// Elasticsearch 8.x and OpenSearch 2.x/3.x (cluster.EngineBackend);
// Options.Backend selects it. Without one, the engine keeps everything in
// its own store (localBackend: segments in Pebble, invindex, vector),
// which implements the same seam on segment snapshots and local document
// numbers.
//
// Everything above the seam is the engine's and shared by both: request
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
