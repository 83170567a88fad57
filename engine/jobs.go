package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/google/uuid"

	"github.com/najdi/najdi/segment"
)

// JobStatus reports an asynchronous ingest.
type JobStatus struct {
	JobID        string        `json:"job_id"`
	CollectionID string        `json:"collection_id"`
	Status       string        `json:"status"` // running, done or failed
	Processed    int           `json:"processed"`
	Total        *int          `json:"total"` // known when done
	Documents    []DocStatus   `json:"documents,omitempty"`
	Errors       []IngestError `json:"errors"`
	Error        string        `json:"error,omitempty"`
	StartedAt    time.Time     `json:"started_at"`
	FinishedAt   *time.Time    `json:"finished_at,omitempty"`
	// Restarts counts how often the job was resumed after the engine
	// stopped (or crashed) while it ran.
	Restarts int `json:"restarts,omitempty"`
}

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
	rec := jobRecord{
		Owner:         owner,
		CollectionNum: c.num,
		Status:        JobStatus{JobID: uuid.NewString(), CollectionID: coll, Status: "running", Errors: []IngestError{}, StartedAt: time.Now().UTC()},
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
	now := time.Now().UTC()
	st.FinishedAt = &now
	st.Processed = len(res.Documents)
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
		if rec.Status.FinishedAt != nil && time.Since(*rec.Status.FinishedAt) > jobRetention {
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
	return j.rec.Status, nil
}
