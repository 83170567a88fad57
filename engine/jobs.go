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

// JobStore keeps the asynchronous ingest jobs: each job's record (its
// status and request, JSON the engine encodes) and, while the job runs,
// its upload. The engine's own store is the default; Options.Jobs puts the
// jobs where several engines share them (package cluster: the jobs indices
// beside the meta index), and then a running job is held by a lease (see
// jobLease) so that another engine resumes it when its engine is gone.
type JobStore interface {
	// Create stores a new job's record and upload, durably when it
	// returns, and returns the record's version.
	Create(ctx context.Context, id string, rec, data []byte) (string, error)
	// Get returns a job's record and its version (ErrNotFound when none).
	Get(ctx context.Context, id string) ([]byte, string, error)
	// Update replaces a job's record and returns its new version. With a
	// version it fails with ErrConflict unless the stored record still has
	// it; "" replaces unconditionally. done drops the upload.
	Update(ctx context.Context, id string, rec []byte, version string, done bool) (string, error)
	// Data returns a job's upload (ErrNotFound when it is gone).
	Data(ctx context.Context, id string) ([]byte, error)
	// Scan calls fn with every job's id, record and version.
	Scan(ctx context.Context, fn func(id string, rec []byte, version string) error) error
	// Delete removes jobs with their uploads.
	Delete(ctx context.Context, ids []string) error
}

// localJobs is the JobStore of the engine's own store: one engine uses
// it, so versions are not kept.
type localJobs struct{ st *segment.Store }

func (l localJobs) Create(_ context.Context, id string, rec, data []byte) (string, error) {
	b := l.st.NewBatch()
	b.KVPut(jobDataKeyPrefix+id, data)
	b.KVPut(jobKeyPrefix+id, rec)
	return "", b.Commit()
}

func (l localJobs) Get(_ context.Context, id string) ([]byte, string, error) {
	raw, err := l.st.KVGet(jobKeyPrefix + id)
	if errors.Is(err, segment.ErrNotFound) {
		return nil, "", notFoundf("job %q not found", id)
	}
	return raw, "", err
}

func (l localJobs) Update(_ context.Context, id string, rec []byte, _ string, done bool) (string, error) {
	b := l.st.NewBatch()
	b.KVPut(jobKeyPrefix+id, rec)
	if done {
		b.KVDelete(jobDataKeyPrefix + id)
	}
	return "", b.Commit()
}

func (l localJobs) Data(_ context.Context, id string) ([]byte, error) {
	raw, err := l.st.KVGet(jobDataKeyPrefix + id)
	if errors.Is(err, segment.ErrNotFound) {
		return nil, notFoundf("the upload of job %s is missing", id)
	}
	return raw, err
}

func (l localJobs) Scan(_ context.Context, fn func(id string, rec []byte, version string) error) error {
	return l.st.KVScan(jobKeyPrefix, func(key string, raw []byte) error {
		return fn(key[len(jobKeyPrefix):], raw, "")
	})
}

func (l localJobs) Delete(_ context.Context, ids []string) error {
	b := l.st.NewBatch()
	for _, id := range ids {
		b.KVDelete(jobKeyPrefix + id)
		b.KVDelete(jobDataKeyPrefix + id)
	}
	return b.Commit()
}

// DefaultJobLease is how long a shared job store's running job stays
// with the engine that holds it without a renewal (Options.JobLease).
const DefaultJobLease = 30 * time.Second

