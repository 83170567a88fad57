package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/najdi/najdi/ingest"
)

// wordsEmbedder is a deterministic bag-of-words embedder (each word adds
// ±1 to one of 32 dimensions, normalized), standing for a user's
// embedding endpoint: texts sharing words are near each other.
type wordsEmbedder struct{}

func (wordsEmbedder) Name() string { return "words-32" }
func (wordsEmbedder) Dims() int    { return 32 }
func (w wordsEmbedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return w.EmbedPassages(ctx, texts)
}
func (wordsEmbedder) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 32)
		v[0] = 0.1
		for _, w := range strings.Fields(strings.Trim(t, ".")) {
			h := fnv.New32a()
			h.Write([]byte(strings.Trim(w, ".")))
			x := h.Sum32()
			v[1+int(x>>1)%31] += float32(1 - 2*int(x&1))
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n))
		}
		out[i] = v
	}
	return out, nil
}
func (w wordsEmbedder) Embedder(EmbeddingConfig) (Embedder, error) { return w, nil }

// openWords opens an engine in a test directory that embeds with
// wordsEmbedder and ranks with rk, its background merges an hour apart
// (the test's segments stay as ingest makes them); closed with the test.
func openWords(t *testing.T, rk RankerConfig) *Engine {
	t.Helper()
	e, err := Open(Options{Dir: t.TempDir(), Embedders: wordsEmbedder{}, Ranker: rk, MergeInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Close() })
	return e
}

// TestSemanticOnlyPages checks searches with the semantic retriever alone
// (a collection with fulltext off, and a hybrid one searched with
// retrievers "semantic", with and without a filter) against the ranking
// by definition: every live, allowed document scored by its best chunk
// (exact cosine over all its chunks), the page cut from that order, and
// next_offset set when more documents score. Documents range from one
// chunk to about 120 (small ChunkTokens), over three segments with
// deletes; the nearest 3·100 chunks of a theme query in the first segment
// belong to a few of its 16 long documents: the page must still be
// complete (searching a fixed number of chunks missed documents).
func TestSemanticOnlyPages(t *testing.T) {
	rk := DefaultRanker()
	rk.ChunkTokens = 12
	e := openWords(t, rk)
	ctx := context.Background()
	off := false
	if _, _, err := e.PutCollection(ctx, "", "vec", CollectionConfig{FulltextConfig: FulltextConfig{Enabled: &off}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.PutCollection(ctx, "", "hyb", CollectionConfig{}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(8, 9))
	vocab := strings.Fields("amber basil cedar delta ember fjord grove heron iris juniper kelp lotus maple nectar opal pine quartz raven sage thyme umber violet willow yarrow zinc acorn birch clover dune elm")
	theme := vocab[:6] // the long documents' words
	sentenceOf := func(words []string) string {
		var w []string
		for range 4 + r.IntN(5) {
			w = append(w, words[r.IntN(len(words))])
		}
		return strings.Join(w, " ") + "."
	}
	sentence := func() string { return sentenceOf(vocab) }
	for batch := range 3 { // three segments
		var docs []DocumentInput
		for i := range 80 {
			var ss []string
			switch {
			case batch == 0 && i%5 == 0:
				// 16 long documents of theme words: a theme query's
				// nearest chunks in this segment all belong to them.
				for range 120 {
					ss = append(ss, sentenceOf(theme))
				}
			case i%3 == 0:
				for range 5 {
					ss = append(ss, sentence())
				}
			default:
				ss = append(ss, sentence())
			}
			docs = append(docs, DocumentInput{DocumentID: fmt.Sprintf("d%d-%02d", batch, i), Fields: map[string]any{"bucket": float64(i % 4)},
				Sections: []ingest.Section{{Type: "p", Content: strings.Join(ss, " ")}}})
		}
		for _, coll := range []string{"vec", "hyb"} {
			if res, err := e.Ingest(ctx, "", coll, IngestRequest{Documents: docs}); err != nil || len(res.Errors) > 0 {
				t.Fatalf("ingest: %v %v", err, res.Errors)
			}
		}
	}
	for _, coll := range []string{"vec", "hyb"} {
		for _, id := range []string{"d0-10", "d0-07", "d1-03", "d2-40", "d2-41"} {
			if err := e.DeleteDocument(ctx, "", coll, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	emb := wordsEmbedder{}
	// want ranks the live documents of coll (those with bucket 1 or 2 when
	// filtered) by their best chunk.
	want := func(coll string, q []float32, filtered bool) []pageDoc {
		c, err := e.collection("", coll)
		if err != nil {
			t.Fatal(err)
		}
		var out []pageDoc
		for _, s := range c.snapshot() {
			for local, id := range s.Docs {
				if s.Deleted.Contains(uint32(local)) {
					continue
				}
				if i := int(id[len(id)-2]-'0')*10 + int(id[len(id)-1]-'0'); filtered && i%4 != 1 && i%4 != 2 {
					continue // the filter keeps buckets 1 and 2
				}
				best := math.Inf(-1)
				for _, ch := range e.docChunks(s, uint32(local), q) {
					best = max(best, ch.cos)
				}
				sc := round6(rk.fuse(0, rk.semanticScore(best), false, true))
				if sc > 0 {
					out = append(out, pageDoc{DocumentID: id, Score: sc})
				}
			}
		}
		slices.SortFunc(out, func(a, b pageDoc) int {
			if a.Score != b.Score {
				if a.Score > b.Score {
					return -1
				}
				return 1
			}
			return strings.Compare(a.DocumentID, b.DocumentID)
		})
		return out
	}
	filter := json.RawMessage(`{"range":{"bucket":{"gte":1,"lte":2}}}`)
	for qi := range 30 {
		query := sentence()
		if qi%2 == 0 {
			query = sentenceOf(theme)
		}
		qv, _ := emb.EmbedQueries(ctx, []string{query})
		for _, tc := range []struct {
			coll, retrievers string
			filtered         bool
		}{{"vec", "", false}, {"hyb", RetrieveSemantic, false}, {"hyb", RetrieveSemantic, true}} {
			all := want(tc.coll, qv[0], tc.filtered)
			for _, pg := range []struct{ offset, max int }{{0, 10}, {7, 5}, {0, 40}} {
				name := fmt.Sprintf("query %d %q on %s %q filtered %v offset %d max %d", qi, query, tc.coll, tc.retrievers, tc.filtered, pg.offset, pg.max)
				req := SearchRequest{Query: query, Retrievers: tc.retrievers, Offset: &pg.offset, MaxResults: &pg.max}
				if tc.filtered {
					req.Filter = filter
				}
				res, err := e.Search(ctx, "", []string{tc.coll}, req)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				var got []pageDoc
				for _, d := range res.Documents {
					got = append(got, pageDoc{DocumentID: d.DocumentID, Score: d.Score})
				}
				end := min(pg.offset+pg.max, len(all))
				exp := all[min(pg.offset, len(all)):end]
				if fmt.Sprint(got) != fmt.Sprint(exp) {
					t.Fatalf("%s:\n got %v\nwant %v", name, got, exp)
				}
				if more := len(all) > pg.offset+pg.max; (res.Metadata.NextOffset != nil) != more {
					t.Errorf("%s: next_offset %v, want set: %v", name, res.Metadata.NextOffset, more)
				}
			}
		}
	}
}

// pageDoc is a document and its score in TestSemanticOnlyPages.
type pageDoc struct {
	DocumentID string
	Score      float64
}
