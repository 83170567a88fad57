package bench

import (
	"errors"
	"math"
	"path/filepath"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

func TestNDCGAt(t *testing.T) {
	l3 := math.Log2(3)
	tests := []struct {
		name   string
		k      int
		ranked []string
		qrels  map[string]int
		want   float64
	}{
		{"perfect", 10, []string{"a", "b"}, map[string]int{"a": 1, "b": 1}, 1},
		{"second", 10, []string{"x", "a"}, map[string]int{"a": 1, "b": 1}, (1 / l3) / (1 + 1/l3)},
		{"graded swapped", 10, []string{"b", "a"}, map[string]int{"a": 2, "b": 1}, (1 + 2/l3) / (2 + 1/l3)},
		{"cut by k", 1, []string{"x", "a"}, map[string]int{"a": 1}, 0},
		{"zero grade ignored", 10, []string{"a", "b"}, map[string]int{"a": 0, "b": 1}, 1 / l3},
		{"duplicates count once", 10, []string{"a", "a", "b"}, map[string]int{"a": 1, "b": 1}, 1},
		{"no relevant", 10, []string{"a"}, map[string]int{}, 0},
		{"empty ranking", 10, nil, map[string]int{"a": 1}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := NDCGAt(tc.k, tc.ranked, tc.qrels); math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("NDCGAt = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestRecallAt(t *testing.T) {
	qrels := map[string]int{"a": 1, "b": 2, "c": 0}
	tests := []struct {
		name   string
		k      int
		ranked []string
		want   float64
	}{
		{"half", 100, []string{"a", "c", "x"}, 0.5},
		{"all", 3, []string{"x", "b", "a"}, 1},
		{"cut", 1, []string{"x", "b", "a"}, 0},
		{"duplicates", 100, []string{"a", "a"}, 0.5},
		{"k zero", 0, []string{"a"}, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := RecallAt(tc.k, tc.ranked, qrels); got != tc.want {
				t.Fatalf("RecallAt = %v, want %v", got, tc.want)
			}
		})
	}
}

func TestLoadBEIR(t *testing.T) {
	b, err := LoadBEIR(filepath.Join(testutil.SharedData(t), "beir", "scifact"))
	if err != nil {
		t.Fatal(err)
	}
	// Figures from the data set's README.
	if len(b.Docs) != 5183 || len(b.Queries) != 300 || len(b.Qrels) != 300 {
		t.Fatalf("%d docs, %d queries, %d judged queries; want 5183, 300, 300", len(b.Docs), len(b.Queries), len(b.Qrels))
	}
	ids := map[string]bool{}
	for _, d := range b.Docs {
		ids[d.ID] = true
	}
	judgments := 0
	for _, rels := range b.Qrels {
		for id := range rels {
			judgments++
			if !ids[id] {
				t.Fatalf("judged document %s not in the corpus", id)
			}
		}
	}
	if judgments != 339 {
		t.Fatalf("%d judgments, want 339", judgments)
	}
	if _, err := LoadBEIR(t.TempDir()); err == nil {
		t.Fatal("LoadBEIR of an empty directory succeeded")
	}
}

// TestKeywordSciFact is the quality floor of the keyword workload on the
// full SciFact test set (BEIR reports 0.665 for Elasticsearch BM25; we
// measure 0.69 with the default title boost).
func TestKeywordSciFact(t *testing.T) {
	cfg := KeywordConfig{Dir: filepath.Join(testutil.SharedData(t), "beir", "scifact"), Repeat: 1}
	res, _, err := EvalKeyword(cfg)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].NDCG10 < 0.67 || res[0].Recall100 < 0.9 {
		t.Fatalf("result %+v, want nDCG@10 ≥ 0.67 and recall@100 ≥ 0.9", res)
	}
	if err := (KeywordConfig{}).Validate(); !errors.Is(err, ErrInvalidConfig) {
		t.Fatalf("empty config: %v, want ErrInvalidConfig", err)
	}
}
