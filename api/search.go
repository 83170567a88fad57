package api

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
	DocumentID   string         `json:"document_id"`
	CollectionID string         `json:"collection_id,omitempty"`
	Score        float64        `json:"score"`
	Source       string         `json:"source"`
	Content      *string        `json:"content,omitempty"`
	Sections     []Section      `json:"sections,omitempty"`
	Fields       map[string]any `json:"fields,omitempty"`
	Passages     []Passage      `json:"passages,omitempty"`
	// Truncated reports content or sections cut at the returned-content
	// limits (engine.MaxReturnedContentBytes,
	// engine.MaxResponseContentBytes).
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
// microsecond precision. The stages run in this order and cover the
// search back to back: without EncodeMS they add up to TookMS, up to a
// microsecond of rounding.
type Timings struct {
	// EmbedMS is the time the search waited for the query's embedding (0
	// for keyword-only searches and for a query vector found in the
	// engine's cache). The query is embedded while the filter and BM25 run,
	// so this is the latency the embedding added, net of the retrieval it
	// hid.
	EmbedMS float64 `json:"embed_ms"`
	// EmbedCached reports that the query vector came from the cache of
	// recent query vectors (Options.QueryCacheSize).
	EmbedCached bool `json:"embed_cached,omitempty"`
	// RetrieveMS covers validating the request, analyzing the query and
	// the candidates: the filter, BM25, the vector index, exact
	// identifiers and the other retriever's evidence, including the part
	// that ran while the query was embedded.
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
	// Tokenizer names the tokenizer that counted PromptTokens and the
	// summary budget: "o200k_base", "cl100k_base" or "embedding" (the
	// collection's local embedding model tokenizer). It is "o200k_base"
	// when "embedding" was asked for and no collection of the request has
	// a local embedding tokenizer.
	Tokenizer string `json:"tokenizer,omitempty"`
}

// RequestSummaryConfig overrides the collection's summary settings.
type RequestSummaryConfig struct {
	MaxTokens         int     `json:"max_tokens,omitempty"`
	SummarySeparator  *string `json:"summary_separator,omitempty"`
	DocumentSeparator *string `json:"document_separator,omitempty"`
	Tokenizer         string  `json:"tokenizer,omitempty"`
}

// Section is one block of a document's text in reading order: a title,
// heading (h1..h6), paragraph (p), list item (li), table, caption, ... For
// records, Type is the property name and Content its text.
type Section struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}
