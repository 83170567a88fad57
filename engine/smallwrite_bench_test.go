package engine_test

import (
	"context"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// swEmbedder answers every text with a unit vector of 384 dimensions
// seeded by a hash of the text: an embedding source that costs next to
// nothing, so that the small-write benchmarks time najdi's side of a write
// (analysis, the segment, its encoding and the synced commit).
type swEmbedder struct{}

func (swEmbedder) Name() string { return "static-384" }
func (swEmbedder) Dims() int    { return 384 }
func (s swEmbedder) EmbedQueries(_ context.Context, texts []string) ([][]float32, error) {
	return s.embed(texts), nil
}
func (s swEmbedder) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	return s.embed(texts), nil
}
func (swEmbedder) embed(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		h := fnv.New64a()
		h.Write([]byte(t))
		r := rand.New(rand.NewPCG(h.Sum64(), 3))
		v := make([]float32, 384)
		var n float64
		for j := range v {
			v[j] = float32(r.NormFloat64())
			n += float64(v[j]) * float64(v[j])
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n))
		}
		out[i] = v
	}
	return out
}

type swProvider struct{}

func (swProvider) Embedder(engine.EmbeddingConfig) (engine.Embedder, error) {
	return swEmbedder{}, nil
}

// smallDoc returns document i: a title and a paragraph of about 120 words.
func smallDoc(i int) engine.DocumentInput {
	words := strings.Fields("protein cell gene expression tumor patients study results analysis model " +
		"treatment response risk clinical trial data effect increase reduced levels mice human signaling " +
		"pathway receptor binding disease infection immune therapy samples")
	r := rand.New(rand.NewPCG(uint64(i), 9))
	var b strings.Builder
	for j := range 120 {
		if j > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(words[r.IntN(len(words))])
	}
	return engine.DocumentInput{DocumentID: "d" + strconv.Itoa(i), Sections: []ingest.Section{
		{Type: "title", Content: "Document " + strconv.Itoa(i) + " " + words[i%len(words)]},
		{Type: "p", Content: b.String()},
	}}
}

// smallWriteEngine opens an engine whose collection "c" embeds with
// swEmbedder (a hybrid collection). The merger runs only when asked
// (MergeNow) unless merge is set, in which case it runs with the default
// policy (MaxSegments 8) every 5 ms.
func smallWriteEngine(b *testing.B) *engine.Engine {
	e, err := engine.Open(engine.Options{Dir: b.TempDir(), Embedders: swProvider{},
		MaxSegments: 1 << 20, MergeInterval: time.Hour})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { e.Close() })
	if _, _, err := e.PutCollection(context.Background(), "", "c", engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "static"}}); err != nil {
		b.Fatal(err)
	}
	return e
}

// ingestSmall writes docs in one synchronous ingest, which returns when
// they are durable (the batch's WAL sync) and searchable: what a user's
// POST of a document or a small batch waits for.
func ingestSmall(b *testing.B, e *engine.Engine, docs []engine.DocumentInput) {
	res, err := e.Ingest(context.Background(), "", "c", engine.IngestRequest{Documents: docs})
	if err != nil || len(res.Errors) > 0 || len(res.Documents) != len(docs) {
		b.Fatalf("ingest: %v %v", err, res.Errors)
	}
}

// BenchmarkSmallWrite measures acknowledged small writes into a hybrid
// collection: one ingest of 1, 10 or 100 new documents (each a title and a
// paragraph, 2 chunks of 384 dimensions: 3 KiB of vectors), one flush,
// one new segment, the engine's synced commit. 100 documents (300 KiB of
// vectors) are over segment.DefaultInlineVectorsBytes: their segment gets
// a vectors file. The collection grows by the written documents (no
// merges run): the flush's cost does not depend on the collection's size.
func BenchmarkSmallWrite(b *testing.B) {
	for _, n := range []int{1, 10, 100} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			e := smallWriteEngine(b)
			i := 0
			docs := make([]engine.DocumentInput, n)
			for b.Loop() {
				for j := range docs {
					docs[j] = smallDoc(i)
					i++
				}
				ingestSmall(b, e, docs)
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(i), "µs/doc")
		})
	}
}

// BenchmarkSmallWriteMerge measures a merge-heavy sequence of small
// writes: per iteration, 16 single-document ingests into a new collection
// with a synchronous merge of every segment (MergeNow) after each 4, so
// that each write's flush is followed by merges of growing segments, as
// the background merger does under a stream of small writes.
func BenchmarkSmallWriteMerge(b *testing.B) {
	e := smallWriteEngine(b)
	ctx := context.Background()
	it := 0
	for b.Loop() {
		coll := "m" + strconv.Itoa(it)
		if _, _, err := e.PutCollection(ctx, "", coll, engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "static"}}); err != nil {
			b.Fatal(err)
		}
		for j := range 16 {
			res, err := e.Ingest(ctx, "", coll, engine.IngestRequest{Documents: []engine.DocumentInput{smallDoc(j)}})
			if err != nil || len(res.Errors) > 0 {
				b.Fatalf("ingest: %v %v", err, res.Errors)
			}
			if j%4 == 3 {
				if err := e.MergeNow("", coll); err != nil {
					b.Fatal(err)
				}
			}
		}
		b.StopTimer()
		if err := e.DeleteCollection(ctx, "", coll); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		it++
	}
}
