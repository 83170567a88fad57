package peers

import (
	"context"
	"errors"
	"time"
)

// Kind is a kind of query.
type Kind string

// The query kinds every system is asked, where it offers them.
const (
	Keyword  Kind = "keyword"
	Vector   Kind = "vector"
	Hybrid   Kind = "hybrid"
	Filter20 Kind = "filtered 20%"
	Filter1  Kind = "filtered 1%"
)

// Kinds lists the query kinds in report order.
var Kinds = []Kind{Keyword, Vector, Hybrid, Filter20, Filter1}

// Doc is one document as every system receives it: an id, a title, a body,
// an integer Bucket in [0, 100) used by the filtered queries (bucket < 20
// keeps 20 % of the documents, bucket < 1 keeps 1 %), and its vector.
type Doc struct {
	ID     string
	Title  string
	Text   string
	Bucket int
	Vector []float32
}

// Query is one query: its text and its precomputed vector.
type Query struct {
	ID     string
	Text   string
	Vector []float32
}

// Result is the answer of one search: the ranked document ids and, when the
// system reports it, the time the server says it spent (0 if unknown) and
// the part of it spent embedding the query.
type Result struct {
	IDs  []string
	Took time.Duration
	// Embed is the time the server says it spent embedding the query (0
	// if unknown or none).
	Embed time.Duration
}

// ErrUnsupported is returned by a system asked a kind of query it does not
// offer (bleve has no vector search in this build).
var ErrUnsupported = errors.New("peers: query kind not supported by this system")

// System is one search system under test, already started.
type System interface {
	// Name is the name in the report.
	Name() string
	// Settings describes the configuration used, for the report.
	Settings() string
	// Supports tells whether the system answers kind.
	Supports(k Kind) bool
	// Create makes an empty index named index (dropping a previous one).
	Create(ctx context.Context, index string) error
	// Ingest adds docs to index in bulk; the documents are searchable when it
	// returns.
	Ingest(ctx context.Context, index string, docs []Doc) error
	// Search runs one query of kind k for the top k documents.
	Search(ctx context.Context, index string, kind Kind, q Query, k int) (Result, error)
	// Footprint reports the resident memory of the serving process (0 if it
	// shares the benchmark's process) and the disk size of index.
	Footprint(ctx context.Context, index string) (rss, disk int64, err error)
	// Drop deletes index and everything made for it.
	Drop(ctx context.Context, index string) error
	// Close stops what the system started.
	Close() error
}

// filterMax returns the exclusive upper bound of Bucket that a filtered kind
// keeps, and 0 for an unfiltered kind.
func filterMax(k Kind) int {
	switch k {
	case Filter20:
		return 20
	case Filter1:
		return 1
	}
	return 0
}
