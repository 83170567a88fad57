package cluster

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/text"
)

// The keyword agreement test: a real SciFact subset (the documents judged
// for the train queries plus the first others up to 2000 documents)
// analyzed by najdi as the engine does (title boost 2), ranked by the
// embedded BM25 (invindex) and by each cluster over the same terms. Train
// queries only: the test split is never used here.

const sciTitleBoost = 2

type sciDoc struct {
	id, title, text string
}

func sciDir(t testing.TB) string {
	dir := filepath.Join("..", "..", "shared", "data", "beir", "scifact")
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("SciFact data not found at %s: %v", dir, err)
	}
	return dir
}

func readJSONL(t testing.TB, path string, fn func(m map[string]any)) {
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		var m map[string]any
		if err := json.Unmarshal(sc.Bytes(), &m); err != nil {
			t.Fatal(err)
		}
		fn(m)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
}

// sciSubset returns the documents, the train queries (id → text) and the
// train judgements (query → relevant doc ids).
func sciSubset(t testing.TB, maxDocs, maxQueries int) ([]sciDoc, [][2]string, map[string][]string) {
	dir := sciDir(t)
	data, err := os.ReadFile(filepath.Join(dir, "qrels", "train.tsv"))
	if err != nil {
		t.Fatal(err)
	}
	qrels := map[string][]string{}
	judged := map[string]bool{}
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.Split(line, "\t")
		if i == 0 || len(f) < 3 || f[2] == "0" {
			continue
		}
		qrels[f[0]] = append(qrels[f[0]], f[1])
		judged[f[1]] = true
	}
	var docs []sciDoc
	others := 0
	readJSONL(t, filepath.Join(dir, "corpus.jsonl"), func(m map[string]any) {
		id := m["_id"].(string)
		if !judged[id] {
			if len(judged)+others >= maxDocs {
				return
			}
			others++
		}
		docs = append(docs, sciDoc{id: id, title: m["title"].(string), text: m["text"].(string)})
	})
	var queries [][2]string
	readJSONL(t, filepath.Join(dir, "queries.jsonl"), func(m map[string]any) {
		id := m["_id"].(string)
		if qrels[id] != nil && len(queries) < maxQueries {
			queries = append(queries, [2]string{id, m["text"].(string)})
		}
	})
	return docs, queries, qrels
}

// analyzeDoc returns the BM25F-weighted terms and length, as engine's writer.
func analyzeDoc(an *text.Analyzer, d sciDoc) (map[string]float32, float32) {
	tf := map[string]float32{}
	var length float32
	for _, s := range []struct {
		content string
		boost   float32
	}{{d.title, sciTitleBoost}, {d.text, 1}} {
		an.Analyze(s.content, func(tk text.Token) {
			tf[tk.Term] += s.boost
			length += s.boost
		})
	}
	return tf, length
}

func ndcg10(ranked []string, rel []string) float64 {
	var dcg, idcg float64
	for i, id := range ranked {
		if i < 10 && slices.Contains(rel, id) {
			dcg += 1 / math.Log2(float64(i)+2)
		}
	}
	for i := range min(len(rel), 10) {
		idcg += 1 / math.Log2(float64(i)+2)
	}
	return dcg / idcg
}

func TestKeywordAgreementSciFact(t *testing.T) {
	const maxDocs, maxQueries = 2000, 200
	docs, queries, qrels := sciSubset(t, maxDocs, maxQueries)
	an := text.NewAnalyzer(text.English)
	// Embedded side.
	tb := invindex.NewTextBuilder()
	cdocs := make([]Document, len(docs))
	for i, d := range docs {
		tf, length := analyzeDoc(an, d)
		terms := make([]invindex.TermFreq, 0, len(tf))
		for k, v := range tf {
			terms = append(terms, invindex.TermFreq{Term: k, Freq: v})
		}
		tb.Add(uint32(i), terms, length)
		cdocs[i] = Document{ID: d.id, Terms: tf, Length: length}
	}
	ti := tb.Build()
	n := uint64(ti.NumDocs())
	avg := float32(ti.TotalLength() / float64(n))
	embedded := func(q string) ([]string, []QueryTerm) {
		counts := map[string]int{}
		var order []string
		an.Analyze(q, func(tk text.Token) {
			if counts[tk.Term] == 0 {
				order = append(order, tk.Term)
			}
			counts[tk.Term]++
		})
		var qt []invindex.QueryTerm
		var ct []QueryTerm
		for _, term := range order {
			idf := invindex.BM25IDF(n, uint64(ti.DocFreq(term)))
			qt = append(qt, invindex.QueryTerm{Term: term, Weight: idf * float32(counts[term])})
			ct = append(ct, QueryTerm{Term: term, Count: counts[term]})
		}
		hits := ti.Search(qt, invindex.BM25{K1: 1.2, B: 0.75, AvgDocLen: avg}, 10, nil, nil, 0, nil)
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = docs[h.Doc].id
		}
		return ids, ct
	}
	forEachNode(t, func(t *testing.T, c *Client) {
		ctx := testCtx(t)
		if err := c.CreateCollection(ctx, "scifact", Schema{}); err != nil {
			t.Fatal(err)
		}
		if failed, err := c.Ingest(ctx, "scifact", cdocs); err != nil || len(failed) > 0 {
			t.Fatalf("ingest: %v %v", failed, err)
		}
		var overlap, ndcgE, ndcgC float64
		exactTop1 := 0
		for qi, q := range queries {
			want, terms := embedded(q[1])
			res, err := c.Keyword(ctx, []string{"scifact"}, terms, Filter{}, 10)
			if err != nil {
				t.Fatal(err)
			}
			if qi == 0 {
				if res.Stats.Docs != int64(n) || math.Abs(res.Stats.AvgLength-float64(avg)) > 1e-3*float64(avg) {
					t.Fatalf("stats docs %d avg %v, embedded %d %v", res.Stats.Docs, res.Stats.AvgLength, n, avg)
				}
			}
			for _, qt := range terms {
				if got, w := res.Stats.DocFreq[qt.Term], int64(ti.DocFreq(qt.Term)); got != w {
					t.Fatalf("query %q: df(%s) = %d on the cluster, %d embedded", q[1], qt.Term, got, w)
				}
			}
			got := make([]string, len(res.Hits))
			for i, h := range res.Hits {
				got[i] = h.ID
			}
			common := 0
			for _, id := range got {
				if slices.Contains(want, id) {
					common++
				}
			}
			if len(want) > 0 {
				overlap += float64(common) / float64(len(want))
			} else if len(got) == 0 {
				overlap++
			}
			if len(want) > 0 && len(got) > 0 && want[0] == got[0] {
				exactTop1++
			}
			ndcgE += ndcg10(want, qrels[q[0]])
			ndcgC += ndcg10(got, qrels[q[0]])
		}
		nq := float64(len(queries))
		overlap, ndcgE, ndcgC = overlap/nq, ndcgE/nq, ndcgC/nq
		t.Logf("%s %s: %d docs, %d train queries: mean top-10 overlap %.4f, same top-1 %d/%d, nDCG@10 embedded %.4f cluster %.4f (Δ %+.4f)",
			c.Info().Flavour, c.Info().Version, len(docs), len(queries), overlap, exactTop1, len(queries), ndcgE, ndcgC, ndcgC-ndcgE)
		if overlap < 0.95 {
			t.Errorf("mean top-10 overlap %.4f < 0.95", overlap)
		}
		if math.Abs(ndcgC-ndcgE) > 0.005 {
			t.Errorf("nDCG@10 differs by %.4f (> 0.005)", ndcgC-ndcgE)
		}
	})
}
