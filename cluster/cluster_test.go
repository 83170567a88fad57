package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/najdi/najdi/internal/errs"
	"io"
	"math"
	"net"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/najdi/najdi/filter"
)

var basicSchema = Schema{
	Fields: map[string]filter.FieldType{"lang": filter.FieldEnum, "tag": filter.FieldEnumText, "year": filter.FieldNumber},
	Dims:   4,
}

func unit(v ...float32) []float32 {
	var s float64
	for _, x := range v {
		s += float64(x) * float64(x)
	}
	n := float32(math.Sqrt(s))
	out := make([]float32, len(v))
	for i, x := range v {
		out[i] = x / n
	}
	return out
}

func basicDocs() []Document {
	return []Document{
		{ID: "a", Terms: map[string]float32{"cat": 2, "dog": 1}, Length: 3, Body: json.RawMessage(`{"title":"A"}`),
			Fields: map[string][]any{"lang": {"en"}, "tag": {"pets", "home"}, "year": {2001.0}},
			Chunks: []Chunk{{Vector: unit(1, 0, 0, 0), Section: 0, Start: 0, End: 5}, {Vector: unit(0, 1, 0, 0), Section: 1, Start: 0, End: 9}}},
		{ID: "b", Terms: map[string]float32{"cat": 1, "fish": 1.5}, Length: 2.5, Body: json.RawMessage(`{"title":"B"}`),
			Fields: map[string][]any{"lang": {"cs"}, "year": {1999.0}},
			Chunks: []Chunk{{Vector: unit(0, 0, 1, 0), Section: 0, Start: 2, End: 7}}},
		{ID: "c/with:odd id", Terms: map[string]float32{"bird": 1}, Length: 1, Body: json.RawMessage(`{"title":"C"}`),
			Fields: map[string][]any{"lang": {"en"}, "tag": {"garden"}},
			Chunks: []Chunk{{Vector: unit(0, 0, 0, 1)}}},
	}
}

func mustFilter(t *testing.T, js string, s filter.Schema) Filter {
	t.Helper()
	q, err := filter.Parse([]byte(js))
	if err != nil {
		t.Fatal(err)
	}
	if err := q.Validate(s); err != nil {
		t.Fatal(err)
	}
	return Filter{Query: q, Schema: s}
}

func TestCollectionLifecycle(t *testing.T) {
	forEachNode(t, func(t *testing.T, c *Client) {
		ctx := testCtx(t)
		if err := c.CreateCollection(ctx, "books", basicSchema); err != nil {
			t.Fatal(err)
		}
		if err := c.CreateCollection(ctx, "books", basicSchema); !errors.Is(err, ErrConflict) {
			t.Fatalf("second create: %v, want ErrConflict", err)
		}
		if err := c.CreateCollection(ctx, "films", Schema{}); err != nil {
			t.Fatal(err)
		}
		got, err := c.Collections(ctx)
		if err != nil || !slices.Equal(got, []string{"books", "films"}) {
			t.Fatalf("Collections = %v, %v", got, err)
		}
		if err := c.DropCollection(ctx, "films"); err != nil {
			t.Fatal(err)
		}
		if err := c.DropCollection(ctx, "films"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("second drop: %v, want ErrNotFound", err)
		}
		if _, err := c.Keyword(ctx, []string{"films"}, []QueryTerm{{"x", 1}}, Filter{}, 10); !errors.Is(err, ErrNotFound) {
			t.Fatalf("search of a dropped collection: %v, want ErrNotFound", err)
		}
		got, _ = c.Collections(ctx)
		if !slices.Equal(got, []string{"books"}) {
			t.Fatalf("Collections after drop = %v", got)
		}
	})
}

