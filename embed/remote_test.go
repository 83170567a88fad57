package embed

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer is an OpenAI-compatible /v1/embeddings endpoint whose vector
// for an input is [len(input), 1, 0, …] (dims long), answered in reverse
// order with explicit indexes. fail decides the HTTP status of each call
// (0 answers normally).
type fakeServer struct {
	mu      sync.Mutex
	calls   int
	batches []int
	inputs  []string
	auth    []string
	dims    int
	fail    func(call int) (status int, delay time.Duration)
	done    chan struct{} // closed when the test ends, to release delays
}

func (f *fakeServer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	call := f.calls
	f.calls++
	f.auth = append(f.auth, r.Header.Get("Authorization"))
	f.mu.Unlock()
	if r.URL.Path != "/v1/embeddings" || r.Method != http.MethodPost {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	if f.fail != nil {
		status, delay := f.fail(call)
		if delay > 0 {
			select {
			case <-time.After(delay):
			case <-r.Context().Done():
				return
			case <-f.done:
				return
			}
		}
		if status != 0 {
			if status == http.StatusTooManyRequests {
				w.Header().Set("Retry-After", "0")
			}
			http.Error(w, fmt.Sprintf("failure %d", call), status)
			return
		}
	}
	var req remoteRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil || req.Model != "test-model" {
		http.Error(w, "bad request", http.StatusBadRequest)
		return
	}
	f.mu.Lock()
	f.batches = append(f.batches, len(req.Input))
	f.inputs = append(f.inputs, req.Input...)
	f.mu.Unlock()
	type item struct {
		Index     int       `json:"index"`
		Embedding []float32 `json:"embedding"`
	}
	var data []item
	for i := len(req.Input) - 1; i >= 0; i-- {
		v := make([]float32, f.dims)
		v[0], v[1] = float32(len(req.Input[i])), 1
		data = append(data, item{i, v})
	}
	json.NewEncoder(w).Encode(map[string]any{"object": "list", "data": data})
}

// callCount returns the number of requests received so far.
func (f *fakeServer) callCount() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.calls
}

func newFake(t *testing.T, f *fakeServer) (*httptest.Server, *fakeServer) {
	t.Helper()
	if f.dims == 0 {
		f.dims = 4
	}
	f.done = make(chan struct{})
	srv := httptest.NewServer(f)
	t.Cleanup(srv.Close)
	t.Cleanup(func() { close(f.done) })
	return srv, f
}

func TestRemoteBatchingAndOrder(t *testing.T) {
	srv, f := newFake(t, &fakeServer{})
	r, err := NewRemote(RemoteConfig{URL: srv.URL + "/", Model: "test-model", APIKey: "secret", BatchSize: 3, PassagePrefix: "p: "})
	if err != nil {
		t.Fatal(err)
	}
	texts := []string{"a", "bb", "ccc", "dddd", "eeeee", "ffffff", "g"}
	vecs, err := r.EmbedPassages(context.Background(), texts)
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(f.batches); got != "[3 3 1]" {
		t.Errorf("batches %s, want [3 3 1]", got)
	}
	for i, s := range texts {
		n := float64(len(s) + 3)
		want := n / math.Sqrt(n*n+1)
		if len(vecs[i]) != 4 || math.Abs(float64(vecs[i][0])-want) > 1e-6 {
			t.Errorf("vector %d = %v, want first %.4f (normalized, in input order)", i, vecs[i], want)
		}
	}
	if f.inputs[0] != "p: a" || f.auth[0] != "Bearer secret" {
		t.Errorf("input %q, auth %q", f.inputs[0], f.auth[0])
	}
	if r.Dims() != 4 || r.Name() != "remote:test-model" {
		t.Errorf("Dims %d, Name %s", r.Dims(), r.Name())
	}
}

