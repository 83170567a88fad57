package rerank

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"testing"
)

// scifactPassages returns the title and text of the first n SciFact
// abstracts (../shared/data/beir/scifact), the texts the reranker reads on
// the retrieval benchmark.
func scifactPassages(tb testing.TB, n int) []string {
	tb.Helper()
	f, err := os.Open("../../shared/data/beir/scifact/corpus.jsonl")
	if err != nil {
		tb.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	var out []string
	for sc.Scan() && len(out) < n {
		var d struct {
			Title string `json:"title"`
			Text  string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &d); err != nil {
			tb.Fatal(err)
		}
		out = append(out, d.Title+"\n"+d.Text)
	}
	if err := sc.Err(); err != nil {
		tb.Fatal(err)
	}
	if len(out) < n {
		tb.Fatalf("%d SciFact abstracts, want %d", len(out), n)
	}
	return out
}

// BenchmarkScore20 scores one SciFact claim against 20 abstracts: the
// cross-encoder's cost of one search with the default rerank.top_k.
func BenchmarkScore20(b *testing.B) {
	ce := load(b)
	ps := scifactPassages(b, 20)
	ctx := context.Background()
	const q = "0-dimensional biomaterials show inductive properties."
	tokens := 0
	for _, p := range ps {
		ids, _ := ce.EncodePair(q, p)
		tokens += len(ids)
	}
	b.ReportMetric(float64(tokens)/float64(len(ps)), "tokens/pair")
	b.ResetTimer()
	for b.Loop() {
		if _, err := ce.Score(ctx, q, ps); err != nil {
			b.Fatal(err)
		}
	}
}
