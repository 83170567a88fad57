package engine

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/najdi/najdi/internal/strictjson"
)

// Defaults of a collection's configuration.
const (
	DefaultMaxTokens         = 1000
	DefaultSummarySeparator  = "\n\n"
	DefaultDocumentSeparator = "\n\n---\n\n"
	DefaultTokenizer         = "o200k_base"
	DefaultLanguage          = "en"
	DefaultEngine            = "elastic"
)

// Field types. Only enum, enum_text and number fields are filterable.
const (
	FieldEnum     = "enum"
	FieldEnumText = "enum_text"
	FieldNumber   = "number"
	FieldText     = "text"
)

var (
	collectionIDRe = regexp.MustCompile(`^[a-z0-9][a-z0-9_-]{0,63}$`)
	documentIDRe   = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
)

// ValidCollectionID reports whether id is a valid collection id:
// lowercase [a-z0-9][a-z0-9_-]{0,63}.
func ValidCollectionID(id string) bool { return collectionIDRe.MatchString(id) }

// ValidDocumentID reports whether id is a valid document id: 1-128
// characters of [A-Za-z0-9._:-].
func ValidDocumentID(id string) bool { return documentIDRe.MatchString(id) }

// CollectionConfig is the user-visible configuration of a collection, as
// sent to PUT /v1/collections/{id}. Every part is optional; Normalize fills
// defaults.
type CollectionConfig struct {
	SearchConfig    SearchConfig         `json:"search_config"`
	FulltextConfig  FulltextConfig       `json:"fulltext_config"`
	SummaryConfig   SummaryConfig        `json:"summary_config"`
	EmbeddingConfig EmbeddingConfig      `json:"embedding_config"`
	Fields          map[string]FieldSpec `json:"fields,omitempty"`

	// modelDefaulted records that Normalize chose the model because the
	// configuration named none.
	modelDefaulted bool
}

// MultilingualModel is the embedding model that collections in Czech
// ("cs") or of detected language ("auto") get when their configuration
// names none: multilingual-e5-small, which matches Czech text to Czech and
// English queries (see docs/models.md for the figures).
const MultilingualModel = "multilingual-e5-small"

// LanguageModel returns the embedding model a new collection of language
// lang gets when its configuration names none: MultilingualModel for "cs"
// and "auto", "default" (DefaultModel, the English bge-small-en-v1.5) for
// "en". The choice is stored with the collection, so existing collections
// keep the model their vectors were made with.
func LanguageModel(lang string) string {
	switch lang {
	case "cs", "auto":
		return MultilingualModel
	}
	return "default"
}

// SearchConfig holds search defaults of a collection.
type SearchConfig struct {
	// RestoreDiacritics restores Czech diacritics in queries before searching.
	RestoreDiacritics bool `json:"restore_diacritics"`
	// Language drives text analysis: "en", "cs" or "auto" (detected per
	// document and per query).
	Language string `json:"language"`
}

// FulltextConfig enables keyword search and filtering. Filtering needs
// Enabled and Engine "elastic" (Elasticsearch query-DSL semantics).
type FulltextConfig struct {
	Enabled *bool  `json:"enabled,omitempty"`
	Engine  string `json:"engine"`
}

// On reports whether fulltext is enabled (the default).
func (f FulltextConfig) On() bool { return f.Enabled == nil || *f.Enabled }

// SummaryConfig controls summaries and the summary string.
type SummaryConfig struct {
	// MaxTokens bounds the cumulative length of summaries (default 1000).
	MaxTokens int `json:"max_tokens,omitempty"`
	// SummarySeparator joins excerpts of one document in the summary string.
	SummarySeparator *string `json:"summary_separator,omitempty"`
	// DocumentSeparator joins documents in the summary string.
	DocumentSeparator *string `json:"document_separator,omitempty"`
	// Tokenizer counts tokens: "o200k_base" (default), "cl100k_base" or
	// "embedding" (the embedding model's own tokenizer).
	Tokenizer string `json:"tokenizer,omitempty"`
}

