package engine_test

import (
	"context"
	"math"
	"strings"
	"testing"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// countingProvider counts the queries its embedders embed.
type countingProvider struct {
	engine.EmbedderProvider
	queries *int
}

func (p countingProvider) Embedder(cfg engine.EmbeddingConfig) (engine.Embedder, error) {
	emb, err := p.EmbedderProvider.Embedder(cfg)
	if err != nil || emb == nil {
		return emb, err
	}
	return countingEmbedder{emb, p.queries}, nil
}

type countingEmbedder struct {
	engine.Embedder
	queries *int
}

func (c countingEmbedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	*c.queries += len(texts)
	return c.Embedder.EmbedQueries(ctx, texts)
}

// TestSearchTimings checks, with the real default model, that a search
// reports its stage times, that a repeated query's vector comes from the
// cache (embedded once, same ranking and scores), and that a disabled cache
// embeds every time.
func TestSearchTimings(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name      string
		cacheSize int
		embeds    int // queries embedded by the three searches
	}{
		{"cache", 0, 2}, // "alpha" twice, "beta" once
		{"no cache", -1, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := 0
			e, err := engine.Open(engine.Options{Dir: t.TempDir(), Logger: discardLogger(), QueryCacheSize: tc.cacheSize,
				Embedders: countingProvider{modelProvider(t), &n}})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			if _, _, err := e.PutCollection(ctx, "", "c", engine.CollectionConfig{}); err != nil {
				t.Fatal(err)
			}
			docs := []engine.DocumentInput{
				{DocumentID: "a", Sections: []ingest.Section{{Type: "p", Content: "alpha particles are helium nuclei"}}},
				{DocumentID: "b", Sections: []ingest.Section{{Type: "p", Content: "beta decay emits an electron"}}},
			}
			if _, err := e.Ingest(ctx, "", "c", engine.IngestRequest{Documents: docs}); err != nil {
				t.Fatal(err)
			}
			var first engine.SearchResponse
			for i, q := range []string{"alpha particles", "beta", "alpha particles"} {
				res, err := e.Search(ctx, "", []string{"c"}, engine.SearchRequest{Query: q})
				if err != nil {
					t.Fatal(err)
				}
				tm := res.Metadata.Timings
				if tm == nil {
					t.Fatal("no metadata.timings")
				}
				wantCached := tc.cacheSize >= 0 && i == 2
				if tm.EmbedCached != wantCached {
					t.Errorf("search %d: embed_cached %v, want %v", i, tm.EmbedCached, wantCached)
				}
				if !wantCached && tm.EmbedMS <= 0 {
					t.Errorf("search %d: embed_ms %v for an embedded query", i, tm.EmbedMS)
				}
				sum := tm.EmbedMS + tm.RetrieveMS + tm.FuseMS + tm.LoadMS + tm.RenderMS
				// The stages cover the search back to back: their sum is
				// took_ms up to the microsecond of rounding.
				if math.Abs(sum-res.Metadata.TookMS) > 0.0015 {
					t.Errorf("search %d: stages %+v sum to %.3f ms, took_ms %.3f", i, *tm, sum, res.Metadata.TookMS)
				}
				if len(res.Documents) == 0 || !strings.HasPrefix(q, res.Documents[0].DocumentID) {
					t.Errorf("search %d %q: top %+v", i, q, res.Documents)
				}
				switch i {
				case 0:
					first = res
				case 2:
					for j := range first.Documents {
						if first.Documents[j].DocumentID != res.Documents[j].DocumentID || first.Documents[j].Score != res.Documents[j].Score {
							t.Errorf("repeated query ranks %+v, first %+v", res.Documents, first.Documents)
						}
					}
				}
			}
			if n != tc.embeds {
				t.Errorf("%d queries embedded, want %d", n, tc.embeds)
			}
		})
	}
}
