package summary

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/najdi/najdi/internal/outbound"
)

// DefaultLLMTimeout bounds an LLM call when LLM.Timeout is 0.
const DefaultLLMTimeout = 30 * time.Second

// SystemPrompt is the system message of every generated answer.
const SystemPrompt = "You answer questions using only the numbered documents given by the user. " +
	"Cite the documents you use by their number in brackets, e.g. [1]. " +
	"If the documents do not contain the answer, say that no relevant documents were found; never invent facts."

// Chat-format overhead of the OpenAI chat API, as counted in OpenAI's
// cookbook ("How to count tokens with tiktoken") for current models: every
// message costs tokensPerMessage plus the tokens of its role and content,
// and the reply is primed with replyPriming tokens.
const (
	tokensPerMessage = 3
	replyPriming     = 3
)

// LLM generates answers with an OpenAI-compatible chat completions API:
// POST {URL}/v1/chat/completions. Its fields are the operator's
// configuration; nothing in a request changes them.
type LLM struct {
	// URL is the API base address, e.g. "http://localhost:8000": a plain
	// http(s) URL without user information, query or fragment, to which
	// the path is appended with path.Join.
	URL string
	// Model is the model name sent in each request.
	Model string
	// APIKey, when set, is sent as a bearer token.
	APIKey string
	// Timeout bounds one call (default DefaultLLMTimeout).
	Timeout time.Duration
	// Client sends the requests (default: a new http.Client).
	Client *http.Client
	// Logger receives the start of error answers, which errors leave out
	// (an answer may quote the key or internal details); default
	// slog.Default().
	Logger *slog.Logger
}

// chatMessage is one message of a chat completion request.
type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

// chatRequest is the body of POST /v1/chat/completions.
type chatRequest struct {
	Model       string        `json:"model,omitempty"`
	Messages    []chatMessage `json:"messages"`
	Temperature float64       `json:"temperature"`
}

// chatResponse is the part of the completion response we read.
type chatResponse struct {
	Choices []struct {
		Message chatMessage `json:"message"`
	} `json:"choices"`
	Error *struct {
		Message string `json:"message"`
	} `json:"error"`
}

// PromptTokens returns the exact token count of messages in the chat
// format: the sum over messages of tokensPerMessage + tokens(role) +
// tokens(content), plus replyPriming.
func PromptTokens(t Tokenizer, system, user string) int {
	return 2*tokensPerMessage + t.Count("system") + t.Count(system) + t.Count("user") + t.Count(user) + replyPriming
}

// userPrompt renders the user message: the question and the numbered
// summaries.
func userPrompt(question string, sums []Summary) string {
	var b strings.Builder
	b.WriteString("Question: ")
	b.WriteString(question)
	b.WriteString("\n\nDocuments:")
	for i, s := range sums {
		fmt.Fprintf(&b, "\n\n[%d] (document %s)\n%s", i+1, s.DocumentID, s.Content)
	}
	return b.String()
}

// Prompt builds the chat prompt for question: SystemPrompt and a user
// message holding the question and the numbered summaries of docs, the
// whole prompt (PromptTokens) within cfg.MaxTokens. It returns the user
// message, the summarization used and the prompt's token count. A budget
// that cannot hold the question and one excerpt fails with ErrInvalid.
func Prompt(question string, docs []Doc, cfg Config) (string, Result, int, error) {
	cfg, err := cfg.withDefaults()
	if err != nil {
		return "", Result{}, 0, err
	}
	budget := cfg.MaxTokens
	overhead := PromptTokens(cfg.Tokenizer, SystemPrompt, userPrompt(question, nil))
	// The numbering costs tokens per included document, so binary search
	// the largest summary budget whose prompt fits.
	var (
		bestUser string
		bestRes  Result
		bestN    int
	)
	lo, hi := 1, budget-overhead
	for lo <= hi {
		room := (lo + hi) / 2
		sc := cfg
		sc.MaxTokens = room
		r, err := Summarize(question, docs, sc, false)
		if err != nil {
			return "", Result{}, 0, err
		}
		user := userPrompt(question, r.Summaries)
		n := PromptTokens(cfg.Tokenizer, SystemPrompt, user)
		if n <= budget && r.SummaryCount > 0 {
			bestUser, bestRes, bestN = user, r, n
			lo = room + 1
		} else if n <= budget {
			lo = room + 1 // nothing fits yet: more room
		} else {
			hi = room - 1
		}
	}
	if bestRes.SummaryCount == 0 {
		return "", Result{}, 0, fmt.Errorf("max_tokens %d cannot hold the question (%d prompt tokens) and an excerpt: %w", budget, overhead, ErrInvalid)
	}
	return bestUser, bestRes, bestN, nil
}

