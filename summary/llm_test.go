package summary

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// fakeChat is a local OpenAI-compatible chat completions server. It
// records the last request and answers with handle.
type fakeChat struct {
	last     chatRequest
	auth     string
	requests atomic.Int32
	handle   func(w http.ResponseWriter, r *http.Request)
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.requests.Add(1)
	if r.Method != http.MethodPost || r.URL.Path != "/v1/chat/completions" {
		http.Error(w, "not found", http.StatusNotFound)
		return
	}
	f.auth = r.Header.Get("Authorization")
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	f.last = req
	f.handle(w, r)
}

func reply(text string) func(http.ResponseWriter, *http.Request) {
	return func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		json.NewEncoder(w).Encode(map[string]any{
			"choices": []any{map[string]any{"index": 0, "message": map[string]string{"role": "assistant", "content": text}}},
		})
	}
}

// TestLLMAnswer drives the generated-answer path end to end and checks the
// prompt: its messages, the question, the numbered summaries, the budget
// and the exact prompt token count.
func TestLLMAnswer(t *testing.T) {
	docs := loadSciFact(t, 8)
	f := &fakeChat{handle: reply("  Diffusion rises in preterm infants [1].  ")}
	srv := httptest.NewServer(f)
	defer srv.Close()
	question := "How does white matter diffusion change in preterm infants?"
	for _, tk := range testTokenizers(t) {
		for _, budget := range []int{120, 400, 3000} {
			l := &LLM{URL: srv.URL + "/", Model: "test-model", APIKey: "sk-test"}
			cfg := Config{MaxTokens: budget, Tokenizer: tk}
			got, err := l.Answer(context.Background(), question, docs, cfg)
			if err != nil {
				t.Fatalf("%s/%d: %v", tk.Name(), budget, err)
			}
			if got.Answer != "Diffusion rises in preterm infants [1]." {
				t.Errorf("answer %q", got.Answer)
			}
			req := f.last
			if req.Model != "test-model" || f.auth != "Bearer sk-test" || len(req.Messages) != 2 ||
				req.Messages[0].Role != "system" || req.Messages[0].Content != SystemPrompt || req.Messages[1].Role != "user" {
				t.Fatalf("%s/%d: bad request %+v auth %q", tk.Name(), budget, req, f.auth)
			}
			user := req.Messages[1].Content
			if !strings.HasPrefix(user, "Question: "+question+"\n\nDocuments:") {
				t.Errorf("user message does not start with the question: %q", user)
			}
			// The exact chat-format size, recomputed from what the server got.
			want := 3 + tk.Count("system") + tk.Count(req.Messages[0].Content) + 3 + tk.Count("user") + tk.Count(user) + 3
			if got.PromptTokens != want || want > budget {
				t.Errorf("%s/%d: PromptTokens %d, recomputed %d, budget %d", tk.Name(), budget, got.PromptTokens, want, budget)
			}
			if len(got.Sources) == 0 || len(got.Sources) != got.Summary.SummaryCount {
				t.Fatalf("%s/%d: sources %v, summary count %d", tk.Name(), budget, got.Sources, got.Summary.SummaryCount)
			}
			for i, s := range got.Summary.Summaries {
				head := "[" + string(rune('1'+i)) + "] (document " + s.DocumentID + ")\n" + s.Content
				if !strings.Contains(user, head) {
					t.Errorf("%s/%d: prompt lacks summary %d of %s", tk.Name(), budget, i+1, s.DocumentID)
				}
			}
			if budget == 3000 && got.Summary.SummaryCount != len(docs) {
				t.Errorf("budget 3000 holds %d of %d documents", got.Summary.SummaryCount, len(docs))
			}
		}
	}
}

