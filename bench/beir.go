package bench

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
)

// ErrBadData reports a benchmark data set that cannot be parsed.
var ErrBadData = errors.New("bench: bad data set")

// BEIRDoc is one corpus document of a BEIR data set.
type BEIRDoc struct {
	ID    string `json:"_id"`
	Title string `json:"title"`
	Text  string `json:"text"`
}

// BEIRQuery is one query of a BEIR data set.
type BEIRQuery struct {
	ID   string `json:"_id"`
	Text string `json:"text"`
}

// BEIR is a loaded BEIR data set: the corpus in file order, the queries that
// have test judgments in file order, and the graded test judgments
// Qrels[queryID][docID] = relevance.
type BEIR struct {
	Docs    []BEIRDoc
	Queries []BEIRQuery
	Qrels   map[string]map[string]int
}

// LoadBEIR reads a BEIR data set directory: corpus.jsonl, queries.jsonl and
// qrels/test.tsv (header "query-id corpus-id score"). Only queries with at
// least one test judgment are kept.
func LoadBEIR(dir string) (*BEIR, error) {
	b := &BEIR{Qrels: map[string]map[string]int{}}
	if err := beirReadQrels(filepath.Join(dir, "qrels", "test.tsv"), b.Qrels); err != nil {
		return nil, err
	}
	err := beirReadJSONL(filepath.Join(dir, "corpus.jsonl"), func(line []byte) error {
		var d BEIRDoc
		if err := json.Unmarshal(line, &d); err != nil {
			return err
		}
		b.Docs = append(b.Docs, d)
		return nil
	})
	if err != nil {
		return nil, err
	}
	err = beirReadJSONL(filepath.Join(dir, "queries.jsonl"), func(line []byte) error {
		var q BEIRQuery
		if err := json.Unmarshal(line, &q); err != nil {
			return err
		}
		if len(b.Qrels[q.ID]) > 0 {
			b.Queries = append(b.Queries, q)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if len(b.Docs) == 0 || len(b.Queries) == 0 {
		return nil, fmt.Errorf("load BEIR %s: no documents or judged queries: %w", dir, ErrBadData)
	}
	return b, nil
}

func beirReadJSONL(path string, fn func(line []byte) error) error {
	f, err := os.Open(path)
	if err != nil {
		return fmt.Errorf("load BEIR: %w", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1<<20), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := sc.Bytes()
		if len(strings.TrimSpace(string(line))) == 0 {
			continue
		}
		if err := fn(line); err != nil {
			return fmt.Errorf("load BEIR %s:%d: %v: %w", path, n, err, ErrBadData)
		}
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("load BEIR %s: %w", path, err)
	}
	return nil
}

func beirReadQrels(path string, qrels map[string]map[string]int) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return fmt.Errorf("load BEIR: %w", err)
	}
	for n, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || (n == 0 && f[0] == "query-id") {
			continue
		}
		if len(f) != 3 {
			return fmt.Errorf("load BEIR %s:%d: want 3 columns: %w", path, n+1, ErrBadData)
		}
		rel, err := strconv.Atoi(f[2])
		if err != nil {
			return fmt.Errorf("load BEIR %s:%d: score %q: %w", path, n+1, f[2], ErrBadData)
		}
		if qrels[f[0]] == nil {
			qrels[f[0]] = map[string]int{}
		}
		qrels[f[0]][f[1]] = rel
	}
	return nil
}

// NDCGAt returns nDCG@k of a ranking as BEIR computes it (pytrec_eval's
// ndcg_cut, the trec_eval definition): DCG = Σ_{i≤k} rel_i / log2(i+1) with
// linear graded gains, normalized by the DCG of the ideal ordering of all
// judged relevance grades > 0. A query without relevant documents scores 0.
// Repeated documents in ranked count once.
func NDCGAt(k int, ranked []string, qrels map[string]int) float64 {
	var ideal []int
	for _, rel := range qrels {
		if rel > 0 {
			ideal = append(ideal, rel)
		}
	}
	if len(ideal) == 0 || k <= 0 {
		return 0
	}
	slices.Sort(ideal)
	slices.Reverse(ideal)
	var idcg float64
	for i, rel := range ideal[:min(k, len(ideal))] {
		idcg += float64(rel) / math.Log2(float64(i+2))
	}
	var dcg float64
	seen := map[string]bool{}
	i := 0
	for _, id := range ranked {
		if i >= k {
			break
		}
		if seen[id] {
			continue
		}
		seen[id] = true
		if rel := qrels[id]; rel > 0 {
			dcg += float64(rel) / math.Log2(float64(i+2))
		}
		i++
	}
	return dcg / idcg
}

// RecallAt returns the fraction of the relevant (grade > 0) documents found
// in the first k of ranked; 0 for a query without relevant documents.
func RecallAt(k int, ranked []string, qrels map[string]int) float64 {
	relevant := 0
	for _, rel := range qrels {
		if rel > 0 {
			relevant++
		}
	}
	if relevant == 0 {
		return 0
	}
	found := 0
	seen := map[string]bool{}
	for _, id := range ranked[:min(k, len(ranked))] {
		if !seen[id] && qrels[id] > 0 {
			found++
		}
		seen[id] = true
	}
	return float64(found) / float64(relevant)
}
