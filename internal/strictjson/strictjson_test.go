package strictjson

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

type section struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

type document struct {
	ID       string         `json:"document_id"`
	Sections []section      `json:"sections"`
	Fields   map[string]any `json:"fields,omitempty"`
}

type spec struct {
	Type  string `json:"type"`
	Multi bool   `json:"multi,omitempty"`
}

type limits struct {
	MaxTokens int     `json:"max_tokens,omitempty"`
	Sep       *string `json:"separator,omitempty"`
}

type Embedded struct {
	Deep uint `json:"deep"`
}

type remote struct {
	URL string `json:"url"`
}

// model decodes like engine.EmbeddingConfig: a name or an object, the
// object with Decode and its errors placed under "model" by Within.
type model struct {
	Name   string
	Remote *remote
}

func (m *model) UnmarshalJSON(b []byte) error {
	if len(b) > 0 && b[0] == '"' {
		return json.Unmarshal(b, &m.Name)
	}
	m.Remote = &remote{}
	return Within("model", Decode(b, m.Remote))
}

type request struct {
	Embedded
	Query     string          `json:"query"`
	Max       *int            `json:"max_results,omitempty"`
	Ratio     float64         `json:"ratio"`
	On        *bool           `json:"highlight,omitempty"`
	Include   []string        `json:"include_content,omitempty"`
	Matrix    [][]int         `json:"matrix"`
	Filter    json.RawMessage `json:"filter,omitempty"`
	Limits    *limits         `json:"summary_config,omitempty"`
	Fields    map[string]spec `json:"fields,omitempty"`
	Documents []document      `json:"documents"`
	Model     model           `json:"model"`
	Any       any             `json:"any"`
	Skipped   string          `json:"-"`
	NoTag     string
}

func TestDecodeErrors(t *testing.T) {
	tests := []struct {
		body string
		msg  string // the whole message, or its start when it ends in "…"
		path string
	}{
		{`{"max_results": "3"}`, "max_results must be an integer, got a string", "max_results"},
		{`{"max_results": 2.5}`, "max_results must be an integer, got 2.5", "max_results"},
		{`{"max_results": 1e99}`, "max_results must be an integer, got 1e99", "max_results"},
		{`{"deep": -1}`, "deep must be a non-negative integer, got -1", "deep"},
		{`{"ratio": "x"}`, "ratio must be a number, got a string", "ratio"},
		{`{"query": 5}`, "query must be a string, got a number", "query"},
		{`{"query": ["a"]}`, "query must be a string, got an array", "query"},
		{`{"highlight": "yes"}`, "highlight must be a boolean, got a string", "highlight"},
		{`{"include_content": "full"}`, "include_content must be an array of strings, got a string", "include_content"},
		{`{"include_content": ["full", 1]}`, "include_content[1] must be a string, got a number", "include_content[1]"},
		{`{"matrix": [[1], [2, "x"]]}`, "matrix[1][1] must be an integer, got a string", "matrix[1][1]"},
		{`{"matrix": [1]}`, "matrix[0] must be an array of integers, got a number", "matrix[0]"},
		{`{"summary_config": []}`, "summary_config must be an object, got an array", "summary_config"},
		{`{"summary_config": {"max_tokens": true}}`, "summary_config.max_tokens must be an integer, got a boolean", "summary_config.max_tokens"},
		{`{"summary_config": {"separator": {}}}`, "summary_config.separator must be a string, got an object", "summary_config.separator"},
		{`{"fields": {"a b": {"type": "enum", "multi": "yes"}}}`, `fields["a b"].multi must be a boolean, got a string`, `fields["a b"].multi`},
		{`{"fields": {"brand": []}}`, "fields.brand must be an object, got an array", "fields.brand"},
		{`{"documents": {}}`, "documents must be an array of objects, got an object", "documents"},
		{`{"documents": [{"document_id": "a"}, {"document_id": 7}]}`, "documents[1].document_id must be a string, got a number", "documents[1].document_id"},
		{`{"documents": [{"sections": [{"type": "p"}, {"content": 5}]}]}`, "documents[0].sections[1].content must be a string, got a number", "documents[0].sections[1].content"},
		{`{"filter": {"x": [1, {"y": 2}]}, "query": 1}`, "query must be a string, got a number", "query"},
		{"  \n {\"query\": \"a\",\n \"max_results\": \"3\"}", "max_results must be an integer, got a string", "max_results"},
		{`[1]`, "the body must be an object, got an array", ""},
		{`"x"`, "the body must be an object, got a string", ""},
		// Unknown fields, at every depth, with the known fields of their object.
		{`{"max_result": 3}`, `unknown field "max_result" (known fields: deep, query, max_results, ratio, highlight, include_content, matrix, filter, summary_config, fields, documents, model, any, NoTag)`, "max_result"},
		{`{"summary_config": {"max_tokenz": 5}}`, `unknown field "summary_config.max_tokenz" (known fields of summary_config: max_tokens, separator)`, "summary_config.max_tokenz"},
		{`{"fields": {"typ": {"type": "enum"}, "b": {"typ": "enum"}}}`, `unknown field "fields.b.typ" (known fields of fields.b: type, multi)`, "fields.b.typ"},
		{`{"documents": [{"document_id": "a"}, {"sectons": []}]}`, `unknown field "documents[1].sectons" (known fields of documents[1]: document_id, sections, fields)`, "documents[1].sectons"},
		{`{"filter": {"nope": 1}, "any": {"nope": 1}, "documents": [{"fields": {"nope": 1}}], "nope": 2}`, `unknown field "nope" …`, "nope"},
		{`{"Skipped": "x"}`, `unknown field "Skipped" …`, "Skipped"},
		// Matching is case-insensitive, as in encoding/json; the path
		// names the keys as the client wrote them.
		{`{"QUERY": "a", "Summary_Config": {"Max_Tokens": "x"}}`, "Summary_Config.Max_Tokens must be an integer, got a string", "Summary_Config.Max_Tokens"},
		{`{"Summary_Config": {"Max_Tokenz": 1}}`, `unknown field "Summary_Config.Max_Tokenz" …`, "Summary_Config.Max_Tokenz"},
		// A type's own UnmarshalJSON reports under its path with Within.
		{`{"model": {"url": 5}}`, "model.url must be a string, got a number", "model.url"},
		{`{"model": {"uri": "x"}}`, `unknown field "model.uri" (known fields: url)`, "model.uri"},
		// Malformed JSON and trailing data.
		{"{\n  \"query\": \"a\",,\n}", "malformed JSON at line 2, column 16: invalid character ',' looking for beginning of object key string", ""},
		{`{"query": "a"`, "malformed JSON: the body ends before the JSON value is complete", ""},
		{``, "the body holds no JSON value", ""},
		{"{\"query\": \"a\"}\n {}", "unexpected data after the JSON value at line 2, column 2", ""},
		{`{"query": "a"} ]`, "unexpected data after the JSON value at line 1, column 16", ""},
	}
	for _, tt := range tests {
		t.Run(tt.body, func(t *testing.T) {
			var r request
			err := Decode([]byte(tt.body), &r)
			var se *Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T), want *Error", err, err)
			}
			msg := err.Error()
			if pre, ok := strings.CutSuffix(tt.msg, "…"); ok {
				if !strings.HasPrefix(msg, pre) {
					t.Errorf("message %q, want it to start with %q", msg, pre)
				}
			} else if msg != tt.msg {
				t.Errorf("message\n got %q\nwant %q", msg, tt.msg)
			}
			if se.Path != tt.path {
				t.Errorf("path %q, want %q", se.Path, tt.path)
			}
		})
	}
}

