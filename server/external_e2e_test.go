package server_test

import (
	"encoding/json"
	"hash/fnv"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeChat is a local OpenAI-compatible chat server standing in for a
// user's LLM endpoint (the only kind of fake our tests use: an external
// service a user brings). It records the prompts it receives.
type fakeChat struct {
	mu      sync.Mutex
	prompts []string
	mode    string // "", "error", "slow"
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.URL.Path != "/v1/chat/completions" {
		http.NotFound(w, r)
		return
	}
	var req struct {
		Model    string                           `json:"model"`
		Messages []struct{ Role, Content string } `json:"messages"`
	}
	json.NewDecoder(r.Body).Decode(&req)
	f.mu.Lock()
	mode := f.mode
	for _, m := range req.Messages {
		f.prompts = append(f.prompts, m.Content)
	}
	f.mu.Unlock()
	switch mode {
	case "error":
		w.WriteHeader(500)
		w.Write([]byte(`{"error": {"message": "model overloaded"}}`))
		return
	case "slow":
		time.Sleep(3 * time.Second)
	}
	json.NewEncoder(w).Encode(map[string]any{"choices": []any{map[string]any{"message": map[string]any{"role": "assistant", "content": "Generated: Prague is the capital."}}}})
}

func TestLLMAnswers(t *testing.T) {
	chat := &fakeChat{}
	srv := httptest.NewServer(chat)
	defer srv.Close()
	n := start(t, "", "--no-embeddings", "--llm-url", srv.URL, "--llm-model", "test-model", "--llm-timeout", "1s")
	keywordCollection(t, n, "kb", "")
	ingestOK(t, n.postJSON("/v1/collections/kb/documents", `{"documents": [
	  {"document_id": "cz", "sections": [{"type": "title", "content": "Czechia"}, {"type": "p", "content": "Prague is the capital and largest city of Czechia. It lies on the Vltava river."}]},
	  {"document_id": "sk", "sections": [{"type": "title", "content": "Slovakia"}, {"type": "p", "content": "Bratislava is the capital of Slovakia."}]}]}`))
	r := must(t, n.postJSON("/v1/collections/kb/answer", `{"query": "What is the capital of Czechia?", "summary_config": {"max_tokens": 300}}`), 200).json(t)
	if r["answer"] != "Generated: Prague is the capital." {
		t.Fatalf("answer %v", r["answer"])
	}
	meta := r["metadata"].(map[string]any)
	pt := int(meta["tokens"].(map[string]any)["prompt_tokens"].(float64))
	if pt <= 0 || pt > 300 {
		t.Fatalf("prompt_tokens %d outside (0, 300]", pt)
	}
	chat.mu.Lock()
	all := strings.Join(chat.prompts, "\n")
	chat.mu.Unlock()
	if !strings.Contains(all, "What is the capital of Czechia?") || !strings.Contains(all, "Prague is the capital") {
		t.Fatalf("the prompt lacks the question or the summaries: %s", all)
	}
	chat.mu.Lock()
	chat.mode = "error"
	chat.mu.Unlock()
	if r := n.postJSON("/v1/collections/kb/answer", `{"query": "capital of Czechia"}`); r.status != 502 || r.errorCode(t) != "bad_gateway" || strings.Contains(string(r.body), "overloaded") {
		t.Fatalf("upstream error (502, not quoting the endpoint's answer): %d %s", r.status, r.body)
	}
	chat.mu.Lock()
	chat.mode = "slow"
	chat.mu.Unlock()
	if r := n.postJSON("/v1/collections/kb/answer", `{"query": "capital of Czechia"}`); r.status != 504 || r.errorCode(t) != "gateway_timeout" {
		t.Fatalf("upstream timeout: %d %s", r.status, r.body)
	}
	// A question nothing answers gets an answer that says so.
	chat.mu.Lock()
	chat.mode = ""
	chat.mu.Unlock()
	r = must(t, n.postJSON("/v1/collections/kb/answer", `{"query": "zzqx wwvy"}`), 200).json(t)
	if a, _ := r["answer"].(string); !strings.Contains(strings.ToLower(a), "no relevant") {
		t.Fatalf("answer without relevant documents: %q", a)
	}
}

// fakeEmbeddings is a local OpenAI-compatible /v1/embeddings server standing
// in for a user's embedding service. Its vectors are bags of hashed words,
// so texts sharing words are similar.
func fakeEmbeddings(calls *int, mu *sync.Mutex) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		var req struct {
			Model string   `json:"model"`
			Input []string `json:"input"`
		}
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil || r.URL.Path != "/v1/embeddings" {
			http.Error(w, "bad request", 400)
			return
		}
		mu.Lock()
		*calls++
		mu.Unlock()
		var data []any
		for i, in := range req.Input {
			v := make([]float64, 16)
			for _, word := range strings.Fields(strings.ToLower(in)) {
				h := fnv.New32a()
				h.Write([]byte(strings.Trim(word, ".,?!")))
				v[h.Sum32()%16]++
			}
			var norm float64
			for _, x := range v {
				norm += x * x
			}
			for j := range v {
				v[j] /= math.Sqrt(norm) + 1e-9
			}
			data = append(data, map[string]any{"index": i, "embedding": v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data, "model": req.Model})
	}
}