// EmbeddingConfig selects how a collection's text is embedded.
type EmbeddingConfig struct {
	// Model is "default" (bge-small-en-v1.5), the name of an installed
	// model, or "none" for a keyword-only collection. Empty when Remote is
	// set. Omitted, it is LanguageModel of the collection's language.
	Model string
	// Remote describes an OpenAI-compatible embedding endpoint.
	Remote *RemoteEmbedding
}

// RemoteEmbedding is an OpenAI-compatible /v1/embeddings endpoint.
type RemoteEmbedding struct {
	URL       string `json:"url"`
	Model     string `json:"model"`
	Dims      int    `json:"dims,omitempty"`
	APIKeyEnv string `json:"api_key_env,omitempty"`
	TimeoutMS int    `json:"timeout_ms,omitempty"`
	BatchSize int    `json:"batch_size,omitempty"`

	// APIKeyName names an API key the operator declared (najdi serve
	// --secret NAME=ENVVAR, see ProviderOptions.APIKeys). APIKeyEnv is
	// the older form, accepted only when it names a declared key's
	// variable: no configuration reads an arbitrary environment variable.
	APIKeyName string `json:"api_key_name,omitempty"`

	// QueryPrefix and PassagePrefix are prepended to queries and to
	// document chunks before they are sent (e5 models want "query: " and
	// "passage: ", bge wants an instruction before queries).
	QueryPrefix   string `json:"query_prefix,omitempty"`
	PassagePrefix string `json:"passage_prefix,omitempty"`
}

// MarshalJSON writes {"model": "name"} or {"model": {remote...}}.
func (e EmbeddingConfig) MarshalJSON() ([]byte, error) {
	if e.Remote != nil {
		return json.Marshal(map[string]any{"model": e.Remote})
	}
	return json.Marshal(map[string]any{"model": e.Model})
}

// UnmarshalJSON accepts {"model": "name"} or {"model": {"url": ..., "model": ...}}.
func (e *EmbeddingConfig) UnmarshalJSON(b []byte) error {
	var raw struct {
		Model json.RawMessage `json:"model"`
	}
	if err := strictjson.Decode(b, &raw); err != nil {
		return strictjson.Within("embedding_config", err)
	}
	*e = EmbeddingConfig{}
	m := bytes.TrimSpace(raw.Model)
	switch {
	case len(m) == 0 || string(m) == "null":
	case m[0] == '"':
		return json.Unmarshal(m, &e.Model)
	case m[0] == '{':
		var r RemoteEmbedding
		if err := strictjson.Decode(m, &r); err != nil {
			return strictjson.Within("embedding_config.model", err)
		}
		e.Remote = &r
	default:
		return fmt.Errorf("embedding_config.model: must be a model name or an object describing a remote endpoint")
	}
	return nil
}

// Keyword reports whether the collection is keyword-only (model "none").
func (e EmbeddingConfig) Keyword() bool { return e.Remote == nil && e.Model == "none" }

// Key identifies the embedding method; collections with equal keys have
// comparable semantic scores.
func (e EmbeddingConfig) Key() string {
	if r := e.Remote; r != nil {
		k := "remote:" + r.URL + "#" + r.Model
		if r.QueryPrefix != "" || r.PassagePrefix != "" {
			// Other prefixes give other vectors.
			k += fmt.Sprintf("#%q#%q", r.QueryPrefix, r.PassagePrefix)
		}
		return k
	}
	return e.Model
}

// FieldSpec declares a record field's type.
type FieldSpec struct {
	// Type is enum, enum_text, number or text.
	Type string `json:"type"`
	// Multi splits CSV/spreadsheet cells on "|" into several values.
	Multi bool `json:"multi,omitempty"`
}

