package nlu

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/nlu/intent"
	"github.com/najdi/najdi/nlu/ner"
)

// TestBuiltinNERContextual: with Options.WordStates an English builtin-ner
// asks for the contextual tagger's model and tags with its word vectors
// (the real bge-small-en-v1.5); a Czech one does not use them.
func TestBuiltinNERContextual(t *testing.T) {
	reg := embed.NewRegistry(embed.CachePaths(embed.DefaultCacheDir()))
	var asked []string
	var runs atomic.Int64
	s, _ := newTestService(t, Options{WordStates: func(model string) ner.WordStates {
		asked = append(asked, model)
		l, err := reg.Local(model)
		if err != nil {
			t.Fatalf("%s not installed (make models): %v", model, err)
		}
		return func(ctx context.Context, words []string) ([][]float32, error) {
			runs.Add(1)
			return l.WordStates(ctx, words)
		}
	}})
	en := mustCreate(t, s, "alice", `{"name": "ner", "type": "annotator", "annotator": {"service": "builtin", "model": "builtin-ner"}, "language": "en"}`)
	cs := mustCreate(t, s, "alice", `{"name": "ner-cs", "type": "annotator", "annotator": {"service": "builtin", "model": "builtin-ner"}, "language": "cs"}`)
	if fmt.Sprint(asked) != "[bge-small-en-v1.5]" {
		t.Fatalf("word vectors asked for %v, want [bge-small-en-v1.5] (English only)", asked)
	}
	res, err := s.Analyze(context.Background(), "alice", en.ModelID, "Peter Blackburn of the European Commission flew to Paris. He met Angela Merkel.")
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]string{}
	for _, a := range res.Annotations {
		got[a.Text] = a.Name
	}
	want := map[string]string{"Peter Blackburn": "person", "European Commission": "organization", "Paris": "location", "Angela Merkel": "person"}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%q: %q, want %q (all: %v)", k, got[k], v, got)
		}
	}
	if runs.Load() != 2 {
		t.Errorf("%d word-vector runs, want 2 (one per sentence)", runs.Load())
	}
	if _, err := s.Analyze(context.Background(), "alice", cs.ModelID, "Petr Novák jel do Prahy."); err != nil {
		t.Fatal(err)
	}
	if runs.Load() != 2 {
		t.Errorf("a Czech analysis ran word vectors")
	}
}

// TestRetrainEmbedsOnlyNewTexts: updating an intent classifier with one
// more example embeds that example only (the service caches embeddings by
// text).
func TestRetrainEmbedsOnlyNewTexts(t *testing.T) {
	var embedded []string
	emb := func(ctx context.Context, texts []string) ([][]float32, error) {
		embedded = append(embedded, texts...)
		out := make([][]float32, len(texts))
		for i, s := range texts {
			out[i] = []float32{float32(len(s)), 1, float32(strings.Count(s, "a"))}
		}
		return out, nil
	}
	s, _ := newTestService(t, Options{Embedder: intent.Embedder(emb)})
	body := `{"name": "i", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", "config": {"examples": {"a": ["hello there", "hi"], "b": ["bye now", %s]}}}}`
	m := mustCreate(t, s, "alice", fmt.Sprintf(body, `"see you"`))
	if len(embedded) != 4 {
		t.Fatalf("first training embedded %v", embedded)
	}
	embedded = nil
	if _, err := s.UpdateModel(context.Background(), "alice", m.ModelID, []byte(fmt.Sprintf(body, `"see you", "farewell"`))); err != nil {
		t.Fatal(err)
	}
	if fmt.Sprint(embedded) != "[farewell]" {
		t.Errorf("retraining embedded %v, want [farewell]", embedded)
	}
}