// jobTable keeps the asynchronous ingest jobs. Every job is stored durably
// with its upload before StartIngest returns: a job the engine stopped or
// crashed in runs again from the start when the engine opens (documents
// without ids get the same generated ids again, so nothing is doubled),
// and a finished job's status survives restarts for jobRetention.
//
// Unfinished jobs are counted, in total and per owner, against
// Options.MaxIngestJobs and MaxIngestJobsPerOwner (see backpressure.go);
// they run one ingest turn at a time like every ingest.
//
// With a shared store (Options.Jobs) the table holds only the jobs this
// engine runs; the others are read from the store. Such a job carries a
// lease (Holder, LeaseUntil) that its engine renews every jobRenewEvery,
// writing the job's progress with it; every engine looks for running jobs
// whose lease has expired every jobSweepEvery and claims one with a
// conditional update (only one engine wins), then runs it again from the
// start. So a job whose engine is killed is resumed within a lease and a
// sweep by any engine on the store, a restarted one included.
type jobTable struct {
	mu       sync.Mutex
	jobs     map[string]*job
	active   int            // unfinished jobs counted by admit
	perOwner map[string]int // active by owner

	store  JobStore
	shared bool   // store is Options.Jobs: leases, reads through the store
	holder string // this engine's lease holder id
}

type job struct {
	rec     jobRecord
	counted bool // in jobTable.active (see admit)
	meter   *ingestMeter
	total   int // documents expected, when known before the end (0: unknown)

	// Shared stores: the stored record's version, and the cancellation
	// of the job's run, which stops when the lease is lost.
	version string
	ctx     context.Context
	cancel  context.CancelFunc
	lost    bool // another engine holds the lease
	// wmu orders the lease keeper's writes and the final one, so that
	// each is conditional on the version the one before returned.
	wmu sync.Mutex
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
	// Holder and LeaseUntil: the engine running the job and until when
	// (shared stores only; see jobTable).
	Holder     string     `json:"holder,omitempty"`
	LeaseUntil *time.Time `json:"lease_until,omitempty"`
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
	if e.jobs.shared {
		until := e.opts.Now().UTC().Add(e.jobLease())
		j.rec.Holder, j.rec.LeaseUntil = e.jobs.holder, &until
	}
	raw, err := json.Marshal(j.rec)
	if err != nil {
		return "", fmt.Errorf("store job: %w", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), jobStoreTimeout)
	j.version, err = e.jobs.store.Create(ctx, rec.Status.JobID, raw, data)
	cancel()
	if err != nil && e.jobs.shared {
		return "", backendErr(err, "store job")
	}
	if err != nil {
		return "", fmt.Errorf("store job: %w", err)
	}
	stored = true
	e.jobs.mu.Lock()
	e.jobs.jobs[rec.Status.JobID] = j
	e.jobs.mu.Unlock()
	e.runJob(j)
	return rec.Status.JobID, nil
}

// jobStoreTimeout bounds one call to the job store.
const jobStoreTimeout = time.Minute

// jobLease is the lease of a shared store's running job.
func (e *Engine) jobLease() time.Duration {
	if e.opts.JobLease > 0 {
		return e.opts.JobLease
	}
	return DefaultJobLease
}