// Collection is a collection as stored and returned by the API.
type Collection struct {
	ID            string           `json:"collection_id"`
	Owner         string           `json:"owner"`
	Config        CollectionConfig `json:"-"`
	DocumentCount int64            `json:"document_count"`
	// SizeBytes is the collection's size on disk: its segments' encoded
	// indexes (text, fields, vectors) and an estimate of its compressed
	// document bodies (segment.Store.DocumentBytes).
	SizeBytes int64     `json:"size_bytes"`
	CreatedAt time.Time `json:"created_at"`
	UpdatedAt time.Time `json:"updated_at"`
}

// MarshalJSON flattens the configuration into the collection object.
func (c Collection) MarshalJSON() ([]byte, error) {
	type out struct {
		ID              string               `json:"collection_id"`
		Owner           string               `json:"owner"`
		SearchConfig    SearchConfig         `json:"search_config"`
		FulltextConfig  FulltextConfig       `json:"fulltext_config"`
		SummaryConfig   SummaryConfig        `json:"summary_config"`
		EmbeddingConfig EmbeddingConfig      `json:"embedding_config"`
		Fields          map[string]FieldSpec `json:"fields"`
		DocumentCount   int64                `json:"document_count"`
		SizeBytes       int64                `json:"size_bytes"`
		CreatedAt       time.Time            `json:"created_at"`
		UpdatedAt       time.Time            `json:"updated_at"`
	}
	f := c.Config.Fields
	if f == nil {
		f = map[string]FieldSpec{}
	}
	return json.Marshal(out{c.ID, c.Owner, c.Config.SearchConfig, c.Config.FulltextConfig, c.Config.SummaryConfig,
		c.Config.EmbeddingConfig, f, c.DocumentCount, c.SizeBytes, c.CreatedAt, c.UpdatedAt})
}

// ParseCollectionConfig decodes a PUT body strictly: unknown fields and
// values of the wrong type are rejected with ErrInvalid naming them by
// their JSON path, and so is a summary_config.max_tokens that is present
// but not positive (absent, it defaults). An empty body is an empty config;
// a body of white space only is not JSON and is rejected.
func ParseCollectionConfig(body []byte) (CollectionConfig, error) {
	var cfg CollectionConfig
	if len(body) == 0 {
		return cfg, nil
	}
	if err := decodeRequest("collection configuration", body, &cfg); err != nil {
		return cfg, err
	}
	if err := checkMaxTokens(body); err != nil {
		return cfg, err
	}
	return cfg, nil
}

// checkMaxTokens rejects a summary_config.max_tokens below 1 sent in a
// JSON body that has been decoded already (an omitted value means the
// default; the decoded struct cannot tell 0 from omitted).
//
// The number is read as written (json.Number): an integer may be written
// 5.0 or 5e2 (decodeRequest reads those into integer fields, as JSON
// Schema counts them), which json.Unmarshal into an int would fail on,
// leaving 0 behind.
func checkMaxTokens(body []byte) error {
	var sent struct {
		SummaryConfig *struct {
			MaxTokens *json.Number `json:"max_tokens"`
		} `json:"summary_config"`
	}
	_ = json.Unmarshal(body, &sent) // valid: decoded before
	sc := sent.SummaryConfig
	if sc == nil || sc.MaxTokens == nil {
		return nil
	}
	if f, err := sc.MaxTokens.Float64(); err == nil && f < 1 {
		return invalidField("summary_config.max_tokens", "must be a positive integer, got %s (omit it for the default)", sc.MaxTokens.String())
	}
	return nil
}

// Normalize fills defaults and validates the configuration: the search
// language, full-text search, summaries (normalizeSummary), the embedding
// (normalizeEmbedding) and the declared fields (validateFields), in that
// order (the first error is reported).
func (c *CollectionConfig) Normalize() error {
	if err := defaultOneOf("search_config.language", &c.SearchConfig.Language, DefaultLanguage, "en", "cs", "auto"); err != nil {
		return err
	}
	if c.FulltextConfig.Engine == "" {
		c.FulltextConfig.Engine = DefaultEngine
	}
	if c.FulltextConfig.Enabled == nil {
		on := true
		c.FulltextConfig.Enabled = &on
	}
	if err := c.SummaryConfig.normalize(); err != nil {
		return err
	}
	if err := c.normalizeEmbedding(); err != nil {
		return err
	}
	return c.validateFields()
}