// Answer generates an answer to question from the summaries of docs (the
// retrieved documents in rank order). The prompt is built by Prompt within
// cfg.MaxTokens; with no documents (or none with text) the answer is
// NoAnswer and no request is sent. Errors wrap ErrInvalid (bad configuration or budget),
// ErrUpstreamTimeout (no response within the timeout or the context's
// deadline) or ErrUpstream (transport error, non-2xx status, bad body), and
// name the URL.
func (l *LLM) Answer(ctx context.Context, question string, docs []Doc, cfg Config) (AnswerResult, error) {
	if l.URL == "" {
		return AnswerResult{}, fmt.Errorf("llm: no URL: %w", ErrInvalid)
	}
	if !hasText(docs) {
		return AnswerResult{Answer: NoAnswer}, nil
	}
	user, r, n, err := Prompt(question, docs, cfg)
	if err != nil {
		return AnswerResult{}, err
	}
	text, err := l.complete(ctx, []chatMessage{{"system", SystemPrompt}, {"user", user}})
	if err != nil {
		return AnswerResult{}, err
	}
	out := AnswerResult{Answer: text, PromptTokens: n, Summary: r}
	for _, s := range r.Summaries {
		out.Sources = append(out.Sources, Source{DocumentID: s.DocumentID, CollectionID: s.CollectionID})
	}
	return out, nil
}

// maxErrorBody bounds how much of an error response is read for the log.
const maxErrorBody = 512

// complete sends one chat completion request and returns the reply.
func (l *LLM) complete(ctx context.Context, msgs []chatMessage) (string, error) {
	base, err := outbound.ParseURL(l.URL)
	if err != nil {
		return "", fmt.Errorf("llm url: %w: %w", err, ErrInvalid)
	}
	url := outbound.JoinPath(base, "v1/chat/completions").String()
	body, err := json.Marshal(chatRequest{Model: l.Model, Messages: msgs})
	if err != nil {
		return "", fmt.Errorf("llm %s: encode request: %w", url, err)
	}
	timeout := l.Timeout
	if timeout <= 0 {
		timeout = DefaultLLMTimeout
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return "", fmt.Errorf("llm %s: %w: %w", url, err, ErrInvalid)
	}
	req.Header.Set("Content-Type", "application/json")
	if l.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+l.APIKey)
	}
	client := l.Client
	if client == nil {
		client = &http.Client{}
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", upstreamError(ctx, url, timeout, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		var cr chatResponse
		if json.Unmarshal(msg, &cr) == nil && cr.Error != nil && cr.Error.Message != "" {
			msg = []byte(cr.Error.Message)
		}
		l.logger().Warn("llm call failed", "url", url, "status", resp.StatusCode, "answer", outbound.Summarize(msg))
		return "", fmt.Errorf("llm %s: status %d: %w", url, resp.StatusCode, ErrUpstream)
	}
	var cr chatResponse
	if err := json.NewDecoder(resp.Body).Decode(&cr); err != nil {
		l.logger().Warn("llm answer undecodable", "url", url, "error", err)
		return "", upstreamError(ctx, url, timeout, errors.New("decode response"))
	}
	if len(cr.Choices) == 0 || strings.TrimSpace(cr.Choices[0].Message.Content) == "" {
		return "", fmt.Errorf("llm %s: response holds no answer: %w", url, ErrUpstream)
	}
	return strings.TrimSpace(cr.Choices[0].Message.Content), nil
}

func (l *LLM) logger() *slog.Logger {
	if l.Logger != nil {
		return l.Logger
	}
	return slog.Default()
}

// upstreamError classifies a failed call: a timeout or deadline wraps
// ErrUpstreamTimeout, anything else ErrUpstream.
func upstreamError(ctx context.Context, url string, timeout time.Duration, err error) error {
	var ne net.Error
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()) {
		return fmt.Errorf("llm %s: no answer within %s: %w", url, timeout, ErrUpstreamTimeout)
	}
	return fmt.Errorf("llm %s: %w: %w", url, err, ErrUpstream)
}

// hasText reports whether any document has non-space text.
func hasText(docs []Doc) bool {
	for _, d := range docs {
		for _, s := range d.Sections {
			if strings.TrimSpace(s.Content) != "" {
				return true
			}
		}
	}
	return false
}
