package engine_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/najdi/najdi/internal/testutil"

	"github.com/najdi/najdi/bench"
	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// subset returns the SciFact test queries with the documents they judge
// plus the first extra documents of the corpus as distractors.
func subset(t testing.TB, queries, extra int) (*bench.BEIR, []bench.BEIRDoc) {
	b, err := bench.LoadBEIR(filepath.Join(testutil.SharedData(t), "beir", "scifact"))
	if err != nil {
		t.Fatal(err)
	}
	b.Queries = b.Queries[:queries]
	want := map[string]bool{}
	for _, q := range b.Queries {
		for d := range b.Qrels[q.ID] {
			want[d] = true
		}
	}
	var docs []bench.BEIRDoc
	for i, d := range b.Docs {
		if want[d.ID] || i < extra {
			docs = append(docs, d)
		}
	}
	return b, docs
}

func ingestBEIR(t testing.TB, e *engine.Engine, coll string, docs []bench.BEIRDoc, keep func(i int) bool) {
	t.Helper()
	var in []engine.DocumentInput
	for i, d := range docs {
		if keep != nil && !keep(i) {
			continue
		}
		in = append(in, engine.DocumentInput{DocumentID: d.ID, Sections: []ingest.Section{{Type: "title", Content: d.Title}, {Type: "p", Content: d.Text}}})
	}
	res, err := e.Ingest(context.Background(), "", coll, engine.IngestRequest{Documents: in})
	if err != nil || len(res.Errors) > 0 {
		t.Fatalf("ingest: %v %v", err, res.Errors)
	}
}

// openModels opens an engine with the installed embedding models in a
// new directory, for a test that closes it and reopens the directory
// (openRanked); it returns the engine, the models and the directory.
func openModels(t testing.TB) (*engine.Engine, *engine.ModelProvider, string) {
	t.Helper()
	prov := modelProvider(t)
	dir := t.TempDir()
	e, err := engine.Open(engine.Options{Dir: dir, Embedders: prov})
	if err != nil {
		t.Fatal(err)
	}
	return e, prov, dir
}

// openRanked opens the engine in dir with the default ranker changed by
// tune (one retriever's weight set to 0, say); the test closes it.
func openRanked(t testing.TB, dir string, prov engine.EmbedderProvider, tune func(*engine.RankerConfig)) *engine.Engine {
	t.Helper()
	rk := engine.DefaultRanker()
	tune(&rk)
	e, err := engine.Open(engine.Options{Dir: dir, Embedders: prov, Ranker: rk})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

func rank(t testing.TB, e *engine.Engine, colls []string, q string, k int) []string {
	t.Helper()
	hl := false
	res, err := e.Search(context.Background(), "", colls, engine.SearchRequest{Query: q, MaxResults: &k, Highlight: &hl})
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, len(res.Documents))
	for i, d := range res.Documents {
		out[i] = d.DocumentID
	}
	return out
}

// TestKeywordQualitySciFact is a regression floor for keyword search
// through the whole engine on a real SciFact subset (the full-corpus figure
// comes from `najdi-bench search`).
func TestKeywordQualitySciFact(t *testing.T) {
	b, docs := subset(t, 150, 1200)
	e, err := engine.Open(engine.Options{Dir: t.TempDir(), FlushDocs: 300})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	for _, c := range []string{"all", "even", "odd"} {
		if _, _, err := e.PutCollection(ctx, "", c, engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}}); err != nil {
			t.Fatal(err)
		}
	}
	ingestBEIR(t, e, "all", docs, nil)
	ingestBEIR(t, e, "even", docs, func(i int) bool { return i%2 == 0 })
	ingestBEIR(t, e, "odd", docs, func(i int) bool { return i%2 == 1 })
	var ndcg float64
	one, two := map[string][]string{}, map[string][]string{}
	for _, q := range b.Queries {
		r := rank(t, e, []string{"all"}, q.Text, 10)
		ndcg += bench.NDCGAt(10, r, b.Qrels[q.ID])
		one[q.ID] = r
		two[q.ID] = rank(t, e, []string{"even", "odd"}, q.Text, 10)
	}
	ndcg /= float64(len(b.Queries))
	t.Logf("keyword nDCG@10 on %d queries over %d documents: %.4f", len(b.Queries), len(docs), ndcg)
	if ndcg < 0.70 {
		t.Errorf("keyword nDCG@10 %.4f below the floor 0.70", ndcg)
	}
	ov := bench.Overlap(one, two, 10)
	t.Logf("two collections vs one: mean top-10 overlap %.3f", ov)
	if ov < 0.99 {
		t.Errorf("keyword statistics are shared across collections, so the overlap must be ~1, got %.3f", ov)
	}
	// Merging segments must not change results.
	if err := e.MergeNow("", "all"); err != nil {
		t.Fatal(err)
	}
	for _, q := range b.Queries[:30] {
		if got := rank(t, e, []string{"all"}, q.Text, 10); !equal(got, one[q.ID]) {
			t.Fatalf("query %s: ranking changed after a merge: %v vs %v", q.ID, got, one[q.ID])
		}
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func modelProvider(t testing.TB) *engine.ModelProvider {
	t.Helper()
	p, err := engine.NewModelProvider(embed.CachePaths(embed.DefaultCacheDir()))
	if err != nil {
		t.Fatalf("%v (run `make models`)", err)
	}
	t.Cleanup(func() { p.Close() })
	return p
}

// TestHybridSciFact checks, with the real default model on a SciFact
// subset, that hybrid ranking beats keyword ranking and that a search over
// two collections splitting the corpus returns nearly the same top
// documents as one collection holding all of it.
func TestHybridSciFact(t *testing.T) {
	b, docs := subset(t, 60, 200)
	e, prov, dir := openModels(t)
	ctx := context.Background()
	for _, c := range []string{"all", "even", "odd"} {
		if _, _, err := e.PutCollection(ctx, "", c, engine.CollectionConfig{}); err != nil {
			t.Fatal(err)
		}
	}
	ingestBEIR(t, e, "all", docs, nil)
	ingestBEIR(t, e, "even", docs, func(i int) bool { return i%2 == 0 })
	ingestBEIR(t, e, "odd", docs, func(i int) bool { return i%2 == 1 })
	var hybrid float64
	one, two := map[string][]string{}, map[string][]string{}
	for _, q := range b.Queries {
		r := rank(t, e, []string{"all"}, q.Text, 10)
		hybrid += bench.NDCGAt(10, r, b.Qrels[q.ID])
		one[q.ID] = r
		two[q.ID] = rank(t, e, []string{"even", "odd"}, q.Text, 10)
	}
	e.Close()
	hybrid /= float64(len(b.Queries))
	ov := bench.Overlap(one, two, 10)

	ek := openRanked(t, dir, prov, func(rk *engine.RankerConfig) { rk.SemanticWeight = 0 })
	var keyword float64
	for _, q := range b.Queries {
		keyword += bench.NDCGAt(10, rank(t, ek, []string{"all"}, q.Text, 10), b.Qrels[q.ID])
	}
	keyword /= float64(len(b.Queries))
	t.Logf("subset of %d docs: hybrid nDCG@10 %.4f, keyword %.4f, two-collection overlap %.3f", len(docs), hybrid, keyword, ov)
	if hybrid < keyword+0.01 {
		t.Errorf("hybrid nDCG@10 %.4f does not beat keyword %.4f", hybrid, keyword)
	}
	if ov < 0.8 {
		t.Errorf("two-collection top-10 overlap %.3f below 0.8", ov)
	}
}
