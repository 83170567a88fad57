package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// TestParseRequestsInAPIWords checks that request bodies with values of
// the wrong type, unknown fields or a max_tokens below 1 are ErrInvalid
// errors that name the field by its JSON path, in the API's words.
func TestParseRequestsInAPIWords(t *testing.T) {
	tests := []struct {
		name  string
		parse func([]byte) error
		body  string
		msg   string
		field string
	}{
		{"search type", parseSearch, `{"query": "a", "max_results": "3"}`, "search request: max_results must be an integer, got a string", "max_results"},
		{"search nested type", parseSearch, `{"query": "a", "summary_config": {"tokenizer": 1}}`, "search request: summary_config.tokenizer must be a string, got a number", "summary_config.tokenizer"},
		{"search unknown", parseSearch, `{"query": "a", "summary_config": {"max_tokenz": 1}}`, `search request: unknown field "summary_config.max_tokenz" (known fields of summary_config: max_tokens, summary_separator, document_separator, tokenizer)`, "summary_config.max_tokenz"},
		{"search max_tokens 0", parseSearch, `{"query": "a", "summary_config": {"max_tokens": 0}}`, "summary_config.max_tokens: must be a positive integer, got 0 (omit it for the default)", "summary_config.max_tokens"},
		{"search include_fields null item", parseSearch, `{"query": "a", "include_fields": ["title", null]}`, "include_fields[1]: must be a string, got null", "include_fields[1]"},
		{"search include_content null item", parseSearch, `{"query": "a", "include_content": [null]}`, "include_content[0]: must be a string, got null", "include_content[0]"},
		{"search max_tokens -3", parseSearch, `{"query": "a", "summary_config": {"max_tokens": -3}}`, "summary_config.max_tokens: must be a positive integer, got -3 (omit it for the default)", "summary_config.max_tokens"},
		{"config type", parseConfig, `{"fields": {"a": {"type": "enum", "multi": 1}}}`, "collection configuration: fields.a.multi must be a boolean, got a number", "fields.a.multi"},
		{"config remote", parseConfig, `{"embedding_config": {"model": {"url": "http://x", "model": "m", "dims": "3"}}}`, "collection configuration: embedding_config.model.dims must be an integer, got a string", "embedding_config.model.dims"},
		{"config embedding unknown", parseConfig, `{"embedding_config": {"modle": "none"}}`, `collection configuration: unknown field "embedding_config.modle" (known fields: model)`, "embedding_config.modle"},
		{"config max_tokens 0", parseConfig, `{"summary_config": {"max_tokens": 0}}`, "summary_config.max_tokens: must be a positive integer, got 0 (omit it for the default)", "summary_config.max_tokens"},
		{"config malformed", parseConfig, `{"fields": }`, "collection configuration: malformed JSON at line 1, column 12: invalid character '}' looking for beginning of value", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.parse([]byte(tt.body))
			var ee *engine.Error
			if !errors.Is(err, engine.ErrInvalid) || !errors.As(err, &ee) {
				t.Fatalf("error %v, want an ErrInvalid *engine.Error", err)
			}
			if err.Error() != tt.msg {
				t.Errorf("message\n got %q\nwant %q", err.Error(), tt.msg)
			}
			if f, _ := ee.Details["field"].(string); f != tt.field {
				t.Errorf("details.field %q, want %q", f, tt.field)
			}
		})
	}
	// Absent, max_tokens takes the default.
	cfg, err := engine.ParseCollectionConfig([]byte(`{"summary_config": {"tokenizer": "cl100k_base"}}`))
	if err != nil {
		t.Fatal(err)
	}
	if err := cfg.Normalize(); err != nil || cfg.SummaryConfig.MaxTokens != engine.DefaultMaxTokens {
		t.Errorf("max_tokens %d (%v), want the default", cfg.SummaryConfig.MaxTokens, err)
	}
	if _, err := engine.ParseSearchRequest([]byte(`{"query": "a", "summary_config": {"max_tokens": 5}}`)); err != nil {
		t.Errorf("max_tokens 5: %v", err)
	}
	// An integer written as 5.0 or 5e2 is an integer (JSON Schema counts
	// it as one, and the decoder reads it so): accepted with its value,
	// not reported as "got 0" (schemathesis).
	for _, tc := range []struct {
		raw  string
		want int
	}{{"5.0", 5}, {"5e2", 500}, {"1.0", 1}, {"7.6e1", 76}} {
		r, err := engine.ParseSearchRequest([]byte(`{"query": "a", "summary_config": {"max_tokens": ` + tc.raw + `}}`))
		if err != nil || r.SummaryConfig == nil || r.SummaryConfig.MaxTokens != tc.want {
			t.Errorf("search max_tokens %s: %+v, %v; want %d", tc.raw, r.SummaryConfig, err, tc.want)
		}
		cfg, err := engine.ParseCollectionConfig([]byte(`{"summary_config": {"max_tokens": ` + tc.raw + `}}`))
		if err != nil || cfg.SummaryConfig.MaxTokens != tc.want {
			t.Errorf("config max_tokens %s: %d, %v; want %d", tc.raw, cfg.SummaryConfig.MaxTokens, err, tc.want)
		}
	}
	for _, raw := range []string{"0.0", "-2e0", "0e5"} {
		if err := parseSearch([]byte(`{"query": "a", "summary_config": {"max_tokens": ` + raw + `}}`)); !errors.Is(err, engine.ErrInvalid) || !strings.Contains(err.Error(), "must be a positive integer, got "+raw) {
			t.Errorf("search max_tokens %s: %v, want a 400 naming %s", raw, err, raw)
		}
	}
}

