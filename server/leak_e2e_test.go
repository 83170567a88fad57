package server_test

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"strconv"
	"testing"
)

// TestFilterLeakReproduction is issue 11's reproduction on the default
// configuration (hybrid search with the default model): a filter that
// matches nothing must return no documents, whatever searches ran before
// it, and a deleted document must never come back. It failed in about half
// of the tries before vector.Index.Search emptied its pooled heaps.
// NAJDI_LEAK_TRIES sets the number of tries (default 100; the issue asks
// for 1,000 of 1,000).
func TestFilterLeakReproduction(t *testing.T) {
	tries := 100
	if v, err := strconv.Atoi(os.Getenv("NAJDI_LEAK_TRIES")); err == nil && v > 0 {
		tries = v
	}
	n := start(t, "")
	if r := n.putJSON("/v1/collections/leak", `{"fields":{"Continent":{"type":"enum"}}}`); r.status/100 != 2 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	ingest := func(body string) {
		t.Helper()
		if r := n.postJSON("/v1/collections/leak/documents", body); r.status != 200 {
			t.Fatalf("ingest: %d %s", r.status, r.body)
		}
	}
	ingest(`{"documents":[{"document_id":"plain","sections":[{"type":"title","content":"Island nations of the Pacific"}]}]}`)
	ingest(`{"documents":[
		{"document_id":"r1","sections":[{"type":"p","content":"Fiji is an island nation"}],"fields":{"Continent":"OC"}},
		{"document_id":"r2","sections":[{"type":"p","content":"Germany is a country"}],"fields":{"Continent":"EU"}}]}`)

	ids := func(r resp) []string {
		t.Helper()
		if r.status != 200 {
			t.Fatalf("search: %d %s", r.status, r.body)
		}
		var out struct {
			Documents []struct {
				DocumentID string `json:"document_id"`
				Source     string `json:"source"`
			} `json:"documents"`
			Metadata struct {
				AnswerSources []string `json:"answer_sources"`
			} `json:"metadata"`
		}
		if err := json.Unmarshal(r.body, &out); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, d := range out.Documents {
			got = append(got, d.DocumentID+" ("+d.Source+")")
		}
		return append(got, out.Metadata.AnswerSources...)
	}
	filtered := `{"query":"island nation","filter":{"term":{"Continent":"ZZ"}},"highlight":false}`
	others := []func() resp{
		func() resp { return n.postJSON("/v1/collections/leak/search", `{"query":"island nation"}`) },
		func() resp { return n.postJSON("/v1/collections/leak/search", `{"query":"a country in Europe"}`) },
		func() resp {
			return n.postJSON("/v1/collections/leak/answer", `{"query":"which island nation?"}`)
		},
	}
	leaks := 0
	for i := range tries {
		ids(others[i%len(others)]())
		for _, r := range []resp{
			n.postJSON("/v1/collections/leak/search", filtered),
			n.postJSON("/v1/collections/leak/answer", `{"query":"island nation","filter":{"term":{"Continent":"ZZ"}}}`),
			n.getJSON("/v1/collections/leak/query?" + url.Values{"query": {"island nation"}, "filter:Continent": {"ZZ"}}.Encode()),
		} {
			if got := ids(r); len(got) > 0 {
				leaks++
				if leaks <= 3 {
					t.Errorf("try %d: a filter matching nothing returned %v", i, got)
				}
			}
		}
	}
	// A deleted document never comes back, from either retriever.
	if r := n.do("DELETE", "/v1/collections/leak/documents/r1", "", nil); r.status/100 != 2 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	for i := range tries {
		ids(others[i%len(others)]())
		for _, d := range ids(n.postJSON("/v1/collections/leak/search", `{"query":"Fiji island nation","filter":{"term":{"Continent":"OC"}}}`)) {
			leaks++
			if leaks <= 3 {
				t.Errorf("try %d: deleted r1's filter returned %s", i, d)
			}
		}
	}
	if leaks > 0 {
		t.Fatalf("%d leaking responses", leaks)
	}
	t.Logf("%s tries: no leak", fmt.Sprint(tries))
}