// defaultOneOf sets *v to def when it is empty and checks that it is one
// of allowed; the error names field and the allowed values.
func defaultOneOf(field string, v *string, def string, allowed ...string) error {
	if *v == "" {
		*v = def
	}
	if slices.Contains(allowed, *v) {
		return nil
	}
	return invalidField(field, "%q is not supported (use %s or %s)", *v, strings.Join(allowed[:len(allowed)-1], ", "), allowed[len(allowed)-1])
}

// normalize fills the summary defaults (budget, separators, tokenizer)
// and validates them.
func (s *SummaryConfig) normalize() error {
	if s.MaxTokens < 0 {
		return invalidField("summary_config.max_tokens", "must be positive, got %d", s.MaxTokens)
	}
	if s.MaxTokens == 0 {
		s.MaxTokens = DefaultMaxTokens
	}
	if s.SummarySeparator == nil {
		sep := DefaultSummarySeparator
		s.SummarySeparator = &sep
	}
	if s.DocumentSeparator == nil {
		sep := DefaultDocumentSeparator
		s.DocumentSeparator = &sep
	}
	return defaultOneOf("summary_config.tokenizer", &s.Tokenizer, DefaultTokenizer, "o200k_base", "cl100k_base", "embedding")
}

// normalizeEmbedding defaults the model to the search language's (noted
// in modelDefaulted) or validates the remote endpoint: an http(s) URL, a
// model name, the vector length, the timeout and batch size.
func (c *CollectionConfig) normalizeEmbedding() error {
	if c.EmbeddingConfig.Remote == nil && c.EmbeddingConfig.Model == "" {
		c.EmbeddingConfig.Model = LanguageModel(c.SearchConfig.Language)
		c.modelDefaulted = true
	}
	r := c.EmbeddingConfig.Remote
	if r == nil {
		return nil
	}
	if scheme := strings.ToLower(r.URL[:min(len(r.URL), 8)]); !(strings.HasPrefix(scheme, "http://") || strings.HasPrefix(scheme, "https://")) {
		return invalidField("embedding_config.model.url", "must be an http(s) URL of an OpenAI-compatible embedding server")
	}
	if r.Model == "" {
		return invalidField("embedding_config.model.model", "names the remote model and is required")
	}
	if r.Dims > MaxRemoteDims {
		return invalidField("embedding_config.model.dims", "must be at most %d (the remote model's vector length), got %d", MaxRemoteDims, r.Dims)
	}
	for _, f := range []struct {
		name string
		v    int
	}{{"timeout_ms", r.TimeoutMS}, {"batch_size", r.BatchSize}} {
		if f.v < 0 || f.v > math.MaxInt32 {
			return invalidField("embedding_config.model."+f.name, "must be 0..%d (0: the default), got %d", math.MaxInt32, f.v)
		}
	}
	return nil
}

// validateFields checks the declared fields, by name: their number, their
// names and their types.
func (c *CollectionConfig) validateFields() error {
	if len(c.Fields) > MaxFieldsPerCollection {
		return invalidField("fields", "%d fields declared, more than the limit of %d fields per collection", len(c.Fields), MaxFieldsPerCollection)
	}
	for _, n := range slices.Sorted(maps.Keys(c.Fields)) {
		if n == "" || utf8.RuneCountInString(n) > 128 || !utf8.ValidString(n) {
			return invalidField("fields", "field names must be 1-128 characters of UTF-8, got %q", n)
		}
		switch c.Fields[n].Type {
		case FieldEnum, FieldEnumText, FieldNumber, FieldText:
		default:
			return invalidField("fields."+n+".type", "%q is not a field type (use enum, enum_text, number or text)", c.Fields[n].Type)
		}
	}
	return nil
}
