package engine

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/text/diacritics"
)

// Options configure an Engine. The zero value of every field but Dir is a
// documented default.
type Options struct {
	// Dir is the data directory (created if missing). Required.
	Dir string
	// Embedders resolves embedding_config.model names to embedders. Nil
	// means only keyword-only collections (model "none") can be created.
	Embedders EmbedderProvider
	// FlushDocs is the number of documents buffered in memory before an
	// ingest writes them as one segment (default 2000).
	FlushDocs int
	// FlushBytes bounds the text buffered before a flush (default 32 MiB).
	FlushBytes int
	// MaxSegments triggers a background merge when a collection has more
	// segments (default 8).
	MaxSegments int
	// MergeInterval is how often the merger looks for work (default 2s).
	MergeInterval time.Duration
	// IdleMerge: once a collection has had no new segment for this long,
	// the merger merges its segments of comparable size (idleMergePick),
	// so that a bulk load made of several flushes ends as one segment and
	// its searches visit one index instead of several; once merges are
	// done and every collection is idle, the freed memory is returned to
	// the operating system (debug.FreeOSMemory, releaseMemory) (default
	// 10s; negative disables both; large merges release memory anyway).
	IdleMerge time.Duration
	// Ranker holds the hybrid ranking constants (DefaultRanker when zero).
	Ranker RankerConfig
	// Reranker re-scores the best candidates of searches that ask for it
	// (SearchRequest.Rerank); nil refuses such searches.
	Reranker Reranker
	// Answerer generates answers with an LLM; nil means extractive answers.
	Answerer LLMAnswerer
	// Logger receives operational messages (default slog.Default()).
	Logger *slog.Logger
	// Now is the engine's clock (default time.Now): metadata.took_ms,
	// collection timestamps, the flush interval of ingest jobs, job
	// start and finish times and their retention.
	Now func() time.Time

	// IngestWorkers is the number of ingests that parse, analyze and embed
	// at once (default max(1, GOMAXPROCS-1), so that searches keep a CPU);
	// other ingests wait for a turn, synchronous ones first.
	IngestWorkers int
	// MaxIngests bounds the synchronous ingests running or waiting for a
	// turn (default 8); Ingest beyond it fails with ErrBusy.
	MaxIngests int
	// Backend, when set, serves every collection from a search cluster
	// (package cluster): collection records, documents and retrieval live
	// there and the engine's store keeps only jobs. Nil: the embedded
	// store.
	Backend Backend
	// Jobs, when set, keeps the asynchronous ingest jobs where several
	// engines share them (package cluster); nil keeps them in the engine's
	// store. JobLease is how long a job stays with the engine running it
	// without a renewal before another engine resumes it (default
	// DefaultJobLease; see jobTable).
	Jobs     JobStore
	JobLease time.Duration

	// MaxIngestJobs bounds the asynchronous jobs queued or running (default
	// 32) and MaxIngestJobsPerOwner those of one owner (default 8);
	// StartIngest beyond either fails with ErrBusy.
	MaxIngestJobs, MaxIngestJobsPerOwner int
	// QueryCacheSize is the number of query vectors kept in an LRU cache,
	// so that a repeated short query is not embedded again (default
	// DefaultQueryCacheSize; negative disables the cache).
	QueryCacheSize int
}

