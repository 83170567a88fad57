package nlu

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/najdi/najdi/api"
	"github.com/najdi/najdi/internal/errs"
	"github.com/najdi/najdi/internal/outbound"
	"github.com/najdi/najdi/internal/strictjson"
)

// Model types and pipeline modes.
const (
	TypeAnnotator = "annotator"
	TypePipeline  = "pipeline"

	ModeSequential = "sequential"
	ModeParallel   = "parallel"
)

// Names of the built-in models: the values of annotator.model when
// annotator.service is "builtin", and the names of inline pipeline members.
const (
	ServiceBuiltin   = "builtin"
	ModelIntent      = "intent-classifier"
	ModelRegex       = "regex"
	ModelBuiltinNER  = "builtin-ner"
	ModelClosedNER   = "closed-ner"
	DefaultThreshold = 0.5
)

// The model configuration types are package api's (shared with the Go
// client, see api/doc.go). Exactly one of Model.Annotator and
// Model.Pipeline is set, matching Model.Type.
type (
	Model     = api.Model
	Annotator = api.Annotator
	Pipeline  = api.Pipeline
)

// IntentConfig is the config of the builtin intent-classifier: example
// utterances per intent, the out-of-scope threshold on the calibrated top
// probability (default 0.5) and an informational language.
type IntentConfig struct {
	Examples  map[string][]string `json:"examples"`
	Threshold *float64            `json:"threshold,omitempty"`
	Language  string              `json:"language,omitempty"`
}

// RegexConfig is the config of the builtin regex annotator: entity name →
// regular expression (Go RE2 syntax).
type RegexConfig struct {
	Patterns map[string]string `json:"patterns"`
}

// modelRequest is the body of create and update calls.
type modelRequest struct {
	ModelID      *string          `json:"model_id"`
	Owner        *string          `json:"owner"`
	Name         string           `json:"name"`
	Description  string           `json:"description"`
	Type         string           `json:"type"`
	Mode         string           `json:"mode"`
	Language     string           `json:"language"`
	PhraseSetIDs []string         `json:"phrase_set_ids"`
	Annotator    *Annotator       `json:"annotator"`
	Pipeline     *pipelineRequest `json:"pipeline"`
}

type pipelineRequest struct {
	Models []json.RawMessage `json:"models"`
}

// inlineMember is a pipeline member given as an object.
type inlineMember struct {
	ModelID      string   `json:"model_id"`
	Name         string   `json:"name"`
	Description  string   `json:"description"`
	Language     string   `json:"language"`
	PhraseSetIDs []string `json:"phrase_set_ids"`
}

// member is a decoded pipeline member: a reference or an inline model.
type member struct {
	ref    string
	inline *Model
}

// decodeStrict decodes body into v strictly (internal/strictjson): unknown
// fields, values of the wrong type and trailing data are ErrInvalid errors
// naming the field by its JSON path.
func decodeStrict(body []byte, v any) error {
	return errs.DecodeJSON(ErrInvalid.Error(), body, v, strictjson.Options{})
}

// parseModel decodes and structurally validates a create or update body.
// References to other models and phrase sets are checked by the caller.
func parseModel(body []byte, create bool, id, owner string) (Model, []member, error) {
	var req modelRequest
	if err := decodeStrict(body, &req); err != nil {
		return Model{}, nil, err
	}
	if req.ModelID != nil && (create || *req.ModelID != id) {
		return Model{}, nil, fmt.Errorf("%w: model_id: assigned by the service, do not send it", ErrInvalid)
	}
	if req.Owner != nil && (create || *req.Owner != owner) {
		return Model{}, nil, fmt.Errorf("%w: owner: assigned by the service, do not send it", ErrInvalid)
	}
	m := Model{Name: req.Name, Description: req.Description, Type: req.Type, Mode: req.Mode, Language: req.Language, PhraseSetIDs: req.PhraseSetIDs, Annotator: req.Annotator}
	if blank(m.Name) {
		return Model{}, nil, fmt.Errorf("%w: name: required", ErrInvalid)
	}
	if m.Type == "" && req.Pipeline == nil && req.Annotator == nil && (m.Name == ModelBuiltinNER || m.Name == ModelClosedNER) {
		m.Type = TypeAnnotator
	}
	switch m.Type {
	case TypePipeline:
		return parsePipeline(m, req)
	case TypeAnnotator:
		if req.Pipeline != nil {
			return Model{}, nil, fmt.Errorf("%w: pipeline: only for type pipeline", ErrInvalid)
		}
		if m.Mode != "" {
			return Model{}, nil, fmt.Errorf("%w: mode: only for type pipeline", ErrInvalid)
		}
		if err := normalizeAnnotator(&m); err != nil {
			return Model{}, nil, err
		}
		return m, nil, nil
	case "":
		return Model{}, nil, fmt.Errorf("%w: type: required (annotator or pipeline)", ErrInvalid)
	default:
		return Model{}, nil, fmt.Errorf("%w: type: unknown type %q (want annotator or pipeline)", ErrInvalid, m.Type)
	}
}

