package engine_test

import (
	"context"
	"testing"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/viterin/vek/vek32"
)

// TestIntentEmbedderOf: intent texts are embedded in the model's symmetric
// form (bge-small-en-v1.5 without its retrieval instruction), one text
// alone exactly, many texts in bulk (close to alone).
func TestIntentEmbedderOf(t *testing.T) {
	p, err := engine.NewModelProvider(embed.CachePaths(embed.DefaultCacheDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	emb, err := p.Embedder(engine.EmbeddingConfig{Model: "bge-small-en-v1.5"})
	if err != nil {
		t.Fatalf("bge-small-en-v1.5 not installed (make models): %v", err)
	}
	ctx := context.Background()
	texts := []string{"what is the weather in Paris", "play some jazz", "book a table for two"}
	plain, err := emb.EmbedPassages(ctx, texts) // bge's passage prefix is empty
	if err != nil {
		t.Fatal(err)
	}
	query, err := emb.EmbedQueries(ctx, texts[:1])
	if err != nil {
		t.Fatal(err)
	}
	f := engine.IntentEmbedderOf(p, "bge-small-en-v1.5")
	one, err := f(ctx, texts[:1])
	if err != nil {
		t.Fatal(err)
	}
	if c := cos(one[0], plain[0]); c < 0.9999 {
		t.Errorf("one text: cosine %.5f to the unprefixed vector, want the same vector", c)
	}
	if c := cos(one[0], query[0]); c > 0.99 {
		t.Errorf("one text: cosine %.5f to the query vector, want the symmetric form", c)
	}
	many, err := f(ctx, texts)
	if err != nil {
		t.Fatal(err)
	}
	for i := range texts {
		if c := cos(many[i], plain[i]); c < 0.95 {
			t.Errorf("bulk %q: cosine %.4f to the vector alone", texts[i], c)
		}
	}
	if _, err := engine.IntentEmbedderOf(p, "no-such-model")(ctx, texts); err == nil {
		t.Error("no error for a model that is not installed")
	}
}

func cos(a, b []float32) float64 { return float64(vek32.CosineSimilarity(a, b)) }
