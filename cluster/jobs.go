package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/najdi/najdi/engine"
)

// JobStore keeps najdi's asynchronous ingest jobs on the cluster, in two
// indices of the meta family: <prefix>_jobs holds each job's record (its
// status, request and lease; one entry per job, _id the job id) and
// <prefix>_jobdata its upload while it runs, cut into parts of
// jobPartBytes (entries <id>:<n>, part 0 naming the number of parts). So
// every najdi replica on the cluster reads every job's status, and a job
// whose replica is gone is resumed by another (engine.Options.Jobs; the
// lease is the engine's). Record versions are the cluster's sequence
// number and primary term, so a conditional update is an optimistic
// concurrency write (if_seq_no, if_primary_term).
type JobStore struct {
	c     *Client
	ready atomic.Bool // both indices exist
}

var _ engine.JobStore = (*JobStore)(nil)

// NewJobStore returns the job store of a client's prefix.
func NewJobStore(c *Client) *JobStore { return &JobStore{c: c} }

// jobPartBytes is the size of one stored part of an upload: well below
// the cluster's default 100 MB request limit once base64-encoded.
const jobPartBytes = 8 << 20

func (s *JobStore) jobsIndex() string { return s.c.cfg.Prefix + "_jobs" }
func (s *JobStore) dataIndex() string { return s.c.cfg.Prefix + "_jobdata" }

// ensure creates both indices unless they exist.
func (s *JobStore) ensure(ctx context.Context) error {
	if s.ready.Load() {
		return nil
	}
	settings := map[string]any{"index": map[string]any{"number_of_shards": 1, "number_of_replicas": 0}}
	for _, ix := range []struct {
		name  string
		props map[string]any
	}{
		{s.jobsIndex(), map[string]any{"id": map[string]any{"type": "keyword"}, "rec": map[string]any{"type": "object", "enabled": false}}},
		{s.dataIndex(), map[string]any{"job": map[string]any{"type": "keyword"}, "b": map[string]any{"type": "binary"}}},
	} {
		body := map[string]any{"settings": settings, "mappings": map[string]any{"dynamic": false, "properties": ix.props}}
		err := s.c.doJSON(ctx, "PUT", "/"+ix.name, nil, body, nil)
		if err != nil && !strings.Contains(err.Error(), "already_exists") {
			return fmt.Errorf("cluster: create index %s: %w", ix.name, err)
		}
	}
	s.ready.Store(true)
	return nil
}

// writeResult is the answer to an index request.
type writeResult struct {
	SeqNo       int64 `json:"_seq_no"`
	PrimaryTerm int64 `json:"_primary_term"`
}

func (r writeResult) version() string {
	return strconv.FormatInt(r.SeqNo, 10) + ":" + strconv.FormatInt(r.PrimaryTerm, 10)
}

func (s *JobStore) recPath(id string) string {
	return "/" + s.jobsIndex() + "/_doc/" + url.PathEscape(id)
}
func (s *JobStore) partPath(id string, n int) string {
	return "/" + s.dataIndex() + "/_doc/" + url.PathEscape(id+":"+strconv.Itoa(n))
}

// Create stores the upload's parts, then the record (which makes the job
// exist), refreshed so that listings see it at once.
func (s *JobStore) Create(ctx context.Context, id string, rec, data []byte) (string, error) {
	if err := s.ensure(ctx); err != nil {
		return "", err
	}
	parts := max(1, (len(data)+jobPartBytes-1)/jobPartBytes)
	for n := range parts {
		part := data[min(n*jobPartBytes, len(data)):min((n+1)*jobPartBytes, len(data))]
		doc := map[string]any{"job": id, "n": n, "b": part} // []byte encodes as base64
		if n == 0 {
			doc["parts"] = parts
		}
		if err := s.c.doJSON(ctx, "PUT", s.partPath(id, n), nil, doc, nil); err != nil {
			return "", fmt.Errorf("cluster: store the upload of job %s: %w", id, err)
		}
	}
	var r writeResult
	q := url.Values{"refresh": {"wait_for"}, "op_type": {"create"}}
	if err := s.c.doJSON(ctx, "PUT", s.recPath(id), q, map[string]any{"id": id, "rec": json.RawMessage(rec)}, &r); err != nil {
		return "", fmt.Errorf("cluster: store job %s: %w", id, err)
	}
	return r.version(), nil
}

// Get returns a job's record and version (real time: no refresh needed).
func (s *JobStore) Get(ctx context.Context, id string) ([]byte, string, error) {
	var r struct {
		Found bool `json:"found"`
		writeResult
		Source struct {
			Rec json.RawMessage `json:"rec"`
		} `json:"_source"`
	}
	err := s.c.doJSON(ctx, "GET", s.recPath(id), nil, nil, &r)
	if errors.Is(err, ErrNotFound) || (err == nil && !r.Found) {
		return nil, "", clusterError(ErrNotFound, 404, "get job "+id, "no such job", nil)
	}
	if err != nil {
		return nil, "", fmt.Errorf("cluster: get job %s: %w", id, err)
	}
	return r.Source.Rec, r.version(), nil
}