func TestIngestSearchDelete(t *testing.T) {
	forEachNode(t, func(t *testing.T, c *Client) {
		ctx := testCtx(t)
		if err := c.CreateCollection(ctx, "pets", basicSchema); err != nil {
			t.Fatal(err)
		}
		failed, err := c.Ingest(ctx, "pets", basicDocs())
		if err != nil || len(failed) != 0 {
			t.Fatalf("Ingest: %v %v", failed, err)
		}
		// Searchable as soon as Ingest returns.
		res, err := c.Keyword(ctx, []string{"pets"}, []QueryTerm{{"cat", 1}}, Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Hits) != 2 || res.Hits[0].ID != "a" || res.Hits[1].ID != "b" || res.Hits[0].Collection != "pets" {
			t.Fatalf("keyword hits %+v", res.Hits)
		}
		if res.Stats.Docs != 3 || res.Stats.DocFreq["cat"] != 2 || math.Abs(res.Stats.AvgLength-6.5/3) > 1e-9 {
			t.Fatalf("stats %+v", res.Stats)
		}
		// BM25 of najdi: idf × tf/(tf + k1(1 − b + b·len/avg)); Lucene's
		// norms round lengths, so allow a small difference.
		idf := math.Log(1 + (3-2+0.5)/(2+0.5))
		want := idf * 2 / (2 + 1.2*(1-0.75+0.75*3/(6.5/3)))
		if math.Abs(res.Hits[0].Score-want) > 0.02*want {
			t.Fatalf("score of a = %v, want ≈ %v", res.Hits[0].Score, want)
		}
		// Filtered keyword search.
		flt := mustFilter(t, `{"term":{"lang":"cs"}}`, filter.SchemaMap(basicSchema.Fields))
		res, err = c.Keyword(ctx, []string{"pets"}, []QueryTerm{{"cat", 1}}, flt, 10)
		if err != nil || len(res.Hits) != 1 || res.Hits[0].ID != "b" || res.Stats.DocFreq["cat"] != 2 {
			t.Fatalf("filtered keyword: %+v %v", res, err)
		}
		// Vector: best chunk per document, cosine similarity.
		q := unit(0.9, 0.1, 0.3, 0)
		vh, err := c.Vector(ctx, []string{"pets"}, q, Filter{}, 2)
		if err != nil {
			t.Fatal(err)
		}
		if len(vh) != 2 || vh[0].ID != "a" || vh[1].ID != "b" || vh[0].Start != 0 || vh[0].End != 5 {
			t.Fatalf("vector hits %+v", vh)
		}
		if want := float64(q[0]); math.Abs(vh[0].Similarity-want) > 1e-3 {
			t.Fatalf("similarity %v, want %v", vh[0].Similarity, want)
		}
		vflt := mustFilter(t, `{"range":{"year":{"lt":2000}}}`, filter.SchemaMap(basicSchema.Fields))
		vh, err = c.Vector(ctx, []string{"pets"}, q, vflt, 5)
		if err != nil || len(vh) != 1 || vh[0].ID != "b" {
			t.Fatalf("filtered vector hits %+v %v", vh, err)
		}
		// Count, filter ids, list, get.
		if n, err := c.Count(ctx, []string{"pets"}, Filter{}); err != nil || n != 3 {
			t.Fatalf("Count = %d, %v", n, err)
		}
		ids, err := c.FilterIDs(ctx, "pets", mustFilter(t, `{"term":{"lang":"en"}}`, filter.SchemaMap(basicSchema.Fields)))
		if err != nil || !slices.Equal(ids, []string{"a", "c/with:odd id"}) {
			t.Fatalf("FilterIDs = %v, %v", ids, err)
		}
		page, next, err := c.List(ctx, "pets", "", 2)
		if err != nil || !slices.Equal(page, []string{"a", "b"}) || next != "b" {
			t.Fatalf("List = %v %q %v", page, next, err)
		}
		page, next, _ = c.List(ctx, "pets", next, 2)
		if !slices.Equal(page, []string{"c/with:odd id"}) || next != "" {
			t.Fatalf("List page 2 = %v %q", page, next)
		}
		body, err := c.Get(ctx, "pets", "c/with:odd id")
		if err != nil || string(body) != `{"title":"C"}` {
			t.Fatalf("Get = %s, %v", body, err)
		}
		if _, err := c.Get(ctx, "pets", "nope"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get of a missing document: %v", err)
		}
		// Replacing a with one chunk removes its old second chunk.
		a := basicDocs()[0]
		a.Chunks = a.Chunks[:1]
		a.Terms = map[string]float32{"cow": 1}
		if failed, err := c.Ingest(ctx, "pets", []Document{a}); err != nil || len(failed) > 0 {
			t.Fatal(failed, err)
		}
		if n := c.countKind(t, "pets", "chunk"); n != 3 {
			t.Fatalf("%d chunks after replacing a, want 3", n)
		}
		res, _ = c.Keyword(ctx, []string{"pets"}, []QueryTerm{{"cat", 1}}, Filter{}, 10)
		if len(res.Hits) != 1 || res.Hits[0].ID != "b" {
			t.Fatalf("old terms of a still found: %+v", res.Hits)
		}
		// Delete.
		found, err := c.Delete(ctx, "pets", []string{"a", "missing"})
		if err != nil || !slices.Equal(found, []string{"a"}) {
			t.Fatalf("Delete = %v, %v", found, err)
		}
		if n := c.countKind(t, "pets", "chunk"); n != 2 {
			t.Fatalf("%d chunks after deleting a, want 2", n)
		}
		if _, err := c.Get(ctx, "pets", "a"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("Get of a deleted document: %v", err)
		}
		vh, _ = c.Vector(ctx, []string{"pets"}, q, Filter{}, 5)
		for _, h := range vh {
			if h.ID == "a" {
				t.Fatalf("deleted document found by vector search: %+v", vh)
			}
		}
		// A document the cluster rejects is reported, the others stored.
		bad := Document{ID: "bad", Fields: map[string][]any{"year": {"not a number"}}}
		failed, err = c.Ingest(ctx, "pets", []Document{bad, basicDocs()[0]})
		if err != nil || len(failed) != 1 || failed[0].ID != "bad" || !errors.Is(failed[0].Err, ErrInvalid) {
			t.Fatalf("Ingest with a bad document: %+v %v", failed, err)
		}
		if n, _ := c.Count(ctx, []string{"pets"}, Filter{}); n != 3 {
			t.Fatalf("Count after partial ingest = %d, want 3", n)
		}
	})
}

