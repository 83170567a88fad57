package summary

import (
	"strings"
	"testing"

	"github.com/najdi/najdi/internal/testutil"

	"github.com/tiktoken-go/tokenizer"
)

// loadSciFact reads the first n documents of the SciFact corpus (all if
// n <= 0) as Docs with a title and a text section.
func loadSciFact(t testing.TB, n int) []Doc {
	t.Helper()
	var out []Doc
	for _, d := range testutil.SciFactDocs(t, n) {
		out = append(out, Doc{ID: d.ID, Score: 1, Sections: []Section{{Type: "title", Content: d.Title}, {Type: "text", Content: d.Text}}})
	}
	return out
}

// r50k stands in for an embedding model's own tokenizer: a real, exact BPE
// tokenizer (GPT-2's) that differs from both o200k_base and cl100k_base.
type r50k struct{ c tokenizer.Codec }

func (r r50k) CountTokens(s string) int {
	n, err := r.c.Count(s)
	if err != nil {
		return len(s)
	}
	return n
}

// testTokenizers returns the three tokenizers the tests run with.
func testTokenizers(t testing.TB) []Tokenizer {
	t.Helper()
	c, err := tokenizer.Get(tokenizer.R50kBase)
	if err != nil {
		t.Fatal(err)
	}
	var out []Tokenizer
	for _, name := range []string{O200kBase, Cl100kBase, Embedding} {
		tk, err := NewTokenizer(name, EmbeddingTokenizer(r50k{c}))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tk)
	}
	return out
}

// docText returns all of d's text.
func docText(d Doc) string {
	var b strings.Builder
	for _, s := range d.Sections {
		b.WriteString(s.Content)
		b.WriteByte('\n')
	}
	return b.String()
}
