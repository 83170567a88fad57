package peers

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
)

// TestPreparedBuildsOnce: a request is built once per key and shared by
// concurrent callers afterwards; a failed build is not kept.
func TestPreparedBuildsOnce(t *testing.T) {
	var p prepared
	builds := 0
	key := queryKey{"i", Keyword, "q1", 10}
	for range 3 {
		v, err := p.get(key, func() (any, error) { builds++; return []byte("body"), nil })
		if err != nil || string(v.([]byte)) != "body" {
			t.Fatalf("get = %v, %v", v, err)
		}
	}
	if builds != 1 {
		t.Fatalf("built %d times, want 1", builds)
	}
	other := queryKey{"i", Hybrid, "q1", 10}
	if _, err := p.get(other, func() (any, error) { return nil, io.ErrUnexpectedEOF }); err == nil {
		t.Fatal("a failed build returned no error")
	}
	v, err := p.get(other, func() (any, error) { return []byte("hybrid"), nil })
	if err != nil || string(v.([]byte)) != "hybrid" {
		t.Fatalf("after a failed build: %v, %v", v, err)
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, _ := p.get(key, func() (any, error) { return []byte("other"), nil }); string(v.([]byte)) != "body" {
				t.Errorf("concurrent get = %q", v)
			}
		}()
	}
	wg.Wait()
}

// TestDoJSONRawAnswer: a *[]byte receives the answer undecoded, and the
// request body is sent as given.
func TestDoJSONRawAnswer(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		w.Write(append([]byte(`{"echo":`), append(b, '}')...))
	}))
	defer srv.Close()
	var raw []byte
	if err := doJSON(context.Background(), http.MethodPost, srv.URL, []byte(`{"q":1}`), &raw); err != nil {
		t.Fatal(err)
	}
	if string(raw) != `{"echo":{"q":1}}` {
		t.Fatalf("answer %q", raw)
	}
}