// countKind counts the entries of a kind in a collection.
func (c *Client) countKind(t *testing.T, coll, kind string) int64 {
	t.Helper()
	var r struct {
		Count int64 `json:"count"`
	}
	body := map[string]any{"query": map[string]any{"term": map[string]any{fKind: kind}}}
	if err := c.doJSON(context.Background(), "POST", "/"+c.alias(coll)+"/_count", nil, body, &r); err != nil {
		t.Fatal(err)
	}
	return r.Count
}

func TestMultiCollectionKeyword(t *testing.T) {
	forEachNode(t, func(t *testing.T, c *Client) {
		ctx := testCtx(t)
		for _, coll := range []string{"one", "two"} {
			if err := c.CreateCollection(ctx, coll, basicSchema); err != nil {
				t.Fatal(err)
			}
		}
		docs := basicDocs()
		if _, err := c.Ingest(ctx, "one", docs[:1]); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Ingest(ctx, "two", docs[1:]); err != nil {
			t.Fatal(err)
		}
		res, err := c.Keyword(ctx, []string{"one", "two"}, []QueryTerm{{"cat", 1}}, Filter{}, 10)
		if err != nil {
			t.Fatal(err)
		}
		// Statistics span both collections, as on the embedded engine.
		if res.Stats.Docs != 3 || res.Stats.DocFreq["cat"] != 2 || len(res.Hits) != 2 {
			t.Fatalf("multi-collection keyword: %+v", res)
		}
		if res.Hits[0].Collection != "one" || res.Hits[1].Collection != "two" {
			t.Fatalf("collections of hits: %+v", res.Hits)
		}
	})
}

