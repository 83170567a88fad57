package server_test

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// TestRetrieversHTTP: the search request's retrievers field (and the query
// endpoint's retrievers parameter) over real HTTP against the real server,
// on one hybrid collection embedded by a local OpenAI-compatible server
// that counts its calls. keyword returns only source key documents, makes
// no embedding call and ranks and scores as a keyword-only collection of
// the same documents; semantic returns only sem documents, as a collection
// with fulltext off; a bad value or a retriever a searched collection does
// not have is a 400 naming retrievers.
func TestRetrieversHTTP(t *testing.T) {
	var calls int
	var mu sync.Mutex
	srv := httptest.NewServer(fakeEmbeddings(&calls, &mu))
	defer srv.Close()
	embCalls := func() int {
		mu.Lock()
		defer mu.Unlock()
		return calls
	}
	n := start(t, "", "--allow-outbound", strings.TrimPrefix(srv.URL, "http://"))
	remote := `{"url": "` + srv.URL + `", "model": "bag-of-words", "dims": 16}`
	must(t, n.putJSON("/v1/collections/hyb", `{"embedding_config": {"model": `+remote+`}}`), 201)
	must(t, n.putJSON("/v1/collections/vec", `{"embedding_config": {"model": `+remote+`}, "fulltext_config": {"enabled": false}}`), 201)
	keywordCollection(t, n, "kw", "")
	docs := `{"documents": [
	  {"document_id": "a", "sections": [{"type": "p", "content": "red apples and green pears"}]},
	  {"document_id": "b", "sections": [{"type": "p", "content": "fast trains between cities"}]},
	  {"document_id": "c", "sections": [{"type": "p", "content": "apples grow on trees in the orchard"}]},
	  {"document_id": "d", "sections": [{"type": "p", "content": "pears ripen after the harvest"}]},
	  {"document_id": "e", "sections": [{"type": "p", "content": "the orchard trains young trees"}]},
	  {"document_id": "f", "sections": [{"type": "p", "content": "cities grow around railway stations"}]}]}`
	for _, c := range []string{"hyb", "vec", "kw"} {
		ingestOK(t, n.postJSON("/v1/collections/"+c+"/documents", docs))
	}
	type ranked struct {
		ids, sources []string
		scores       []float64
	}
	rank := func(sr searchResp) ranked {
		var r ranked
		for _, d := range sr.Documents {
			r.ids = append(r.ids, d.DocumentID)
			r.sources = append(r.sources, d.Source)
			r.scores = append(r.scores, d.Score)
		}
		return r
	}
	body := func(q string, extra string) string {
		return `{"query": ` + fmt.Sprintf("%q", q) + `, "max_results": 10, "min_score": 0` + extra + `}`
	}
	queries := []string{"apples pears", "orchard trees", "trains between cities"}
	for _, tc := range []struct {
		name, retrievers, like, source string
		get                            bool // the query endpoint instead of the search body
		embeds                         bool // the query is embedded
	}{
		{"keyword", "keyword", "kw", "key", false, false},
		{"keyword query endpoint", "keyword", "kw", "key", true, false},
		{"semantic", "semantic", "vec", "sem", false, true},
		{"semantic query endpoint", "semantic", "vec", "sem", true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i, q := range queries {
				// A query text of its own for every request, so that the
				// query vector cache never hides an embedding call.
				q := fmt.Sprintf("%s %s%d", q, strings.ReplaceAll(tc.name, " ", ""), i)
				before := embCalls()
				var got searchResp
				if tc.get {
					v := url.Values{"query": {q}, "max_results": {"10"}, "min_score": {"0"}, "retrievers": {tc.retrievers}}
					got = search(t, n, "/v1/collections/hyb/query?"+v.Encode(), nil)
				} else {
					got = search(t, n, "/v1/collections/hyb/search", body(q, `, "retrievers": "`+tc.retrievers+`"`))
				}
				if d := embCalls() - before; (d > 0) != tc.embeds {
					t.Errorf("%q: %d embedding calls, want embedded %v", q, d, tc.embeds)
				}
				g := rank(got)
				if len(g.ids) == 0 {
					t.Fatalf("%q: no documents", q)
				}
				for j, s := range g.sources {
					if s != tc.source {
						t.Errorf("%q: %s has source %q, want %q", q, g.ids[j], s, tc.source)
					}
				}
				w := rank(search(t, n, "/v1/collections/"+tc.like+"/search", body(q, "")))
				if fmt.Sprint(g.ids, g.scores) != fmt.Sprint(w.ids, w.scores) {
					t.Errorf("%q on hyb: %v %v, want %v %v as on %s", q, g.ids, g.scores, w.ids, w.scores, tc.like)
				}
			}
		})
	}
	// Absent, null and "" search with both retrievers: the same ranking,
	// with documents found by both.
	both := rank(search(t, n, "/v1/collections/hyb/search", body("apples pears", "")))
	if !strings.Contains(fmt.Sprint(both.sources), "sem-key") {
		t.Errorf("hybrid search: sources %v, want a sem-key document", both.sources)
	}
	for _, extra := range []string{`, "retrievers": null`, `, "retrievers": ""`} {
		if got := rank(search(t, n, "/v1/collections/hyb/search", body("apples pears", extra))); fmt.Sprint(got) != fmt.Sprint(both) {
			t.Errorf("retrievers%s: %v, want the hybrid %v", extra, got, both)
		}
	}
	for _, tc := range []struct {
		name, method, path, body string
		msg                      string // the error message holds it
	}{
		{"unknown value", "POST", "/v1/collections/hyb/search", body("apples", `, "retrievers": "bm25"`), `"bm25"`},
		{"hybrid is not a value", "POST", "/v1/collections/hyb/search", body("apples", `, "retrievers": "hybrid"`), `"hybrid"`},
		{"wrong case", "POST", "/v1/collections/hyb/search", body("apples", `, "retrievers": "Keyword"`), `"Keyword"`},
		{"number", "POST", "/v1/collections/hyb/search", body("apples", `, "retrievers": 5`), "string"},
		{"list", "POST", "/v1/collections/hyb/search", body("apples", `, "retrievers": ["keyword"]`), "string"},
		{"answer endpoint", "POST", "/v1/collections/hyb/answer", body("apples", `, "retrievers": "bm25"`), `"bm25"`},
		{"query endpoint unknown", "GET", "/v1/collections/hyb/query?query=apples&retrievers=bm25", "", `"bm25"`},
		{"query endpoint empty", "GET", "/v1/collections/hyb/query?query=apples&retrievers=", "", `""`},
		{"semantic on keyword-only", "POST", "/v1/collections/kw/search", body("apples", `, "retrievers": "semantic"`), `"kw"`},
		{"semantic on keyword-only, no query", "POST", "/v1/collections/kw/search", `{"retrievers": "semantic"}`, `"kw"`},
		{"keyword with fulltext off", "POST", "/v1/collections/vec/search", body("apples", `, "retrievers": "keyword"`), `"vec"`},
		{"keyword, one collection without", "POST", "/v1/collections/hyb,vec/search", body("apples", `, "retrievers": "keyword"`), `"vec"`},
		{"keyword with fulltext off, query endpoint", "GET", "/v1/collections/vec/query?query=apples&retrievers=keyword", "", `"vec"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var r resp
			if tc.method == "GET" {
				r = n.getJSON(tc.path)
			} else {
				r = n.postJSON(tc.path, tc.body)
			}
			var e struct {
				Error struct {
					Code    string         `json:"code"`
					Message string         `json:"message"`
					Details map[string]any `json:"details"`
				} `json:"error"`
			}
			if r.status != 400 || json.Unmarshal(r.body, &e) != nil {
				t.Fatalf("%d %s, want 400", r.status, r.body)
			}
			if e.Error.Details["field"] != "retrievers" || !strings.Contains(e.Error.Message, "retrievers") || !strings.Contains(e.Error.Message, tc.msg) {
				t.Errorf("error %+v: want details.field retrievers and a message naming retrievers and %s", e.Error, tc.msg)
			}
		})
	}
	// A retriever every searched collection has: hyb and vec share the
	// embedding model, so semantic searches both.
	sr := search(t, n, "/v1/collections/hyb,vec/search", body("apples pears", `, "retrievers": "semantic"`))
	seen := map[string]bool{}
	for _, d := range sr.Documents {
		seen[d.CollectionID] = true
		if d.Source != "sem" {
			t.Errorf("semantic on hyb,vec: %s/%s source %q", d.CollectionID, d.DocumentID, d.Source)
		}
	}
	if !seen["hyb"] || !seen["vec"] {
		t.Errorf("semantic on hyb,vec: collections %v, want both", seen)
	}
}
