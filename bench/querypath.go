package bench

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"runtime/pprof"
	"sort"
	"strings"
	"time"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/server"
)

// QueryPathConfig configures RunQueryPath.
type QueryPathConfig struct {
	// SciFactSetup locates SciFact, the engine directory (a directory that
	// `najdi-bench search -dir` filled already holds the hybrid collection
	// "all"), the model and the vector cache.
	SciFactSetup
	// Queries is the number of SciFact queries per pass (default 300) and
	// Passes the number of passes over them (default 3).
	Queries, Passes int
	// ProfileDir, if set, receives a CPU profile of each series
	// (cpu-<kind>-<shape>.pprof).
	ProfileDir string
	// QueryCache turns on the engine's cache of query vectors (off by
	// default, so that every pass embeds its queries).
	QueryCache bool
}

// RunQueryPath measures keyword, vector-only and hybrid search requests end
// to end through the real HTTP server on loopback, on the SciFact corpus
// (5,183 documents): "kw" holds title and abstract with
// embedding_config.model "none"; "vec" holds the titles with
// fulltext_config.enabled false (titles, so that their vectors embed in
// minutes; vectors cached by text); "all" holds title and abstract in the
// default hybrid configuration. Each series runs the SciFact queries in
// order, Passes times, one request at a time, in two request shapes:
// "lean" (max_results 10, highlight false, include_fields ["none"], as the
// peer benchmark sends) and "full" (the API defaults: content and
// passages). It reports the client's p50/p99, the server's took_ms p50 and
// the p50 of each metadata.timings stage when the server reports them.
func RunQueryPath(cfg QueryPathConfig, w io.Writer) error {
	cfg.Queries = cmp.Or(cfg.Queries, 300)
	cfg.Passes = cmp.Or(cfg.Passes, 3)
	b, err := LoadBEIR(cfg.BEIRDir)
	if err != nil {
		return err
	}
	m, err := openCachedModel(cfg.Models, cfg.ORTLib, cfg.Cache)
	if err != nil {
		return err
	}
	defer m.Close()
	cache, ce := m.cache, m.cached
	dir, remove, err := workDir(cfg.Dir, "najdi-querypath")
	if err != nil {
		return err
	}
	defer remove()
	cfg.Dir = dir
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))
	opts := engine.Options{Dir: cfg.Dir, Embedders: singleProvider{ce}, Logger: logger}
	setQueryCache(&opts, cfg.QueryCache)
	e, err := engine.Open(opts)
	if err != nil {
		return err
	}
	defer e.Close()
	if err := queryPathCollections(context.Background(), e, b, cache, cfg, w); err != nil {
		return err
	}

	srv := server.New(e, nil, server.Config{Logger: logger})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	go srv.Serve(ln)
	url := "http://" + ln.Addr().String() + "/v1/collections/"
	client := &http.Client{Timeout: time.Minute, Transport: &http.Transport{MaxIdleConnsPerHost: 4}}
	defer func() {
		client.CloseIdleConnections()
		srv.Shutdown()
	}()
	qs := b.Queries[:min(cfg.Queries, len(b.Queries))]
	fmt.Fprintf(w, "%d queries × %d passes per series, one request at a time, loopback HTTP\n", len(qs), cfg.Passes)
	fmt.Fprintf(w, "%-8s %-5s %9s %9s %9s | p50 of metadata.timings: %s\n", "kind", "shape", "p50", "p99", "took p50", strings.Join(stageNames, " "))
	for _, kind := range []struct{ name, coll string }{{"keyword", "kw"}, {"vector", "vec"}, {"hybrid", "all"}} {
		for _, shape := range []struct {
			name string
			req  map[string]any
		}{
			{"lean", map[string]any{"max_results": 10, "highlight": false, "include_fields": []string{"none"}}},
			{"full", map[string]any{"max_results": 10}},
		} {
			if err := queryPathSeries(client, url+kind.coll+"/search", kind.name, shape.name, shape.req, qs, cfg, w); err != nil {
				return err
			}
		}
	}
	return nil
}