func TestRemoteRetries(t *testing.T) {
	tests := []struct {
		name      string
		fail      func(int) (int, time.Duration)
		retries   int
		timeout   time.Duration
		wantErr   error
		wantCalls int
		wantMsg   string
	}{
		{"500 then ok", func(c int) (int, time.Duration) {
			if c < 2 {
				return 500, 0
			}
			return 0, 0
		}, 3, 0, nil, 3, ""},
		{"429 then ok", func(c int) (int, time.Duration) {
			if c == 0 {
				return 429, 0
			}
			return 0, 0
		}, 3, 0, nil, 2, ""},
		{"always 503", func(int) (int, time.Duration) { return 503, 0 }, 2, 0, ErrRemote, 3, "no usable answer"},
		{"400 not retried", func(int) (int, time.Duration) { return 400, 0 }, 3, 0, ErrRemote, 1, "no usable answer"},
		{"timeout then ok", func(c int) (int, time.Duration) {
			if c == 0 {
				return 0, 2 * time.Second
			}
			return 0, 0
		}, 3, 200 * time.Millisecond, nil, 2, ""},
		{"always timeout", func(int) (int, time.Duration) { return 0, 2 * time.Second }, 1, 100 * time.Millisecond, ErrRemote, 2, "no answer in time"},
		{"no retries", func(int) (int, time.Duration) { return 500, 0 }, -1, 0, ErrRemote, 1, "no usable answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv, f := newFake(t, &fakeServer{fail: tt.fail})
			r, err := NewRemote(RemoteConfig{URL: srv.URL, Model: "test-model", MaxRetries: tt.retries,
				Timeout: tt.timeout, Backoff: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.EmbedQueries(context.Background(), []string{"x", "y"})
			if !errors.Is(err, tt.wantErr) || (tt.wantErr == nil) != (err == nil) {
				t.Fatalf("err %v, want %v", err, tt.wantErr)
			}
			if err != nil && (!strings.Contains(err.Error(), srv.URL+"/v1/embeddings") || !strings.Contains(err.Error(), tt.wantMsg)) {
				t.Errorf("error %q does not name the endpoint and %q", err, tt.wantMsg)
			}
			if err != nil && strings.Contains(err.Error(), "failure") {
				t.Errorf("error %q echoes the endpoint's answer", err)
			}
			if tt.name == "always timeout" && !errors.Is(err, context.DeadlineExceeded) {
				t.Errorf("a timeout is not context.DeadlineExceeded: %v", err)
			}
			if n := f.callCount(); n != tt.wantCalls {
				t.Errorf("%d calls, want %d", n, tt.wantCalls)
			}
		})
	}
}

func TestRemoteBadResponses(t *testing.T) {
	tests := []struct {
		name string
		body string
		want string
	}{
		{"count", `{"data":[{"index":0,"embedding":[1,2]}]}`, "no usable answer"},
		{"dims", `{"data":[{"index":0,"embedding":[1,2]},{"index":1,"embedding":[1,2,3]}]}`, "3 dims, want 2"},
		{"index", `{"data":[{"index":0,"embedding":[1,2]},{"index":0,"embedding":[1,2]}]}`, "no usable answer"},
		{"json", `{"data":`, "no usable answer"},
		{"html", `<html>SECRET-PAGE</html>`, "no usable answer"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			r, err := NewRemote(RemoteConfig{URL: srv.URL + "/v1", Model: "m", Backoff: time.Millisecond})
			if err != nil {
				t.Fatal(err)
			}
			_, err = r.EmbedPassages(context.Background(), []string{"a", "b"})
			if !errors.Is(err, ErrRemote) || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "SECRET") {
				t.Errorf("err %v, want ErrRemote containing %q", err, tt.want)
			}
		})
	}
}

func TestRemoteConfigErrors(t *testing.T) {
	tests := []RemoteConfig{
		{URL: "", Model: "m"},
		{URL: "localhost:1234", Model: "m"},
		{URL: "http://localhost:1234"},
		{URL: "http://localhost:1234", Model: "m", Dims: -1},
		{URL: "http://localhost:1234/admin?x=", Model: "m"},
		{URL: "http://localhost:1234/admin#", Model: "m"},
		{URL: "http://user:pw@localhost:1234", Model: "m"},
		{URL: "http://2130706433", Model: "m"},
	}
	for _, cfg := range tests {
		if _, err := NewRemote(cfg); !errors.Is(err, ErrInvalidConfig) {
			t.Errorf("NewRemote(%+v) err %v, want ErrInvalidConfig", cfg, err)
		}
	}
}

