package engine_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/bench/peers"
	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/internal/testutil"
)

// staticEmbedder embeds queries and passages with the peer benchmark's
// static vectors (bench/peers.Static: the mean of bge-small's input-token
// embedding rows), so that a large collection is built in seconds, with
// the vector geometry of real text, and a search times no model run.
type staticEmbedder struct{ st *peers.Static }

func (s staticEmbedder) Name() string { return "static" }
func (s staticEmbedder) Dims() int    { return s.st.Dims() }

func (s staticEmbedder) EmbedQueries(_ context.Context, texts []string) ([][]float32, error) {
	return s.EmbedPassages(context.Background(), texts)
}

func (s staticEmbedder) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		out[i] = s.st.Embed(t)
	}
	return out, nil
}

// vecPathCorpus is one corpus of BenchmarkVectorPath.
type vecPathCorpus struct {
	name string
	n    int // large chunks; 0: SciFact's title + abstract documents
}

// vecPathCorpora are the corpora of BenchmarkVectorPath: SciFact (5,183
// abstracts, about 2 chunks each) and the peer benchmark's large
// collection (bench/peers.LargeTexts: two random SciFact sentences per
// one-chunk document) at 10k and 100k chunks.
var vecPathCorpora = []vecPathCorpus{{"scifact", 0}, {"large10k", 10_000}, {"large100k", 100_000}}

// vecPathState is the engine of BenchmarkVectorPath, opened once per
// process (in NAJDI_VECPATH_DIR when set, which keeps the collections
// between runs), with the static embedder, the SciFact queries, and the
// corpora built so far: per corpus a hybrid collection ("<corpus>-hyb")
// and a vector-only one ("<corpus>-vec", fulltext off), every document
// with a number field "bucket" in [0, 100) for the filtered searches. A
// corpus is built when a benchmark first selects it.
var vecPathState struct {
	once    sync.Once
	e       *engine.Engine
	data    *bench.BEIR
	queries []string
	err     error
	built   map[string]bool
}

func vecPathSetup(b *testing.B, c vecPathCorpus) (*engine.Engine, []string) {
	s := &vecPathState
	s.once.Do(func() { s.err = vecPathOpen(b) })
	if s.err != nil {
		b.Fatal(s.err)
	}
	if !s.built[c.name] {
		if err := vecPathBuild(s.e, s.data, c); err != nil {
			b.Fatal(err)
		}
		s.built[c.name] = true
	}
	return s.e, s.queries
}

func vecPathOpen(b *testing.B) error {
	s := &vecPathState
	models, _ := embed.CachePaths(embed.DefaultCacheDir())
	st, err := peers.LoadStatic(filepath.Join(models, "bge-small-en-v1.5"))
	if err != nil {
		return err
	}
	if s.data, err = bench.LoadBEIR(filepath.Join(testutil.SharedData(b), "beir", "scifact")); err != nil {
		return err
	}
	for _, q := range s.data.Queries {
		s.queries = append(s.queries, q.Text)
	}
	dir := os.Getenv("NAJDI_VECPATH_DIR")
	if dir == "" {
		if dir, err = os.MkdirTemp("", "najdi-vecpath"); err != nil {
			return err
		}
	}
	s.e, err = engine.Open(engine.Options{Dir: dir, Embedders: fixedProvider{staticEmbedder{st}}, Logger: discardLogger()})
	s.built = map[string]bool{}
	return err
}

// vecPathBuild ingests corpus c into its two collections, unless they
// hold it already, and merges each into one segment.
func vecPathBuild(e *engine.Engine, data *bench.BEIR, c vecPathCorpus) error {
	ctx := context.Background()
	var docs []engine.DocumentInput
	if c.n == 0 {
		for i, d := range data.Docs {
			docs = append(docs, engine.DocumentInput{DocumentID: d.ID, Fields: map[string]any{"bucket": float64(i % 100)},
				Sections: []ingest.Section{{Type: "title", Content: d.Title}, {Type: "p", Content: d.Text}}})
		}
	} else {
		for i, t := range peers.LargeTexts(data, c.n, 1) {
			docs = append(docs, engine.DocumentInput{DocumentID: fmt.Sprintf("c%07d", i), Fields: map[string]any{"bucket": float64(i % 100)},
				Sections: []ingest.Section{{Type: "p", Content: t}}})
		}
	}
	off := false
	for _, kind := range []string{"hyb", "vec"} {
		name := c.name + "-" + kind
		if info, err := e.GetCollection(ctx, "", name); err == nil && info.DocumentCount == int64(len(docs)) {
			// Kept from an earlier run: one segment, as built below.
			if err := e.MergeNow("", name); err != nil {
				return err
			}
			continue
		}
		cfg := engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "static"}}
		if kind == "vec" {
			cfg.FulltextConfig.Enabled = &off
		}
		if _, _, err := e.PutCollection(ctx, "", name, cfg); err != nil {
			return err
		}
		for lo := 0; lo < len(docs); lo += 1000 {
			res, err := e.Ingest(ctx, "", name, engine.IngestRequest{Documents: docs[lo:min(lo+1000, len(docs))]})
			if err != nil || len(res.Errors) > 0 {
				return fmt.Errorf("ingest %s: %v (%d errors)", name, err, len(res.Errors))
			}
		}
		if err := e.MergeNow("", name); err != nil {
			return err
		}
	}
	return nil
}

// BenchmarkVectorPath measures whole search requests on larger
// collections with static vectors (no model run: the query vector comes
// from the static embedder, microseconds): vector-only (a collection with
// fulltext off), hybrid, keyword-only and hybrid's semantic retriever
// alone, unfiltered and with a filter keeping 1 % and 20 % of the
// documents (a collection with fulltext off cannot filter), top 10 in the peer benchmark's lean shape (no content, no
// passages). The corpora are SciFact, 10k and 100k chunks
// (vecPathCorpora; a corpus is built when selected, so -bench
// 'VectorPath/scifact' builds only SciFact's).
// Building the 100k collections takes minutes: NAJDI_VECPATH_DIR keeps
// them between runs.
func BenchmarkVectorPath(b *testing.B) {
	ctx := context.Background()
	k, off := 10, false
	for _, c := range vecPathCorpora {
		b.Run(c.name, func(b *testing.B) {
			e, queries := vecPathSetup(b, c)
			for _, kind := range []struct {
				name, coll, retrievers string
				filter                 int // percent kept; 0: none
			}{
				{"vec", "vec", "", 0},
				{"hyb", "hyb", "", 0},
				{"hyb-filter1", "hyb", "", 1},
				{"hyb-filter20", "hyb", "", 20},
				{"sem", "hyb", engine.RetrieveSemantic, 0},
				{"sem-filter1", "hyb", engine.RetrieveSemantic, 1},
				{"sem-filter20", "hyb", engine.RetrieveSemantic, 20},
				{"key", "hyb", engine.RetrieveKeyword, 0},
			} {
				b.Run(kind.name, func(b *testing.B) {
					req := engine.SearchRequest{MaxResults: &k, Highlight: &off, IncludeFields: []string{"none"}, Retrievers: kind.retrievers}
					if kind.filter > 0 {
						req.Filter, _ = json.Marshal(map[string]any{"range": map[string]any{"bucket": map[string]any{"lt": kind.filter}}})
					}
					colls := []string{c.name + "-" + kind.coll}
					b.ReportAllocs()
					i := 0
					for b.Loop() {
						req.Query = queries[i%len(queries)]
						if _, err := e.Search(ctx, "", colls, req); err != nil {
							b.Fatal(err)
						}
						i++
					}
				})
			}
		})
	}
}
