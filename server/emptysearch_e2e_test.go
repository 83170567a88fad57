package server_test

import (
	"slices"
	"strings"
	"testing"
)

// TestEmptySearchListsDocuments: a search or query with neither a query
// nor a filter returns every document, as the filter match_all does
// (Elasticsearch's empty search): score 1, source key, in id order, paged
// by offset and max_results. The OpenAPI document makes every one of
// those parameters optional, and schemathesis's valid requests without
// them were refused with 400. The answer endpoint still needs a question.
func TestEmptySearchListsDocuments(t *testing.T) {
	n := start(t, "")
	keywordCollection(t, n, "e1", `, "fields": {"kind": {"type": "enum"}}`)
	keywordCollection(t, n, "e2", "")
	ingestOK(t, n.postJSON("/v1/collections/e1/documents", `{"documents": [
	 {"document_id": "b", "fields": {"kind": "x"}, "sections": [{"type": "p", "content": "Brno lies in Moravia."}]},
	 {"document_id": "a", "fields": {"kind": "y"}, "sections": [{"type": "p", "content": "Prague lies on the Vltava."}]},
	 {"document_id": "c", "sections": [{"type": "p", "content": "Ostrava grew around coal mines."}]}
	]}`))
	ingestOK(t, n.postJSON("/v1/collections/e2/documents", `{"documents": [{"document_id": "z", "sections": [{"type": "p", "content": "Plzen brews lager."}]}]}`))
	all := []string{"a", "b", "c"}
	for _, tc := range []struct {
		name, path, body string
		want             []string
	}{
		{"search {}", "/v1/collections/e1/search", `{}`, all},
		{"search blank query", "/v1/collections/e1/search", `{"query": " \t", "filter": null}`, all},
		{"search paged", "/v1/collections/e1/search", `{"offset": 1, "max_results": 1}`, []string{"b"}},
		{"query without parameters", "/v1/collections/e1/query", "", all},
		{"query with only max_results", "/v1/collections/e1/query?max_results=2", "", []string{"a", "b"}},
		{"query with an empty query", "/v1/collections/e1/query?query=&highlight=false", "", all},
		{"two collections", "/v1/collections/e1,e2/search", `{}`, []string{"a", "b", "c", "z"}},
		// A filter still narrows.
		{"filter", "/v1/collections/e1/search", `{"filter": {"term": {"kind": "x"}}}`, []string{"b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sr := search(t, n, tc.path, tc.body)
			got := ids(sr)
			if strings.Contains(tc.name, "two") {
				slices.Sort(got)
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("documents %v, want %v", got, tc.want)
			}
			for _, d := range sr.Documents {
				if d.Score != 1 || d.Source != "key" || len(d.Passages) != 0 {
					t.Errorf("document %s: score %v source %q passages %d, want 1, key, none", d.DocumentID, d.Score, d.Source, len(d.Passages))
				}
			}
		})
	}
	// The body is still a JSON object: null and no body are 400
	// (schemathesis sent null, schema-invalid, and got every document).
	for _, body := range []string{"null", " null ", "", "[]"} {
		r := n.do("POST", "/v1/collections/e1/search", "application/json", []byte(body))
		if r.status != 400 {
			t.Errorf("search body %q: %d %s, want 400", body, r.status, r.body)
		}
	}
	r := n.postJSON("/v1/collections/e1/answer", `{}`)
	if r.status != 400 || !strings.Contains(string(r.body), `"query"`) {
		t.Fatalf("answer without a question: %d %s", r.status, r.body)
	}
}