func TestRemoteContextCancel(t *testing.T) {
	srv, _ := newFake(t, &fakeServer{fail: func(int) (int, time.Duration) { return 0, 5 * time.Second }})
	r, err := NewRemote(RemoteConfig{URL: srv.URL, Model: "test-model"})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := r.EmbedQueries(ctx, []string{"x"}); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("err %v, want context deadline", err)
	}
}

func TestRemoteConfigJSON(t *testing.T) {
	in := `{"url":"http://localhost:11434","model":"nomic-embed-text","dims":768,"query_prefix":"search_query: ","timeout_ms":1500,"batch_size":16,"max_retries":2}`
	var cfg RemoteConfig
	if err := json.Unmarshal([]byte(in), &cfg); err != nil {
		t.Fatal(err)
	}
	want := RemoteConfig{URL: "http://localhost:11434", Model: "nomic-embed-text", Dims: 768,
		QueryPrefix: "search_query: ", Timeout: 1500 * time.Millisecond, BatchSize: 16, MaxRetries: 2}
	if cfg != want {
		t.Fatalf("decoded %+v\nwant %+v", cfg, want)
	}
	out, err := json.Marshal(cfg)
	if err != nil {
		t.Fatal(err)
	}
	var back RemoteConfig
	if err := json.Unmarshal(out, &back); err != nil || back != cfg {
		t.Errorf("round trip %s → %+v, %v", out, back, err)
	}
	if err := json.Unmarshal([]byte(`{"url":"http://x","modle":"typo"}`), &cfg); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("unknown key: err %v, want ErrInvalidConfig", err)
	}
	// Keys are never marshalled, and no environment variable can be named.
	keyed := want
	keyed.APIKey = "sk-secret"
	if out, _ := json.Marshal(keyed); strings.Contains(string(out), "sk-secret") {
		t.Errorf("the key is marshalled: %s", out)
	}
	if err := json.Unmarshal([]byte(`{"url":"http://x","model":"m","api_key_env":"HOME"}`), &cfg); !errors.Is(err, ErrInvalidConfig) {
		t.Errorf("api_key_env: err %v, want ErrInvalidConfig", err)
	}
}

func TestRemoteEndpoint(t *testing.T) {
	tests := []struct{ url, want string }{
		{"http://gpu-box:8000", "http://gpu-box:8000/v1/embeddings"},
		{"http://gpu-box:8000/", "http://gpu-box:8000/v1/embeddings"},
		{"http://GPU-box:8000/v1", "http://gpu-box:8000/v1/embeddings"},
		{"http://gpu-box:8000/v1/", "http://gpu-box:8000/v1/embeddings"},
		{"http://gpu-box:8000/v1/embeddings", "http://gpu-box:8000/v1/embeddings"},
		{"https://proxy.example.com/openai", "https://proxy.example.com/openai/v1/embeddings"},
	}
	for _, tt := range tests {
		r, err := NewRemote(RemoteConfig{URL: tt.url, Model: "m"})
		if err != nil {
			t.Errorf("NewRemote(%q): %v", tt.url, err)
			continue
		}
		if r.Endpoint() != tt.want {
			t.Errorf("NewRemote(%q).Endpoint() = %q, want %q", tt.url, r.Endpoint(), tt.want)
		}
	}
}

// TestRemoteNoRedirect: a redirect is an unusable answer, not followed
// (it could lead the request, with its key, elsewhere).
func TestRemoteNoRedirect(t *testing.T) {
	target, f := newFake(t, &fakeServer{})
	redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, target.URL+"/v1/embeddings", http.StatusTemporaryRedirect)
	}))
	defer redirect.Close()
	r, err := NewRemote(RemoteConfig{URL: redirect.URL, Model: "test-model", APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.EmbedQueries(context.Background(), []string{"x"}); !errors.Is(err, ErrRemote) {
		t.Errorf("err %v, want ErrRemote", err)
	}
	if n := f.callCount(); n != 0 {
		t.Errorf("the redirect was followed (%d calls)", n)
	}
}