// jobRenewEvery is how often the engine holding a job renews its lease
// and writes its progress; jobSweepEvery how often every engine looks for
// jobs whose lease has expired.
func (e *Engine) jobRenewEvery() time.Duration { return min(e.jobLease()/3, 2*time.Second) }
func (e *Engine) jobSweepEvery() time.Duration { return max(e.jobLease()/2, 200*time.Millisecond) }

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
// the next Open (or, on a shared store, by any engine once the lease has
// expired). On a shared store the job's lease is renewed meanwhile; when
// another engine has taken the job, this run stops and leaves it to that
// engine.
func (e *Engine) runJob(j *job) {
	j.ctx, j.cancel = context.WithCancel(context.Background())
	if e.jobs.shared {
		e.wg.Add(1)
		go e.keepLease(j)
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		defer j.cancel()
		turn, err := e.ingestTurn(j.ctx, true)
		if err != nil {
			e.dropLost(j)
			return // closed: resumed by the next Open
		}
		defer turn.release()
		data, err := e.jobs.store.Data(j.ctx, j.rec.Status.JobID)
		if errors.Is(err, ErrNotFound) {
			err = fmt.Errorf("the upload of job %s is missing", j.rec.Status.JobID)
		}
		if err != nil && (e.closed() || j.ctx.Err() != nil) {
			e.dropLost(j)
			return
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
		res, err := e.Ingest(j.ctx, j.rec.Owner, j.rec.Status.CollectionID, req)
		if errors.Is(err, ErrClosed) || (err != nil && (e.closed() || j.ctx.Err() != nil)) {
			e.dropLost(j)
			return
		}
		e.finishJob(j, res, err)
	}()
}

// dropLost forgets a job whose run stopped before its end (the engine
// closes, or another engine holds its lease): it stays stored as
// running, for whoever resumes it.
func (e *Engine) dropLost(j *job) {
	e.jobs.mu.Lock()
	defer e.jobs.mu.Unlock()
	e.jobs.leave(j)
	if e.jobs.shared && e.jobs.jobs[j.rec.Status.JobID] == j {
		delete(e.jobs.jobs, j.rec.Status.JobID)
	}
}

// keepLease renews the lease of a job this engine runs on a shared store,
// writing its progress, until the job ends; on Close it hands the job
// over at once (its lease ends now), so another engine resumes it without
// waiting for the lease to expire.
func (e *Engine) keepLease(j *job) {
	defer e.wg.Done()
	tick := time.NewTicker(e.jobRenewEvery())
	defer tick.Stop()
	for {
		select {
		case <-j.ctx.Done():
			if e.closed() {
				e.saveLease(j, 0)
			}
			return
		case <-e.done:
			j.cancel()
		case <-tick.C:
			if !e.saveLease(j, e.jobLease()) {
				j.cancel()
				return
			}
		}
	}
}

// saveLease writes a running job's record with its progress and its
// lease extended by d (0: ended now). It reports false when the job is no
// longer this engine's: finished, or claimed by another engine.
func (e *Engine) saveLease(j *job, d time.Duration) bool {
	j.wmu.Lock()
	defer j.wmu.Unlock()
	e.jobs.mu.Lock()
	if j.rec.Status.Status != "running" || j.lost {
		e.jobs.mu.Unlock()
		return false
	}
	rec := j.rec
	until := e.opts.Now().UTC().Add(d)
	rec.LeaseUntil = &until
	if st := j.status(e.opts.Now()); st.Total != nil {
		rec.Status.Total = st.Total
	}
	if j.meter != nil {
		rec.Status.BytesRead = min(j.meter.bytesRead.Load(), rec.Status.BytesTotal)
	}
	version := j.version
	e.jobs.mu.Unlock()
	raw, err := json.Marshal(rec)
	if err != nil {
		return true
	}
	ctx, cancel := context.WithTimeout(context.Background(), jobStoreTimeout)
	nv, err := e.jobs.store.Update(ctx, j.rec.Status.JobID, raw, version, false)
	cancel()
	e.jobs.mu.Lock()
	defer e.jobs.mu.Unlock()
	switch {
	case err == nil:
		j.version = nv
		j.rec.LeaseUntil = &until
		return true
	case errors.Is(err, ErrConflict):
		if j.rec.Status.Status != "running" {
			return false
		}
		e.log.Warn("ingest job taken over by another engine (its lease expired); stopping here", "job", j.rec.Status.JobID)
		j.lost = true
		return false
	default:
		// The store is unreachable: keep running; the lease may expire
		// and another engine resume the job, which is idempotent.
		e.log.Warn("renew ingest job lease", "job", j.rec.Status.JobID, "err", err)
		return true
	}
}

// finishJob records the outcome of j in memory and in the store, and drops
// its upload.
func (e *Engine) finishJob(j *job, res IngestResult, err error) {
	j.wmu.Lock()
	defer j.wmu.Unlock()
	e.jobs.mu.Lock()
	e.jobs.leave(j)
	if j.lost {
		e.jobs.mu.Unlock()
		e.dropLost(j)
		return
	}
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
	j.rec.Holder, j.rec.LeaseUntil = "", nil
	raw, merr := json.Marshal(j.rec)
	version := j.version
	e.jobs.mu.Unlock()
	if merr != nil {
		e.log.Error("store job", "job", st.JobID, "err", merr)
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), jobStoreTimeout)
	defer cancel()
	if _, err := e.jobs.store.Update(ctx, st.JobID, raw, version, true); err != nil {
		// A conflict: another engine claimed the job (this one was too
		// slow to renew its lease) and runs it again, idempotently.
		e.log.Error("store job", "job", st.JobID, "err", err)
	}
	if e.jobs.shared {
		// The store answers for finished jobs from now on.
		e.jobs.mu.Lock()
		if e.jobs.jobs[st.JobID] == j {
			delete(e.jobs.jobs, st.JobID)
		}
		e.jobs.mu.Unlock()
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

// loadJobs sets up the job store and reads the stored jobs: finished ones
// for their status (those older than jobRetention are deleted),
// unfinished ones are run again. On a shared store (Options.Jobs) it
// starts the sweeper instead, which resumes the jobs whose lease expired.
func (e *Engine) loadJobs() error {
	e.jobs.store = localJobs{e.store}
	if e.opts.Jobs != nil {
		e.jobs.store, e.jobs.shared, e.jobs.holder = e.opts.Jobs, true, uuid.NewString()
		e.wg.Add(1)
		go e.sweepJobs()
		return nil
	}
	var resume []*job
	var expired []string
	err := e.jobs.store.Scan(context.Background(), func(id string, raw []byte, _ string) error {
		var rec jobRecord
		if err := json.Unmarshal(raw, &rec); err != nil {
			return fmt.Errorf("job %s: %w", id, err)
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
		if err := e.jobs.store.Delete(context.Background(), expired); err != nil {
			return fmt.Errorf("delete expired jobs: %w", err)
		}
	}
	for _, j := range resume {
		// Accepted before the restart: counted even beyond the bounds, so
		// that new jobs wait until the backlog drains.
		_ = e.jobs.admit(j, 0, 0, true)
		if _, err := e.jobs.store.Data(context.Background(), j.rec.Status.JobID); err != nil {
			e.finishJob(j, IngestResult{}, err)
			continue
		}
		j.rec.Status.Restarts++
		j.rec.Status.Processed = 0
		if raw, err := json.Marshal(j.rec); err == nil {
			if _, err := e.jobs.store.Update(context.Background(), j.rec.Status.JobID, raw, "", false); err != nil {
				return fmt.Errorf("store job %s: %w", j.rec.Status.JobID, err)
			}
		}
		e.log.Info("resuming ingest job", "job", j.rec.Status.JobID, "collection", j.rec.Status.CollectionID, "restarts", j.rec.Status.Restarts)
		e.runJob(j)
	}
	return nil
}

// sweepJobs runs on a shared job store until Close: every jobSweepEvery
// it claims the running jobs whose lease has expired and deletes the
// finished ones older than jobRetention.
func (e *Engine) sweepJobs() {
	defer e.wg.Done()
	tick := time.NewTicker(e.jobSweepEvery())
	defer tick.Stop()
	for {
		e.sweepOnce()
		select {
		case <-e.done:
			return
		case <-tick.C:
		}
	}
}

// sweepOnce is one pass of sweepJobs.
func (e *Engine) sweepOnce() {
	ctx, cancel := context.WithTimeout(context.Background(), jobStoreTimeout)
	defer cancel()
	now := e.opts.Now()
	var claim []jobRecord
	var expired []string
	err := e.jobs.store.Scan(ctx, func(id string, raw []byte, _ string) error {
		var rec jobRecord
		if err := json.Unmarshal(raw, &rec); err != nil {
			e.log.Warn("undecodable ingest job record", "job", id, "err", err)
			return nil
		}
		switch {
		case rec.Status.FinishedAt != nil && now.Sub(*rec.Status.FinishedAt) > jobRetention:
			expired = append(expired, id)
		case rec.Status.Status == "running" && (rec.LeaseUntil == nil || now.After(*rec.LeaseUntil)):
			claim = append(claim, rec)
		}
		return nil
	})
	if err != nil {
		if !e.closed() {
			e.log.Warn("look for ingest jobs to resume", "err", err)
		}
		return
	}
	if len(expired) > 0 {
		if err := e.jobs.store.Delete(ctx, expired); err != nil {
			e.log.Warn("delete expired ingest jobs", "err", err)
		}
	}
	for _, rec := range claim {
		if e.closed() {
			return
		}
		e.claimJob(ctx, rec.Status.JobID)
	}
}

// claimJob takes over a running job whose lease has expired, unless
// another engine is faster or this engine has no room for it, and runs it
// again from the start.
func (e *Engine) claimJob(ctx context.Context, id string) {
	e.jobs.mu.Lock()
	_, mine := e.jobs.jobs[id]
	e.jobs.mu.Unlock()
	if mine {
		return
	}
	raw, version, err := e.jobs.store.Get(ctx, id)
	if err != nil {
		return
	}
	var rec jobRecord
	if json.Unmarshal(raw, &rec) != nil || rec.Status.Status != "running" || (rec.LeaseUntil != nil && !e.opts.Now().After(*rec.LeaseUntil)) {
		return
	}
	j := &job{rec: rec}
	if e.jobs.admit(j, e.opts.MaxIngestJobs, e.opts.MaxIngestJobsPerOwner, false) != nil {
		return // busy: another engine may take it
	}
	until := e.opts.Now().UTC().Add(e.jobLease())
	prev := j.rec.Holder
	j.rec.Holder, j.rec.LeaseUntil = e.jobs.holder, &until
	j.rec.Status.Restarts++
	j.rec.Status.Processed = 0
	raw, err = json.Marshal(j.rec)
	if err == nil {
		j.version, err = e.jobs.store.Update(ctx, id, raw, version, false)
	}
	if err != nil {
		e.jobs.mu.Lock()
		e.jobs.leave(j)
		e.jobs.mu.Unlock()
		if !errors.Is(err, ErrConflict) {
			e.log.Warn("claim ingest job", "job", id, "err", err)
		}
		return
	}
	e.jobs.mu.Lock()
	e.jobs.jobs[id] = j
	e.jobs.mu.Unlock()
	e.log.Info("resuming ingest job whose lease expired", "job", id, "collection", rec.Status.CollectionID, "previous_holder", prev, "restarts", j.rec.Status.Restarts)
	e.runJob(j)
}

// storedJob reads a job this engine does not run from a shared store;
// nil when there is none.
func (e *Engine) storedJob(id string) (*jobRecord, error) {
	ctx, cancel := context.WithTimeout(context.Background(), jobStoreTimeout)
	defer cancel()
	raw, _, err := e.jobs.store.Get(ctx, id)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, backendErr(err, "read job %q", id)
	}
	var rec jobRecord
	if err := json.Unmarshal(raw, &rec); err != nil {
		return nil, fmt.Errorf("job %s: decode: %w", id, err)
	}
	return &rec, nil
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
	if !ok && e.jobs.shared {
		e.jobs.mu.Unlock()
		rec, err := e.storedJob(id)
		e.jobs.mu.Lock()
		if err != nil {
			return JobStatus{}, err
		}
		if rec != nil {
			j, ok = &job{rec: *rec}, true
		}
	}
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
	all := make(map[string]*job, len(e.jobs.jobs))
	for id, j := range e.jobs.jobs {
		all[id] = j
	}
	e.jobs.mu.Unlock()
	if e.jobs.shared {
		// The store has every engine's jobs; those running here have
		// fresher progress in memory.
		ctx, cancel := context.WithTimeout(context.Background(), jobStoreTimeout)
		err := e.jobs.store.Scan(ctx, func(id string, raw []byte, _ string) error {
			if _, ok := all[id]; ok {
				return nil
			}
			var rec jobRecord
			if err := json.Unmarshal(raw, &rec); err != nil {
				return fmt.Errorf("job %s: decode: %w", id, err)
			}
			all[id] = &job{rec: rec}
			return nil
		})
		cancel()
		if err != nil {
			return nil, backendErr(err, "list jobs")
		}
	}
	var js []*job
	for _, j := range all {
		if j.rec.Owner == owner && (coll == "" || j.rec.Status.CollectionID == coll) && (status == "" || j.rec.Status.Status == status) {
			js = append(js, j)
		}
	}
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
