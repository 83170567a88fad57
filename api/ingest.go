package api

import "time"

// IngestResult reports what an ingest did.
type IngestResult struct {
	Documents []DocStatus   `json:"documents"`
	Errors    []IngestError `json:"errors"`
}

// DocStatus is the outcome for one document.
type DocStatus struct {
	DocumentID string `json:"document_id"`
	Status     string `json:"status"` // created or replaced
}

// IngestError reports one document or record that was not ingested.
type IngestError struct {
	DocumentID string `json:"document_id,omitempty"`
	Record     *int   `json:"record,omitempty"`
	Sheet      string `json:"sheet,omitempty"`
	Message    string `json:"message"`
}

// JobStatus reports an asynchronous ingest.
type JobStatus struct {
	JobID        string        `json:"job_id"`
	CollectionID string        `json:"collection_id"`
	Status       string        `json:"status"` // running, done or failed
	Processed    int           `json:"processed"`
	Total        *int          `json:"total"` // documents + errors: from the start for a document format (1) and the envelope, else when done
	Documents    []DocStatus   `json:"documents,omitempty"`
	Errors       []IngestError `json:"errors"`
	Error        string        `json:"error,omitempty"`
	StartedAt    time.Time     `json:"started_at"`
	FinishedAt   *time.Time    `json:"finished_at,omitempty"`
	// Restarts counts how often the job was resumed after the engine
	// stopped (or crashed) while it ran.
	Restarts int `json:"restarts,omitempty"`
	// BytesTotal is the size of the upload; BytesRead how much of it the
	// parser has read so far (record formats; the whole upload once a
	// document format is parsed).
	BytesTotal int64 `json:"bytes_total"`
	BytesRead  int64 `json:"bytes_read"`
	// DocumentsPerSecond is the rate of processed documents since the job
	// got its first ingest turn, while it runs.
	DocumentsPerSecond *float64 `json:"documents_per_second,omitempty"`
	// ETASeconds estimates the seconds left while the job runs: from Total
	// when known, else from the share of a streamed upload read (CSV,
	// JSON, JSON lines); absent when nothing can be estimated yet.
	ETASeconds *float64 `json:"eta_seconds,omitempty"`
}