func fullDoc(d BEIRDoc) engine.DocumentInput {
	in := engine.DocumentInput{DocumentID: d.ID}
	if d.Title != "" {
		in.Sections = append(in.Sections, ingest.Section{Type: "title", Content: d.Title})
	}
	in.Sections = append(in.Sections, ingest.Section{Type: "p", Content: d.Text})
	return in
}

// stageNames are the metadata.timings stages RunQueryPath reports.
var stageNames = []string{"embed", "retrieve", "fuse", "load", "render", "encode"}

type queryPathMeta struct {
	TookMS  float64 `json:"took_ms"`
	Timings *struct {
		Embed    float64 `json:"embed_ms"`
		Retrieve float64 `json:"retrieve_ms"`
		Fuse     float64 `json:"fuse_ms"`
		Load     float64 `json:"load_ms"`
		Render   float64 `json:"render_ms"`
		Encode   float64 `json:"encode_ms"`
	} `json:"timings"`
}

func (m *queryPathMeta) values() []float64 {
	t := m.Timings
	return []float64{t.Embed, t.Retrieve, t.Fuse, t.Load, t.Render, t.Encode}
}

func msDur(ms float64) time.Duration { return time.Duration(ms * float64(time.Millisecond)) }

// pctUS returns the p-th percentile of d in microseconds.
func pctUS(d []time.Duration, p int) int64 {
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[min(len(s)-1, len(s)*p/100)].Microseconds()
}

// startCPUProfile writes a CPU profile to path until the returned function
// is called.
func startCPUProfile(path string) (func() error, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return nil, err
	}
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	if err := pprof.StartCPUProfile(f); err != nil {
		f.Close()
		return nil, err
	}
	return func() error {
		pprof.StopCPUProfile()
		return f.Close()
	}, nil
}

// queryPathSeries runs one series: the queries qs sent cfg.Passes times,
// one at a time, to the search endpoint url in the request shape shapeReq
// (after 30 warm-up queries), and prints its row: the client's p50 and p99,
// the server's took_ms p50 and the p50 of each metadata.timings stage.
func queryPathSeries(client *http.Client, url, kind, shape string, shapeReq map[string]any, qs []BEIRQuery, cfg QueryPathConfig, w io.Writer) error {
	post := func(q string) (time.Duration, queryPathMeta, error) {
		req := map[string]any{"query": q}
		for k, v := range shapeReq {
			req[k] = v
		}
		body, _ := json.Marshal(req)
		t0 := time.Now()
		r, err := client.Post(url, "application/json", bytes.NewReader(body))
		if err != nil {
			return 0, queryPathMeta{}, err
		}
		data, err := io.ReadAll(r.Body)
		r.Body.Close()
		el := time.Since(t0)
		if err != nil || r.StatusCode != 200 {
			return 0, queryPathMeta{}, fmt.Errorf("search %s: %d %.200s %v", url, r.StatusCode, data, err)
		}
		var resp struct {
			Metadata queryPathMeta `json:"metadata"`
		}
		err = json.Unmarshal(data, &resp)
		return el, resp.Metadata, err
	}
	for _, q := range qs[:min(30, len(qs))] { // warm-up
		if _, _, err := post(q.Text); err != nil {
			return err
		}
	}
	stop := func() error { return nil }
	if cfg.ProfileDir != "" {
		var err error
		if stop, err = startCPUProfile(filepath.Join(cfg.ProfileDir, "cpu-"+kind+"-"+shape+".pprof")); err != nil {
			return err
		}
	}
	var lat, took []time.Duration
	stages := make([][]time.Duration, len(stageNames))
	timed := false
	for range cfg.Passes {
		for _, q := range qs {
			el, md, err := post(q.Text)
			if err != nil {
				stop()
				return err
			}
			lat = append(lat, el)
			took = append(took, msDur(md.TookMS))
			if md.Timings != nil {
				timed = true
				for i, v := range md.values() {
					stages[i] = append(stages[i], msDur(v))
				}
			}
		}
	}
	if err := stop(); err != nil {
		return err
	}
	var st []string
	for i := range stageNames {
		if timed {
			st = append(st, fmt.Sprintf("%.3f", float64(pctUS(stages[i], 50))/1000))
		} else {
			st = append(st, "—")
		}
	}
	fmt.Fprintf(w, "%-8s %-5s %9s %9s %9s | %s\n", kind, shape, pct(lat, 50), pct(lat, 99), pct(took, 50), strings.Join(st, " "))
	return nil
}

