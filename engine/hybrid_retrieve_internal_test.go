package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/najdi/najdi/ingest"
)

// TestConcurrentHybridSameAnswers checks that hybrid searches whose
// retrieval runs as concurrent per-segment tasks (localSearch.hybrid)
// answer exactly as the sequential stages do: the same documents, scores,
// sources, passages, next_offset and below_min_score, with 1, 2 and 4
// workers. The corpus has three segments with deletes, documents of one to
// several chunks, rare identifiers, a number field to filter on; the searches
// cover one collection and two (one of them with fulltext off, so that
// keyword evidence is completed on one collection only), filters, pages,
// min_score and passages.
func TestConcurrentHybridSameAnswers(t *testing.T) {
	// Few candidates per retriever (10 documents, 30 chunks per segment),
	// so that many candidates miss one retriever's evidence, and every
	// cosine counts as semantic evidence (the word-hash vectors' cosines
	// are low).
	rk := DefaultRanker()
	rk.Candidates = 10
	rk.SemanticFloor, rk.SemanticCeiling = -1, 1
	e, err := Open(Options{Dir: t.TempDir(), Embedders: wordsEmbedder{}, MergeInterval: time.Hour, Logger: slog.New(slog.DiscardHandler), Ranker: rk})
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx := context.Background()
	off := false
	fields := map[string]FieldSpec{"n": {Type: "number"}}
	for _, c := range []struct {
		id  string
		cfg CollectionConfig
	}{
		{"a", CollectionConfig{Fields: fields}},
		{"b", CollectionConfig{Fields: fields}},
		{"sem", CollectionConfig{Fields: fields, FulltextConfig: FulltextConfig{Enabled: &off}}},
	} {
		if _, _, err := e.PutCollection(ctx, "", c.id, c.cfg); err != nil {
			t.Fatal(err)
		}
	}
	r := rand.New(rand.NewPCG(5, 6))
	vocab := strings.Fields("amber basil cedar delta ember fjord grove heron iris juniper kelp lotus maple nectar opal pine quartz raven sage thyme x7 b52 bone fracture vitamin heart")
	sentence := func() string {
		var w []string
		for range 3 + r.IntN(8) {
			w = append(w, vocab[r.IntN(len(vocab))])
		}
		return strings.Join(w, " ") + "."
	}
	var deleted []string
	for seg := 0; seg < 3; seg++ {
		var docs []DocumentInput
		for i := 0; i < 300; i++ {
			var s []string
			n := 1 + r.IntN(3)
			if r.IntN(10) == 0 {
				n = 60 + r.IntN(80) // several chunks
			}
			for range n {
				s = append(s, sentence())
			}
			if i%61 == 7 {
				// Rare identifiers, in a document or two of each segment.
				s = append(s, fmt.Sprintf("qz700%d.", i%4))
			}
			id := fmt.Sprintf("%04d-%d", r.IntN(10000), seg*1000+i)
			if seg == 1 && i%9 == 0 && i < 200 {
				deleted = append(deleted, id)
			}
			docs = append(docs, DocumentInput{DocumentID: id, Fields: map[string]any{"n": float64(i % 10)},
				Sections: []ingest.Section{{Type: "title", Content: sentence()}, {Type: "p", Content: strings.Join(s, " ")}}})
		}
		for _, coll := range []string{"a", "b", "sem"} {
			if res, err := e.Ingest(ctx, "", coll, IngestRequest{Documents: docs[:len(docs)-seg*50]}); err != nil || len(res.Errors) > 0 {
				t.Fatal(err, res.Errors)
			}
		}
	}
	for _, coll := range []string{"a", "b", "sem"} {
		for _, id := range deleted {
			if err := e.DeleteDocument(ctx, "", coll, id); err != nil {
				t.Fatal(err)
			}
		}
	}
	queries := []string{"amber", "bone fracture", "vitamin heart disease", "x7", "b52 amber", "sage thyme raven juniper", "unknownword maple", "qz7000", "qz7001 amber", "qz7002 bone", "qz7003"}
	for range 25 {
		queries = append(queries, vocab[r.IntN(len(vocab))]+" "+vocab[r.IntN(len(vocab))]+" "+vocab[r.IntN(len(vocab))])
	}
	flt, _ := json.Marshal(map[string]any{"range": map[string]any{"n": map[string]any{"lt": 3}}})
	zero := 0.0
	type shape struct {
		name  string
		colls []string
		req   SearchRequest
	}
	ten, three, twenty, five := 10, 3, 20, 5
	lean := []string{"none"}
	shapes := []shape{
		{"lean", []string{"a"}, SearchRequest{MaxResults: &ten, Highlight: &off, IncludeFields: lean}},
		{"passages", []string{"a"}, SearchRequest{MaxResults: &three}},
		{"page", []string{"a"}, SearchRequest{MaxResults: &twenty, Offset: &five, Highlight: &off, IncludeFields: lean}},
		{"min_score", []string{"a"}, SearchRequest{MaxResults: &ten, MinScore: &zero, Highlight: &off, IncludeFields: lean}},
		{"filter", []string{"a"}, SearchRequest{MaxResults: &ten, Filter: flt, Highlight: &off, IncludeFields: lean}},
		{"two", []string{"a", "b"}, SearchRequest{MaxResults: &twenty, Highlight: &off, IncludeFields: lean}},
		{"fulltext-off", []string{"a", "sem"}, SearchRequest{MaxResults: &twenty, Highlight: &off, IncludeFields: lean}},
	}
	defer func() { concurrentHybrid, hybridWorkers = true, 0 }()
	strip := func(resp SearchResponse) SearchResponse {
		resp.SearchID = ""
		resp.Metadata.TookMS = 0
		resp.Metadata.Timings = nil
		return resp
	}
	concurrent := 0
	for _, sh := range shapes {
		for _, q := range queries {
			req := sh.req
			req.Query = q
			concurrentHybrid = false
			want, err := e.Search(ctx, "", sh.colls, req)
			if err != nil {
				t.Fatal(err)
			}
			for _, w := range []int{1, 2, 4} {
				concurrentHybrid, hybridWorkers = true, w
				got, err := e.Search(ctx, "", sh.colls, req)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(strip(got), strip(want)) {
					t.Fatalf("%s %q with %d workers:\n got %+v\nwant %+v", sh.name, q, w, strip(got), strip(want))
				}
			}
			if len(want.Documents) > 0 {
				concurrent++
			}
		}
	}
	if concurrent < len(shapes)*len(queries)/2 {
		t.Errorf("only %d searches found documents", concurrent)
	}
}

