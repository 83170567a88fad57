package client

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strings"
)

func collPath(id string, rest ...string) string {
	p := "/v1/collections/" + url.PathEscape(id)
	for _, r := range rest {
		p += "/" + url.PathEscape(r)
	}
	return p
}

// Collections lists the caller's collections.
func (c *Client) Collections(ctx context.Context) ([]Collection, error) {
	var out struct {
		Collections []Collection `json:"collections"`
	}
	if _, err := c.do(ctx, request{method: "GET", path: "/v1/collections"}, &out); err != nil {
		return nil, err
	}
	return out.Collections, nil
}

// Collection returns one collection.
func (c *Client) Collection(ctx context.Context, id string) (Collection, error) {
	var out Collection
	_, err := c.do(ctx, request{method: "GET", path: collPath(id)}, &out)
	return out, err
}

// PutCollection creates the collection or replaces its configuration
// (config is marshalled as the body; nil sends {}). created reports a new
// collection.
func (c *Client) PutCollection(ctx context.Context, id string, config any) (coll Collection, created bool, err error) {
	if config == nil {
		config = struct{}{}
	}
	r, err := jsonRequest("PUT", collPath(id), config)
	if err != nil {
		return coll, false, err
	}
	status, err := c.do(ctx, r, &coll)
	return coll, status == 201, err
}

// DeleteCollection deletes a collection with its documents.
func (c *Client) DeleteCollection(ctx context.Context, id string) error {
	_, err := c.do(ctx, request{method: "DELETE", path: collPath(id)}, nil)
	return err
}

// Ingest uploads one file synchronously: its documents are stored and
// searchable when it returns.
func (c *Client) Ingest(ctx context.Context, coll string, data []byte, opts IngestOptions) (IngestResult, error) {
	var out IngestResult
	_, err := c.do(ctx, request{method: "POST", path: collPath(coll, "documents"), query: opts.query(), ctype: opts.ContentType, body: data}, &out)
	return out, err
}

// IngestDocuments uploads documents in the JSON envelope form (sections
// and fields).
func (c *Client) IngestDocuments(ctx context.Context, coll string, docs []DocumentInput) (IngestResult, error) {
	r, err := jsonRequest("POST", collPath(coll, "documents"), map[string]any{"documents": docs})
	if err != nil {
		return IngestResult{}, err
	}
	var out IngestResult
	_, err = c.do(ctx, r, &out)
	return out, err
}

// DocumentInput is one document of the JSON envelope.
type DocumentInput struct {
	DocumentID string         `json:"document_id"`
	Sections   []Section      `json:"sections"`
	Fields     map[string]any `json:"fields,omitempty"`
}

// StartIngest uploads one file as an asynchronous job and returns its id;
// follow it with Job.
func (c *Client) StartIngest(ctx context.Context, coll string, data []byte, opts IngestOptions) (string, error) {
	q := url.Values(opts.query())
	q.Set("async", "true")
	var out struct {
		JobID string `json:"job_id"`
	}
	if _, err := c.do(ctx, request{method: "POST", path: collPath(coll, "documents"), query: q, ctype: opts.ContentType, body: data}, &out); err != nil {
		return "", err
	}
	if out.JobID == "" {
		return "", fmt.Errorf("POST %s: the answer has no job_id", collPath(coll, "documents"))
	}
	return out.JobID, nil
}

// Job returns the status of an asynchronous ingest.
func (c *Client) Job(ctx context.Context, coll, id string) (Job, error) {
	var out Job
	_, err := c.do(ctx, request{method: "GET", path: collPath(coll, "jobs", id)}, &out)
	return out, err
}

// Jobs lists the caller's ingest jobs, newest first: of one collection
// when coll is not "", in one status (running, done, failed) when status
// is not "".
func (c *Client) Jobs(ctx context.Context, coll, status string) ([]Job, error) {
	q := url.Values{}
	if coll != "" {
		q.Set("collection_id", coll)
	}
	if status != "" {
		q.Set("status", status)
	}
	var out struct {
		Jobs []Job `json:"jobs"`
	}
	if _, err := c.do(ctx, request{method: "GET", path: "/v1/jobs", query: q}, &out); err != nil {
		return nil, err
	}
	return out.Jobs, nil
}

// ListDocuments returns a page of document ids in byte order from cursor
// (""), and the cursor of the next page ("" after the last).
func (c *Client) ListDocuments(ctx context.Context, coll string, limit int, cursor string) ([]string, string, error) {
	q := url.Values{}
	if limit > 0 {
		q.Set("limit", fmt.Sprint(limit))
	}
	if cursor != "" {
		q.Set("cursor", cursor)
	}
	var out struct {
		Documents  []string `json:"documents"`
		NextCursor string   `json:"next_cursor"`
	}
	_, err := c.do(ctx, request{method: "GET", path: collPath(coll, "documents"), query: q}, &out)
	return out.Documents, out.NextCursor, err
}

// StoredDocument is a document as stored: its sections and fields.
type StoredDocument struct {
	DocumentID string         `json:"document_id"`
	Fields     map[string]any `json:"fields"`
	Sections   []Section      `json:"sections"`
}

// Document returns a stored document.
func (c *Client) Document(ctx context.Context, coll, id string) (StoredDocument, error) {
	var out StoredDocument
	_, err := c.do(ctx, request{method: "GET", path: collPath(coll, "documents", id)}, &out)
	return out, err
}

// DeleteDocument deletes a document.
func (c *Client) DeleteDocument(ctx context.Context, coll, id string) error {
	_, err := c.do(ctx, request{method: "DELETE", path: collPath(coll, "documents", id)}, nil)
	return err
}

// Search searches one or several collections.
func (c *Client) Search(ctx context.Context, colls []string, req SearchRequest) (SearchResponse, error) {
	return c.search(ctx, colls, "search", req)
}

// Answer answers a question from the top documents of the collections.
func (c *Client) Answer(ctx context.Context, colls []string, req SearchRequest) (SearchResponse, error) {
	return c.search(ctx, colls, "answer", req)
}

func (c *Client) search(ctx context.Context, colls []string, op string, req SearchRequest) (SearchResponse, error) {
	ids := make([]string, len(colls))
	for i, id := range colls {
		ids[i] = url.PathEscape(id)
	}
	r, err := jsonRequest("POST", "/v1/collections/"+strings.Join(ids, ",")+"/"+op, req)
	if err != nil {
		return SearchResponse{}, err
	}
	var out SearchResponse
	_, err = c.do(ctx, r, &out)
	return out, err
}

// Models lists the caller's NLU models.
func (c *Client) Models(ctx context.Context) ([]Model, error) {
	var out struct {
		Models []Model `json:"models"`
	}
	if _, err := c.do(ctx, request{method: "GET", path: "/models"}, &out); err != nil {
		return nil, err
	}
	return out.Models, nil
}

// Analyze runs an NLU model on a text and returns the analysis as JSON.
func (c *Client) Analyze(ctx context.Context, modelID, text string) (json.RawMessage, error) {
	r, err := jsonRequest("POST", "/models/"+url.PathEscape(modelID)+"/analyze", map[string]string{"text": text})
	if err != nil {
		return nil, err
	}
	var out json.RawMessage
	_, err = c.do(ctx, r, &out)
	return out, err
}
