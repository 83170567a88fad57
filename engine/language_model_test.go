package engine_test

import (
	"context"
	"testing"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// TestLanguageDefaultModel checks which embedding model a collection gets
// when its configuration names none, that the choice is stored, and that a
// later configuration without a model keeps the model the documents were
// embedded with.
func TestLanguageDefaultModel(t *testing.T) {
	e, err := engine.Open(engine.Options{Dir: t.TempDir(), Embedders: modelProvider(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for _, tc := range []struct {
		id, lang, model, want string
	}{
		{"en", "en", "", "default"},
		{"unset", "", "", "default"},
		{"cs", "cs", "", engine.MultilingualModel},
		{"auto", "auto", "", engine.MultilingualModel},
		{"cs-named", "cs", "default", "default"},
		{"en-named", "en", engine.MultilingualModel, engine.MultilingualModel},
	} {
		t.Run(tc.id, func(t *testing.T) {
			cfg := engine.CollectionConfig{SearchConfig: engine.SearchConfig{Language: tc.lang}, EmbeddingConfig: engine.EmbeddingConfig{Model: tc.model}}
			c, _, err := e.PutCollection(ctx, "", tc.id, cfg)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.Config.EmbeddingConfig.Model; got != tc.want {
				t.Fatalf("model %q, want %q", got, tc.want)
			}
			got, err := e.GetCollection(ctx, "", tc.id)
			if err != nil {
				t.Fatal(err)
			}
			if got.Config.EmbeddingConfig.Model != tc.want {
				t.Fatalf("stored model %q, want %q", got.Config.EmbeddingConfig.Model, tc.want)
			}
		})
	}
	// A Czech collection made with bge-small-en keeps it when its
	// configuration is sent again without a model.
	in := []engine.DocumentInput{{DocumentID: "d", Sections: []ingest.Section{{Type: "p", Content: "Praha je hlavní město."}}}}
	if _, err := e.Ingest(ctx, "", "cs-named", engine.IngestRequest{Documents: in}); err != nil {
		t.Fatal(err)
	}
	c, _, err := e.PutCollection(ctx, "", "cs-named", engine.CollectionConfig{SearchConfig: engine.SearchConfig{Language: "cs", RestoreDiacritics: true}})
	if err != nil {
		t.Fatalf("re-PUT without a model: %v", err)
	}
	if c.Config.EmbeddingConfig.Model != "default" || !c.Config.SearchConfig.RestoreDiacritics {
		t.Fatalf("re-PUT: model %q, restore %v", c.Config.EmbeddingConfig.Model, c.Config.SearchConfig.RestoreDiacritics)
	}
}

// czechDocs are short Czech texts on distinct topics, with an English and a
// Czech query each that shares no word with the text.
var czechDocs = []struct{ id, text, en, cs string }{
	{"vlak", "Rychlík do Brna odjíždí z hlavního nádraží každou hodinu, jízdenky lze koupit u pokladny.", "when does the train to Brno leave", "spoje do Brna"},
	{"pocasi", "Zítra bude na horách sněžit a teploty klesnou hluboko pod nulu, meteorologové varují před náledím.", "cold snowy weather forecast in the mountains", "předpověď mrazu"},
	{"kocka", "Naše kočka celý den spí na gauči a večer loví myši na zahradě.", "my cat sleeps all day", "domácí mazlíček odpočívá"},
	{"banka", "Hypotéční úvěr s pevnou úrokovou sazbou na deset let nabízí většina bank.", "fixed rate mortgage loan", "půjčka na bydlení"},
	{"lekar", "Při horečce a bolesti v krku navštivte praktického lékaře, který předepíše antibiotika.", "what to do with a fever and sore throat", "nemoc a doktor"},
	{"fotbal", "Sparta porazila Slavii v derby dvěma góly a vede tabulku ligy.", "football match result in the Czech league", "zápas derby skončil výhrou"},
}

// TestCrossLingualSearch checks that a Czech collection with the default
// model answers English queries with the Czech document on their topic
// (dense only: no query shares a word with its document) and Czech
// paraphrases likewise.
func TestCrossLingualSearch(t *testing.T) {
	e, err := engine.Open(engine.Options{Dir: t.TempDir(), Embedders: modelProvider(t)})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, _, err := e.PutCollection(ctx, "", "cz", engine.CollectionConfig{SearchConfig: engine.SearchConfig{Language: "cs"}}); err != nil {
		t.Fatal(err)
	}
	var in []engine.DocumentInput
	for _, d := range czechDocs {
		in = append(in, engine.DocumentInput{DocumentID: d.id, Sections: []ingest.Section{{Type: "p", Content: d.text}}})
	}
	if res, err := e.Ingest(ctx, "", "cz", engine.IngestRequest{Documents: in}); err != nil || len(res.Errors) > 0 {
		t.Fatalf("ingest: %v %v", err, res.Errors)
	}
	for _, d := range czechDocs {
		for _, q := range []string{d.en, d.cs} {
			if got := rank(t, e, []string{"cz"}, q, 3); len(got) == 0 || got[0] != d.id {
				t.Errorf("query %q: top %v, want %s first", q, got, d.id)
			}
		}
	}
}
