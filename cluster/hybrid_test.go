package cluster

import (
	"context"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// The hybrid agreement test: the whole engine (analysis, the real default
// embedding model, fusion) on its embedded store and on each cluster
// (engine.Options.Backend), over the same SciFact train documents and
// queries (never the test split). Rankings must agree: mean top-10
// overlap and nDCG@10 within 0.01.

// memoEmbedder runs a real model once per distinct text, so that the three
// engines of the test share its work; it forwards token counting, which
// chunking uses.
type memoEmbedder struct {
	engine.Embedder
	mu   sync.Mutex
	memo map[string][]float32
}

func (m *memoEmbedder) embed(ctx context.Context, texts []string, query bool) ([][]float32, error) {
	key := func(s string) string {
		if query {
			return "q\x00" + s
		}
		return "p\x00" + s
	}
	m.mu.Lock()
	var todo []string
	for _, s := range texts {
		if _, ok := m.memo[key(s)]; !ok {
			todo = append(todo, s)
		}
	}
	m.mu.Unlock()
	if len(todo) > 0 {
		var vs [][]float32
		var err error
		if query {
			vs, err = m.Embedder.EmbedQueries(ctx, todo)
		} else {
			vs, err = m.Embedder.EmbedPassages(ctx, todo)
		}
		if err != nil {
			return nil, err
		}
		m.mu.Lock()
		for i, s := range todo {
			m.memo[key(s)] = vs[i]
		}
		m.mu.Unlock()
	}
	out := make([][]float32, len(texts))
	m.mu.Lock()
	for i, s := range texts {
		out[i] = m.memo[key(s)]
	}
	m.mu.Unlock()
	return out, nil
}

func (m *memoEmbedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return m.embed(ctx, texts, true)
}

func (m *memoEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return m.embed(ctx, texts, false)
}

func (m *memoEmbedder) CountTokens(s string) int {
	return m.Embedder.(engine.TokenCounter).CountTokens(s)
}

type memoProvider struct {
	p    engine.EmbedderProvider
	mu   sync.Mutex
	embs map[string]*memoEmbedder
}

func (m *memoProvider) Embedder(cfg engine.EmbeddingConfig) (engine.Embedder, error) {
	emb, err := m.p.Embedder(cfg)
	if err != nil || emb == nil {
		return emb, err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if e := m.embs[emb.Name()]; e != nil {
		return e, nil
	}
	e := &memoEmbedder{Embedder: emb, memo: map[string][]float32{}}
	m.embs[emb.Name()] = e
	return e, nil
}

// sciHybridSubset returns the first nq train queries with judgements, the
// documents they judge and other documents up to ndocs.
func sciHybridSubset(t *testing.T, nq, ndocs int) ([]sciDoc, [][2]string, map[string][]string) {
	all, queries, qrels := sciSubset(t, 0, nq)
	want := map[string]bool{}
	rel := map[string][]string{}
	for _, q := range queries {
		rel[q[0]] = qrels[q[0]]
		for _, d := range qrels[q[0]] {
			want[d] = true
		}
	}
	var docs []sciDoc
	for _, d := range all {
		if want[d.id] {
			docs = append(docs, d)
		}
	}
	readJSONL(t, filepath.Join(sciDir(t), "corpus.jsonl"), func(m map[string]any) {
		id := m["_id"].(string)
		if want[id] || len(docs) >= ndocs {
			return
		}
		docs = append(docs, sciDoc{id: id, title: m["title"].(string), text: m["text"].(string)})
	})
	return docs, queries, rel
}

func TestHybridAgreementSciFact(t *testing.T) {
	docs, queries, qrels := sciHybridSubset(t, 60, 300)
	real, err := engine.NewModelProvider(embed.CachePaths(embed.DefaultCacheDir()))
	if err != nil {
		t.Fatalf("%v (run `make models`)", err)
	}
	defer real.Close()
	prov := &memoProvider{p: real, embs: map[string]*memoEmbedder{}}
	var in []engine.DocumentInput
	for _, d := range docs {
		in = append(in, engine.DocumentInput{DocumentID: d.id, Sections: []ingest.Section{{Type: "title", Content: d.title}, {Type: "p", Content: d.text}}})
	}
	run := func(t *testing.T, backend engine.Backend) (map[string][]string, float64) {
		e, err := engine.Open(engine.Options{Dir: t.TempDir(), Embedders: prov, Backend: backend})
		if err != nil {
			t.Fatal(err)
		}
		defer e.Close()
		// Long enough for the first run's embedding on a loaded machine.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Minute)
		defer cancel()
		if _, _, err := e.PutCollection(ctx, "", "sci", engine.CollectionConfig{}); err != nil {
			t.Fatal(err)
		}
		res, err := e.Ingest(ctx, "", "sci", engine.IngestRequest{Documents: in})
		if err != nil || len(res.Errors) > 0 {
			t.Fatalf("ingest: %v %v", err, res.Errors)
		}
		ranked := map[string][]string{}
		var ndcg float64
		k, hl := 10, false
		for _, q := range queries {
			r, err := e.Search(ctx, "", []string{"sci"}, engine.SearchRequest{Query: q[1], MaxResults: &k, Highlight: &hl})
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range r.Documents {
				ranked[q[0]] = append(ranked[q[0]], d.DocumentID)
			}
			ndcg += ndcg10(ranked[q[0]], qrels[q[0]])
		}
		return ranked, ndcg / float64(len(queries))
	}
	embedded, base := run(t, nil)
	t.Logf("embedded: %d documents, %d train queries, hybrid nDCG@10 %.4f", len(docs), len(queries), base)
	for _, f := range testFlavours() {
		t.Run(string(f), func(t *testing.T) {
			if err := nodeErrs[f]; err != nil {
				t.Fatalf("node %s did not start: %v", f, err)
			}
			ranked, ndcg := run(t, EngineBackend{C: testClient(t, nodeURLs[f])})
			ov := overlap10(embedded, ranked)
			same1 := 0
			for q, r := range ranked {
				if len(r) > 0 && len(embedded[q]) > 0 && r[0] == embedded[q][0] {
					same1++
				}
			}
			t.Logf("%s: hybrid nDCG@10 %.4f (embedded %.4f, Δ %+.4f), mean top-10 overlap %.4f, same top-1 %d/%d", f, ndcg, base, ndcg-base, ov, same1, len(queries))
			if d := ndcg - base; d > 0.01 || d < -0.01 {
				t.Errorf("hybrid nDCG@10 differs by %.4f from the embedded engine's, more than 0.01", d)
			}
			if ov < 0.9 {
				t.Errorf("mean top-10 overlap %.4f below 0.9", ov)
			}
		})
	}
}

// overlap10 is the mean share of b's top 10 in a's top 10, per query of a.
func overlap10(a, b map[string][]string) float64 {
	var sum float64
	for q, ra := range a {
		top := ra[:min(10, len(ra))]
		if len(top) == 0 {
			continue
		}
		n := 0
		for _, id := range b[q][:min(10, len(b[q]))] {
			for _, x := range top {
				if x == id {
					n++
				}
			}
		}
		sum += float64(n) / float64(len(top))
	}
	return sum / float64(len(a))
}