func TestDecodeOK(t *testing.T) {
	var r request
	body := `{"query": "a", "max_results": 3, "filter": {"anything": [1]}, "any": {"x": 1.5}, "fields": {"b": {"type": "enum"}}, "model": "m"}` + " \n"
	if err := (Options{UseNumber: true}).Decode([]byte(body), &r); err != nil {
		t.Fatal(err)
	}
	if r.Query != "a" || *r.Max != 3 || r.Fields["b"].Type != "enum" || r.Model.Name != "m" {
		t.Errorf("decoded %+v", r)
	}
	if n, ok := r.Any.(map[string]any)["x"].(json.Number); !ok || n != "1.5" {
		t.Errorf("UseNumber: any.x = %#v", r.Any.(map[string]any)["x"])
	}
}

// TestDecodeOtherErrors checks that an UnmarshalJSON error that is not an
// *Error passes through unchanged.
func TestDecodeOtherErrors(t *testing.T) {
	var v struct {
		F failing `json:"f"`
	}
	err := Decode([]byte(`{"f": 1}`), &v)
	if err == nil || err.Error() != "f: no" {
		t.Fatalf("error %v", err)
	}
}

type failing struct{}

func (failing) UnmarshalJSON([]byte) error { return fmt.Errorf("f: no") }

// TestDecodeRejectsInvalidUTF8: bytes that are not UTF-8 are an error
// naming their position, not U+FFFD in a name or value.
func TestDecodeRejectsInvalidUTF8(t *testing.T) {
	var v map[string]any
	err := Decode([]byte("{\"a\": 1,\n \"b\xffc\": 2}"), &v)
	if err == nil || !strings.Contains(err.Error(), "not valid UTF-8 at line 2, column 4") {
		t.Fatalf("err = %v", err)
	}
}

// TestIntegralNumbers decodes integers written with a fraction or an
// exponent (JSON Schema's integers include 76.0), leaving strings, floats
// and fractional values as they are.
func TestIntegralNumbers(t *testing.T) {
	type body struct {
		N    int     `json:"n"`
		U    *uint8  `json:"u"`
		F    float64 `json:"f"`
		Text string  `json:"text"`
	}
	for _, tt := range []struct {
		in      string
		want    body
		wantErr string
	}{
		{in: `{"n": 76.0, "text": "76.0 \"1.0\"", "f": 2.5}`, want: body{N: 76, F: 2.5, Text: `76.0 "1.0"`}},
		{in: `{"n": 7.6e1}`, want: body{N: 76}},
		{in: `{"n": -3.000, "u": 2E0}`, want: body{N: -3, U: ptr(uint8(2))}},
		{in: `{"n": 76}`, want: body{N: 76}},
		{in: `{"n": 76.5}`, wantErr: "n must be an integer"},
		{in: `{"n": 1e30}`, wantErr: "n must be an integer"},
	} {
		var got body
		err := Decode([]byte(tt.in), &got)
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%s: error %v, want one containing %q", tt.in, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tt.in, err)
			continue
		}
		if got.N != tt.want.N || got.F != tt.want.F || got.Text != tt.want.Text || (got.U == nil) != (tt.want.U == nil) || (got.U != nil && *got.U != *tt.want.U) {
			t.Errorf("%s: got %+v, want %+v", tt.in, got, tt.want)
		}
	}
}

func ptr[T any](v T) *T { return &v }