// fill checks o and sets its zero (for the sizes, non-positive) fields
// to the defaults.
func (o *Options) fill() error {
	if o.Dir == "" {
		return fmt.Errorf("engine: Options.Dir is required")
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.FlushDocs <= 0 {
		o.FlushDocs = 2000
	}
	if o.FlushBytes <= 0 {
		o.FlushBytes = 32 << 20
	}
	if o.MaxSegments <= 0 {
		o.MaxSegments = 8
	}
	if o.MergeInterval <= 0 {
		o.MergeInterval = 2 * time.Second
	}
	if o.IdleMerge == 0 {
		o.IdleMerge = 10 * time.Second
	}
	if o.Ranker == (RankerConfig{}) {
		o.Ranker = DefaultRanker()
	}
	if err := o.Ranker.Validate(); err != nil {
		return err
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.IngestWorkers < 0 || o.MaxIngests < 0 || o.MaxIngestJobs < 0 || o.MaxIngestJobsPerOwner < 0 {
		return fmt.Errorf("engine: negative ingest bound (IngestWorkers %d, MaxIngests %d, MaxIngestJobs %d, MaxIngestJobsPerOwner %d)", o.IngestWorkers, o.MaxIngests, o.MaxIngestJobs, o.MaxIngestJobsPerOwner)
	}
	if o.IngestWorkers == 0 {
		o.IngestWorkers = defaultIngestWorkers()
	}
	o.MaxIngests = cmp.Or(o.MaxIngests, defaultMaxIngests)
	o.MaxIngestJobs = cmp.Or(o.MaxIngestJobs, defaultMaxIngestJobs)
	o.MaxIngestJobsPerOwner = cmp.Or(o.MaxIngestJobsPerOwner, defaultMaxIngestJobsPerOwner)
	o.QueryCacheSize = cmp.Or(o.QueryCacheSize, DefaultQueryCacheSize)
	return nil
}

// Engine is najdi's embedded search engine: collections of documents in
// segments on a Pebble store, keyword and semantic search, summaries and
// answers. All methods are safe for concurrent use. Every method takes the
// owner of the resources it touches; owner "" is the anonymous user of a
// server without authentication.
type Engine struct {
	opts  Options
	store *segment.Store
	log   *slog.Logger
	// be holds the collections and documents: the embedded store
	// (localBackend) or a search cluster (clusterBackend over
	// Options.Backend).
	be backend

	// mu guards colls, the embedded store's collections (empty on a
	// cluster).
	mu    sync.RWMutex
	colls map[collKey]*collection

	jobs *jobTable
	kick chan struct{}

	slots       *ingestSlots // ingest turns (backpressure.go)
	memReleases atomic.Int64 // releaseMemory calls, for tests
	vecWarms    atomic.Int64 // vector files warmVectors read back, for tests
	queries     *queryCache  // query vectors (querycache.go)
	syncIngests atomic.Int64 // synchronous ingests admitted

	// restorer is the base diacritics restorer (see baseRestorer).
	restorer struct {
		once sync.Once
		r    *diacritics.Restorer
		err  error
	}

	closeOnce sync.Once
	done      chan struct{}
	wg        sync.WaitGroup
}

type collKey struct{ owner, id string }

// collRecord is the stored form of a collection.
type collRecord struct {
	Num      uint32            `json:"num"`
	Config   CollectionConfig  `json:"config"`
	Inferred map[string]string `json:"inferred,omitempty"`
	// Names, when NamesKnown, holds (sorted) every section type and field
	// name of the documents stored in the collection, so that a search
	// whose include_fields names none of them reads no body (namesAbsent).
	// Collections created before it was kept, those of a cluster and those
	// with more than maxStoredNames names do not know them.
	Names      []string  `json:"names,omitempty"`
	NamesKnown bool      `json:"names_known,omitempty"`
	Created    time.Time `json:"created_at"`
	Updated    time.Time `json:"updated_at"`
}

// Open opens or creates the engine's store in opts.Dir, loads every
// collection and starts the background merger.
func Open(opts Options) (*Engine, error) {
	if err := opts.fill(); err != nil {
		return nil, err
	}
	st, err := segment.Open(opts.Dir)
	if err != nil {
		return nil, err
	}
	e := &Engine{opts: opts, store: st, log: opts.Logger, colls: map[collKey]*collection{}, jobs: newJobTable(), slots: newIngestSlots(opts.IngestWorkers), kick: make(chan struct{}, 1), done: make(chan struct{}), queries: newQueryCache(opts.QueryCacheSize)}
	if opts.Backend != nil {
		e.be = &clusterBackend{e: e, b: opts.Backend}
	} else {
		e.be = &localBackend{e: e}
	}
	allocs := heapAllocs()
	err = st.Collections(func(owner, id string, raw []byte) error {
		var rec collRecord
		if err := json.Unmarshal(raw, &rec); err != nil {
			return fmt.Errorf("collection %q: %w", id, err)
		}
		c, err := loadCollection(e, owner, id, rec)
		if err != nil {
			return fmt.Errorf("collection %q: %w", id, err)
		}
		e.colls[collKey{owner, id}] = c
		return nil
	})
	if err != nil {
		st.Close()
		return nil, fmt.Errorf("engine: load: %w", err)
	}
	if heapAllocs()-allocs >= releaseAfterOpenBytes {
		e.releaseMemory()
	}
	e.wg.Add(1)
	go e.mergeLoop()
	if err := e.loadJobs(); err != nil {
		e.Close()
		return nil, fmt.Errorf("engine: %w", err)
	}
	return e, nil
}

// Close stops background work and closes the store. Ingests in flight
// fail with ErrClosed.
func (e *Engine) Close() error {
	var err error
	e.closeOnce.Do(func() {
		close(e.done)
		e.wg.Wait()
		e.mu.Lock()
		for _, c := range e.colls {
			c.wmu.Lock() // wait for writers
		}
		err = e.store.Close()
		e.mu.Unlock()
	})
	return err
}

// Store returns the engine's underlying store (for the NLU service's
// durable key-values).
func (e *Engine) Store() *segment.Store { return e.store }

func (e *Engine) closed() bool {
	select {
	case <-e.done:
		return true
	default:
		return false
	}
}

// PutCollection creates the collection (created=true) or replaces its
// configuration, keeping its documents.
func (e *Engine) PutCollection(ctx context.Context, owner, id string, cfg CollectionConfig) (Collection, bool, error) {
	if !ValidCollectionID(id) {
		return Collection{}, false, invalidField("collection_id", "%q is not a valid collection id (lowercase letters, digits, '_' and '-', starting with a letter or digit, at most 64 characters)", id)
	}
	if err := cfg.Normalize(); err != nil {
		return Collection{}, false, err
	}
	if e.closed() {
		return Collection{}, false, ErrClosed
	}
	return e.be.putCollection(ctx, owner, id, cfg)
}

// modelConflict is the error of a configuration that changes the
// embedding model of a collection holding documents.
func modelConflict(id, old, cfg string) error {
	return &Error{Kind: ErrConflict, Message: fmt.Sprintf("collection %q holds documents embedded with %q; changing embedding_config.model to %q would make them unsearchable: create a new collection instead", id, old, cfg)}
}

// GetCollection returns a collection with its document count.
func (e *Engine) GetCollection(ctx context.Context, owner, id string) (Collection, error) {
	c, err := e.collection(owner, id)
	if err != nil {
		return Collection{}, err
	}
	return e.be.info(ctx, c)
}

// ListCollections returns the owner's collections sorted by id. An admin
// passes all=true to see every owner's collections. A backend that cannot
// list them is logged (Collections returns its error).
func (e *Engine) ListCollections(ctx context.Context, owner string, all bool) []Collection {
	out, err := e.Collections(ctx, owner, all)
	if err != nil {
		e.log.Warn("list collections", "err", err)
	}
	return out
}

// Collections is ListCollections with the error of a Backend that cannot
// list them (the embedded store always can).
func (e *Engine) Collections(ctx context.Context, owner string, all bool) ([]Collection, error) {
	if e.closed() {
		return nil, ErrClosed
	}
	out, err := e.be.collections(ctx, owner, all)
	if err != nil {
		return nil, err
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].ID != out[j].ID {
			return out[i].ID < out[j].ID
		}
		return out[i].Owner < out[j].Owner
	})
	return out, nil
}

// DeleteCollection removes a collection and all its documents.
func (e *Engine) DeleteCollection(ctx context.Context, owner, id string) error {
	if e.closed() {
		return ErrClosed
	}
	return e.be.deleteCollection(ctx, owner, id)
}

func (e *Engine) collection(owner, id string) (*collection, error) {
	if e.closed() {
		return nil, ErrClosed
	}
	return e.be.collection(context.Background(), owner, id)
}
