package peers

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strconv"
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
// vector from Embed. Every vector is kept with its JSON encoding, made on
// first sight, so that a text asked for again costs the stub a map lookup
// and a copy: najdi's timed ingest follows a warm-up ingest of the same
// documents (in a server of its own) that has the stub embed and encode
// every chunk najdi will ask for, as the peers receive vectors computed
// before the timed load. Misses counts the passages embedded since the
// last ResetMisses (zero for a fair timed ingest).
type Stub struct {
	// URL is the base URL, http://127.0.0.1:PORT.
	URL string

	srv     *http.Server
	mu      sync.Mutex
	queries map[string][]byte // query text → JSON of its vector
	cache   map[string][]byte // passage text → JSON of its vector
	embed   Embedder
	misses  int
}

// StartStub serves the stub on a free loopback port.
func StartStub(queries []Query, embed Embedder) (*Stub, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("stub: %w", err)
	}
	s := &Stub{URL: "http://" + l.Addr().String(), cache: map[string][]byte{}, embed: embed}
	s.SetQueries(queries)
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/embeddings", s.handle)
	s.srv = &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = s.srv.Serve(l) }()
	return s, nil
}

// vectorJSON encodes v as a JSON array of float32 in their shortest form.
func vectorJSON(v []float32) []byte {
	b := make([]byte, 0, len(v)*12+2)
	b = append(b, '[')
	for i, x := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = strconv.AppendFloat(b, float64(x), 'g', -1, 32)
	}
	return append(b, ']')
}

// SetQueries replaces the known queries.
func (s *Stub) SetQueries(queries []Query) {
	m := make(map[string][]byte, len(queries))
	for _, q := range queries {
		m[q.Text] = vectorJSON(q.Vector)
	}
	s.mu.Lock()
	s.queries = m
	s.mu.Unlock()
}

// SetEmbedder replaces the passage embedder and forgets the passage
// vectors made by the previous one.
func (s *Stub) SetEmbedder(e Embedder) {
	s.mu.Lock()
	s.embed = e
	s.cache = map[string][]byte{}
	s.mu.Unlock()
}

// Misses returns the number of passages embedded since the last
// ResetMisses (or the start).
func (s *Stub) Misses() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.misses
}

// ResetMisses sets the count of Misses to zero.
func (s *Stub) ResetMisses() {
	s.mu.Lock()
	s.misses = 0
	s.mu.Unlock()
}

// ForgetPassages drops the passage vectors made so far (the queries'
// stay): once najdi's ingests of a workload are done, nothing asks for
// them again, and on a large workload they are gigabytes of the
// benchmark's memory on the machine the peers' loads then share.
func (s *Stub) ForgetPassages() {
	s.mu.Lock()
	s.cache = map[string][]byte{}
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
	out := make([][]byte, len(inputs))
	var miss []string
	var at []int
	s.mu.Lock()
	embed := s.embed
	for i, t := range inputs {
		if v, ok := s.queries[t]; ok {
			out[i] = v
		} else if v, ok := s.cache[t]; ok {
			out[i] = v
		} else {
			miss = append(miss, t)
			at = append(at, i)
		}
	}
	s.mu.Unlock()
	if len(miss) > 0 {
		vs, err := embed(miss, false)
		if err != nil {
			http.Error(w, "embed: "+err.Error(), http.StatusInternalServerError)
			return
		}
		s.mu.Lock()
		for j, v := range vs {
			out[at[j]] = vectorJSON(v)
			s.cache[miss[j]] = out[at[j]]
		}
		s.misses += len(miss)
		s.mu.Unlock()
	}
	model, _ := json.Marshal(req.Model)
	size := 64 + len(model)
	for _, v := range out {
		size += len(v) + 48
	}
	b := make([]byte, 0, size)
	b = append(b, `{"object":"list","data":[`...)
	for i, v := range out {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"object":"embedding","index":`...)
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, `,"embedding":`...)
		b = append(b, v...)
		b = append(b, '}')
	}
	b = append(b, `],"model":`...)
	b = append(b, model...)
	b = append(b, "}\n"...)
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(b)))
	_, _ = w.Write(b)
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