func parseSearch(b []byte) error { _, err := engine.ParseSearchRequest(b); return err }
func parseConfig(b []byte) error { _, err := engine.ParseCollectionConfig(b); return err }

// TestEmptyResultArrays checks that a search without hits encodes the
// arrays it was asked for as [] and leaves out the others.
func TestEmptyResultArrays(t *testing.T) {
	ctx := context.Background()
	eng := keywordEngine(t, nil)
	docs := []engine.DocumentInput{{DocumentID: "d", Sections: []ingest.Section{{Type: "p", Content: "alpha beta"}}}}
	if _, err := eng.Ingest(ctx, "", "c", engine.IngestRequest{Documents: docs}); err != nil {
		t.Fatal(err)
	}
	highlight := true
	for _, tt := range []struct {
		name    string
		answer  bool
		req     engine.SearchRequest
		present []string
		absent  []string
	}{
		{"search", false, engine.SearchRequest{Query: "zzz"}, []string{"documents"}, []string{"summaries", "answer_sources"}},
		{"search summaries", false, engine.SearchRequest{Query: "zzz", IncludeContent: []string{"summaries"}}, []string{"summaries"}, []string{"documents"}},
		{"answer", true, engine.SearchRequest{Query: "zzz"}, []string{"answer_sources"}, []string{"documents", "summaries"}},
		{"answer highlight", true, engine.SearchRequest{Query: "zzz", Highlight: &highlight}, []string{"documents", "answer_sources"}, []string{"summaries"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			var resp engine.SearchResponse
			var err error
			if tt.answer {
				resp, err = eng.Answer(ctx, "", []string{"c"}, tt.req)
			} else {
				resp, err = eng.Search(ctx, "", []string{"c"}, tt.req)
			}
			if err != nil {
				t.Fatal(err)
			}
			b, _ := json.Marshal(resp)
			var m map[string]any
			json.Unmarshal(b, &m)
			for k, v := range m["metadata"].(map[string]any) {
				m[k] = v
			}
			for _, k := range tt.present {
				if a, ok := m[k].([]any); !ok || len(a) != 0 {
					t.Errorf("%s = %v, want []: %s", k, m[k], b)
				}
			}
			for _, k := range tt.absent {
				if v, ok := m[k]; ok {
					t.Errorf("%s = %v, want it absent: %s", k, v, b)
				}
			}
		})
	}
}

