package invindex

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
	"github.com/najdi/najdi/text"
)

// sciFactBench is the whole SciFact corpus (5,183 abstracts, title and text
// as one field, text.Analyzer English) with its train queries weighed as
// the engine weighs them (idf × occurrences), for BenchmarkSearchSciFact.
type sciFactBench struct {
	idx     *TextIndex
	queries [][]QueryTerm
}

// loadSciFactBenchN indexes the corpus copies times over (a larger
// collection with the statistics of real text: the same idf, lists copies
// times as long).
func loadSciFactBenchN(b *testing.B, copies int) *sciFactBench {
	b.Helper()
	dir := filepath.Join(testutil.SharedData(b), "beir", "scifact")
	an := text.NewAnalyzer(text.English)
	tb := NewTextBuilder()
	var docs [][]TermFreq
	var lens []float32
	textReadJSONL(b, filepath.Join(dir, "corpus.jsonl"), func(_, title, body string) {
		tf := map[string]float32{}
		var length float32
		an.Analyze(title+"\n"+body, func(t text.Token) { tf[t.Term]++; length++ })
		terms := make([]TermFreq, 0, len(tf))
		for t, f := range tf {
			terms = append(terms, TermFreq{Term: t, Freq: f})
		}
		docs = append(docs, terms)
		lens = append(lens, length)
	})
	var doc uint32
	for range copies {
		for i, terms := range docs {
			tb.Add(doc, terms, lens[i])
			doc++
		}
	}
	idx := tb.Build()
	train := map[string]bool{}
	data, err := os.ReadFile(filepath.Join(dir, "qrels", "train.tsv"))
	if err != nil {
		b.Fatal(err)
	}
	for _, line := range strings.Split(string(data), "\n")[1:] {
		if f := strings.Fields(line); len(f) == 3 {
			train[f[0]] = true
		}
	}
	f, err := os.Open(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		b.Fatal(err)
	}
	defer f.Close()
	s := &sciFactBench{idx: idx}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		var q struct {
			ID   string `json:"_id"`
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			b.Fatal(err)
		}
		if !train[q.ID] {
			continue // the test queries are for measuring quality only
		}
		counts := map[string]int{}
		var order []string
		an.Analyze(q.Text, func(t text.Token) {
			if counts[t.Term] == 0 {
				order = append(order, t.Term)
			}
			counts[t.Term]++
		})
		var qt []QueryTerm
		for _, t := range order {
			qt = append(qt, QueryTerm{Term: t, Weight: BM25IDF(uint64(idx.NumDocs()), uint64(idx.DocFreq(t))) * float32(counts[t])})
		}
		s.queries = append(s.queries, qt)
	}
	return s
}

// BenchmarkSearchSciFact measures BM25 top-11 (the engine's page of 10 plus
// one) over the SciFact corpus (x1) and 20 copies of it (x20: 103,660
// documents with the statistics of real text) for its train queries, one
// query per iteration in turn, by each algorithm.
func BenchmarkSearchSciFact(b *testing.B) {
	for _, copies := range []int{1, 20} {
		b.Run(fmt.Sprintf("x%d", copies), func(b *testing.B) { benchSearchSciFact(b, loadSciFactBenchN(b, copies)) })
	}
}

func benchSearchSciFact(b *testing.B, s *sciFactBench) {
	algos := []struct {
		name string
		mode wandMode
	}{
		{"auto", wandAuto},
		{"pruned", wandPruned},
		{"windowed", wandWindowed},
		{"docwise", wandDocwise},
		{"maxscore", wandMaxScore},
	}
	for _, a := range algos {
		b.Run(a.name, func(b *testing.B) {
			b.ReportAllocs()
			var dst []Hit
			i := 0
			for b.Loop() {
				dst, _ = s.idx.search(s.queries[i%len(s.queries)], BM25{K1: 1.2, B: 0.75}, 11, nil, nil, 0, dst[:0], a.mode)
				i++
			}
		})
	}
}
