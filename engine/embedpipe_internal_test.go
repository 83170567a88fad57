package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// pipeEmbedder gives text "t<i>" the vector [i, 1]; a call whose first
// text is failOn fails, and a call sleeps a time that varies with its
// first text, so that concurrent calls finish out of order.
type pipeEmbedder struct {
	failOn          string
	dims            int
	calls, inFlight atomic.Int32
	maxInFlight     atomic.Int32
}

func (p *pipeEmbedder) Name() string { return "pipe" }
func (p *pipeEmbedder) Dims() int    { return p.dims }
func (p *pipeEmbedder) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return p.EmbedPassages(ctx, texts)
}

func (p *pipeEmbedder) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	p.calls.Add(1)
	n := p.inFlight.Add(1)
	defer p.inFlight.Add(-1)
	for m := p.maxInFlight.Load(); n > m && !p.maxInFlight.CompareAndSwap(m, n); m = p.maxInFlight.Load() {
	}
	i, _ := strconv.Atoi(strings.TrimPrefix(texts[0], "t"))
	select {
	case <-time.After(time.Duration(7-i%7) * time.Millisecond):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	if texts[0] == p.failOn {
		return nil, errors.New("endpoint down")
	}
	out := make([][]float32, len(texts))
	for j, t := range texts {
		k, _ := strconv.Atoi(strings.TrimPrefix(t, "t"))
		out[j] = []float32{float32(k), 1}
		if p.dims == 3 && k == 5 {
			out[j] = append(out[j], 0, 0) // one wrong vector
		}
	}
	return out, nil
}

func pipeTexts(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = "t" + strconv.Itoa(i)
	}
	return out
}

// TestEmbedPipe feeds a pipe the texts of a flush in steps, as analyzeDoc
// does, and checks the vectors come back in chunk order, that a local
// model gets one call at a time, and that a failure or a wrong dimension
// is the flush's error.
func TestEmbedPipe(t *testing.T) {
	tests := []struct {
		name    string
		n       int
		failOn  string
		dims    int
		wantErr string
	}{
		{name: "empty", n: 0, dims: 2},
		{name: "one partial batch", n: 10, dims: 2},
		{name: "many batches", n: 5*embedBatch + 17, dims: 2},
		{name: "a call fails", n: 6 * embedBatch, failOn: "t" + strconv.Itoa(2*embedBatch), dims: 2, wantErr: `embedding model "pipe" failed`},
		{name: "wrong dimensions", n: 100, dims: 3, wantErr: "returned 2 dimensions, expected 3"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			emb := &pipeEmbedder{failOn: tt.failOn, dims: tt.dims}
			p := newEmbedPipe(context.Background(), emb)
			texts := pipeTexts(tt.n)
			for i := 0; i < len(texts); i += 13 {
				p.offer(texts[:i])
			}
			vecs, err := p.wait(texts)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) || !errors.Is(err, ErrUpstream) {
					t.Fatalf("err %v, want an upstream error containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(vecs) != tt.n {
				t.Fatalf("%d vectors for %d texts", len(vecs), tt.n)
			}
			for i, v := range vecs {
				if v[0] != float32(i) {
					t.Fatalf("vector %d is that of text %g", i, v[0])
				}
			}
			if want := (tt.n + embedBatch - 1) / embedBatch; int(emb.calls.Load()) != want {
				t.Errorf("%d calls, want %d", emb.calls.Load(), want)
			}
			if m := emb.maxInFlight.Load(); m > 1 {
				t.Errorf("%d calls in flight to a local model, want 1", m)
			}
		})
	}
}

// TestEmbedPipeRemote checks that a flush embedding through a remote
// endpoint sends requests of the endpoint's batch_size while it is still
// cutting chunks, keeps several in flight (at most remoteInFlight), and
// puts every vector at its chunk.
func TestEmbedPipeRemote(t *testing.T) {
	var mu sync.Mutex
	inFlight, maxInFlight, requests := 0, 0, 0
	sizes := map[int]int{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		mu.Lock()
		inFlight++
		requests++
		maxInFlight = max(maxInFlight, inFlight)
		sizes[len(req.Input)]++
		mu.Unlock()
		time.Sleep(20 * time.Millisecond)
		mu.Lock()
		inFlight--
		mu.Unlock()
		var b strings.Builder
		b.WriteString(`{"data":[`)
		for i, t := range req.Input {
			k, _ := strconv.Atoi(strings.TrimPrefix(t, "t"))
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"index":%d,"embedding":[%d,1]}`, i, k)
		}
		b.WriteString(`]}`)
		w.Write([]byte(b.String()))
	}))
	defer srv.Close()
	p := newModelProvider(nil, ProviderOptions{AllowOutbound: []string{strings.TrimPrefix(srv.URL, "http://")}})
	emb, err := p.Embedder(EmbeddingConfig{Remote: &RemoteEmbedding{URL: srv.URL, Model: "m", Dims: 2, BatchSize: 10}})
	if err != nil {
		t.Fatal(err)
	}
	pipe := newEmbedPipe(context.Background(), emb)
	texts := pipeTexts(95)
	pipe.offer(texts[:30])
	deadline := time.Now().Add(5 * time.Second)
	for {
		mu.Lock()
		n := requests
		mu.Unlock()
		if n > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("no request sent before the pipe was waited for")
		}
		time.Sleep(time.Millisecond)
	}
	pipe.offer(texts)
	vecs, err := pipe.wait(texts)
	if err != nil {
		t.Fatal(err)
	}
	for i, v := range vecs {
		// Vectors arrive L2-normalized: [i, 1]/‖·‖.
		if len(v) != 2 || v[1] <= 0 || int(v[0]/v[1]+0.5) != i {
			t.Fatalf("vector %d = %v", i, v)
		}
	}
	if sizes[10] != 9 || sizes[5] != 1 || len(sizes) != 2 {
		t.Errorf("request sizes %v, want 9 of 10 and 1 of 5", sizes)
	}
	if maxInFlight < 2 || maxInFlight > remoteInFlight {
		t.Errorf("%d requests in flight at most, want 2..%d", maxInFlight, remoteInFlight)
	}
}

// TestEmbedPipeCanceled checks that a flush whose context ends while its
// calls run fails with the context's error, not with vectors missing.
func TestEmbedPipeCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	emb := &pipeEmbedder{dims: 2}
	p := newEmbedPipe(ctx, emb)
	texts := pipeTexts(4 * embedBatch)
	p.offer(texts)
	cancel()
	if _, err := p.wait(texts); err == nil || !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}
