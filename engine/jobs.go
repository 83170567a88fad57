package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"github.com/najdi/najdi/api"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/segment"
)

// JobStatus reports an asynchronous ingest (package api).
type JobStatus = api.JobStatus

// jobFirstFlushDocs is the size of a job's first flush; each next one is
// twice as large, up to jobFlushDocs. Parsing runs far ahead of embedding,
// so without it a job of a few hundred records would store them in one
// flush and report no progress until its end.
const jobFirstFlushDocs = 16

// jobRetention is how long a finished job's status stays available.
const jobRetention = 7 * 24 * time.Hour

// Keys of the jobs in the store's generic key-values: the job record and,
// while the job runs, its upload.
const (
	jobKeyPrefix     = "engine/job/"
	jobDataKeyPrefix = "engine/jobdata/"
)

// jobTable keeps the asynchronous ingest jobs. Every job is stored durably
// with its upload before StartIngest returns: a job the engine stopped or
// crashed in runs again from the start when the engine opens (documents
// without ids get the same generated ids again, so nothing is doubled),
// and a finished job's status survives restarts for jobRetention.
//
// Unfinished jobs are counted, in total and per owner, against
// Options.MaxIngestJobs and MaxIngestJobsPerOwner (see backpressure.go);
// they run one ingest turn at a time like every ingest.
type jobTable struct {
	mu       sync.Mutex
	jobs     map[string]*job
	active   int            // unfinished jobs counted by admit
	perOwner map[string]int // active by owner
}

type job struct {
	rec     jobRecord
	counted bool // in jobTable.active (see admit)
	meter   *ingestMeter
	total   int // documents expected, when known before the end (0: unknown)
}

// ingestMeter measures a running job for its status: when it got its
// first ingest turn and how much of its upload the parser has read.
type ingestMeter struct {
	started   atomic.Int64 // unix nanoseconds of the first turn, 0 before
	bytesRead atomic.Int64
	streamed  atomic.Bool // a record format read as a stream (ETA by bytes)
}

// countingReader adds what it reads to an ingestMeter.
type countingReader struct {
	r io.Reader
	m *ingestMeter
}

func (c countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.m.bytesRead.Add(int64(n))
	return n, err
}

// status returns j's status with the progress measures of a running job;
// the caller holds the job table's lock.
func (j *job) status(now time.Time) JobStatus {
	st := j.rec.Status
	if st.Status != "running" {
		return st
	}
	if st.Total == nil && j.total > 0 {
		t := j.total
		st.Total = &t
	}
	if j.meter == nil {
		return st // waiting for its first turn
	}
	st.BytesRead = min(j.meter.bytesRead.Load(), st.BytesTotal)
	started := j.meter.started.Load()
	if started == 0 {
		return st
	}
	secs := now.Sub(time.Unix(0, started)).Seconds()
	if secs <= 0 {
		return st
	}
	rate := float64(st.Processed) / secs
	st.DocumentsPerSecond = &rate
	var eta float64
	switch {
	case st.Total != nil && st.Processed > 0:
		eta = float64(max(0, *st.Total-st.Processed)) / rate
	case j.meter.streamed.Load() && st.BytesRead > 0 && st.BytesTotal > 0:
		eta = secs * float64(st.BytesTotal-st.BytesRead) / float64(st.BytesRead)
	default:
		return st
	}
	eta = math.Round(eta*10) / 10
	st.ETASeconds = &eta
	return st
}

// jobRecord is the stored form of a job: its status and the request
// without its data (stored under jobDataKeyPrefix).
type jobRecord struct {
	Owner  string    `json:"owner"`
	Status JobStatus `json:"status"`
	// CollectionNum is the internal number of the collection the job
	// ingests into: a job of a deleted collection is not one of a new
	// collection of the same id.
	CollectionNum uint32 `json:"collection_num,omitempty"`
	Format        string `json:"format,omitempty"`
	ContentType   string `json:"content_type,omitempty"`
	FileName      string `json:"file_name,omitempty"`
	DocumentID    string `json:"document_id,omitempty"`
	IDField       string `json:"id_field,omitempty"`
	// Envelope marks data holding the JSON of IngestRequest.Documents.
	Envelope bool `json:"envelope,omitempty"`
}

