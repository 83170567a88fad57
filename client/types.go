package client

import (
	"encoding/json"
	"time"
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

// IngestResult reports a synchronous ingest.
type IngestResult struct {
	Documents []DocStatus   `json:"documents"`
	Errors    []IngestError `json:"errors"`
}

// DocStatus is the outcome for one document: created or replaced.
type DocStatus struct {
	DocumentID string `json:"document_id"`
	Status     string `json:"status"`
}

// IngestError is one document or record that was not ingested.
type IngestError struct {
	DocumentID string `json:"document_id,omitempty"`
	Record     *int   `json:"record,omitempty"`
	Sheet      string `json:"sheet,omitempty"`
	Message    string `json:"message"`
}

// Job is the status of an asynchronous ingest.
type Job struct {
	JobID              string        `json:"job_id"`
	CollectionID       string        `json:"collection_id"`
	Status             string        `json:"status"` // running, done or failed
	Processed          int           `json:"processed"`
	Total              *int          `json:"total"`
	BytesTotal         int64         `json:"bytes_total"`
	BytesRead          int64         `json:"bytes_read"`
	DocumentsPerSecond *float64      `json:"documents_per_second,omitempty"`
	ETASeconds         *float64      `json:"eta_seconds,omitempty"`
	Documents          []DocStatus   `json:"documents,omitempty"`
	Errors             []IngestError `json:"errors"`
	Error              string        `json:"error,omitempty"`
	StartedAt          time.Time     `json:"started_at"`
	FinishedAt         *time.Time    `json:"finished_at,omitempty"`
	Restarts           int           `json:"restarts,omitempty"`
}

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
}

// SummaryConfig overrides a collection's summary settings in a request.
type SummaryConfig struct {
	MaxTokens         int     `json:"max_tokens,omitempty"`
	SummarySeparator  *string `json:"summary_separator,omitempty"`
	DocumentSeparator *string `json:"document_separator,omitempty"`
	Tokenizer         string  `json:"tokenizer,omitempty"`
}

// SearchResponse is the answer of search, query and answer requests.
type SearchResponse struct {
	SearchID  string     `json:"search_id"`
	Documents []Document `json:"documents,omitzero"`
	Summaries []Summary  `json:"summaries,omitzero"`
	Summary   *string    `json:"summary,omitempty"`
	Answer    *string    `json:"answer,omitempty"`
	Metadata  Metadata   `json:"metadata"`
}

// Document is one retrieved document.
type Document struct {
	DocumentID   string         `json:"document_id"`
	CollectionID string         `json:"collection_id,omitempty"`
	Score        float64        `json:"score"`
	Source       string         `json:"source"`
	Content      *string        `json:"content,omitempty"`
	Sections     []Section      `json:"sections,omitempty"`
	Fields       map[string]any `json:"fields,omitempty"`
	Passages     []Passage      `json:"passages,omitempty"`
	Truncated    bool           `json:"truncated,omitempty"`
}

// Section is a typed block of a document's text.
type Section struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

// Passage is a relevant span of one section (offsets in code points).
type Passage struct {
	Text         string  `json:"text"`
	Offsets      [2]int  `json:"offsets"`
	SectionIndex int     `json:"section_index"`
	Score        float64 `json:"score"`
}

// Summary is the excerpt of one document.
type Summary struct {
	DocumentID   string `json:"document_id"`
	CollectionID string `json:"collection_id,omitempty"`
	Content      string `json:"content"`
}

// Metadata describes how a response was produced.
type Metadata struct {
	Tokens *struct {
		PromptTokens int `json:"prompt_tokens"`
	} `json:"tokens,omitempty"`
	OriginalDocumentsCount *int     `json:"original_documents_count,omitempty"`
	SummaryDocumentsCount  *int     `json:"summary_documents_count,omitempty"`
	SummaryMethod          string   `json:"summary_method,omitempty"`
	Message                string   `json:"message,omitempty"`
	EffectiveQueries       []string `json:"effective_queries,omitempty"`
	AnswerSources          []string `json:"answer_sources,omitempty"`
	BelowMinScore          int      `json:"below_min_score"`
	NextOffset             *int     `json:"next_offset,omitempty"`
	TookMS                 float64  `json:"took_ms"`
}

// Model is an NLU model (annotator or pipeline).
type Model struct {
	ModelID      string          `json:"model_id"`
	Owner        string          `json:"owner"`
	Name         string          `json:"name"`
	Description  string          `json:"description"`
	Type         string          `json:"type"`
	Mode         string          `json:"mode,omitempty"`
	Language     string          `json:"language,omitempty"`
	PhraseSetIDs []string        `json:"phrase_set_ids,omitempty"`
	Annotator    json.RawMessage `json:"annotator,omitempty"`
	Pipeline     json.RawMessage `json:"pipeline,omitempty"`
}