// slowQueryEmbedder answers queries after a delay (passages at once), or fails
// with err.
type slowQueryEmbedder struct {
	wordsEmbedder
	delay time.Duration
	err   error
}

func (s slowQueryEmbedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	time.Sleep(s.delay)
	if s.err != nil {
		return nil, s.err
	}
	return s.wordsEmbedder.EmbedQueries(ctx, texts)
}
func (s slowQueryEmbedder) Embedder(EmbeddingConfig) (Embedder, error) { return s, nil }

// TestConcurrentHybridEmbedWait checks the concurrent hybrid retrieval
// with a query embedding that takes 30 ms: timings.embed_ms is the time
// the search waited for the vector after the keyword tasks were done
// (about 30 ms, not cached), the stages add up to at most took_ms, the
// answer is the sequential stages' (the keyword halves ran while the
// vector was pending), and an embedding error is the search's error.
func TestConcurrentHybridEmbedWait(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{{"ok", nil}, {"fails", errors.New("endpoint down")}} {
		t.Run(tc.name, func(t *testing.T) {
			e, err := Open(Options{Dir: t.TempDir(), Embedders: slowQueryEmbedder{delay: 30 * time.Millisecond, err: tc.err}, Logger: slog.New(slog.DiscardHandler), QueryCacheSize: -1})
			if err != nil {
				t.Fatal(err)
			}
			defer e.Close()
			ctx := context.Background()
			if _, _, err := e.PutCollection(ctx, "", "c", CollectionConfig{}); err != nil {
				t.Fatal(err)
			}
			docs := []DocumentInput{
				{DocumentID: "a", Sections: []ingest.Section{{Type: "p", Content: "bone fractures in elderly patients"}}},
				{DocumentID: "b", Sections: []ingest.Section{{Type: "p", Content: "vitamin supplements and heart disease"}}},
			}
			if _, err := e.Ingest(ctx, "", "c", IngestRequest{Documents: docs}); err != nil {
				t.Fatal(err)
			}
			resp, err := e.Search(ctx, "", []string{"c"}, SearchRequest{Query: "bone fractures"})
			if tc.err != nil {
				if !errors.Is(err, ErrUpstream) || !strings.Contains(err.Error(), "endpoint down") {
					t.Fatalf("error %v, want the embedding's (upstream)", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.Documents) == 0 || resp.Documents[0].DocumentID != "a" || resp.Documents[0].Source != "sem-key" {
				t.Fatalf("documents %+v, want a first, found by both retrievers", resp.Documents)
			}
			tm := resp.Metadata.Timings
			if tm.EmbedCached || tm.EmbedMS < 25 || tm.EmbedMS > 60 {
				t.Errorf("timings %+v, want an uncached embedding whose wait is about 30 ms", *tm)
			}
			if sum := tm.EmbedMS + tm.RetrieveMS + tm.FuseMS + tm.LoadMS + tm.RenderMS; sum > resp.Metadata.TookMS+0.01 || tm.RetrieveMS < 0 {
				t.Errorf("timings %+v sum to %.3f ms, took_ms %.3f", *tm, sum, resp.Metadata.TookMS)
			}
			concurrentHybrid = false
			defer func() { concurrentHybrid = true }()
			seq, err := e.Search(ctx, "", []string{"c"}, SearchRequest{Query: "bone fractures"})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(seq.Documents, resp.Documents) {
				t.Errorf("concurrent answer %+v, sequential %+v", resp.Documents, seq.Documents)
			}
		})
	}
}
