package engine_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/internal/testutil"
)

// kwEngine is the engine of the keyword request benchmarks and tests,
// built once per process: all 5,183 SciFact documents (title + abstract)
// in the keyword-only collection "kw" (embedding_config.model "none"),
// merged into one segment, as the peer benchmark's SciFact run holds
// them; and the peer benchmark's lean request body of the first 300
// queries of queries.jsonl (the load of a throughput benchmark, no
// quality judged).
var kwEngine struct {
	once   sync.Once
	e      *engine.Engine
	bodies [][]byte
	err    error
}

func kwEngineSetup(tb testing.TB) (*engine.Engine, [][]byte) {
	s := &kwEngine
	s.once.Do(func() {
		dir, err := os.MkdirTemp("", "najdi-kwqps")
		if err != nil {
			s.err = err
			return
		}
		e, err := engine.Open(engine.Options{Dir: dir, Logger: discardLogger()})
		if err != nil {
			s.err = err
			return
		}
		ctx := context.Background()
		if _, _, err := e.PutCollection(ctx, "", "kw", engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}}); err != nil {
			s.err = err
			return
		}
		var docs []engine.DocumentInput
		for _, d := range testutil.SciFactDocs(tb, 0) {
			docs = append(docs, engine.DocumentInput{DocumentID: d.ID, Sections: []ingest.Section{{Type: "title", Content: d.Title}, {Type: "p", Content: d.Text}}})
		}
		if res, err := e.Ingest(ctx, "", "kw", engine.IngestRequest{Documents: docs}); err != nil || len(res.Errors) > 0 {
			tb.Fatalf("ingest: %v %v", err, res.Errors)
		}
		if err := e.MergeNow("", "kw"); err != nil {
			s.err = err
			return
		}
		f, err := os.Open(filepath.Join(testutil.SharedData(tb), "beir", "scifact", "queries.jsonl"))
		if err != nil {
			s.err = err
			return
		}
		defer f.Close()
		sc := bufio.NewScanner(f)
		for sc.Scan() && len(s.bodies) < 300 {
			var q struct {
				Text string `json:"text"`
			}
			if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
				s.err = err
				return
			}
			body, err := json.Marshal(map[string]any{"query": q.Text, "max_results": 10, "highlight": false, "include_fields": []string{"none"}})
			if err != nil {
				s.err = err
				return
			}
			s.bodies = append(s.bodies, body)
		}
		s.e = e
	})
	if s.err != nil {
		tb.Fatal(s.err)
	}
	return s.e, s.bodies
}

// kwRequest is what the server does for one search request besides HTTP:
// parse the body, search, render the response.
func kwRequest(e *engine.Engine, body, buf []byte) ([]byte, error) {
	req, err := engine.ParseSearchRequest(body)
	if err != nil {
		return buf, err
	}
	resp, err := e.Search(context.Background(), "", []string{"kw"}, req)
	if err != nil {
		return buf, err
	}
	return resp.AppendJSON(buf[:0], time.Now()), nil
}

// BenchmarkKeywordRequest measures the engine's part of the peer
// benchmark's keyword request (the lean body: max_results 10, no
// highlight, include_fields ["none"]) on all of SciFact: parsing the body,
// the search and rendering the response, one at a time ("serial") and
// from GOMAXPROCS goroutines at once ("parallel", ns/op is 1/throughput).
func BenchmarkKeywordRequest(b *testing.B) {
	e, bodies := kwEngineSetup(b)
	b.Run("serial", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		var err error
		i := 0
		for b.Loop() {
			if buf, err = kwRequest(e, bodies[i%len(bodies)], buf); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.Run("parallel", func(b *testing.B) {
		b.ReportAllocs()
		var next atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			var buf []byte
			var err error
			for pb.Next() {
				if buf, err = kwRequest(e, bodies[int(next.Add(1))%len(bodies)], buf); err != nil {
					b.Error(err)
					return
				}
			}
		})
	})
}

// TestKeywordLeanMatchesFull checks the peer benchmark's lean keyword
// request against the API defaults (content and passages, which load
// and render every part of the bodies) for the 300 queries on all of
// SciFact: the same documents in the same order with the same scores and
// sources, the same paging metadata. The lean request skips what the
// full one does; its ranking must not change.
func TestKeywordLeanMatchesFull(t *testing.T) {
	e, bodies := kwEngineSetup(t)
	ctx := context.Background()
	for i, body := range bodies {
		lean, err := engine.ParseSearchRequest(body)
		if err != nil {
			t.Fatal(err)
		}
		full := engine.SearchRequest{Query: lean.Query, MaxResults: lean.MaxResults}
		a, err := e.Search(ctx, "", []string{"kw"}, lean)
		if err != nil {
			t.Fatal(err)
		}
		b, err := e.Search(ctx, "", []string{"kw"}, full)
		if err != nil {
			t.Fatal(err)
		}
		if len(a.Documents) == 0 || len(a.Documents) != len(b.Documents) {
			t.Fatalf("query %d: %d lean documents, %d full", i, len(a.Documents), len(b.Documents))
		}
		for j := range a.Documents {
			x, y := a.Documents[j], b.Documents[j]
			if x.DocumentID != y.DocumentID || x.Score != y.Score || x.Source != y.Source {
				t.Fatalf("query %d result %d: lean %s %v %s, full %s %v %s", i, j, x.DocumentID, x.Score, x.Source, y.DocumentID, y.Score, y.Source)
			}
			if (x.Content != nil && *x.Content != "") || len(x.Passages) > 0 || y.Content == nil || *y.Content == "" {
				t.Fatalf("query %d result %d: lean has content or passages (%d), or full has no content", i, j, len(x.Passages))
			}
		}
		if (a.Metadata.NextOffset == nil) != (b.Metadata.NextOffset == nil) || a.Metadata.BelowMinScore != b.Metadata.BelowMinScore {
			t.Fatalf("query %d: paging metadata differs", i)
		}
	}
}
