package server

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/valyala/fasthttp"

	"github.com/najdi/najdi/engine"
)

// TestQueryIncludeContentMatchesSchema: the query endpoint accepts an
// include_content parameter exactly when it matches the pattern the
// OpenAPI document gives it (schemathesis sent a schema-valid string the
// server refused, and the server accepted values the schema should not).
func TestQueryIncludeContentMatchesSchema(t *testing.T) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	var op struct {
		Parameters []struct {
			Name   string `json:"name"`
			Schema struct {
				Pattern string `json:"pattern"`
			} `json:"schema"`
		} `json:"parameters"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(doc.Paths["/v1/collections/{collection_ids}/query"]["get"], &op); err != nil {
		t.Fatal(err)
	}
	pattern := ""
	for _, p := range op.Parameters {
		if p.Name == "include_content" {
			pattern = p.Schema.Pattern
		}
	}
	if pattern == "" {
		t.Fatal("the query endpoint's include_content has no pattern")
	}
	re := regexp.MustCompile(pattern)
	eng, err := engine.Open(engine.Options{Dir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer eng.Close()
	if _, _, err := eng.PutCollection(context.Background(), "", "c", engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}}); err != nil {
		t.Fatal(err)
	}
	for _, v := range []string{
		"full", "summaries", "summary", "full,summaries,summary", "full, summaries", " summary ", "",
		",", "full,,summary", "full\t", "\tfull", "full\n", "nope", "full,nope", "Full", "¢óaN]\b\x00", "full summary",
	} {
		args := fasthttp.AcquireArgs()
		args.Set("query", "q")
		args.Set("include_content", v)
		req, err := queryRequest(args)
		fasthttp.ReleaseArgs(args)
		if err == nil {
			_, err = eng.Search(context.Background(), "", []string{"c"}, req)
		}
		if schema := re.MatchString(v); (err == nil) != schema {
			t.Errorf("include_content=%q: server error %v, schema match %v", v, err, schema)
		}
	}
}

// TestSearchRequestNullableProperties: the server reads an optional search
// property given as null as absent (documented in SearchRequest), so the
// OpenAPI document must allow null for every one of them (schemathesis
// sent "min_score": null as invalid and got 200).
func TestSearchRequestNullableProperties(t *testing.T) {
	var doc struct {
		Components struct {
			Schemas map[string]struct {
				Properties map[string]struct {
					Type  any `json:"type"`
					AnyOf []struct {
						Type string `json:"type"`
					} `json:"anyOf"`
				} `json:"properties"`
			} `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openAPI, &doc); err != nil {
		t.Fatal(err)
	}
	props := doc.Components.Schemas["SearchRequest"].Properties
	if len(props) == 0 {
		t.Fatal("no SearchRequest properties")
	}
	for name, p := range props {
		nullable := false
		if l, ok := p.Type.([]any); ok {
			for _, x := range l {
				nullable = nullable || x == "null"
			}
		}
		for _, a := range p.AnyOf {
			nullable = nullable || a.Type == "null"
		}
		if !nullable {
			t.Errorf("SearchRequest.%s does not allow null", name)
		}
		// And the server does read null as absent.
		if _, err := engine.ParseSearchRequest([]byte(`{"query": "a", "` + name + `": null}`)); name != "query" && err != nil {
			t.Errorf("%s: null: %v", name, err)
		}
	}
}

// TestQueryResultFormatGiven: a result_format parameter that is given must
// name a format; an empty value is not "absent" (schemathesis: GET …/query
// ?result_format= was answered 200, the schema's enum has no "").
func TestQueryResultFormatGiven(t *testing.T) {
	for _, tc := range []struct {
		val    string
		wantOK bool
	}{{"flat", true}, {"sections", true}, {"", false}, {"Flat", false}, {"xml", false}} {
		args := fasthttp.AcquireArgs()
		args.Set("query", "bread")
		args.Set("result_format", tc.val)
		req, err := queryRequest(args)
		fasthttp.ReleaseArgs(args)
		if (err == nil) != tc.wantOK {
			t.Errorf("result_format=%q: err %v, want ok %v", tc.val, err, tc.wantOK)
			continue
		}
		if err == nil && req.ResultFormat != tc.val {
			t.Errorf("result_format=%q: got %q", tc.val, req.ResultFormat)
		}
		if err != nil && !regexp.MustCompile(`result_format: ".*" is not supported`).MatchString(err.Error()) {
			t.Errorf("result_format=%q: message %q does not name the parameter", tc.val, err)
		}
	}
}
