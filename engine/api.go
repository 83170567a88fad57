package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strings"

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
}

// RequestSummaryConfig overrides the collection's summary settings.
type RequestSummaryConfig struct {
	MaxTokens         int     `json:"max_tokens,omitempty"`
	SummarySeparator  *string `json:"summary_separator,omitempty"`
	DocumentSeparator *string `json:"document_separator,omitempty"`
	Tokenizer         string  `json:"tokenizer,omitempty"`
}

// ParseSearchRequest decodes a request body strictly: unknown fields,
// values of the wrong type and a summary_config.max_tokens below 1 are
// rejected with ErrInvalid naming the field by its JSON path.
func ParseSearchRequest(body []byte) (SearchRequest, error) {
	var r SearchRequest
	if len(bytes.TrimSpace(body)) == 0 {
		return r, invalidf("the request body is empty: send a JSON object with at least \"query\" or \"filter\"")
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

// SearchResponse is the response of search, query and answer requests.
// Documents and Summaries are nil when not asked for (omitted from the
// JSON) and non-nil when asked for, so that no hits encode as [].
type SearchResponse struct {
	SearchID  string      `json:"search_id"`
	Documents []ResultDoc `json:"documents,omitzero"`
	Summaries []Summary   `json:"summaries,omitzero"`
	Summary   *string     `json:"summary,omitempty"`
	Answer    *string     `json:"answer,omitempty"`
	Metadata  Metadata    `json:"metadata"`
}

// ResultDoc is one retrieved document.
type ResultDoc struct {
	DocumentID   string           `json:"document_id"`
	CollectionID string           `json:"collection_id,omitempty"`
	Score        float64          `json:"score"`
	Source       string           `json:"source"`
	Content      *string          `json:"content,omitempty"`
	Sections     []ingest.Section `json:"sections,omitempty"`
	Fields       map[string]any   `json:"fields,omitempty"`
	Passages     []Passage        `json:"passages,omitempty"`
	// Truncated reports content or sections cut at the returned-content
	// limits (MaxReturnedContentBytes, MaxResponseContentBytes).
	Truncated bool `json:"truncated,omitempty"`
}

// Passage is a relevant span of one section: Text equals the section's
// content between Offsets[0] and Offsets[1], counted in Unicode code points.
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
	Tokens                 *Tokens  `json:"tokens,omitempty"`
	OriginalDocumentsCount *int     `json:"original_documents_count,omitempty"`
	SummaryDocumentsCount  *int     `json:"summary_documents_count,omitempty"`
	SummaryMethod          string   `json:"summary_method,omitempty"`
	Message                string   `json:"message,omitempty"`
	EffectiveQueries       []string `json:"effective_queries,omitempty"`
	AnswerSources          []string `json:"answer_sources,omitzero"` // non-nil in answers
	TookMS                 float64  `json:"took_ms"`
	// BelowMinScore counts the candidate documents the relevance cut-off
	// (min_score) left out of the ranking.
	BelowMinScore int `json:"below_min_score"`
	// NextOffset is the offset of the next page, present when the ranking
	// holds more documents than this page reaches.
	NextOffset *int `json:"next_offset,omitempty"`
	// Timings breaks TookMS down by stage; present in every search and
	// answer response.
	Timings *Timings `json:"timings,omitempty"`
}

// Timings reports where a search spent its time, in milliseconds with
// microsecond precision. The stages run in this order; TookMS also covers
// request validation and query analysis, so it is at least their sum
// without EncodeMS.
type Timings struct {
	// EmbedMS is the time taken to embed the query (0 for keyword-only
	// searches and for a query vector found in the engine's cache).
	EmbedMS float64 `json:"embed_ms"`
	// EmbedCached reports that the query vector came from the cache of
	// recent query vectors (Options.QueryCacheSize).
	EmbedCached bool `json:"embed_cached,omitempty"`
	// RetrieveMS covers the candidates: the filter, BM25, the vector index,
	// exact identifiers and the other retriever's evidence.
	RetrieveMS float64 `json:"retrieve_ms"`
	// FuseMS covers calibration, fusion, ranking and the min_score cut.
	FuseMS float64 `json:"fuse_ms"`
	// LoadMS covers loading the returned documents and cutting passages.
	LoadMS float64 `json:"load_ms"`
	// RenderMS covers shaping the returned documents (content, sections,
	// fields, passages), summaries and answers.
	RenderMS float64 `json:"render_ms"`
	// EncodeMS is the time the HTTP server took to encode the response
	// before the metadata; absent from the library API's responses.
	EncodeMS *float64 `json:"encode_ms,omitempty"`
}

// Tokens reports token counts.
type Tokens struct {
	PromptTokens int `json:"prompt_tokens"`
}

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