// TestIngestStopReportedAtItsRecord checks that a record file the reader
// cannot go on with reports the stop at the record where it happened (the
// records before it counted, good or bad) and says the rest was not read.
func TestIngestStopReportedAtItsRecord(t *testing.T) {
	ctx := context.Background()
	eng := keywordEngine(t, nil)
	res, err := eng.Ingest(ctx, "", "c", engine.IngestRequest{Format: "json", Data: []byte(`[{"id": "a"}, 5, "x", {"id": "b", oops}, {"id": "c"}]`)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Documents) != 1 || len(res.Errors) != 3 {
		t.Fatalf("got %+v", res)
	}
	last := res.Errors[2]
	if last.Record == nil || *last.Record != 3 || !strings.Contains(last.Message, "the rest of the upload were not read") {
		t.Errorf("stop reported as %+v (record %v), want record 3", last, *last.Record)
	}
}

// TestRemoteLimits: a remote model's dims is bounded by MaxRemoteDims,
// its timeout_ms and batch_size by the OpenAPI document's 2147483647; a
// configuration beyond answers 400 naming the field, at the bound it is
// valid.
func TestRemoteLimits(t *testing.T) {
	for _, tc := range []struct {
		field, value string
		ok           bool
	}{
		{"dims", "8", true}, {"dims", "8192", true}, {"dims", "8193", false}, {"dims", "9223372036854775807", false},
		{"batch_size", "2147483647", true}, {"batch_size", "2147483648", false}, {"batch_size", "-1", false},
		{"timeout_ms", "2147483647", true}, {"timeout_ms", "2147483648", false}, {"timeout_ms", "-1", false},
	} {
		extra := ""
		if tc.field != "dims" {
			extra = `, "` + tc.field + `": ` + tc.value
			tc.value = "8"
		}
		cfg, err := engine.ParseCollectionConfig([]byte(`{"embedding_config": {"model": {"url": "http://gpu-box", "model": "m", "dims": ` + tc.value + extra + `}}}`))
		if err == nil {
			err = cfg.Normalize()
		}
		var ee *engine.Error
		switch {
		case tc.ok && err != nil:
			t.Errorf("%s%s: %v", tc.value, extra, err)
		case !tc.ok && (!errors.As(err, &ee) || !errors.Is(err, engine.ErrInvalid) || ee.Details["field"] != "embedding_config.model."+tc.field):
			t.Errorf("dims %s%s: %v, want ErrInvalid naming embedding_config.model.%s", tc.value, extra, err, tc.field)
		}
	}
}

// TestQueryLengthCountsWhiteSpace: the query limit counts the query as
// sent, as the OpenAPI document's maxLength does, white space included (a
// short query padded with 5000 tabs was accepted; schemathesis).
func TestQueryLengthCountsWhiteSpace(t *testing.T) {
	e := keywordEngine(t, nil)
	ctx := context.Background()
	for _, tc := range []struct {
		q  string
		ok bool
	}{
		{"a" + strings.Repeat("\t", engine.MaxQueryChars-1), true},
		{"a" + strings.Repeat("\t", engine.MaxQueryChars), false},
		{strings.Repeat(" ", engine.MaxQueryChars+1) + "a", false},
	} {
		_, err := e.Search(ctx, "", []string{"c"}, engine.SearchRequest{Query: tc.q})
		if tc.ok != (err == nil) || (err != nil && !errors.Is(err, engine.ErrInvalid)) {
			t.Errorf("query of %d characters: %v, want ok %v", len([]rune(tc.q)), err, tc.ok)
		}
	}
}

// TestCollectionConfigWhiteSpaceBody: an empty PUT body is the empty
// configuration, a body of white space only is not JSON and answers 400
// (schemathesis sent "\r" and got 200).
func TestCollectionConfigWhiteSpaceBody(t *testing.T) {
	if _, err := engine.ParseCollectionConfig(nil); err != nil {
		t.Fatalf("empty body: %v", err)
	}
	for _, body := range []string{"\r", " ", "\n\t "} {
		_, err := engine.ParseCollectionConfig([]byte(body))
		if !errors.Is(err, engine.ErrInvalid) {
			t.Errorf("body %q: err %v, want ErrInvalid", body, err)
		}
	}
}