func parsePipeline(m Model, req modelRequest) (Model, []member, error) {
	switch m.Mode {
	case ModeSequential, ModeParallel:
	case "":
		return Model{}, nil, fmt.Errorf("%w: mode: required for pipelines (sequential or parallel)", ErrInvalid)
	default:
		return Model{}, nil, fmt.Errorf("%w: mode: unknown mode %q (want sequential or parallel)", ErrInvalid, m.Mode)
	}
	if m.Annotator != nil {
		return Model{}, nil, fmt.Errorf("%w: annotator: only for type annotator", ErrInvalid)
	}
	if m.Language != "" || m.PhraseSetIDs != nil {
		return Model{}, nil, fmt.Errorf("%w: language and phrase_set_ids: only for builtin-ner and closed-ner models", ErrInvalid)
	}
	if req.Pipeline == nil || len(req.Pipeline.Models) == 0 {
		return Model{}, nil, fmt.Errorf("%w: pipeline.models: required, at least one member", ErrInvalid)
	}
	var members []member
	for i, raw := range req.Pipeline.Models {
		field := fmt.Sprintf("pipeline.models[%d]", i)
		var ref string
		if err := json.Unmarshal(raw, &ref); err == nil {
			if ref == "" {
				return Model{}, nil, fmt.Errorf("%w: %s: empty model id", ErrInvalid, field)
			}
			members = append(members, member{ref: ref})
			continue
		}
		var in inlineMember
		if err := decodeStrict(raw, &in); err != nil {
			return Model{}, nil, fmt.Errorf("%s: %w", field, err)
		}
		if in.ModelID != "" {
			// A member echoed back from a response: a reference.
			members = append(members, member{ref: in.ModelID})
			continue
		}
		im := Model{Name: in.Name, Description: in.Description, Type: TypeAnnotator, Language: in.Language, PhraseSetIDs: in.PhraseSetIDs}
		if in.Name != ModelBuiltinNER && in.Name != ModelClosedNER {
			return Model{}, nil, fmt.Errorf("%w: %s.name: inline members must be %q or %q, got %q (create other models first and list their model_id)", ErrInvalid, field, ModelBuiltinNER, ModelClosedNER, in.Name)
		}
		if err := normalizeAnnotator(&im); err != nil {
			return Model{}, nil, fmt.Errorf("%s: %w", field, err)
		}
		members = append(members, member{inline: &im})
	}
	return m, members, nil
}

// normalizeAnnotator fills the annotator object of built-in entity and
// closed-entity models and validates every annotator kind's configuration.
func normalizeAnnotator(m *Model) error {
	if m.Annotator == nil {
		switch m.Name {
		case ModelBuiltinNER, ModelClosedNER:
			m.Annotator = &Annotator{Service: ServiceBuiltin, Model: m.Name}
		default:
			return fmt.Errorf("%w: annotator: required for type annotator", ErrInvalid)
		}
	}
	a := m.Annotator
	if a.Service == "" {
		return fmt.Errorf("%w: annotator.service: required (%q or the URL of an annotation microservice)", ErrInvalid, ServiceBuiltin)
	}
	if a.Service != ServiceBuiltin {
		if _, err := outbound.ParseURL(a.Service); err != nil {
			return fmt.Errorf("%w: annotator.service: neither %q nor a plain http(s) base URL: %v", ErrInvalid, ServiceBuiltin, err)
		}
		if m.Language != "" || m.PhraseSetIDs != nil {
			return fmt.Errorf("%w: language and phrase_set_ids: only for builtin-ner and closed-ner models", ErrInvalid)
		}
		if len(a.Config) > 0 && !json.Valid(a.Config) {
			return fmt.Errorf("%w: annotator.config: invalid JSON", ErrInvalid)
		}
		return nil
	}
	if m.Language == "" && a.Language != "" {
		m.Language = a.Language
		a.Language = ""
	}
	if m.Language != "" && a.Model != ModelBuiltinNER && a.Model != ModelIntent {
		return fmt.Errorf("%w: language: only for builtin-ner and intent-classifier models", ErrInvalid)
	}
	if m.PhraseSetIDs != nil && a.Model != ModelClosedNER {
		return fmt.Errorf("%w: phrase_set_ids: only for closed-ner models", ErrInvalid)
	}
	switch a.Model {
	case ModelBuiltinNER:
		if m.Language != "en" && m.Language != "cs" {
			return fmt.Errorf("%w: language: builtin-ner needs language \"en\" or \"cs\", got %q", ErrInvalid, m.Language)
		}
		if len(a.Config) > 0 && string(a.Config) != "null" && string(a.Config) != "{}" {
			return fmt.Errorf("%w: annotator.config: builtin-ner takes no config", ErrInvalid)
		}
	case ModelClosedNER:
		if len(m.PhraseSetIDs) == 0 {
			return fmt.Errorf("%w: phrase_set_ids: a closed-ner model needs at least one phrase set", ErrInvalid)
		}
		for i, id := range m.PhraseSetIDs {
			if id == "" {
				return fmt.Errorf("%w: phrase_set_ids[%d]: empty id", ErrInvalid, i)
			}
		}
	case ModelIntent:
		if _, err := parseIntentConfig(a.Config); err != nil {
			return err
		}
	case ModelRegex:
		if _, err := parseRegexConfig(a.Config); err != nil {
			return err
		}
	case "":
		return fmt.Errorf("%w: annotator.model: required for builtin service (%s)", ErrInvalid, strings.Join(builtinModels, ", "))
	default:
		return fmt.Errorf("%w: annotator.model: unknown builtin model %q (want one of %s)", ErrInvalid, a.Model, strings.Join(builtinModels, ", "))
	}
	return nil
}