func TestLLMErrors(t *testing.T) {
	docs := loadSciFact(t, 3)
	tests := []struct {
		name    string
		handle  func(http.ResponseWriter, *http.Request)
		cfg     Config
		docs    []Doc
		url     string // overrides the test server
		want    error
		wantMsg string
		noCall  bool
	}{
		{name: "status 500", handle: func(w http.ResponseWriter, _ *http.Request) {
			w.WriteHeader(http.StatusInternalServerError)
			w.Write([]byte(`{"error": {"message": "model overloaded"}}`))
		}, want: ErrUpstream, wantMsg: "status 500"},
		{name: "status 401", handle: func(w http.ResponseWriter, _ *http.Request) {
			http.Error(w, "bad key sk-abc***xyz", http.StatusUnauthorized)
		}, want: ErrUpstream, wantMsg: "status 401"},
		{name: "timeout", handle: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }, want: ErrUpstreamTimeout, wantMsg: "no answer within"},
		{name: "malformed body", handle: func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte("{not json")) }, want: ErrUpstream, wantMsg: "decode response"},
		{name: "no choices", handle: func(w http.ResponseWriter, _ *http.Request) { w.Write([]byte(`{"choices": []}`)) }, want: ErrUpstream, wantMsg: "no answer"},
		{name: "connection refused", url: "http://127.0.0.1:1", want: ErrUpstream, wantMsg: "127.0.0.1:1", noCall: true},
		{name: "budget too small", cfg: Config{MaxTokens: 40}, want: ErrInvalid, wantMsg: "cannot hold", noCall: true},
		{name: "no URL", url: "-", want: ErrInvalid, noCall: true},
		{name: "query in URL", url: "http://127.0.0.1:1/x?y=", want: ErrInvalid, noCall: true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := &fakeChat{handle: tc.handle}
			srv := httptest.NewServer(f)
			defer srv.Close()
			l := &LLM{URL: srv.URL, Timeout: 200 * time.Millisecond}
			switch tc.url {
			case "":
			case "-":
				l.URL = ""
			default:
				l.URL = tc.url
			}
			d := docs
			if tc.docs != nil {
				d = tc.docs
			}
			_, err := l.Answer(context.Background(), "Does diffusion change?", d, tc.cfg)
			if !errors.Is(err, tc.want) {
				t.Fatalf("error %v, want %v", err, tc.want)
			}
			if !strings.Contains(err.Error(), tc.wantMsg) {
				t.Errorf("error %q does not mention %q", err, tc.wantMsg)
			}
			if strings.Contains(err.Error(), "overloaded") || strings.Contains(err.Error(), "sk-") {
				t.Errorf("error %q quotes the endpoint's answer", err)
			}
			if tc.url == "" && !tc.noCall && !strings.Contains(err.Error(), srv.URL) {
				t.Errorf("error %q does not name the URL", err)
			}
			if tc.noCall && f.requests.Load() != 0 {
				t.Errorf("%d requests sent, want none", f.requests.Load())
			}
		})
	}
}

// TestLLMNoDocuments: a question without retrieved documents is answered
// NoAnswer without calling the model.
func TestLLMNoDocuments(t *testing.T) {
	f := &fakeChat{handle: reply("invented")}
	srv := httptest.NewServer(f)
	defer srv.Close()
	for _, docs := range [][]Doc{nil, {{ID: "empty", Sections: []Section{{Type: "text", Content: " \n"}}}}} {
		got, err := (&LLM{URL: srv.URL}).Answer(context.Background(), "Is the moon made of cheese?", docs, Config{})
		if err != nil || got.Answer != NoAnswer || len(got.Sources) != 0 || f.requests.Load() != 0 {
			t.Errorf("%d docs: got %+v, %v, %d requests", len(docs), got, err, f.requests.Load())
		}
	}
}

// TestLLMDeadline: the caller's deadline, shorter than the timeout, ends
// the call with ErrUpstreamTimeout.
func TestLLMDeadline(t *testing.T) {
	srv := httptest.NewServer(&fakeChat{handle: func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() }})
	defer srv.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := (&LLM{URL: srv.URL, Timeout: time.Minute}).Answer(ctx, "Does diffusion change?", loadSciFact(t, 2), Config{})
	if !errors.Is(err, ErrUpstreamTimeout) {
		t.Fatalf("error %v, want ErrUpstreamTimeout", err)
	}
}
