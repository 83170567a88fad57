package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/internal/testutil"
	"github.com/najdi/najdi/server"
)

// httpBench is the real server of the HTTP query-path benchmarks, built
// once per process: the engine in this process (so that a CPU profile of
// the benchmark covers the server's handler), serving on loopback, with
// all 5,183 SciFact documents (title + abstract) in the keyword collection
// "kw" (embedding_config.model "none").
var httpBench struct {
	once    sync.Once
	base    string
	queries []string
	err     error
}

func httpBenchSetup(b *testing.B) (string, []string) {
	s := &httpBench
	s.once.Do(func() { s.base, s.queries, s.err = startBenchServer(b) })
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.base, s.queries
}

func startBenchServer(b *testing.B) (string, []string, error) {
	dir, err := os.MkdirTemp("", "najdi-httpbench")
	if err != nil {
		return "", nil, err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	eng, err := engine.Open(engine.Options{Dir: dir, Logger: log})
	if err != nil {
		return "", nil, err
	}
	ctx := context.Background()
	if _, _, err := eng.PutCollection(ctx, "", "kw", engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}}); err != nil {
		return "", nil, err
	}
	var docs []engine.DocumentInput
	for _, d := range testutil.SciFactDocs(b, 0) {
		docs = append(docs, engine.DocumentInput{DocumentID: d.ID, Sections: []ingest.Section{{Type: "title", Content: d.Title}, {Type: "p", Content: d.Text}}})
	}
	if res, err := eng.Ingest(ctx, "", "kw", engine.IngestRequest{Documents: docs}); err != nil || len(res.Errors) > 0 {
		return "", nil, errOr(err, res.Errors)
	}
	if err := eng.MergeNow("", "kw"); err != nil {
		return "", nil, err
	}
	queries, err := sciFactQueries(b, 300)
	if err != nil {
		return "", nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	srv := server.New(eng, nil, server.Config{Logger: log})
	go srv.Serve(ln) //nolint:errcheck // ends with the process
	return "http://" + ln.Addr().String(), queries, nil
}

func errOr(err error, v any) error {
	if err != nil {
		return err
	}
	return fmt.Errorf("ingest: %v", v)
}

// sciFactQueries returns the texts of the first n SciFact queries in
// queries.jsonl (the load of a latency benchmark, no quality judged).
func sciFactQueries(tb testing.TB, n int) ([]string, error) {
	f, err := os.Open(filepath.Join(testutil.SharedData(tb), "beir", "scifact", "queries.jsonl"))
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() && len(out) < n {
		var q struct {
			Text string `json:"text"`
		}
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, err
		}
		out = append(out, q.Text)
	}
	return out, sc.Err()
}

// httpShapes are the request shapes of the HTTP benchmarks: "lean" is the
// peer benchmark's request, "full" the API defaults (content and passages).
var httpShapes = []struct {
	name  string
	extra map[string]any
}{
	{"lean", map[string]any{"max_results": 10, "highlight": false, "include_fields": []string{"none"}}},
	{"full", map[string]any{"max_results": 10}},
}

// bodies returns the request body of each query in a shape.
func bodies(b *testing.B, queries []string, extra map[string]any) [][]byte {
	out := make([][]byte, len(queries))
	for i, q := range queries {
		m := map[string]any{"query": q}
		for k, v := range extra {
			m[k] = v
		}
		raw, err := json.Marshal(m)
		if err != nil {
			b.Fatal(err)
		}
		out[i] = raw
	}
	return out
}

// BenchmarkHTTPSearchKeyword measures keyword search requests end to end
// through the real HTTP server on loopback with a keep-alive net/http
// client: "serial" sends one request at a time (latency), "clients4" four
// client goroutines at once (ns/op is 1/throughput).
func BenchmarkHTTPSearchKeyword(b *testing.B) {
	base, queries := httpBenchSetup(b)
	url := base + "/v1/collections/kw/search"
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16, DisableCompression: true}, Timeout: time.Minute}
	post := func(body []byte, buf *bytes.Buffer) error {
		resp, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			return err
		}
		defer resp.Body.Close()
		buf.Reset()
		if _, err := buf.ReadFrom(resp.Body); err != nil {
			return err
		}
		if resp.StatusCode != 200 {
			return fmt.Errorf("%s: %s", resp.Status, buf.Bytes())
		}
		return nil
	}
	for _, shape := range httpShapes {
		reqs := bodies(b, queries, shape.extra)
		b.Run(shape.name+"/serial", func(b *testing.B) {
			b.ReportAllocs()
			var buf bytes.Buffer
			i := 0
			for b.Loop() {
				if err := post(reqs[i%len(reqs)], &buf); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
		b.Run(shape.name+"/clients4", func(b *testing.B) {
			b.ReportAllocs()
			b.SetParallelism(max(1, 4/runtime.GOMAXPROCS(0)))
			var next atomic.Int64
			b.RunParallel(func(pb *testing.PB) {
				var buf bytes.Buffer
				for pb.Next() {
					i := int(next.Add(1))
					if err := post(reqs[i%len(reqs)], &buf); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