// Update replaces a job's record, conditionally on version when it is not
// "" (ErrConflict when another replica wrote it meanwhile); done deletes
// the upload after the record is written.
func (s *JobStore) Update(ctx context.Context, id string, rec []byte, version string, done bool) (string, error) {
	if err := s.ensure(ctx); err != nil {
		return "", err
	}
	q := url.Values{}
	if version != "" {
		seq, term, ok := strings.Cut(version, ":")
		if !ok {
			return "", fmt.Errorf("cluster: job %s: bad version %q", id, version)
		}
		q.Set("if_seq_no", seq)
		q.Set("if_primary_term", term)
	}
	if done {
		q.Set("refresh", "wait_for") // listings see the outcome at once
	}
	var r writeResult
	if err := s.c.doJSON(ctx, "PUT", s.recPath(id), q, map[string]any{"id": id, "rec": json.RawMessage(rec)}, &r); err != nil {
		return "", fmt.Errorf("cluster: update job %s: %w", id, err)
	}
	if done {
		if err := s.deleteData(ctx, id); err != nil {
			return "", err
		}
	}
	return r.version(), nil
}

// part reads part n of an upload; ErrNotFound when it is missing.
func (s *JobStore) part(ctx context.Context, id string, n int) ([]byte, int, error) {
	var r struct {
		Found  bool `json:"found"`
		Source struct {
			B     []byte `json:"b"`
			Parts int    `json:"parts"`
		} `json:"_source"`
	}
	err := s.c.doJSON(ctx, "GET", s.partPath(id, n), nil, nil, &r)
	if errors.Is(err, ErrNotFound) || (err == nil && !r.Found) {
		return nil, 0, clusterError(ErrNotFound, 404, "get job upload "+id, fmt.Sprintf("part %d is missing", n), nil)
	}
	if err != nil {
		return nil, 0, fmt.Errorf("cluster: read the upload of job %s: %w", id, err)
	}
	return r.Source.B, r.Source.Parts, nil
}

// Data returns a job's upload.
func (s *JobStore) Data(ctx context.Context, id string) ([]byte, error) {
	first, parts, err := s.part(ctx, id, 0)
	if err != nil {
		return nil, err
	}
	out := first
	for n := 1; n < parts; n++ {
		b, _, err := s.part(ctx, id, n)
		if err != nil {
			return nil, err
		}
		out = append(out, b...)
	}
	return out, nil
}

// deleteData deletes an upload's parts; a missing one is not an error.
func (s *JobStore) deleteData(ctx context.Context, id string) error {
	_, parts, err := s.part(ctx, id, 0)
	if errors.Is(err, ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	for n := parts - 1; n >= 0; n-- { // part 0 last: it names the others
		err := s.c.doJSON(ctx, "DELETE", s.partPath(id, n), nil, nil, nil)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("cluster: delete the upload of job %s: %w", id, err)
		}
	}
	return nil
}

// Scan calls fn with every job, in id order (pages of 500 after a
// refresh-free search: a job is listed once its creation returned).
func (s *JobStore) Scan(ctx context.Context, fn func(id string, rec []byte, version string) error) error {
	var after []any
	for {
		body := map[string]any{"size": 500, "seq_no_primary_term": true, "sort": []any{map[string]any{"id": "asc"}}}
		if after != nil {
			body["search_after"] = after
		}
		var r struct {
			Hits struct {
				Hits []struct {
					ID string `json:"_id"`
					writeResult
					Source struct {
						Rec json.RawMessage `json:"rec"`
					} `json:"_source"`
					Sort []any `json:"sort"`
				} `json:"hits"`
			} `json:"hits"`
		}
		err := s.c.doJSON(ctx, "POST", "/"+s.jobsIndex()+"/_search", nil, body, &r)
		if errors.Is(err, ErrNotFound) {
			return nil // no job yet
		}
		if err != nil {
			return fmt.Errorf("cluster: list jobs: %w", err)
		}
		for _, h := range r.Hits.Hits {
			if err := fn(h.ID, h.Source.Rec, h.version()); err != nil {
				return err
			}
		}
		if len(r.Hits.Hits) < 500 {
			return nil
		}
		after = r.Hits.Hits[len(r.Hits.Hits)-1].Sort
	}
}

// Delete removes jobs with their uploads.
func (s *JobStore) Delete(ctx context.Context, ids []string) error {
	for _, id := range ids {
		if err := s.deleteData(ctx, id); err != nil {
			return err
		}
		err := s.c.doJSON(ctx, "DELETE", s.recPath(id), url.Values{"refresh": {"wait_for"}}, nil, nil)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return fmt.Errorf("cluster: delete job %s: %w", id, err)
		}
	}
	return nil
}