func TestRemoteEmbeddings(t *testing.T) {
	var calls int
	var mu sync.Mutex
	srv := httptest.NewServer(fakeEmbeddings(&calls, &mu))
	defer srv.Close()
	n := start(t, "", "--allow-outbound", strings.TrimPrefix(srv.URL, "http://"))
	must(t, n.putJSON("/v1/collections/remote", `{"embedding_config": {"model": {"url": "`+srv.URL+`", "model": "bag-of-words", "dims": 16}}}`), 201)
	ingestOK(t, n.postJSON("/v1/collections/remote/documents", `{"documents": [
	  {"document_id": "a", "sections": [{"type": "p", "content": "red apples and green pears"}]},
	  {"document_id": "b", "sections": [{"type": "p", "content": "fast trains between cities"}]}]}`))
	sr := search(t, n, "/v1/collections/remote/search", `{"query": "pears apples", "max_results": 2}`)
	if len(sr.Documents) == 0 || sr.Documents[0].DocumentID != "a" {
		t.Fatalf("remote-embedded search ranked %v", ids(sr))
	}
	mu.Lock()
	got := calls
	mu.Unlock()
	if got < 2 {
		t.Fatalf("the embedding server was called %d times, want ingest + query", got)
	}
	// An upstream answering vectors of another length than the collection
	// declares is a bad upstream: 502 naming both lengths, nothing stored.
	must(t, n.putJSON("/v1/collections/wrongdims", `{"embedding_config": {"model": {"url": "`+srv.URL+`", "model": "bag-of-words", "dims": 9}}}`), 201)
	r := n.postJSON("/v1/collections/wrongdims/documents", `{"documents": [{"document_id": "a", "sections": [{"type": "p", "content": "red apples"}]}]}`)
	if r.status != 502 || !strings.Contains(string(r.body), "16") || !strings.Contains(string(r.body), "9") {
		t.Fatalf("an upstream of 16 dims for a collection of 9: %d %s, want 502 naming both", r.status, r.body)
	}
	if c := must(t, n.getJSON("/v1/collections/wrongdims"), 200); !strings.Contains(string(c.body), `"document_count":0`) {
		t.Fatalf("a failed ingest stored documents: %s", c.body)
	}
	srv.Close()
	if r := n.postJSON("/v1/collections/remote/search", `{"query": "pears"}`); r.status != 502 {
		t.Fatalf("a dead embedding server must answer 502, got %d %s", r.status, r.body)
	}
}

func TestOperationalEndpoints(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "ops", "")
	ingestOK(t, n.postJSON("/v1/collections/ops/documents", `{"documents": [{"document_id": "a", "sections": [{"type": "p", "content": "hello"}]}]}`))
	must(t, n.getJSON("/health"), 200)
	m := string(must(t, n.getJSON("/metrics"), 200).body)
	for _, want := range []string{`najdi_http_requests_total{route="/v1/collections/{id}/documents",method="POST",code="200"} 1`, "najdi_http_request_duration_seconds_bucket", `najdi_documents{owner="",collection="ops"} 1`, "najdi_ingest_bytes_total", "\nnajdi_vector_offheap_bytes 0\n"} {
		if !strings.Contains(m, want) {
			t.Errorf("metrics lack %q", want)
		}
	}
	var doc map[string]any
	if err := json.Unmarshal(must(t, n.getJSON("/v1/openapi.json"), 200).body, &doc); err != nil || doc["openapi"] == nil {
		t.Fatalf("openapi.json: %v", err)
	}
}
