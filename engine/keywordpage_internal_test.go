package engine

import (
	"context"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/najdi/najdi/ingest"
)

// TestKeywordPagedSameAnswers checks that keyword-only searches that fetch
// the keyword candidates of their page only (keywordPaged) answer exactly
// as with the full candidates: the same documents in the same order with
// the same scores, next_offset and below_min_score, for pages at several
// offsets. The corpus is built for ties: short documents of a small
// vocabulary, so that many documents share a BM25 score across the page
// boundary (the page's documents then come from the ids among equal
// scores), over three segments with deletes, in a keyword collection and
// in a hybrid one searched with the keyword retriever alone; queries with
// identifiers and with min_score take the full path.
func TestKeywordPagedSameAnswers(t *testing.T) {
	e, err := Open(Options{Dir: t.TempDir(), Embedders: wordsEmbedder{}, MergeInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, _, err := e.PutCollection(ctx, "", "kw", CollectionConfig{EmbeddingConfig: EmbeddingConfig{Model: "none"}}); err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.PutCollection(ctx, "", "hyb", CollectionConfig{}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(3, 4))
	vocab := strings.Fields("amber basil cedar delta ember fjord grove heron iris juniper kelp lotus maple nectar opal pine quartz raven sage thyme x7 b52")
	var deleted []string
	for seg := 0; seg < 3; seg++ {
		var docs []DocumentInput
		for i := 0; i < 400; i++ {
			n := 1 + r.IntN(4)
			if r.IntN(5) == 0 {
				n = 5 + r.IntN(30)
			}
			var w []string
			for range n {
				w = append(w, vocab[r.IntN(len(vocab))])
			}
			// Ids in no order within or across segments, so that a
			// segment's document order (which breaks BM25 ties) is not
			// the ranking's id order.
			id := fmt.Sprintf("%04d-%d", r.IntN(10000), seg*1000+i)
			if seg == 1 && i%7 == 0 {
				deleted = append(deleted, id)
			}
			docs = append(docs, DocumentInput{DocumentID: id, Sections: []ingest.Section{{Type: "p", Content: strings.Join(w, " ")}}})
		}
		for _, coll := range []string{"kw", "hyb"} {
			if res, err := e.Ingest(ctx, "", coll, IngestRequest{Documents: docs}); err != nil || len(res.Errors) > 0 {
				t.Fatal(err, res.Errors)
			}
		}
	}
	for _, coll := range []string{"kw", "hyb"} {
		for _, id := range deleted {
			if err := e.DeleteDocument(ctx, "", coll, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	queries := []string{"amber", "amber basil", "sage thyme raven", "juniper juniper kelp", "x7", "b52 amber", "unknownword", "opal unknownword"}
	for range 30 {
		queries = append(queries, vocab[r.IntN(len(vocab))]+" "+vocab[r.IntN(len(vocab))])
	}
	pages := []struct{ max, offset int }{{10, 0}, {1, 0}, {3, 0}, {5, 7}, {20, 40}, {50, 60}}
	defer func() { keywordPaging, keywordTopHook = true, nil }()
	// Pages proven by the first keywordTop call, by a retry with more
	// matches (ties across the page's edge), and not at all.
	var first, retried, calls int
	keywordTopHook = func(k int, exact bool) {
		calls++
		switch {
		case exact && calls == 1:
			first++
		case exact:
			retried++
		}
	}
	for _, coll := range []string{"kw", "hyb"} {
		for _, q := range queries {
			for _, pg := range pages {
				for _, minScore := range []*float64{nil, ptr(0.3)} {
					req := SearchRequest{Query: q, MaxResults: ptr(pg.max), Offset: ptr(pg.offset), MinScore: minScore, Highlight: ptr(false), IncludeFields: []string{"none"}}
					if coll == "hyb" {
						req.Retrievers = RetrieveKeyword
					}
					var got [2]SearchResponse
					for i, on := range []bool{false, true} {
						keywordPaging, calls = on, 0
						resp, err := e.Search(ctx, "", []string{coll}, req)
						if err != nil {
							t.Fatal(err)
						}
						resp.SearchID, resp.Metadata.TookMS, resp.Metadata.Timings = "", 0, nil
						got[i] = resp
					}
					if !reflect.DeepEqual(got[0], got[1]) {
						t.Errorf("%s %q max %d offset %d min_score %v: paged\n%+v\nwant\n%+v", coll, q, pg.max, pg.offset, minScore, got[1], got[0])
					}
				}
			}
		}
	}
	t.Logf("pages proven by the first fetch %d, by a larger one %d", first, retried)
	if first == 0 || retried == 0 {
		t.Errorf("pages proven by the first fetch %d, by a larger one %d: want both", first, retried)
	}
}

func ptr[T any](v T) *T { return &v }

// TestCompleteKeywordScores checks the keyword evidence of hybrid
// candidates: every candidate, found by the keyword retriever or only by
// the semantic one (completeKeyword), holds the calibrated BM25 score a
// search over its whole segment gives it (0 when it does not match), over
// three segments.
func TestCompleteKeywordScores(t *testing.T) {
	e, err := Open(Options{Dir: t.TempDir(), Embedders: wordsEmbedder{}, MergeInterval: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	if _, _, err := e.PutCollection(ctx, "", "hyb", CollectionConfig{}); err != nil {
		t.Fatal(err)
	}
	r := rand.New(rand.NewPCG(5, 6))
	vocab := strings.Fields("amber basil cedar delta ember fjord grove heron iris juniper kelp lotus maple nectar opal pine quartz raven sage thyme")
	for seg := range 3 {
		var docs []DocumentInput
		for i := range 300 {
			var w []string
			for range 2 + r.IntN(8) {
				w = append(w, vocab[r.IntN(len(vocab))])
			}
			docs = append(docs, DocumentInput{DocumentID: fmt.Sprintf("%04d-%d", r.IntN(10000), seg*1000+i), Sections: []ingest.Section{{Type: "p", Content: strings.Join(w, " ")}}})
		}
		if res, err := e.Ingest(ctx, "", "hyb", IngestRequest{Documents: docs}); err != nil || len(res.Errors) > 0 {
			t.Fatal(err, res.Errors)
		}
	}
	completed := 0
	for _, q := range []string{"amber", "basil cedar", "raven sage thyme", "opal opal pine"} {
		p, err := e.plan(ctx, "", []string{"hyb"}, SearchRequest{Query: q})
		if err != nil {
			t.Fatal(err)
		}
		qv, err := e.startQueryVector(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		hs, err := e.candidates(p, qv)
		if _, verr := qv.wait(); verr != nil || err != nil {
			t.Fatal(err, verr)
		}
		qt := p.grps[0].qt
		rk := e.opts.Ranker
		for _, h := range hs {
			want := 0.0
			for _, r := range h.seg.Text.Search(qt.terms, qt.bm25, int(h.seg.Text.NumDocs()), nil, h.seg.Deleted, 0, nil) {
				if r.Doc == h.local {
					want = rk.keywordScore(float64(r.Score) / qt.max)
				}
			}
			if h.key != want {
				t.Errorf("%q: %s (by keyword %v, by semantic %v): keyword score %v, want %v", q, h.docID, h.byKey, h.bySem, h.key, want)
			}
			if !h.byKey && want > 0 {
				completed++
			}
		}
	}
	if completed == 0 {
		t.Fatal("no candidate found by the semantic retriever alone matched the query: completeKeyword untested")
	}
}
