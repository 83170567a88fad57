package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sort"
	"sync"
	"time"
)

// Embedder returns the vectors of texts; query tells whether they are
// queries (najdi's remote endpoint cannot say so: the stub knows the
// benchmark's queries by their text).
type Embedder func(texts []string, query bool) ([][]float32, error)

// Stub is a local OpenAI-compatible /v1/embeddings endpoint that answers
// najdi with the benchmark's precomputed vectors: the texts of the
// benchmark's queries get their query vectors, any other text its passage
// vector from Embed (a lookup, or a computation cached by the caller).
type Stub struct {
	// URL is the base URL, http://127.0.0.1:PORT.
	URL string

	srv     *http.Server
	queries map[string][]float32
	embed   Embedder
	mu      sync.Mutex
}

// StartStub serves the stub on a free loopback port.
func StartStub(queries []Query, embed Embedder) (*Stub, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("stub: %w", err)
	}
	s := &Stub{URL: "http://" + l.Addr().String(), queries: map[string][]float32{}, embed: embed}
	s.SetQueries(queries)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/embeddings", s.handle)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

// SetQueries replaces the known queries.
func (s *Stub) SetQueries(queries []Query) {
	m := make(map[string][]float32, len(queries))
	for _, q := range queries {
		m[q.Text] = q.Vector
	}
	s.mu.Lock()
	s.queries = m
	s.mu.Unlock()
}

// SetEmbedder replaces the passage embedder.
func (s *Stub) SetEmbedder(e Embedder) {
	s.mu.Lock()
	s.embed = e
	s.mu.Unlock()
}

type stubRequest struct {
	Input json.RawMessage `json:"input"`
	Model string          `json:"model"`
}

type stubItem struct {
	Object    string    `json:"object"`
	Index     int       `json:"index"`
	Embedding []float32 `json:"embedding"`
}

func (s *Stub) handle(w http.ResponseWriter, r *http.Request) {
	var req stubRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, "bad request: "+err.Error(), http.StatusBadRequest)
		return
	}
	var inputs []string
	if err := json.Unmarshal(req.Input, &inputs); err != nil {
		var one string
		if err := json.Unmarshal(req.Input, &one); err != nil {
			http.Error(w, "input: want a string or an array of strings", http.StatusBadRequest)
			return
		}
		inputs = []string{one}
	}
	s.mu.Lock()
	queries, embed := s.queries, s.embed
	s.mu.Unlock()
	out := make([]stubItem, len(inputs))
	var miss []string
	var at []int
	for i, t := range inputs {
		out[i] = stubItem{Object: "embedding", Index: i}
		if v, ok := queries[t]; ok {
			out[i].Embedding = v
			continue
		}
		miss = append(miss, t)
		at = append(at, i)
	}
	if len(miss) > 0 {
		vs, err := embed(miss, false)
		if err != nil {
			http.Error(w, "embed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		for j, v := range vs {
			out[at[j]].Embedding = v
		}
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": out, "model": req.Model})
}

// RoundTrip measures the median time of n one-query calls to the stub from
// this process: what najdi's server-side time includes on top of its own
// work for a query (najdi embeds one query per search).
func (s *Stub) RoundTrip(ctx context.Context, q string, n int) (time.Duration, error) {
	ds := make([]time.Duration, 0, n)
	for i := 0; i < n; i++ {
		t0 := time.Now()
		if err := doJSON(ctx, http.MethodPost, s.URL+"/v1/embeddings", map[string]any{"input": []string{q}, "model": "precomputed"}, nil); err != nil {
			return 0, err
		}
		ds = append(ds, time.Since(t0))
	}
	sort.Slice(ds, func(i, j int) bool { return ds[i] < ds[j] })
	return ds[len(ds)/2], nil
}

// Close stops the stub.
func (s *Stub) Close() error { return s.srv.Close() }