var builtinModels = []string{ModelIntent, ModelRegex, ModelBuiltinNER, ModelClosedNER}

// Limits of an intent classifier's training data: training time grows with
// them, and a model is trained on the request path (400 above).
const (
	// MaxIntentExamples bounds the example utterances of one classifier,
	// over all its intents.
	MaxIntentExamples = 10000
	// MaxIntentExampleChars bounds one example utterance, in characters.
	MaxIntentExampleChars = 1000
)

func parseIntentConfig(raw json.RawMessage) (IntentConfig, error) {
	var c IntentConfig
	if len(raw) == 0 {
		return c, fmt.Errorf("%w: annotator.config.examples: required for intent-classifier", ErrInvalid)
	}
	if err := decodeStrict(raw, &c); err != nil {
		return c, fmt.Errorf("annotator.config: %w", err)
	}
	if len(c.Examples) == 0 {
		return c, fmt.Errorf("%w: annotator.config.examples: required for intent-classifier ({\"intent\": [\"utterance\", ...]})", ErrInvalid)
	}
	names := make([]string, 0, len(c.Examples))
	total := 0
	for k := range c.Examples {
		names = append(names, k)
		total += len(c.Examples[k])
	}
	if total > MaxIntentExamples {
		return c, fmt.Errorf("%w: annotator.config.examples: %d example utterances, more than the limit of %d per classifier", ErrInvalid, total, MaxIntentExamples)
	}
	sort.Strings(names)
	for _, k := range names {
		if k == "" {
			return c, fmt.Errorf("%w: annotator.config.examples: empty intent name", ErrInvalid)
		}
		for i, u := range c.Examples[k] {
			if n := utf8.RuneCountInString(u); n > MaxIntentExampleChars {
				return c, fmt.Errorf("%w: annotator.config.examples.%s[%d]: %d characters, more than the limit of %d per utterance", ErrInvalid, k, i, n, MaxIntentExampleChars)
			}
		}
		if len(c.Examples[k]) == 0 {
			return c, fmt.Errorf("%w: annotator.config.examples.%s: no utterances", ErrInvalid, k)
		}
		for i, u := range c.Examples[k] {
			if blank(u) {
				return c, fmt.Errorf("%w: annotator.config.examples.%s[%d]: blank utterance", ErrInvalid, k, i)
			}
		}
	}
	if c.Threshold != nil && (*c.Threshold < 0 || *c.Threshold > 1) {
		return c, fmt.Errorf("%w: annotator.config.threshold: %v is outside [0, 1]", ErrInvalid, *c.Threshold)
	}
	return c, nil
}

func parseRegexConfig(raw json.RawMessage) (map[string]*regexp.Regexp, error) {
	var c RegexConfig
	if len(raw) == 0 {
		return nil, fmt.Errorf("%w: annotator.config.patterns: required for regex", ErrInvalid)
	}
	if err := decodeStrict(raw, &c); err != nil {
		return nil, fmt.Errorf("annotator.config: %w", err)
	}
	if len(c.Patterns) == 0 {
		return nil, fmt.Errorf("%w: annotator.config.patterns: required for regex ({\"entity\": \"regexp\"})", ErrInvalid)
	}
	out := map[string]*regexp.Regexp{}
	for name, p := range c.Patterns {
		if name == "" {
			return nil, fmt.Errorf("%w: annotator.config.patterns: empty entity name", ErrInvalid)
		}
		re, err := regexp.Compile(p)
		if err != nil {
			return nil, fmt.Errorf("%w: annotator.config.patterns.%s: %v", ErrInvalid, name, err)
		}
		out[name] = re
	}
	return out, nil
}

// blank reports whether s holds only white space, as the OpenAPI
// document's \S patterns read it (strictjson.IsSpace: ECMA-262's \s).
func blank(s string) bool { return strictjson.Blank(s) }
