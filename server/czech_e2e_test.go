package server_test

import (
	"testing"
)

// TestCzechSearch checks Czech analysis (inflection, diacritics-insensitive
// matching) and query diacritics restoration end to end.
func TestCzechSearch(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "cz", `, "search_config": {"language": "cs"}`)
	ingestOK(t, n.postJSON("/v1/collections/cz/documents", `{"documents": [
	  {"document_id": "krumlov", "sections": [{"type": "title", "content": "Český Krumlov"}, {"type": "p", "content": "Zámek v Českém Krumlově patří k nejnavštěvovanějším památkám."}]},
	  {"document_id": "praha", "sections": [{"type": "title", "content": "Praha"}, {"type": "p", "content": "V Praze žije přes milion obyvatel a sídlí zde vláda."}]},
	  {"document_id": "brno", "sections": [{"type": "title", "content": "Brno"}, {"type": "p", "content": "Brno je druhé největší město a sídlo Ústavního soudu."}]}]}`))
	// Inflection and missing diacritics still match.
	for q, want := range map[string]string{"prahou": "praha", "v praze": "praha", "ceskem krumlove": "krumlov", "ustavni soud": "brno"} {
		sr := search(t, n, "/v1/collections/cz/search", map[string]any{"query": q, "max_results": 1, "result_format": "sections"})
		if len(sr.Documents) == 0 || sr.Documents[0].DocumentID != want {
			t.Errorf("query %q found %v, want %s", q, ids(sr), want)
		}
		if sr.Metadata.EffectiveQueries != nil {
			t.Errorf("query %q was altered without restore_diacritics", q)
		}
	}
	// Restoration reports the altered query; an unaltered one reports none.
	// A lowercase query also gets the capitals of place names back.
	sr := search(t, n, "/v1/collections/cz/search", `{"query": "cesky krumlov", "restore_diacritics": true}`)
	if len(sr.Metadata.EffectiveQueries) != 1 || sr.Metadata.EffectiveQueries[0] != "Český Krumlov" {
		t.Fatalf("effective_queries %v, want [Český Krumlov]", sr.Metadata.EffectiveQueries)
	}
	if len(sr.Documents) == 0 || sr.Documents[0].DocumentID != "krumlov" {
		t.Fatalf("restored query found %v", ids(sr))
	}
	sr = search(t, n, "/v1/collections/cz/search", `{"query": "Brno", "restore_diacritics": true}`)
	if sr.Metadata.EffectiveQueries != nil {
		t.Fatalf("an unaltered query reported effective_queries %v", sr.Metadata.EffectiveQueries)
	}
	// The collection setting turns restoration on by default.
	must(t, n.putJSON("/v1/collections/cz", `{"embedding_config": {"model": "none"}, "search_config": {"language": "cs", "restore_diacritics": true}}`), 200)
	sr = search(t, n, "/v1/collections/cz/query?query=zamek%20v%20ceskem%20krumlove", nil)
	if len(sr.Metadata.EffectiveQueries) != 1 || sr.Metadata.EffectiveQueries[0] != "zámek v Českém Krumlově" {
		t.Fatalf("search_config.restore_diacritics: effective_queries %v, want [zámek v Českém Krumlově]", sr.Metadata.EffectiveQueries)
	}
	// A query typed with capitals keeps its letter case.
	sr = search(t, n, "/v1/collections/cz/search", `{"query": "Zamek v Praze", "max_results": 1}`)
	if len(sr.Metadata.EffectiveQueries) != 1 || sr.Metadata.EffectiveQueries[0] != "Zámek v Praze" {
		t.Fatalf("effective_queries %v, want [Zámek v Praze]", sr.Metadata.EffectiveQueries)
	}
}
