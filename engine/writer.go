package engine

import (
	"context"
	"errors"
	"time"

	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/segment"
)

// pendingDoc is a parsed document waiting in the write buffer.
type pendingDoc struct {
	id       string
	sections []ingest.Section
	fields   []fieldInput
	// idProp names the record property that gave the document id: its
	// value is the id and is exempt from the number check (checkDoc).
	idProp string
	// record marks a row of a record format: its sections embed packed
	// (records.go).
	record bool
}

type fieldInput struct {
	name string
	vals []ingest.Value
	enum bool // force type enum when inferred (the spreadsheet "sheet" field)
}

// writer buffers the documents of one ingest and flushes them as segments.
// It parses, analyzes and embeds without locks; flush takes the
// collection's wmu only to type fields and commit.
type writer struct {
	e        *Engine
	c        *collection
	ctx      context.Context
	progress func(int)
	jobID    string // see IngestRequest.jobID
	turn     *ingestTurn
	// lastFlush is when the last flush ended: a job flushes at least
	// jobFlushInterval after it (backpressure.go).
	lastFlush time.Time
	// jobBatch is the size of a job's next flush (see jobFirstFlushDocs).
	jobBatch int

	rec      collRecord
	recDirty bool
	emb      Embedder

	// types holds the types of fields new to the collection that
	// documents accepted by this ingest will infer at their flush; see
	// checkDoc.
	types map[string]string
	// decided holds the names in types that a job's prescan typed from
	// the documents of a full first flush (prescanTypes): its progress
	// flushes may settle them.
	decided map[string]bool

	pending      []pendingDoc
	pendingBytes int
	processed    int
	res          IngestResult
}

// Ingest parses an upload and stores its documents. Each flushed batch of
// documents is written atomically and durably together with its segment;
// when Ingest returns, every document it reports is stored and searchable.
func (e *Engine) Ingest(ctx context.Context, owner, coll string, req IngestRequest) (IngestResult, error) {
	c, err := e.collection(owner, coll)
	if err != nil {
		return IngestResult{}, err
	}
	turn := req.turn
	if turn == nil {
		if turn, err = e.ingestTurn(ctx, req.jobID != ""); err != nil {
			return IngestResult{}, err
		}
		defer turn.release()
	}
	w := &writer{e: e, c: c, ctx: ctx, progress: req.Progress, jobID: req.jobID, turn: turn}
	if err := w.init(); err != nil {
		return IngestResult{}, err
	}
	if req.Documents != nil {
		err = w.envelope(req.Documents)
	} else {
		err = w.upload(req)
	}
	if err == nil {
		err = w.flush()
	}
	if err != nil {
		// Batches already flushed stay (they were acknowledged by progress);
		// report what happened.
		return w.res, err
	}
	if w.res.Documents == nil {
		w.res.Documents = []DocStatus{}
	}
	if w.res.Errors == nil {
		w.res.Errors = []IngestError{}
	}
	return w.res, nil
}

func (w *writer) init() error {
	w.rec = w.c.record()
	emb, err := w.e.embedder(w.rec.Config.EmbeddingConfig)
	if err != nil {
		return err
	}
	w.emb = emb
	w.lastFlush = w.e.opts.Now()
	return nil
}

func (w *writer) add(d pendingDoc) error {
	w.pending = append(w.pending, d)
	for _, s := range d.sections {
		w.pendingBytes += len(s.Content)
	}
	if len(w.pending) >= w.e.opts.FlushDocs || w.pendingBytes >= w.e.opts.FlushBytes ||
		(w.jobID != "" && !w.typing() && (len(w.pending) >= max(w.jobBatch, jobFirstFlushDocs) || w.e.opts.Now().Sub(w.lastFlush) >= jobFlushInterval)) {
		if err := w.flush(); err != nil {
			return err
		}
		// Outside the collection's write lock, which flush held.
		return w.turn.yield(w.ctx)
	}
	return nil
}

// typing reports whether the buffered documents carry a field whose type
// this upload inferred and neither a flush settled nor a job's prescan
// decided (prescanTypes). A job's progress
// flushes (small first batches, one a second) wait until it has not: the
// type of a new field is inferred from the documents of one full flush
// (FlushDocs documents or FlushBytes bytes), so an asynchronous job types
// a file's columns as a synchronous upload of the same file does, and
// neither depends on how fast parsing ran ahead of embedding (a CSV column
// of 2 in its first rows and 2,2 in row 25 is text in both, not a number
// field that rejects row 25 only when a job happened to flush before it).
func (w *writer) typing() bool {
	for name := range w.types {
		if _, settled := fieldTypeOf(&w.rec, name); !settled && !w.decided[name] {
			return true
		}
	}
	return false
}

// flush writes the buffered documents as one segment, atomically with
// their bodies and the deletes of the documents they replace. Text
// analysis and embedding run before the collection's write lock is taken;
// field typing, encoding and the commit run under it.
func (w *writer) flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	if w.e.closed() {
		return ErrClosed
	}
	// One status per input document, in input order; a document id given
	// twice is written once (the last copy) and reported twice.
	ids := make([]string, len(w.pending))
	for i, d := range w.pending {
		ids[i] = d.id
	}
	docs := dedupe(w.pending)
	w.pending, w.pendingBytes = w.pending[:0], 0
	w.jobBatch = min(2*max(w.jobBatch, jobFirstFlushDocs), jobFlushDocs)
	// The interval counts from the end of this flush: counted from its
	// start, a flush slower than jobFlushInterval (embedding, a cluster's
	// refresh) made every next one flush the single document then
	// buffered, about one document per flush.
	defer func() { w.lastFlush = w.e.opts.Now() }()

	b, err := w.e.be.prepare(w, docs)
	if err != nil {
		return err
	}
	status, err := w.e.be.commit(w, b, docs, ids)
	if err != nil {
		w.discardVectors(b.seg)
		return err
	}
	w.res.Documents = append(w.res.Documents, status...)
	w.processed += len(ids)
	if w.progress != nil {
		w.progress(w.processed)
	}
	return nil
}

// discardVectors removes the vectors file that prepare wrote for seg
// when its commit was refused (the collection was deleted meanwhile, a
// field's type conflicted): no committed batch references it, and
// without this it stayed until the next open. A commit that failed in
// Pebble may still have reached the log, in which case the segment's meta
// is in the store and the file stays (the next open removes it if it is
// an orphan after all). It runs under the collection's wmu, which Close
// takes before closing the store.
func (w *writer) discardVectors(seg *segment.Segment) {
	if seg == nil || seg.Vectors == nil || !seg.Vectors.OnFile() {
		return
	}
	w.c.wmu.Lock()
	defer w.c.wmu.Unlock()
	if w.e.closed() {
		return // the next open removes it
	}
	if _, err := w.e.store.Blob(w.c.num, seg.ID, segment.PartMeta); errors.Is(err, segment.ErrNotFound) {
		w.e.store.DiscardVectors(w.c.num, seg.ID)
	}
}

// dedupe keeps the last occurrence of each document id, in order.
func dedupe(docs []pendingDoc) []pendingDoc {
	last := make(map[string]int, len(docs))
	for i, d := range docs {
		last[d.id] = i
	}
	if len(last) == len(docs) {
		return append([]pendingDoc(nil), docs...)
	}
	out := make([]pendingDoc, 0, len(last))
	for i, d := range docs {
		if last[d.id] == i {
			out = append(out, d)
		}
	}
	return out
}