func newJobTable() *jobTable { return &jobTable{jobs: map[string]*job{}, perOwner: map[string]int{}} }

// StartIngest stores the upload durably, runs the ingest in the background
// and returns its job id. A Reader is read to the end first. When
// MaxIngestJobs jobs, or MaxIngestJobsPerOwner jobs of the owner, are
// queued or running, it fails with ErrBusy and stores nothing.
func (e *Engine) StartIngest(owner, coll string, req IngestRequest) (string, error) {
	c, err := e.collection(owner, coll)
	if err != nil {
		return "", err
	}
	if e.closed() {
		return "", ErrClosed
	}
	// A format name the job could never read is refused now, as a
	// synchronous upload refuses it, not accepted and failed later.
	if req.Format != "" {
		if _, err := ingest.ParseFormat(req.Format); err != nil {
			return "", kindError(ErrUnsupportedMedia, err, "cannot ingest this upload")
		}
	}
	rec := jobRecord{
		Owner:         owner,
		CollectionNum: c.num,
		Status:        JobStatus{JobID: uuid.NewString(), CollectionID: coll, Status: "running", Errors: []IngestError{}, StartedAt: e.opts.Now().UTC()},
		Format:        req.Format,
		ContentType:   req.ContentType,
		FileName:      req.FileName,
		DocumentID:    req.DocumentID,
		IDField:       req.IDField,
	}
	j := &job{rec: rec}
	if err := e.jobs.admit(j, e.opts.MaxIngestJobs, e.opts.MaxIngestJobsPerOwner, false); err != nil {
		return "", err
	}
	stored := false
	defer func() {
		if !stored {
			e.jobs.mu.Lock()
			e.jobs.leave(j)
			e.jobs.mu.Unlock()
		}
	}()
	data := req.Data
	switch {
	case req.Documents != nil:
		raw, err := json.Marshal(req.Documents)
		if err != nil {
			return "", fmt.Errorf("store job: %w", err)
		}
		data, j.rec.Envelope = raw, true
	case data == nil && req.Reader != nil:
		raw, err := io.ReadAll(req.Reader)
		if err != nil {
			return "", fmt.Errorf("read upload: %w", err)
		}
		data = raw
	}
	j.rec.Status.BytesTotal = int64(len(data))
	j.total = knownTotal(req, data)
	raw, err := json.Marshal(j.rec)
	if err != nil {
		return "", fmt.Errorf("store job: %w", err)
	}
	b := e.store.NewBatch()
	b.KVPut(jobDataKeyPrefix+rec.Status.JobID, data)
	b.KVPut(jobKeyPrefix+rec.Status.JobID, raw)
	if err := b.Commit(); err != nil {
		return "", fmt.Errorf("store job: %w", err)
	}
	stored = true
	e.jobs.mu.Lock()
	e.jobs.jobs[rec.Status.JobID] = j
	e.jobs.mu.Unlock()
	e.runJob(j)
	return rec.Status.JobID, nil
}

// request rebuilds the ingest request of a stored job.
func (r *jobRecord) request(data []byte) (IngestRequest, error) {
	req := IngestRequest{Format: r.Format, ContentType: r.ContentType, FileName: r.FileName, DocumentID: r.DocumentID, IDField: r.IDField, jobID: r.Status.JobID}
	if !r.Envelope {
		req.Data = data
		return req, nil
	}
	if err := json.Unmarshal(data, &req.Documents); err != nil {
		return req, fmt.Errorf("stored documents of job %s: %w", r.Status.JobID, err)
	}
	return req, nil
}

