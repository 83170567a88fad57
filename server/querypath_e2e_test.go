package server_test

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
)

// TestRemoteEmbeddingPrefixesE2E checks, through the real server and a
// fake of a user's OpenAI-compatible endpoint, that query_prefix and
// passage_prefix of a remote model are accepted, stored (returned by the
// collection and still applied after a crash and restart) and applied:
// the endpoint receives "passage: …" for chunks and "query: …" for
// queries. It also checks metadata.timings and that a repeated query is
// answered from the cache of query vectors without calling the endpoint.
func TestRemoteEmbeddingPrefixesE2E(t *testing.T) {
	var mu sync.Mutex
	var inputs []string
	calls := 0
	fake := fakeEmbeddings(&calls, &mu)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		if err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		var req struct {
			Input []string `json:"input"`
		}
		if json.Unmarshal(body, &req) == nil {
			mu.Lock()
			inputs = append(inputs, req.Input...)
			mu.Unlock()
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		fake(w, r)
	}))
	defer srv.Close()
	received := func() []string {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(inputs)
	}
	n := start(t, "", "--allow-outbound", strings.TrimPrefix(srv.URL, "http://"))
	must(t, n.putJSON("/v1/collections/e5", `{"embedding_config": {"model": {"url": "`+srv.URL+`", "model": "e5", "dims": 16,
		"query_prefix": "query: ", "passage_prefix": "passage: "}}}`), 201)
	var coll struct {
		EmbeddingConfig struct {
			Model struct {
				QueryPrefix   string `json:"query_prefix"`
				PassagePrefix string `json:"passage_prefix"`
			} `json:"model"`
		} `json:"embedding_config"`
	}
	if err := json.Unmarshal(must(t, n.getJSON("/v1/collections/e5"), 200).body, &coll); err != nil {
		t.Fatal(err)
	}
	if m := coll.EmbeddingConfig.Model; m.QueryPrefix != "query: " || m.PassagePrefix != "passage: " {
		t.Fatalf("stored prefixes %+v", m)
	}
	ingestOK(t, n.postJSON("/v1/collections/e5/documents", `{"documents": [
	  {"document_id": "a", "sections": [{"type": "p", "content": "red apples and green pears"}]},
	  {"document_id": "b", "sections": [{"type": "p", "content": "fast trains between cities"}]}]}`))
	if got := received(); !slices.Equal(got, []string{"passage: red apples and green pears", "passage: fast trains between cities"}) {
		t.Fatalf("ingest sent %q", got)
	}
	type timed struct {
		Documents []struct {
			DocumentID string `json:"document_id"`
		} `json:"documents"`
		Metadata struct {
			TookMS  float64 `json:"took_ms"`
			Timings *struct {
				EmbedMS     float64  `json:"embed_ms"`
				EmbedCached bool     `json:"embed_cached"`
				RetrieveMS  float64  `json:"retrieve_ms"`
				EncodeMS    *float64 `json:"encode_ms"`
			} `json:"timings"`
		} `json:"metadata"`
	}
	searchTimed := func(q string) timed {
		var r timed
		if err := json.Unmarshal(must(t, n.postJSON("/v1/collections/e5/search", map[string]any{"query": q}), 200).body, &r); err != nil {
			t.Fatal(err)
		}
		if r.Metadata.Timings == nil || r.Metadata.Timings.EncodeMS == nil {
			t.Fatalf("no metadata.timings with encode_ms: %+v", r.Metadata)
		}
		return r
	}
	r := searchTimed("pears")
	if len(r.Documents) == 0 || r.Documents[0].DocumentID != "a" {
		t.Errorf("ranked %+v", r.Documents)
	}
	if got := received(); got[len(got)-1] != "query: pears" {
		t.Errorf("the query reached the endpoint as %q", got[len(got)-1])
	}
	// embed_ms is the time the search waited for the embedding after its
	// keyword side (docs/API.md): 0 is right when the endpoint answered
	// first, so only its sign and the cache flag are checked here.
	if r.Metadata.Timings.EmbedCached || r.Metadata.Timings.EmbedMS < 0 {
		t.Errorf("first query: timings %+v", *r.Metadata.Timings)
	}
	before := len(received())
	r = searchTimed("pears")
	if !r.Metadata.Timings.EmbedCached || len(received()) != before {
		t.Errorf("repeated query: embed_cached %v, endpoint called %d more times", r.Metadata.Timings.EmbedCached, len(received())-before)
	}
	n.restart() // kill -9: the configuration with its prefixes survives
	searchTimed("fast trains")
	if got := received(); got[len(got)-1] != "query: fast trains" {
		t.Errorf("after a restart the query reached the endpoint as %q", got[len(got)-1])
	}
}