func TestAliasSwap(t *testing.T) {
	forEachNode(t, func(t *testing.T, c *Client) {
		ctx := testCtx(t)
		if err := c.CreateCollection(ctx, "gen", basicSchema); err != nil {
			t.Fatal(err)
		}
		if _, err := c.Ingest(ctx, "gen", basicDocs()); err != nil {
			t.Fatal(err)
		}
		idx, err := c.NewGeneration(ctx, "gen", basicSchema)
		if err != nil || idx != c.genIndex("gen", 2) {
			t.Fatalf("NewGeneration = %q, %v", idx, err)
		}
		if failed, err := c.IngestInto(ctx, idx, basicDocs()[2:]); err != nil || len(failed) > 0 {
			t.Fatal(failed, err)
		}
		if n, _ := c.Count(ctx, []string{"gen"}, Filter{}); n != 3 {
			t.Fatalf("Count before swap = %d, want 3 (old generation)", n)
		}
		if err := c.SwapGeneration(ctx, "gen", idx); err != nil {
			t.Fatal(err)
		}
		if n, _ := c.Count(ctx, []string{"gen"}, Filter{}); n != 1 {
			t.Fatalf("Count after swap = %d, want 1", n)
		}
		gens, err := c.generations(ctx, "gen")
		if err != nil || !slices.Equal(gens, []string{idx}) {
			t.Fatalf("generations after swap = %v, %v", gens, err)
		}
		// Writes go to the new generation.
		if _, err := c.Ingest(ctx, "gen", basicDocs()[:1]); err != nil {
			t.Fatal(err)
		}
		if n, _ := c.Count(ctx, []string{"gen"}, Filter{}); n != 2 {
			t.Fatalf("Count after ingest = %d, want 2", n)
		}
		if err := c.SwapGeneration(ctx, "other", idx); !errors.Is(err, ErrInvalid) {
			t.Fatalf("swap to another collection's index: %v", err)
		}
	})
}

// proxy forwards loopback TCP connections to a node until closed.
type proxy struct {
	ln    net.Listener
	mu    sync.Mutex
	conns []net.Conn
}

func newProxy(t *testing.T, target string) *proxy {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &proxy{ln: ln}
	go func() {
		for {
			in, err := ln.Accept()
			if err != nil {
				return
			}
			out, err := net.Dial("tcp", target)
			if err != nil {
				in.Close()
				continue
			}
			p.mu.Lock()
			p.conns = append(p.conns, in, out)
			p.mu.Unlock()
			go func() { _, _ = io.Copy(out, in); out.Close() }()
			go func() { _, _ = io.Copy(in, out); in.Close() }()
		}
	}()
	t.Cleanup(p.close)
	return p
}

func (p *proxy) close() {
	p.ln.Close()
	p.mu.Lock()
	for _, c := range p.conns {
		c.Close()
	}
	p.mu.Unlock()
}

func TestNodeDown(t *testing.T) {
	forEachNode(t, func(t *testing.T, direct *Client) {
		ctx := testCtx(t)
		target := direct.base.Host
		p := newProxy(t, target)
		cfg := direct.cfg
		cfg.URL = "http://" + p.ln.Addr().String()
		c, err := New(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CreateCollection(ctx, "down", basicSchema); err != nil {
			t.Fatal(err)
		}
		p.close() // the node is gone from the client's point of view
		t0 := time.Now()
		_, err = c.Ingest(ctx, "down", basicDocs())
		var ce *errs.Error
		if !errors.Is(err, ErrUnavailable) || !errors.As(err, &ce) {
			t.Fatalf("ingest with the node down: %v, want ErrUnavailable", err)
		}
		if d := time.Since(t0); d > 10*time.Second {
			t.Fatalf("reporting the node down took %s", d)
		}
		t.Logf("node down: %v", err)
		if _, err := c.Keyword(ctx, []string{"down"}, []QueryTerm{{"cat", 1}}, Filter{}, 10); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("search with the node down: %v", err)
		}
		if _, err := New(ctx, cfg); !errors.Is(err, ErrUnavailable) {
			t.Fatalf("New with the node down: %v", err)
		}
	})
}

