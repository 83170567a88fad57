package engine_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/najdi/najdi/engine"
)

// fixedQueries answers the queries it knows with their precomputed
// vectors (real model vectors), so that a benchmark times the search path
// without the query's model run, and delegates everything else.
type fixedQueries struct {
	engine.Embedder
	vecs map[string][]float32
}

func (f fixedQueries) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	if v, ok := f.vecs[texts[0]]; ok && len(texts) == 1 {
		return [][]float32{v}, nil
	}
	return f.Embedder.EmbedQueries(ctx, texts)
}

type fixedProvider struct{ emb engine.Embedder }

func (p fixedProvider) Embedder(engine.EmbeddingConfig) (engine.Embedder, error) { return p.emb, nil }

// searchPathEngine is the engine of BenchmarkSearchPath, built once per
// process: SciFact documents judged by the first 100 test queries plus
// the first 300 of the corpus, embedded with the real default model, in a
// hybrid collection ("hyb") and a vector-only one ("vec").
var searchPathEngine struct {
	once    sync.Once
	e       *engine.Engine
	queries []string
	err     error
}

func searchPathSetup(b *testing.B) (*engine.Engine, []string) {
	s := &searchPathEngine
	s.once.Do(func() {
		data, docs := subset(b, 100, 300)
		prov := modelProvider(b)
		base, err := prov.Embedder(engine.EmbeddingConfig{Model: "default"})
		if err != nil {
			s.err = err
			return
		}
		ctx := context.Background()
		fq := fixedQueries{Embedder: base, vecs: map[string][]float32{}}
		for _, q := range data.Queries {
			v, err := base.EmbedQueries(ctx, []string{q.Text})
			if err != nil {
				s.err = err
				return
			}
			fq.vecs[q.Text] = v[0]
			s.queries = append(s.queries, q.Text)
		}
		// NAJDI_SEARCHPATH_DIR keeps the engine between runs (the
		// embedding takes minutes on a loaded machine), e.g. to compare two
		// builds on the same data.
		dir := os.Getenv("NAJDI_SEARCHPATH_DIR")
		if dir == "" {
			if dir, err = os.MkdirTemp("", "najdi-searchpath"); err != nil {
				s.err = err
				return
			}
		}
		e, err := engine.Open(engine.Options{Dir: dir, Embedders: fixedProvider{fq}, Logger: discardLogger()})
		if err != nil {
			s.err = err
			return
		}
		off := false
		for name, cfg := range map[string]engine.CollectionConfig{"hyb": {}, "vec": {FulltextConfig: engine.FulltextConfig{Enabled: &off}}} {
			if info, err := e.GetCollection(ctx, "", name); err == nil && info.DocumentCount == int64(len(docs)) {
				continue
			}
			if _, _, err := e.PutCollection(ctx, "", name, cfg); err != nil {
				s.err = err
				return
			}
			ingestBEIR(b, e, name, docs, nil)
			if err := e.MergeNow("", name); err != nil {
				s.err = err
				return
			}
		}
		s.e = e
	})
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.e, s.queries
}

// BenchmarkSearchPath measures whole hybrid and vector-only search
// requests on real SciFact vectors, excluding the query's model run (the
// query vectors are precomputed): candidates, fusion, loading and
// rendering the top 10, in the peer benchmark's lean shape (no content,
// no passages) and with the API defaults (content and passages).
func BenchmarkSearchPath(b *testing.B) {
	e, queries := searchPathSetup(b)
	ctx := context.Background()
	k, off := 10, false
	for _, coll := range []string{"hyb", "vec"} {
		for _, shape := range []struct {
			name string
			req  engine.SearchRequest
		}{
			{"lean", engine.SearchRequest{MaxResults: &k, Highlight: &off, IncludeFields: []string{"none"}}},
			{"full", engine.SearchRequest{MaxResults: &k}},
		} {
			b.Run(fmt.Sprintf("%s/%s", coll, shape.name), func(b *testing.B) {
				b.ReportAllocs()
				i := 0
				for b.Loop() {
					req := shape.req
					req.Query = queries[i%len(queries)]
					if _, err := e.Search(ctx, "", []string{coll}, req); err != nil {
						b.Fatal(err)
					}
					i++
				}
			})
		}
	}
}
