package engine_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// TestIdentifierMatchesRankFirst checks, with the real default model on a
// SciFact subset, that a document holding a query's identifier (letters
// and digits mixed) ranks first in hybrid search, also when its text is
// otherwise unrelated to the query, and also when the identifier is one
// word of a longer query.
func TestIdentifierMatchesRankFirst(t *testing.T) {
	_, docs := subset(t, 5, 80)
	e, err := engine.Open(engine.Options{Dir: t.TempDir(), Embedders: modelProvider(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, _, err := e.PutCollection(ctx, "", "c", engine.CollectionConfig{}); err != nil {
		t.Fatal(err)
	}
	ingestBEIR(t, e, "c", docs, nil)
	// Identifier documents: long texts of another document with one code
	// in the middle.
	codes := map[string]string{"ZX-48213": "code1", "QK7731": "code2", "v2.3.19": "code3"}
	var in []engine.DocumentInput
	i := 0
	for code, id := range codes {
		body := docs[i*7].Text
		half := len(body) / 2
		in = append(in, engine.DocumentInput{DocumentID: id, Sections: []ingest.Section{
			{Type: "p", Content: body[:half] + fmt.Sprintf(" (reference %s) ", code) + body[half:]}}})
		i++
	}
	if res, err := e.Ingest(ctx, "", "c", engine.IngestRequest{Documents: in}); err != nil || len(res.Errors) > 0 {
		t.Fatalf("ingest: %v %v", err, res.Errors)
	}
	for code, id := range codes {
		for _, q := range []string{code, "cell biology " + code, strings.ToLower(code) + " protein expression"} {
			got := rank(t, e, []string{"c"}, q, 10)
			if len(got) == 0 || got[0] != id {
				t.Errorf("query %q: top %v, want %s first", q, got, id)
			}
		}
	}
}
