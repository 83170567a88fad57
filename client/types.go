package client

import (
	"encoding/json"
	"time"

	"github.com/najdi/najdi/api"
)

// Collection is a collection as the server describes it.
type Collection struct {
	CollectionID    string                     `json:"collection_id"`
	Owner           string                     `json:"owner"`
	SearchConfig    json.RawMessage            `json:"search_config,omitempty"`
	FulltextConfig  json.RawMessage            `json:"fulltext_config,omitempty"`
	SummaryConfig   json.RawMessage            `json:"summary_config,omitempty"`
	EmbeddingConfig json.RawMessage            `json:"embedding_config,omitempty"`
	Fields          map[string]json.RawMessage `json:"fields,omitempty"`
	DocumentCount   int64                      `json:"document_count"`
	CreatedAt       time.Time                  `json:"created_at"`
	UpdatedAt       time.Time                  `json:"updated_at"`
}

// IngestOptions describe one upload.
type IngestOptions struct {
	// FileName names the upload: it decides the format when Format is
	// empty, the id of a document-format file when DocumentID is empty,
	// and the ids of records without one (name-1, name-2, ...).
	FileName string
	// Format is text, html, docx, pdf, json, jsonl, csv, xlsx or ods.
	Format string
	// ContentType is sent as the upload's Content-Type.
	ContentType string
	// DocumentID names the document of a document-format upload.
	DocumentID string
	// IDField names the record property holding each record's id.
	IDField string
}

func (o IngestOptions) query() map[string][]string {
	q := map[string][]string{}
	for k, v := range map[string]string{"filename": o.FileName, "format": o.Format, "document_id": o.DocumentID, "id_field": o.IDField} {
		if v != "" {
			q[k] = []string{v}
		}
	}
	return q
}

// The response types are package api's, the same the server encodes (see
// api/doc.go); the client decodes into them.
type (
	// IngestResult reports a synchronous ingest.
	IngestResult = api.IngestResult
	// DocStatus is the outcome for one document: created or replaced.
	DocStatus = api.DocStatus
	// IngestError is one document or record that was not ingested.
	IngestError = api.IngestError
	// Job is the status of an asynchronous ingest.
	Job = api.JobStatus
	// SummaryConfig overrides a collection's summary settings in a request.
	SummaryConfig = api.RequestSummaryConfig
	// SearchResponse is the answer of search, query and answer requests.
	SearchResponse = api.SearchResponse
	// Document is one retrieved document.
	Document = api.ResultDoc
	// Section is a typed block of a document's text.
	Section = api.Section
	// Passage is a relevant span of one section (offsets in code points).
	Passage = api.Passage
	// Summary is the excerpt of one document.
	Summary = api.Summary
	// Metadata describes how a response was produced.
	Metadata = api.Metadata
	// Model is an NLU model (annotator or pipeline).
	Model = api.Model
)

// SearchRequest is the body of search and answer requests; see the API
// reference for each field. Nil and empty fields take the server's
// defaults.
type SearchRequest struct {
	Query             string          `json:"query,omitempty"`
	MaxResults        int             `json:"max_results,omitempty"`
	Offset            int             `json:"offset,omitempty"`
	MinScore          *float64        `json:"min_score,omitempty"`
	ResultFormat      string          `json:"result_format,omitempty"`
	IncludeContent    []string        `json:"include_content,omitempty"`
	IncludeFields     []string        `json:"include_fields,omitempty"`
	Highlight         *bool           `json:"highlight,omitempty"`
	Filter            json.RawMessage `json:"filter,omitempty"`
	SummaryConfig     *SummaryConfig  `json:"summary_config,omitempty"`
	RestoreDiacritics *bool           `json:"restore_diacritics,omitempty"`
	// Retrievers runs one retriever alone: "keyword" or "semantic"
	// (empty: those the collections' configurations enable).
	Retrievers string `json:"retrievers,omitempty"`
}