// runJob ingests the stored upload of j in the background and stores the
// outcome. The job waits for its ingest turn before it reads its upload
// from the store, so that queued jobs hold no upload in memory. An ingest
// cut short by Close leaves the job stored as running, to be resumed by
// the next Open.
func (e *Engine) runJob(j *job) {
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		turn, err := e.ingestTurn(context.Background(), true)
		if err != nil {
			return // closed: resumed by the next Open
		}
		defer turn.release()
		data, err := e.store.KVGet(jobDataKeyPrefix + j.rec.Status.JobID)
		if errors.Is(err, segment.ErrNotFound) {
			err = fmt.Errorf("the upload of job %s is missing", j.rec.Status.JobID)
		}
		if err != nil {
			e.finishJob(j, IngestResult{}, err)
			return
		}
		req, err := j.rec.request(data)
		if err != nil {
			e.finishJob(j, IngestResult{}, err)
			return
		}
		req.Progress = func(n int) {
			e.jobs.mu.Lock()
			j.rec.Status.Processed = n
			e.jobs.mu.Unlock()
		}
		e.startMeter(j, &req, data)
		req.turn = turn
		res, err := e.Ingest(context.Background(), j.rec.Owner, j.rec.Status.CollectionID, req)
		if errors.Is(err, ErrClosed) || (err != nil && e.closed()) {
			return
		}
		e.finishJob(j, res, err)
	}()
}

// finishJob records the outcome of j in memory and in the store, and drops
// its upload.
func (e *Engine) finishJob(j *job, res IngestResult, err error) {
	e.jobs.mu.Lock()
	e.jobs.leave(j)
	st := &j.rec.Status
	now := e.opts.Now().UTC()
	st.FinishedAt = &now
	st.Processed = len(res.Documents)
	if err == nil {
		st.BytesRead = st.BytesTotal
	} else if j.meter != nil {
		st.BytesRead = min(j.meter.bytesRead.Load(), st.BytesTotal)
	}
	total := len(res.Documents) + len(res.Errors)
	st.Total = &total
	st.Documents = res.Documents
	if res.Errors != nil {
		st.Errors = res.Errors
	}
	st.Status = "done"
	if err != nil {
		st.Status = "failed"
		st.Error = err.Error()
	}
	raw, merr := json.Marshal(j.rec)
	e.jobs.mu.Unlock()
	if merr != nil {
		e.log.Error("store job", "job", st.JobID, "err", merr)
		return
	}
	b := e.store.NewBatch()
	b.KVPut(jobKeyPrefix+st.JobID, raw)
	b.KVDelete(jobDataKeyPrefix + st.JobID)
	if err := b.Commit(); err != nil {
		e.log.Error("store job", "job", st.JobID, "err", err)
	}
}

// startMeter gives a job about to run its progress meter, started now
// (the job holds its first ingest turn), and the total when it is known
// before the end: 1 for a document format, the envelope's length.
func (e *Engine) startMeter(j *job, req *IngestRequest, data []byte) {
	m := &ingestMeter{}
	m.started.Store(e.opts.Now().UnixNano())
	req.meter = m
	total := knownTotal(*req, data)
	e.jobs.mu.Lock()
	j.meter, j.total = m, total
	e.jobs.mu.Unlock()
}

// knownTotal is the number of documents an upload gives when it is known
// before parsing: 1 for a document format, the envelope's length; else 0.
func knownTotal(req IngestRequest, data []byte) int {
	if req.Documents != nil {
		return len(req.Documents)
	}
	f, err := ingest.ParseFormat(req.Format)
	if req.Format == "" {
		f, err = ingest.DetectFormat(req.ContentType, req.FileName, data[:min(len(data), 4096)])
	}
	if err == nil && !f.RecordOriented() {
		return 1
	}
	return 0
}

