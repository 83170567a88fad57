package server_test

import (
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
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/najdi/najdi/bench/peers"
	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/internal/testutil"
	"github.com/najdi/najdi/server"
)

// hybBench is the server of BenchmarkHTTPSearchHybrid, built once per
// process: the peer benchmark's najdi setup (bench/peers/najdi.go) in this
// process, so that a profile covers the whole request. The engine embeds
// through a remote OpenAI-compatible endpoint, the peer benchmark's stub
// (peers.StartStub) on loopback, which answers with static vectors
// (peers.Static: bge-small's token embedding rows, no transformer run);
// the model provider is the one `najdi serve` uses, allowed to call the
// stub only. All 5,183 SciFact documents (title + abstract, a number
// field "bucket") go into the hybrid collection "hyb" (default
// configuration: fulltext elastic, language en) in requests of 2,000
// documents, as the peer benchmark sends them, and are left in the
// segments that ingest makes; "hyb1" holds the same documents merged into
// one segment.
var hybBench struct {
	once    sync.Once
	base    string
	queries []string
	err     error
}

func hybBenchSetup(b *testing.B) (string, []string) {
	s := &hybBench
	s.once.Do(func() { s.err = startHybBench(b) })
	if s.err != nil {
		b.Fatal(s.err)
	}
	return s.base, s.queries
}

func startHybBench(b *testing.B) error {
	s := &hybBench
	models, lib := embed.CachePaths(embed.DefaultCacheDir())
	st, err := peers.LoadStatic(filepath.Join(models, "bge-small-en-v1.5"))
	if err != nil {
		return err
	}
	if s.queries, err = sciFactQueries(b, 300); err != nil {
		return err
	}
	qs := make([]peers.Query, len(s.queries))
	for i, q := range s.queries {
		qs[i] = peers.Query{Text: q, Vector: st.Embed(q)}
	}
	stub, err := peers.StartStub(qs, func(texts []string, _ bool) ([][]float32, error) {
		out := make([][]float32, len(texts))
		for i, t := range texts {
			out[i] = st.Embed(t)
		}
		return out, nil
	})
	if err != nil {
		return err
	}
	dir, err := os.MkdirTemp("", "najdi-hybbench")
	if err != nil {
		return err
	}
	testutil.RemoveAtExit(dir) // the engine serves every run of the benchmark
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	prov, err := engine.NewModelProviderOptions(models, lib, engine.ProviderOptions{AllowOutbound: []string{strings.TrimPrefix(stub.URL, "http://")}, Logger: log})
	if err != nil {
		return err
	}
	eng, err := engine.Open(engine.Options{Dir: dir, Logger: log, Embedders: prov})
	if err != nil {
		return err
	}
	ctx := context.Background()
	var docs []engine.DocumentInput
	for i, d := range testutil.SciFactDocs(b, 0) {
		docs = append(docs, engine.DocumentInput{DocumentID: d.ID, Fields: map[string]any{"bucket": float64(i % 100)},
			Sections: []ingest.Section{{Type: "title", Content: d.Title}, {Type: "p", Content: d.Text}}})
	}
	remote := &engine.RemoteEmbedding{URL: stub.URL + "/v1/embeddings", Model: "precomputed", Dims: st.Dims(), BatchSize: 256}
	for _, coll := range []string{"hyb", "hyb1"} {
		cfg := engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Remote: remote},
			Fields: map[string]engine.FieldSpec{"bucket": {Type: "number"}}}
		if _, _, err := eng.PutCollection(ctx, "", coll, cfg); err != nil {
			return err
		}
		for lo := 0; lo < len(docs); lo += 2000 {
			res, err := eng.Ingest(ctx, "", coll, engine.IngestRequest{Documents: docs[lo:min(lo+2000, len(docs))]})
			if err != nil || len(res.Errors) > 0 {
				return errOr(err, res.Errors)
			}
		}
		if coll == "hyb1" {
			if err := eng.MergeNow("", coll); err != nil {
				return err
			}
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := server.New(eng, nil, server.Config{Logger: log})
	go srv.Serve(ln) //nolint:errcheck // ends with the process
	s.base = "http://" + ln.Addr().String()
	return nil
}

// BenchmarkHTTPSearchHybrid measures the peer benchmark's hybrid request
// (bench/peers/najdi.go: max_results 10, highlight false, include_fields
// ["none"]) end to end through the real HTTP server on loopback, one
// request at a time (and "hyb/clients4": four clients at once), cycling
// through 300 SciFact queries: "hyb" is the
// collection as the peer benchmark's ingest leaves it, "hyb1" merged into
// one segment. ns/op is the client's latency; took-µs/op the server's
// took_ms (mean), took-p50-µs its median, embed-µs the embed stage
// (metadata.timings; after the first 300 requests the query vectors come
// from the engine's cache, as in the peer benchmark's repetitions).
func BenchmarkHTTPSearchHybrid(b *testing.B) {
	base, queries := hybBenchSetup(b)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 4, DisableCompression: true}, Timeout: time.Minute}
	reqs := bodies(b, queries, httpShapes[0].extra)
	for _, coll := range []string{"hyb", "hyb1"} {
		b.Run(coll, func(b *testing.B) {
			url := base + "/v1/collections/" + coll + "/search"
			var buf bytes.Buffer
			var took []float64
			var embedSum float64
			i := 0
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Post(url, "application/json", bytes.NewReader(reqs[i%len(reqs)]))
				if err != nil {
					b.Fatal(err)
				}
				buf.Reset()
				_, err = buf.ReadFrom(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 {
					b.Fatalf("%v %s: %s", err, resp.Status, buf.Bytes())
				}
				t, e := tookOf(b, buf.Bytes())
				took = append(took, t)
				embedSum += e
				i++
			}
			var sum float64
			for _, t := range took {
				sum += t
			}
			slices.Sort(took)
			b.ReportMetric(1000*sum/float64(len(took)), "took-µs/op")
			b.ReportMetric(1000*took[len(took)/2], "took-p50-µs")
			b.ReportMetric(1000*embedSum/float64(len(took)), "embed-µs/op")
		})
	}
	// Four clients at once on "hyb": ns/op is 1/throughput, whether the
	// concurrent retrieval's tasks cost throughput when requests already
	// fill the cores.
	b.Run("hyb/clients4", func(b *testing.B) {
		url := base + "/v1/collections/hyb/search"
		b.ReportAllocs()
		b.SetParallelism(max(1, 4/runtime.GOMAXPROCS(0)))
		var next atomic.Int64
		b.RunParallel(func(pb *testing.PB) {
			var buf bytes.Buffer
			for pb.Next() {
				i := int(next.Add(1))
				resp, err := client.Post(url, "application/json", bytes.NewReader(reqs[i%len(reqs)]))
				if err != nil {
					b.Error(err)
					return
				}
				buf.Reset()
				_, err = buf.ReadFrom(resp.Body)
				resp.Body.Close()
				if err != nil || resp.StatusCode != 200 {
					b.Errorf("%v %s: %s", err, resp.Status, buf.Bytes())
					return
				}
			}
		})
	})
}

// tookOf returns took_ms and timings.embed_ms of a search answer.
func tookOf(b *testing.B, data []byte) (took, embed float64) {
	var r struct {
		Metadata struct {
			TookMS  float64 `json:"took_ms"`
			Timings struct {
				EmbedMS float64 `json:"embed_ms"`
			} `json:"timings"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		b.Fatal(fmt.Errorf("search answer: %w", err))
	}
	return r.Metadata.TookMS, r.Metadata.Timings.EmbedMS
}
