package server_test

import (
	"strings"
	"testing"

	"github.com/najdi/najdi/summary"
)

// TestSummaryTokenizerFallback checks which tokenizer counts the summary
// budget, over HTTP against the real server: summary_config.tokenizer
// "embedding" on collections whose embedding model has no local tokenizer
// (keyword-only collections, asked in the request or set in the
// collection) is counted with the documented fallback, o200k_base, instead
// of a 400, and metadata.tokens.tokenizer names the tokenizer that counted
// prompt_tokens in every case. The count is checked exactly: the
// summaries' token counts under the named tokenizer add up to
// prompt_tokens. (The embedding tokenizer of a collection with a local
// model is checked in TestSemanticSearch.)
func TestSummaryTokenizerFallback(t *testing.T) {
	n := start(t, "")
	docs := `{"documents": [
	 {"document_id": "bread", "sections": [{"type": "title", "content": "Sourdough"}, {"type": "p", "content": "Sourdough bread rises slowly; the starter needs flour and water every day. Bake it hot until the crust is dark and crackles."}]},
	 {"document_id": "rye", "sections": [{"type": "title", "content": "Rye loaves"}, {"type": "p", "content": "Rye sourdough is dense and sour. Caraway seeds are common in Czech rye bread, baked in a round shape."}]}
	]}`
	keywordCollection(t, n, "kw1", "")
	keywordCollection(t, n, "kw2", "")
	keywordCollection(t, n, "kwemb", `, "summary_config": {"tokenizer": "embedding"}`)
	for _, c := range []string{"kw1", "kw2", "kwemb"} {
		ingestOK(t, n.postJSON("/v1/collections/"+c+"/documents", docs))
	}
	for _, tc := range []struct {
		name, path, body string
		want             string // metadata.tokens.tokenizer
	}{
		{"request embedding, two keyword collections", "/v1/collections/kw1,kw2/search", `{"query": "sourdough bread", "include_content": ["summaries"], "summary_config": {"max_tokens": 40, "tokenizer": "embedding"}}`, summary.O200kBase},
		{"request embedding, one keyword collection", "/v1/collections/kw1/search", `{"query": "sourdough bread", "include_content": ["summaries"], "summary_config": {"max_tokens": 40, "tokenizer": "embedding"}}`, summary.O200kBase},
		{"collection embedding", "/v1/collections/kwemb/search", `{"query": "sourdough bread", "include_content": ["summaries"], "summary_config": {"max_tokens": 40}}`, summary.O200kBase},
		{"request embedding, no summaries asked", "/v1/collections/kw1,kw2/search", `{"query": "sourdough", "summary_config": {"tokenizer": "embedding"}}`, ""},
		{"answer with embedding", "/v1/collections/kw1,kw2/answer", `{"query": "what does a sourdough starter need?", "include_content": ["summaries"], "summary_config": {"max_tokens": 60, "tokenizer": "embedding"}}`, summary.O200kBase},
		{"default", "/v1/collections/kw1/search", `{"query": "sourdough bread", "include_content": ["summaries"], "summary_config": {"max_tokens": 40}}`, summary.O200kBase},
		{"cl100k_base", "/v1/collections/kw1/search", `{"query": "sourdough bread", "include_content": ["summaries"], "summary_config": {"max_tokens": 40, "tokenizer": "cl100k_base"}}`, summary.Cl100kBase},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sr := search(t, n, tc.path, tc.body)
			if tc.want == "" {
				if len(sr.Documents) == 0 {
					t.Fatalf("no documents: %+v", sr)
				}
				return
			}
			tok := sr.Metadata.Tokens
			if tok == nil || tok.Tokenizer != tc.want {
				t.Fatalf("metadata.tokens %+v, want tokenizer %q", tok, tc.want)
			}
			if len(sr.Summaries) == 0 {
				t.Fatalf("no summaries: %+v", sr.Metadata)
			}
			counter, err := summary.NewTokenizer(tc.want, nil)
			if err != nil {
				t.Fatal(err)
			}
			sum := 0
			var texts []string
			for _, s := range sr.Summaries {
				sum += counter.Count(s.Content)
				texts = append(texts, s.Content)
			}
			if sum != tok.PromptTokens {
				t.Errorf("prompt_tokens %d, but %s counts the summaries %d (%q)", tok.PromptTokens, tc.want, sum, texts)
			}
			if sum > 60 {
				t.Errorf("summaries of %d %s tokens exceed the budget", sum, tc.want)
			}
		})
	}
	// An unknown tokenizer is still a 400 naming the field, before the search.
	r := n.postJSON("/v1/collections/kw1/search", `{"query": "sourdough", "summary_config": {"tokenizer": "gpt2"}}`)
	if r.status != 400 || !strings.Contains(string(r.body), "summary_config.tokenizer") {
		t.Fatalf("unknown tokenizer: %d %s", r.status, r.body)
	}
}
