package server_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

// TestIdentifierRanksFirstHTTP is issue 18's relevance item over HTTP with
// the default model: the only document holding a unique code ranks first
// for a query of that code, and for a short query around it, in a hybrid
// collection of real SciFact abstracts (before: #37–#157).
func TestIdentifierRanksFirstHTTP(t *testing.T) {
	var docs []map[string]any
	for _, d := range testutil.SciFactDocs(t, 150) {
		docs = append(docs, map[string]any{"document_id": "s" + d.ID, "sections": []map[string]string{
			{"type": "title", "content": d.Title}, {"type": "p", "content": d.Text}}})
	}
	// The code sits in the middle of an abstract about something else.
	text := docs[0]["sections"].([]map[string]string)[1]["content"]
	docs = append(docs, map[string]any{"document_id": "coded", "sections": []map[string]string{
		{"type": "p", "content": text[:len(text)/2] + " (lot QX-77121, firmware v4.17.2) " + text[len(text)/2:]}}})
	n := start(t, "")
	if r := n.putJSON("/v1/collections/h", `{}`); r.status/100 != 2 {
		t.Fatalf("create: %d %s", r.status, r.body)
	}
	if r := n.postJSON("/v1/collections/h/documents", map[string]any{"documents": docs}); r.status != 200 {
		t.Fatalf("ingest: %d %s", r.status, r.body)
	}
	if r := n.getJSON("/v1/collections/h"); r.json(t)["document_count"] != float64(len(docs)) {
		t.Fatalf("collection: %s, want %d documents", r.body, len(docs))
	}
	for _, q := range []string{"QX-77121", "cell biology QX-77121", "qx-77121 protein expression", "v4.17.2"} {
		r := n.postJSON("/v1/collections/h/search", fmt.Sprintf(`{"query": %q, "highlight": false}`, q))
		var out struct {
			Documents []struct {
				DocumentID string `json:"document_id"`
				Source     string `json:"source"`
			} `json:"documents"`
		}
		if err := json.Unmarshal(r.body, &out); err != nil || r.status != 200 {
			t.Fatalf("search %q: %d %s", q, r.status, r.body)
		}
		if len(out.Documents) == 0 || out.Documents[0].DocumentID != "coded" {
			t.Errorf("query %q: top %+v, want coded first", q, out.Documents)
		}
	}
}
