package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/najdi/najdi/api"
	"github.com/najdi/najdi/ingest"
)

// Limits and defaults of search requests.
const (
	DefaultMaxResults = 10
	MaxMaxResults     = 1000
	// MaxResultWindow bounds offset + max_results: a page deeper than
	// that needs more candidates than a search should gather
	// (Elasticsearch's index.max_result_window has the same default).
	MaxResultWindow = 10000
)

// SearchRequest is the body of search, query and answer requests.
type SearchRequest struct {
	Query             string                `json:"query"`
	MaxResults        *int                  `json:"max_results,omitempty"`
	ResultFormat      string                `json:"result_format,omitempty"`
	IncludeContent    []string              `json:"include_content,omitempty"`
	IncludeFields     []string              `json:"include_fields,omitempty"`
	Highlight         *bool                 `json:"highlight,omitempty"`
	Filter            json.RawMessage       `json:"filter,omitempty"`
	SummaryConfig     *RequestSummaryConfig `json:"summary_config,omitempty"`
	RestoreDiacritics *bool                 `json:"restore_diacritics,omitempty"`
	// Offset skips that many documents of the ranking (paging: the page
	// is documents offset .. offset+max_results-1), default 0.
	Offset *int `json:"offset,omitempty"`
	// MinScore is the relevance cut-off: documents scoring below it are
	// left out. Unset, documents with a score of 0 (no evidence from
	// either retriever) are left out; 0 keeps them too.
	MinScore *float64 `json:"min_score,omitempty"`
	// Rerank re-scores the best candidates with the reranker (English
	// collections; see RerankRequest).
	Rerank *RerankRequest `json:"rerank,omitempty"`

	// SimpleFilters are the query endpoint's filter:{field}=value
	// parameters (field, value), ANDed.
	SimpleFilters [][2]string `json:"-"`
	// Retrievers picks the retrievers of one search (an extension of the
	// API, as Weaviate's bm25 / nearVector / hybrid or Elasticsearch's
	// match / knn pick them per request). Empty or absent runs those the
	// collections' configurations enable. RetrieveKeyword runs keyword
	// retrieval alone: no query vector, so no embedding call; every hit's
	// source is "key" and its score the calibrated keyword score, as on a
	// keyword-only collection (embedding_config.model "none").
	// RetrieveSemantic runs semantic retrieval alone: source "sem", the
	// score the calibrated semantic score, as on a collection with
	// fulltext_config.enabled false. Every searched collection must have
	// the retriever asked for (keyword needs fulltext on, semantic an
	// embedding model): otherwise the search is refused with ErrInvalid on
	// the field retrievers, naming the collection (see plan). Without a
	// query (a filter-only search) no retriever runs.
	Retrievers string `json:"retrievers,omitempty"`
}

// The values of SearchRequest.Retrievers besides "".
const (
	RetrieveKeyword  = "keyword"
	RetrieveSemantic = "semantic"
)

// RequestSummaryConfig overrides the collection's summary settings (package
// api).
type RequestSummaryConfig = api.RequestSummaryConfig

// ParseSearchRequest decodes a request body strictly: unknown fields,
// values of the wrong type and a summary_config.max_tokens below 1 are
// rejected with ErrInvalid naming the field by its JSON path.
func ParseSearchRequest(body []byte) (SearchRequest, error) {
	if r, ok := parseSearchFast(body); ok {
		return r, nil
	}
	return parseSearchStrict(body)
}

// parseSearchStrict is ParseSearchRequest with encoding/json, for every
// body parseSearchFast does not read.
func parseSearchStrict(body []byte) (SearchRequest, error) {
	var r SearchRequest
	switch string(bytes.TrimSpace(body)) {
	case "":
		return r, invalidf("the request body is empty: send a JSON object ({} returns every document)")
	case "null":
		return r, invalidf("the request body is null: send a JSON object ({} returns every document)")
	}
	if err := decodeRequest("search request", body, &r); err != nil {
		return r, err
	}
	if err := checkMaxTokens(body); err != nil {
		return r, err
	}
	if err := checkNullItems(body); err != nil {
		return r, err
	}
	return r, nil
}