func TestNewRejectsBadConfig(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{"", "ftp://x", "http://"} {
		if _, err := New(ctx, Config{URL: u}); !errors.Is(err, ErrInvalid) {
			t.Errorf("New(%q) = %v, want ErrInvalid", u, err)
		}
	}
	if _, err := New(ctx, Config{URL: "https://127.0.0.1:1", CAFile: "/nonexistent"}); !errors.Is(err, ErrInvalid) {
		t.Errorf("missing CA file: %v", err)
	}
}

// TestNodeLostMidIngest cuts the node off during a multi-batch ingest: the
// call fails with ErrUnavailable, names the documents not stored, and every
// other document is stored.
func TestNodeLostMidIngest(t *testing.T) {
	forEachNode(t, func(t *testing.T, direct *Client) {
		ctx := testCtx(t)
		p := newProxy(t, direct.base.Host)
		cfg := direct.cfg
		cfg.URL = "http://" + p.ln.Addr().String()
		cfg.BulkDocs = 20 // 10 documents of one chunk per bulk request
		c, err := New(ctx, cfg)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.CreateCollection(ctx, "mid", basicSchema); err != nil {
			t.Fatal(err)
		}
		var docs []Document
		for i := range 200 {
			docs = append(docs, Document{ID: fmt.Sprintf("d%03d", i), Terms: map[string]float32{"w": 1}, Length: 1,
				Chunks: []Chunk{{Vector: unit(1, float32(i), 0, 1)}}})
		}
		// Cut the node off while the ingest runs.
		go func() {
			defer p.close()
			for range 3000 {
				var r struct {
					Count int64 `json:"count"`
				}
				body := map[string]any{"query": map[string]any{"term": map[string]any{fKind: "doc"}}}
				if direct.doJSON(ctx, "POST", "/"+direct.alias("mid")+"/_count", nil, body, &r) == nil && r.Count >= 30 {
					return
				}
				time.Sleep(20 * time.Millisecond)
			}
		}()
		failed, ingestErr := c.Ingest(ctx, "mid", docs)
		if err := ingestErr; !errors.Is(err, ErrUnavailable) {
			t.Fatalf("ingest with the node lost: %v, want ErrUnavailable", err)
		}
		bad := map[string]bool{}
		for _, f := range failed {
			bad[f.ID] = true
		}
		if len(bad) == 0 || len(bad) == len(docs) {
			t.Fatalf("%d of %d documents reported failed, want some", len(bad), len(docs))
		}
		// Every document not reported failed is stored and searchable
		// (the node itself stayed up, so ask it directly).
		stored, err := direct.FilterIDs(ctx, "mid", Filter{})
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if !bad[d.ID] && !slices.Contains(stored, d.ID) {
				t.Fatalf("document %s was acknowledged but is not stored", d.ID)
			}
		}
		t.Logf("node lost mid-ingest: %d acknowledged, %d reported failed: %v", len(docs)-len(bad), len(bad), ingestErr)
		// Retrying the failed documents on the node stores them all.
		var retry []Document
		for _, d := range docs {
			if bad[d.ID] {
				retry = append(retry, d)
			}
		}
		if f, err := direct.Ingest(ctx, "mid", retry); err != nil || len(f) > 0 {
			t.Fatal(f, err)
		}
		if n, _ := direct.Count(ctx, []string{"mid"}, Filter{}); n != int64(len(docs)) {
			t.Fatalf("Count after retry = %d, want %d", n, len(docs))
		}
		if n := direct.countKind(t, "mid", "chunk"); n != int64(len(docs)) {
			t.Fatalf("%d chunks after retry, want %d", n, len(docs))
		}
	})
}
