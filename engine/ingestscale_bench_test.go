package engine_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync/atomic"
	"testing"
	"time"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/bench/peers"
	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/internal/testutil"
)

// givenVectors answers every passage with its vector computed beforehand
// (by text; a text it lacks gets hashVector and counts in misses), as a
// client sending its own vectors would: no model runs.
type givenVectors struct {
	dims   int
	vecs   map[string][]float32
	misses *atomic.Int64
}

func (g givenVectors) Name() string { return "given" }
func (g givenVectors) Dims() int    { return g.dims }

func (g givenVectors) EmbedQueries(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = hashVector(t, g.dims)
	}
	return out, nil
}

func (g givenVectors) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v, ok := g.vecs[t]
		if !ok {
			g.misses.Add(1)
			v = hashVector(t, g.dims)
		}
		out[i] = v
	}
	return out, nil
}

// BenchmarkIngestScale times the bulk load of the peer benchmark at
// scale: the first n chunks of its large collection (peers.LargeTexts
// seed 1, two SciFact sentences each; n 200,000, NAJDI_INGEST_N sets it)
// with their cached static vectors given
// ($NAJDI_CACHE/bench/peers-large-static-1000000.f32, row i = chunk i),
// ingested synchronously in requests of 2,000 documents into an engine
// with the default options (FlushDocs 2,000, MaxSegments 8, background
// merges): the tiered merges run while the load goes on and take ingest
// turns. It reports the seconds from the first request to the last
// answer (load-s).
func BenchmarkIngestScale(b *testing.B) {
	n := 200_000
	if s := os.Getenv("NAJDI_INGEST_N"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 2000 || n > 1_000_000 {
			b.Fatalf("NAJDI_INGEST_N=%q: want 2000..1000000", s)
		}
	}
	bs, err := bench.LoadBEIR(filepath.Join(testutil.SharedData(b), "beir", "scifact"))
	if err != nil {
		b.Fatal(err)
	}
	texts := peers.LargeTexts(bs, n, 1)
	const dims = 384
	vecs, err := largeStaticVectors(filepath.Join(embed.DefaultCacheDir(), "bench", "peers-large-static-1000000.f32"), texts, dims)
	if err != nil {
		b.Fatal(err)
	}
	emb := givenVectors{dims: dims, vecs: vecs, misses: new(atomic.Int64)}
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		e, err := engine.Open(engine.Options{Dir: b.TempDir(), Embedders: fixedProvider{emb}, Logger: discardLogger()})
		if err != nil {
			b.Fatal(err)
		}
		if _, _, err := e.PutCollection(ctx, "", "big", engine.CollectionConfig{}); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		t0 := time.Now()
		for i := 0; i < n; i += 2000 {
			docs := make([]engine.DocumentInput, 0, 2000)
			for j, t := range texts[i:min(i+2000, n)] {
				docs = append(docs, engine.DocumentInput{DocumentID: fmt.Sprintf("c%07d", i+j), Sections: []ingest.Section{{Type: "p", Content: t}}})
			}
			res, err := e.Ingest(ctx, "", "big", engine.IngestRequest{Documents: docs})
			if err != nil || len(res.Errors) > 0 {
				b.Fatalf("ingest at %d: %v %v", i, err, res.Errors)
			}
		}
		load := time.Since(t0)
		b.StopTimer()
		c, err := e.GetCollection(ctx, "", "big")
		if err != nil || c.DocumentCount != int64(n) {
			b.Fatalf("collection after the load: %v, %+v", err, c)
		}
		b.ReportMetric(load.Seconds(), "load-s")
		if err := e.Close(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
	b.Logf("ingest scale: %d chunks, %d chunk vectors hashed (not in the cache)", n, emb.misses.Load())
}