// queryPathBatch is the number of documents per Ingest call while
// RunQueryPath loads its collections; the vector cache is saved and a
// progress line printed after each.
const queryPathBatch = 500

// queryPathCollections creates and fills the collections "kw" (keyword
// only), "vec" (titles, vectors only) and "all" (hybrid), skipping those
// that hold the corpus already, in batches of queryPathBatch documents,
// saving the vector cache after each.
func queryPathCollections(ctx context.Context, e *engine.Engine, b *BEIR, cache *vecCache, cfg QueryPathConfig, w io.Writer) error {
	return loadQueryPathCollections(ctx, e, b, cache, cfg.Cache, queryPathBatch, w)
}

// loadQueryPathCollections is queryPathCollections with batches of batch
// documents and the vector cache saved to cachePath. After each batch it
// prints a progress line: the documents loaded, how many chunk vectors the
// model embedded for this collection so far (the texts new to the vector
// cache), and the time.
// Embedding is what makes the load long (SciFact's abstracts through the
// local model: ~40 CPU-seconds per 500 documents on this machine's cores,
// tens of minutes on a loaded 2-core machine at nice 10), and without
// these lines the phase printed nothing from the start of "all" to its
// end, so it looked stalled.
func loadQueryPathCollections(ctx context.Context, e *engine.Engine, b *BEIR, cache *vecCache, cachePath string, batch int, w io.Writer) error {
	off := false
	for _, c := range []struct {
		name string
		cfg  engine.CollectionConfig
		doc  func(d BEIRDoc) engine.DocumentInput
	}{
		{"kw", engine.CollectionConfig{EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}}, fullDoc},
		{"vec", engine.CollectionConfig{FulltextConfig: engine.FulltextConfig{Enabled: &off}}, func(d BEIRDoc) engine.DocumentInput {
			return engine.DocumentInput{DocumentID: d.ID, Sections: []ingest.Section{{Type: "title", Content: d.Title}}}
		}},
		{"all", engine.CollectionConfig{}, fullDoc},
	} {
		if info, err := e.GetCollection(ctx, "", c.name); err == nil && info.DocumentCount >= int64(len(b.Docs)) {
			fmt.Fprintf(w, "collection %s: holds the %d documents already\n", c.name, info.DocumentCount)
			continue
		}
		if _, _, err := e.PutCollection(ctx, "", c.name, c.cfg); err != nil {
			return err
		}
		start := time.Now()
		cached0 := cache.size()
		for i := 0; i < len(b.Docs); i += batch {
			var docs []engine.DocumentInput
			for _, d := range b.Docs[i:min(i+batch, len(b.Docs))] {
				docs = append(docs, c.doc(d))
			}
			if res, err := e.Ingest(ctx, "", c.name, engine.IngestRequest{Documents: docs}); err != nil || len(res.Errors) > 0 {
				return fmt.Errorf("ingest %s: %v %v", c.name, err, res.Errors)
			}
			if err := cache.save(cachePath); err != nil {
				return err
			}
			fmt.Fprintf(w, "  %s: %d/%d documents, %d chunk vectors embedded by the model, %s\n", c.name, min(i+batch, len(b.Docs)), len(b.Docs),
				cache.size()-cached0, time.Since(start).Round(time.Second))
		}
		if err := e.MergeNow("", c.name); err != nil {
			return err
		}
		fmt.Fprintf(w, "collection %s: %d documents in %s\n", c.name, len(b.Docs), time.Since(start).Round(time.Second))
	}
	return nil
}

// size returns the number of texts whose vectors the cache holds.
func (c *vecCache) size() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
