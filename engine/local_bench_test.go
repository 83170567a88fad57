package engine_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/internal/testutil"
)

// BenchmarkIngestReplace measures a synchronous ingest of 20 SciFact
// documents that replace documents of a 2,000-document keyword
// collection: analysis, the field index, and the commit of the embedded
// store (bodies, the new segment, the replaced documents' deletes in one
// synced batch, and installing it). Merging is off (MaxSegments), so
// the runs do not race the merger.
func BenchmarkIngestReplace(b *testing.B) {
	e, data := keywordSciFact(b, engine.Options{MaxSegments: 1 << 20})
	ctx := context.Background()
	docs := data.Docs[:2000]
	ingestBEIR(b, e, "s", docs, nil)
	const batch = 20
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		var in []engine.DocumentInput
		for _, d := range docs[i%(len(docs)/batch)*batch:][:batch] {
			in = append(in, engine.DocumentInput{DocumentID: d.ID, Sections: []ingest.Section{{Type: "title", Content: d.Title}, {Type: "p", Content: d.Text}}})
		}
		res, err := e.Ingest(ctx, "", "s", engine.IngestRequest{Documents: in})
		if err != nil || len(res.Errors) > 0 || len(res.Documents) != batch || res.Documents[0].Status != "replaced" {
			b.Fatalf("ingest: %v %v %v", err, res.Errors, res.Documents)
		}
		i++
	}
}

// keywordSciFact loads SciFact and opens an engine of opts in a temporary
// directory, with an empty keyword-only collection "s"; it is closed when
// the benchmark ends.
func keywordSciFact(b *testing.B, opts engine.Options) (*engine.Engine, *bench.BEIR) {
	data, err := bench.LoadBEIR(filepath.Join(testutil.SharedData(b), "beir", "scifact"))
	if err != nil {
		b.Fatal(err)
	}
	opts.Dir = b.TempDir()
	e, err := engine.Open(opts)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	if _, _, err := e.PutCollection(context.Background(), "", "s", engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}}); err != nil {
		b.Fatal(err)
	}
	return e, data
}
