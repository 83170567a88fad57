package main

import (
	"context"
	"testing"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/nlu"
)

// TestNLUEmbeddersWordStates: the server gives builtin-ner the word
// vectors of an installed model (the real bge-small-en-v1.5) and none for a
// model that is not installed; without embeddings it gives none.
func TestNLUEmbeddersWordStates(t *testing.T) {
	var none nlu.Options
	nluEmbedders(&none, nil)
	if none.WordStates != nil || none.Embedder != nil {
		t.Fatal("options with embeddings off got embedders")
	}
	prov, err := engine.NewModelProvider(embed.CachePaths(embed.DefaultCacheDir()))
	if err != nil {
		t.Fatalf("make models: %v", err)
	}
	var opts nlu.Options
	nluEmbedders(&opts, prov)
	if opts.WordStates == nil {
		t.Fatal("no WordStates with a model provider")
	}
	if ws := opts.WordStates("no-such-model"); ws != nil {
		t.Error("word vectors for a model that is not installed")
	}
	ws := opts.WordStates("bge-small-en-v1.5")
	if ws == nil {
		t.Fatal("no word vectors for bge-small-en-v1.5")
	}
	v, err := ws(context.Background(), []string{"Angela", "Merkel", "visited", "Prague"})
	if err != nil || len(v) != 4 || len(v[0]) != 384 {
		t.Fatalf("word vectors: %d, %v", len(v), err)
	}
}
