package cluster

import (
	"context"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/najdi/najdi/filter"
	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/text"
)

// Benchmarks of the cluster operations against the real nodes, beside the
// embedded keyword index on the same SciFact subset (run by hand:
// go test -run '^$' -bench . -benchtime 200x ./cluster/). Vectors are
// random unit vectors of 384 dimensions (one chunk per document): the
// latency of the k-NN search, not its quality.

const benchDims = 384

func randUnit(r *rand.Rand) []float32 {
	v := make([]float32, benchDims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return unit(v...)
}

type benchData struct {
	docs    []Document
	queries [][]QueryTerm
	ti      *invindex.TextIndex
	iq      [][]invindex.QueryTerm
	avg     float32
}

func loadBenchData(b *testing.B) *benchData {
	docs, queries, _ := sciSubset(b, 2000, 200)
	if len(docs) == 0 {
		b.Fatal("no SciFact data")
	}
	an := text.NewAnalyzer(text.English)
	r := rand.New(rand.NewPCG(1, 1))
	bd := &benchData{}
	tb := invindex.NewTextBuilder()
	for i, d := range docs {
		tf, length := analyzeDoc(an, d)
		terms := make([]invindex.TermFreq, 0, len(tf))
		for k, v := range tf {
			terms = append(terms, invindex.TermFreq{Term: k, Freq: v})
		}
		tb.Add(uint32(i), terms, length)
		bd.docs = append(bd.docs, Document{ID: d.id, Terms: tf, Length: length,
			Fields: map[string][]any{"year": {float64(2000 + i%25)}},
			Chunks: []Chunk{{Vector: randUnit(r)}}})
	}
	bd.ti = tb.Build()
	n := uint64(bd.ti.NumDocs())
	bd.avg = float32(bd.ti.TotalLength() / float64(n))
	for _, q := range queries {
		counts := map[string]int{}
		var order []string
		an.Analyze(q[1], func(tk text.Token) {
			if counts[tk.Term] == 0 {
				order = append(order, tk.Term)
			}
			counts[tk.Term]++
		})
		var ct []QueryTerm
		var it []invindex.QueryTerm
		for _, term := range order {
			ct = append(ct, QueryTerm{Term: term, Count: counts[term]})
			it = append(it, invindex.QueryTerm{Term: term, Weight: invindex.BM25IDF(n, uint64(bd.ti.DocFreq(term))) * float32(counts[term])})
		}
		bd.queries = append(bd.queries, ct)
		bd.iq = append(bd.iq, it)
	}
	return bd
}

func BenchmarkSciFact(b *testing.B) {
	bd := loadBenchData(b)
	b.Run("embedded/keyword", func(b *testing.B) {
		var dst []invindex.Hit
		for i := 0; b.Loop(); i++ {
			dst = bd.ti.Search(bd.iq[i%len(bd.iq)], invindex.BM25{K1: 1.2, B: 0.75, AvgDocLen: bd.avg}, 10, nil, nil, 0, dst[:0])
		}
	})
	schema := Schema{Fields: map[string]filter.FieldType{"year": filter.FieldNumber}, Dims: benchDims}
	fq, err := filter.Parse([]byte(`{"range":{"year":{"gte":2010,"lt":2015}}}`))
	if err != nil {
		b.Fatal(err)
	}
	flt := Filter{Query: fq, Schema: filter.SchemaMap(schema.Fields)}
	for _, f := range testFlavours() {
		if err := nodeErrs[f]; err != nil {
			b.Fatalf("node %s: %v", f, err)
		}
		c := testClient(b, nodeURLs[f])
		ctx := context.Background()
		if err := c.CreateCollection(ctx, "bench", schema); err != nil {
			b.Fatal(err)
		}
		t0 := time.Now()
		if failed, err := c.Ingest(ctx, "bench", bd.docs); err != nil || len(failed) > 0 {
			b.Fatal(failed, err)
		}
		b.Logf("%s: ingested %d documents (+%d chunks of %d dims) in %s: %.0f documents/s", f, len(bd.docs), len(bd.docs), benchDims,
			time.Since(t0).Round(time.Millisecond), float64(len(bd.docs))/time.Since(t0).Seconds())
		r := rand.New(rand.NewPCG(2, 2))
		qv := make([][]float32, 64)
		for i := range qv {
			qv[i] = randUnit(r)
		}
		run := func(name string, fn func(i int) error) {
			b.Run(fmt.Sprintf("%s/%s", f, name), func(b *testing.B) {
				for i := 0; b.Loop(); i++ {
					if err := fn(i); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
		run("keyword", func(i int) error {
			_, err := c.Keyword(ctx, []string{"bench"}, bd.queries[i%len(bd.queries)], Filter{}, 10)
			return err
		})
		run("keyword-filtered", func(i int) error {
			_, err := c.Keyword(ctx, []string{"bench"}, bd.queries[i%len(bd.queries)], flt, 10)
			return err
		})
		run("vector", func(i int) error {
			_, err := c.Vector(ctx, []string{"bench"}, qv[i%len(qv)], Filter{}, 10)
			return err
		})
		run("vector-filtered", func(i int) error {
			_, err := c.Vector(ctx, []string{"bench"}, qv[i%len(qv)], flt, 10)
			return err
		})
		run("filter-ids", func(i int) error {
			_, err := c.FilterIDs(ctx, "bench", flt)
			return err
		})
	}
}
