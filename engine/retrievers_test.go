package engine_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// TestRetrievers checks SearchRequest.Retrievers on a hybrid collection
// with the real default model: keyword alone ranks as a keyword-only
// collection of the same documents, semantic alone as a vector-only one,
// each hit found by that retriever only; another value is refused.
func TestRetrievers(t *testing.T) {
	texts := []string{
		"alpha particles are helium nuclei emitted in radioactive decay",
		"beta decay emits an electron and an antineutrino",
		"gamma rays are high energy photons",
		"the helium balloon rose over the city",
		"nuclear fission splits heavy nuclei",
		"a cat sleeps on the warm windowsill",
	}
	ctx, e := retrieverCollections(t, texts)
	ids := func(coll, q, retrievers string) ([]string, []string) {
		t.Helper()
		res, err := e.Search(ctx, "", []string{coll}, engine.SearchRequest{Query: q, Retrievers: retrievers})
		if err != nil {
			t.Fatalf("%s %q %q: %v", coll, q, retrievers, err)
		}
		var out, src []string
		for _, d := range res.Documents {
			out = append(out, d.DocumentID)
			src = append(src, d.Source)
		}
		return out, src
	}
	for _, tc := range []struct {
		retrievers, like, source string
	}{
		{engine.RetrieveKeyword, "kw", "key"},
		{engine.RetrieveSemantic, "vec", "sem"},
	} {
		for _, q := range []string{"helium nuclei", "radioactive decay of heavy atoms", "sleeping animal"} {
			got, src := ids("hyb", q, tc.retrievers)
			want, _ := ids(tc.like, q, "")
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s on hyb %q: %v, want %v (as %s)", tc.retrievers, q, got, want, tc.like)
			}
			for i, s := range src {
				if s != tc.source {
					t.Errorf("%s on hyb %q: %s found by %q, want %q", tc.retrievers, q, got[i], s, tc.source)
				}
			}
		}
	}
	if both, _ := ids("hyb", "helium nuclei", ""); fmt.Sprint(both) == "[]" {
		t.Error("hybrid search found nothing")
	}
	_, err := e.Search(ctx, "", []string{"hyb"}, engine.SearchRequest{Query: "helium", Retrievers: "both"})
	if !errors.Is(err, engine.ErrInvalid) {
		t.Errorf("retrievers \"both\": %v, want ErrInvalid", err)
	}
}

// retrieverCollections opens an engine with the real default model and
// three collections of the same documents (one per text): "hyb" (the
// default configuration), "kw" (embedding model "none") and "vec"
// (fulltext off).
func retrieverCollections(t *testing.T, texts []string) (context.Context, *engine.Engine) {
	t.Helper()
	ctx := context.Background()
	e, err := engine.Open(engine.Options{Dir: t.TempDir(), Logger: discardLogger(), Embedders: modelProvider(t)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	off := false
	var docs []engine.DocumentInput
	for i, s := range texts {
		docs = append(docs, engine.DocumentInput{DocumentID: fmt.Sprintf("d%d", i), Sections: []ingest.Section{{Type: "p", Content: s}}})
	}
	for id, cfg := range map[string]engine.CollectionConfig{
		"hyb": {},
		"kw":  {EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}},
		"vec": {FulltextConfig: engine.FulltextConfig{Enabled: &off}},
	} {
		if _, _, err := e.PutCollection(ctx, "", id, cfg); err != nil {
			t.Fatal(err)
		}
		if _, err := e.Ingest(ctx, "", id, engine.IngestRequest{Documents: docs}); err != nil {
			t.Fatal(err)
		}
	}
	return ctx, e
}
