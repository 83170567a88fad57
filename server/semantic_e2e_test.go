package server_test

import (
	"strings"
	"testing"
)

// TestSemanticSearch runs the real default embedding model behind the real
// server: a query with no word in common with the relevant document finds
// it semantically, hybrid queries are sem-key, and collections with
// different embedding models refuse a common semantic query.
func TestSemanticSearch(t *testing.T) {
	n := start(t, "")
	must(t, n.putJSON("/v1/collections/sem", `{"embedding_config": {"model": "default"}}`), 201)
	docs := `{"documents": [
	 {"document_id": "cat", "sections": [{"type": "title", "content": "Domestic felines"}, {"type": "p", "content": "Cats are small carnivorous mammals that people keep as pets. They purr when content and sleep most of the day."}]},
	 {"document_id": "car", "sections": [{"type": "title", "content": "Electric vehicles"}, {"type": "p", "content": "Battery powered automobiles need charging stations. Their range depends on the size of the battery pack."}]},
	 {"document_id": "bread", "sections": [{"type": "title", "content": "Sourdough baking"}, {"type": "p", "content": "A sourdough starter ferments flour and water. Bake the loaf in a hot oven until the crust is dark."}]}
	]}`
	ingestOK(t, n.postJSON("/v1/collections/sem/documents", docs))

	sr := search(t, n, "/v1/collections/sem/search", `{"query": "which animal makes a good house companion", "max_results": 3, "result_format": "sections"}`)
	if len(sr.Documents) == 0 || sr.Documents[0].DocumentID != "cat" {
		t.Fatalf("semantic query ranked %v, want cat first", ids(sr))
	}
	if sr.Documents[0].Source != "sem" {
		t.Errorf("a document sharing no word with the query must come from the semantic retriever, source %q", sr.Documents[0].Source)
	}
	if len(sr.Documents[0].Passages) == 0 {
		t.Error("semantic hit without a passage")
	}
	sr = search(t, n, "/v1/collections/sem/search", `{"query": "battery charging for electric cars", "max_results": 3, "result_format": "sections"}`)
	if sr.Documents[0].DocumentID != "car" || sr.Documents[0].Source != "sem-key" {
		t.Fatalf("hybrid query: %v source %q, want car from sem-key", ids(sr), sr.Documents[0].Source)
	}
	if len(sr.Documents) > 1 && sr.Documents[0].Score-sr.Documents[1].Score < 0.1 {
		t.Errorf("the relevant document should clearly outscore the others: %.3f vs %.3f", sr.Documents[0].Score, sr.Documents[1].Score)
	}
	// A deleted document is never found semantically, with or without a filter.
	must(t, n.do("DELETE", "/v1/collections/sem/documents/cat", "", nil), 204)
	sr = search(t, n, "/v1/collections/sem/search", `{"query": "which animal makes a good house companion", "max_results": 3}`)
	for _, d := range sr.Documents {
		if d.DocumentID == "cat" {
			t.Fatal("a deleted document was found by the semantic retriever")
		}
	}
	// A keyword-only collection cannot be searched semantically together
	// with an embedded one.
	keywordCollection(t, n, "kw", "")
	ingestOK(t, n.postJSON("/v1/collections/kw/documents", `{"documents": [{"document_id": "k", "sections": [{"type": "p", "content": "battery"}]}]}`))
	r := n.postJSON("/v1/collections/sem,kw/search", `{"query": "battery"}`)
	if r.status != 400 || !strings.Contains(string(r.body), "embedding") {
		t.Fatalf("different embedding models: %d %s", r.status, r.body)
	}
	// Unknown model names are rejected at creation.
	r = n.putJSON("/v1/collections/bad", `{"embedding_config": {"model": "no-such-model"}}`)
	if r.status != 400 || !strings.Contains(string(r.body), "no-such-model") {
		t.Fatalf("unknown model: %d %s", r.status, r.body)
	}
	// Summaries with the embedding model's own tokenizer.
	sr = search(t, n, "/v1/collections/sem/search", `{"query": "sourdough", "include_content": ["summaries"], "summary_config": {"max_tokens": 30, "tokenizer": "embedding"}}`)
	if sr.Metadata.Tokens == nil || sr.Metadata.Tokens.PromptTokens > 30 || sr.Metadata.Tokens.Tokenizer != "embedding" || len(sr.Summaries) == 0 {
		t.Fatalf("embedding-tokenizer summaries: %+v", sr.Metadata)
	}
}