// checkNullItems rejects a null item of include_fields or include_content
// in a JSON body that has been decoded already: decoded into a string it
// would become "", which is not what the client sent (a null list itself
// is read as absent).
func checkNullItems(body []byte) error {
	var sent struct {
		IncludeFields  []json.RawMessage `json:"include_fields"`
		IncludeContent []json.RawMessage `json:"include_content"`
	}
	_ = json.Unmarshal(body, &sent) // valid: decoded before
	for _, l := range []struct {
		name  string
		items []json.RawMessage
	}{{"include_fields", sent.IncludeFields}, {"include_content", sent.IncludeContent}} {
		for i, it := range l.items {
			if string(bytes.TrimSpace(it)) == "null" {
				return invalidField(fmt.Sprintf("%s[%d]", l.name, i), "must be a string, got null")
			}
		}
	}
	return nil
}

// The search response types are package api's (shared with the Go client,
// see api/doc.go).
type (
	SearchResponse = api.SearchResponse
	ResultDoc      = api.ResultDoc
	Passage        = api.Passage
	Summary        = api.Summary
	Metadata       = api.Metadata
	Timings        = api.Timings
	Tokens         = api.Tokens
)

// IngestRequest describes one upload to a collection.
type IngestRequest struct {
	// Format is the format name; "" detects it from ContentType, FileName
	// and the content.
	Format string
	// ContentType is the upload's media type (may carry a charset).
	ContentType string
	// FileName is the uploaded file's name, if known.
	FileName string
	// Data is the whole upload. For record formats Reader may be used
	// instead to stream large files.
	Data []byte
	// Reader streams a record-format upload when Data is nil.
	Reader io.Reader
	// DocumentID names the document of a document-format upload.
	DocumentID string
	// IDField names the record property holding each record's id.
	IDField string
	// Documents is the JSON envelope form: documents given as sections and
	// fields. When set, Format, Data and Reader are ignored.
	Documents []DocumentInput
	// Progress, if set, is called after each flushed batch.
	Progress func(processed int)

	// jobID, set for an asynchronous job, makes the ids generated for
	// documents without one deterministic, so a resumed job replaces the
	// documents it already stored instead of adding them again.
	jobID string
	// turn, set by a job that waited for its ingest turn before reading
	// its upload, is used instead of waiting for one.
	turn *ingestTurn
	// meter, set for an asynchronous job, measures its progress.
	meter *ingestMeter
}

// DocumentInput is one document of the JSON envelope.
type DocumentInput struct {
	DocumentID string           `json:"document_id"`
	Sections   []ingest.Section `json:"sections"`
	Fields     map[string]any   `json:"fields,omitempty"`
}

// The ingest result types are package api's.
type (
	IngestResult = api.IngestResult
	DocStatus    = api.DocStatus
	IngestError  = api.IngestError
)

// Document is a stored document as returned by GetDocument.
type Document struct {
	DocumentID   string           `json:"document_id"`
	CollectionID string           `json:"collection_id,omitempty"`
	Sections     []ingest.Section `json:"sections"`
	Fields       []FieldValue     `json:"-"`
}

// FieldValue is one field of a document with its values in order.
type FieldValue struct {
	Name   string `json:"n"`
	Values []any  `json:"v"` // string, float64 or bool
}

// FieldsMap renders fields as a JSON object: one value as a scalar,
// several as an array.
func FieldsMap(fields []FieldValue, include func(string) bool) map[string]any {
	m := make(map[string]any, len(fields))
	for _, f := range fields {
		if include != nil && !include(f.Name) {
			continue
		}
		if len(f.Values) == 1 {
			m[f.Name] = f.Values[0]
		} else {
			m[f.Name] = f.Values
		}
	}
	return m
}

// Content joins the sections' contents with blank lines (the flat format).
func (d *Document) Content(include func(string) bool) string {
	var sb strings.Builder
	for _, s := range d.Sections {
		if include != nil && !include(s.Type) {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteString("\n\n")
		}
		sb.WriteString(s.Content)
	}
	return sb.String()
}