// loadJobs reads the stored jobs: finished ones for their status (those
// older than jobRetention are deleted), unfinished ones are run again.
func (e *Engine) loadJobs() error {
	var resume []*job
	var expired []string
	err := e.store.KVScan(jobKeyPrefix, func(key string, raw []byte) error {
		var rec jobRecord
		if err := json.Unmarshal(raw, &rec); err != nil {
			return fmt.Errorf("job %s: %w", key, err)
		}
		if rec.Status.FinishedAt != nil && e.opts.Now().Sub(*rec.Status.FinishedAt) > jobRetention {
			expired = append(expired, rec.Status.JobID)
			return nil
		}
		j := &job{rec: rec}
		e.jobs.jobs[rec.Status.JobID] = j
		if rec.Status.Status == "running" {
			resume = append(resume, j)
		}
		return nil
	})
	if err != nil {
		return fmt.Errorf("load jobs: %w", err)
	}
	if len(expired) > 0 {
		b := e.store.NewBatch()
		for _, id := range expired {
			b.KVDelete(jobKeyPrefix + id)
		}
		if err := b.Commit(); err != nil {
			return fmt.Errorf("delete expired jobs: %w", err)
		}
	}
	for _, j := range resume {
		// Accepted before the restart: counted even beyond the bounds, so
		// that new jobs wait until the backlog drains.
		_ = e.jobs.admit(j, 0, 0, true)
		_, err := e.store.KVGet(jobDataKeyPrefix + j.rec.Status.JobID)
		if err != nil {
			if errors.Is(err, segment.ErrNotFound) {
				err = fmt.Errorf("the upload of job %s is missing", j.rec.Status.JobID)
			}
			e.finishJob(j, IngestResult{}, err)
			continue
		}
		j.rec.Status.Restarts++
		j.rec.Status.Processed = 0
		if raw, err := json.Marshal(j.rec); err == nil {
			if err := e.store.KVPut(jobKeyPrefix+j.rec.Status.JobID, raw); err != nil {
				return fmt.Errorf("store job %s: %w", j.rec.Status.JobID, err)
			}
		}
		e.log.Info("resuming ingest job", "job", j.rec.Status.JobID, "collection", j.rec.Status.CollectionID, "restarts", j.rec.Status.Restarts)
		e.runJob(j)
	}
	return nil
}

// Job returns the status of an ingest job of the owner's collection.
func (e *Engine) Job(owner, coll, id string) (JobStatus, error) {
	c, err := e.collection(owner, coll)
	if err != nil {
		return JobStatus{}, err
	}
	e.jobs.mu.Lock()
	defer e.jobs.mu.Unlock()
	j, ok := e.jobs.jobs[id]
	if !ok || j.rec.Owner != owner || j.rec.Status.CollectionID != coll || (j.rec.CollectionNum != 0 && j.rec.CollectionNum != c.num) {
		return JobStatus{}, notFoundf("job %q not found in collection %q", id, coll)
	}
	return j.status(e.opts.Now()), nil
}

// Jobs lists the owner's ingest jobs, newest first, without their
// documents: those of collection coll when it is not "", and those in
// status when it is not "". Jobs of deleted collections are not listed.
func (e *Engine) Jobs(owner, coll, status string) ([]JobStatus, error) {
	switch status {
	case "", "running", "done", "failed":
	default:
		return nil, invalidField("status", "%q is not a job status (use running, done or failed)", status)
	}
	if coll != "" {
		if _, err := e.collection(owner, coll); err != nil {
			return nil, err
		}
	}
	e.jobs.mu.Lock()
	var js []*job
	for _, j := range e.jobs.jobs {
		if j.rec.Owner == owner && (coll == "" || j.rec.Status.CollectionID == coll) && (status == "" || j.rec.Status.Status == status) {
			js = append(js, j)
		}
	}
	e.jobs.mu.Unlock()
	out := []JobStatus{}
	now := e.opts.Now()
	for _, j := range js {
		c, err := e.collection(owner, j.rec.Status.CollectionID)
		if err != nil || (j.rec.CollectionNum != 0 && j.rec.CollectionNum != c.num) {
			continue
		}
		e.jobs.mu.Lock()
		st := j.status(now)
		e.jobs.mu.Unlock()
		st.Documents = nil
		out = append(out, st)
	}
	sort.Slice(out, func(a, b int) bool {
		if !out[a].StartedAt.Equal(out[b].StartedAt) {
			return out[a].StartedAt.After(out[b].StartedAt)
		}
		return out[a].JobID < out[b].JobID
	})
	return out, nil
}
