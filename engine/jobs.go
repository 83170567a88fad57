package engine

import (
	"context"
	"sync"
	"time"

	"github.com/google/uuid"
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
}

// jobTable keeps asynchronous ingest jobs in memory. Jobs do not survive a
// restart; the documents they acknowledged (processed) do.
type jobTable struct {
	mu   sync.Mutex
	jobs map[string]*job
}

type job struct {
	owner string
	st    JobStatus
}

func newJobTable() *jobTable { return &jobTable{jobs: map[string]*job{}} }

// StartIngest runs an ingest in the background and returns its job id.
// The request's Data must stay valid until the job ends (the engine takes
// ownership).
func (e *Engine) StartIngest(owner, coll string, req IngestRequest) (string, error) {
	if _, err := e.collection(owner, coll); err != nil {
		return "", err
	}
	j := &job{owner: owner, st: JobStatus{JobID: uuid.NewString(), CollectionID: coll, Status: "running", Errors: []IngestError{}, StartedAt: time.Now().UTC()}}
	e.jobs.mu.Lock()
	e.jobs.jobs[j.st.JobID] = j
	e.jobs.mu.Unlock()
	req.Progress = func(n int) {
		e.jobs.mu.Lock()
		j.st.Processed = n
		e.jobs.mu.Unlock()
	}
	e.wg.Add(1)
	go func() {
		defer e.wg.Done()
		res, err := e.Ingest(context.Background(), owner, coll, req)
		e.jobs.mu.Lock()
		defer e.jobs.mu.Unlock()
		now := time.Now().UTC()
		j.st.FinishedAt = &now
		j.st.Processed = len(res.Documents)
		total := len(res.Documents) + len(res.Errors)
		j.st.Total = &total
		j.st.Documents = res.Documents
		if res.Errors != nil {
			j.st.Errors = res.Errors
		}
		if err != nil {
			j.st.Status = "failed"
			j.st.Error = err.Error()
			return
		}
		j.st.Status = "done"
	}()
	return j.st.JobID, nil
}

// Job returns the status of an ingest job of the owner's collection.
func (e *Engine) Job(owner, coll, id string) (JobStatus, error) {
	e.jobs.mu.Lock()
	defer e.jobs.mu.Unlock()
	j, ok := e.jobs.jobs[id]
	if !ok || j.owner != owner || j.st.CollectionID != coll {
		return JobStatus{}, notFoundf("job %q not found in collection %q", id, coll)
	}
	st := j.st
	return st, nil
}
