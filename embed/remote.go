package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"math/rand/v2"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/najdi/najdi/internal/outbound"
)

// RemoteConfig configures an OpenAI-compatible embeddings endpoint (OpenAI,
// Ollama, TEI, vLLM). Zero values select the defaults.
type RemoteConfig struct {
	// URL is the server's base URL, e.g. "http://localhost:11434"; requests
	// go to {URL}/v1/embeddings. A URL whose path already ends in /v1 or
	// /v1/embeddings is used as given. It must be a plain http(s) URL: no
	// user information, query or fragment (which could cancel the path
	// appended to it).
	URL string
	// Model is the model name sent in each request.
	Model string
	// APIKey is sent as a bearer token; empty sends no Authorization
	// header. It comes from the server's own configuration, never from a
	// client, and is neither marshalled nor part of any error.
	APIKey string
	// Dims is the expected vector length; 0 learns it from the first
	// response. Responses of another length are errors.
	Dims int
	// MaxTokens is the model's input limit reported by MaxTokens (default
	// 512); the server truncates.
	MaxTokens int
	// QueryPrefix and PassagePrefix are prepended to queries and passages.
	QueryPrefix, PassagePrefix string
	// Timeout bounds one HTTP attempt (default 30s).
	Timeout time.Duration
	// BatchSize is the most inputs per request (default 64).
	BatchSize int
	// MaxRetries is the number of retries after a failed attempt on 429,
	// 5xx, timeouts and connection errors (default 3; negative means none).
	MaxRetries int
	// Backoff is the first retry delay, doubled on each retry with jitter
	// and capped at 10s (default 500ms). A Retry-After header in seconds
	// overrides it, within the same cap.
	Backoff time.Duration
	// Client sends the requests; default an http.Client that does not
	// follow redirects. A server calling endpoints its clients name passes
	// one that dials only allowed hosts (internal/outbound).
	Client *http.Client
	// Logger receives the details of failed calls (status, the start of
	// the answer, the transport error), which errors leave out; default
	// slog.Default().
	Logger *slog.Logger
}

// Validate reports whether the configuration is usable.
func (c RemoteConfig) Validate() error {
	if _, err := outbound.ParseURL(c.URL); err != nil {
		return fmt.Errorf("remote url: %w: %w", err, ErrInvalidConfig)
	}
	switch {
	case c.Model == "":
		return fmt.Errorf("remote %s: empty model: %w", c.URL, ErrInvalidConfig)
	case c.Dims < 0 || c.MaxTokens < 0 || c.Timeout < 0 || c.BatchSize < 0 || c.Backoff < 0:
		return fmt.Errorf("remote %s: negative dims, max tokens, timeout, batch size or backoff: %w", c.URL, ErrInvalidConfig)
	}
	return nil
}

// Remote is an Embedder backed by an OpenAI-compatible /v1/embeddings
// endpoint. Vectors are L2-normalized on arrival. Remote is safe for
// concurrent use.
type Remote struct {
	cfg      RemoteConfig
	endpoint string
	apiKey   string
	client   *http.Client
	dims     atomic.Int64
}

var _ Embedder = (*Remote)(nil)

const maxBackoff = 10 * time.Second

// NewRemote validates cfg and returns a Remote. It does not contact the
// server.
func NewRemote(cfg RemoteConfig) (*Remote, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	if cfg.MaxTokens == 0 {
		cfg.MaxTokens = 512
	}
	if cfg.Timeout == 0 {
		cfg.Timeout = 30 * time.Second
	}
	if cfg.BatchSize == 0 {
		cfg.BatchSize = 64
	}
	if cfg.MaxRetries == 0 {
		cfg.MaxRetries = 3
	} else if cfg.MaxRetries < 0 {
		cfg.MaxRetries = 0
	}
	if cfg.Backoff == 0 {
		cfg.Backoff = 500 * time.Millisecond
	}
	if cfg.Client == nil {
		cfg.Client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	}
	if cfg.Logger == nil {
		cfg.Logger = slog.Default()
	}
	r := &Remote{cfg: cfg, client: cfg.Client, apiKey: cfg.APIKey}
	base, _ := outbound.ParseURL(cfg.URL) // checked by Validate
	switch {
	case strings.HasSuffix(base.Path, "/v1/embeddings"):
		r.endpoint = base.String()
	case strings.HasSuffix(base.Path, "/v1"):
		r.endpoint = outbound.JoinPath(base, "embeddings").String()
	default:
		r.endpoint = outbound.JoinPath(base, "v1/embeddings").String()
	}
	r.dims.Store(int64(cfg.Dims))
	return r, nil
}

// Name returns "remote:" followed by the model name.
func (r *Remote) Name() string { return "remote:" + r.cfg.Model }

// Dims returns the configured or learned vector length (0 before the first
// response when not configured).
func (r *Remote) Dims() int { return int(r.dims.Load()) }

// MaxTokens returns the configured input limit.
func (r *Remote) MaxTokens() int { return r.cfg.MaxTokens }

// BatchSize returns the most inputs sent per request.
func (r *Remote) BatchSize() int { return r.cfg.BatchSize }

// Endpoint returns the URL requests are sent to.
func (r *Remote) Endpoint() string { return r.endpoint }

// EmbedQueries embeds texts with the query prefix.
func (r *Remote) EmbedQueries(ctx context.Context, texts []string) ([][]float32, error) {
	return r.embed(ctx, r.cfg.QueryPrefix, texts)
}

// EmbedPassages embeds texts with the passage prefix.
func (r *Remote) EmbedPassages(ctx context.Context, texts []string) ([][]float32, error) {
	return r.embed(ctx, r.cfg.PassagePrefix, texts)
}

func (r *Remote) embed(ctx context.Context, prefix string, texts []string) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for lo := 0; lo < len(texts); lo += r.cfg.BatchSize {
		batch := texts[lo:min(lo+r.cfg.BatchSize, len(texts))]
		if prefix != "" {
			p := make([]string, len(batch))
			for i, s := range batch {
				p[i] = prefix + s
			}
			batch = p
		}
		vecs, err := r.embedBatch(ctx, batch)
		if err != nil {
			return nil, err
		}
		out = append(out, vecs...)
	}
	return out, nil
}

type remoteRequest struct {
	Model string   `json:"model"`
	Input []string `json:"input"`
}

type remoteResponse struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float32 `json:"embedding"`
	} `json:"data"`
}

// retryable is an attempt failure worth retrying.
type retryable struct {
	err   error
	after time.Duration // from Retry-After, 0 if absent
}

func (e *retryable) Error() string { return e.err.Error() }
func (e *retryable) Unwrap() error { return e.err }

// embedBatch sends one request, retrying transient failures. A failed call
// answers "remote {endpoint}: no usable answer" (or "no answer in time")
// whatever the cause — a refused connection, an error status and a
// malformed body alike, so that the endpoint's answers and the state of
// its ports do not reach the client — and the cause goes to the log.
func (r *Remote) embedBatch(ctx context.Context, texts []string) ([][]float32, error) {
	body, err := json.Marshal(remoteRequest{Model: r.cfg.Model, Input: texts})
	if err != nil {
		return nil, fmt.Errorf("remote %s: encode request: %w", r.endpoint, err)
	}
	delay := r.cfg.Backoff
	for attempt := 0; ; attempt++ {
		vecs, err := r.attempt(ctx, body, len(texts))
		if err == nil {
			return vecs, nil
		}
		var ce *outbound.CallError
		if errors.As(err, &ce) {
			r.cfg.Logger.Warn("remote embedding call failed", "endpoint", r.endpoint, "attempt", attempt+1, "detail", ce.Detail)
		}
		var re *retryable
		if !errors.As(err, &re) || attempt >= r.cfg.MaxRetries || ctx.Err() != nil {
			return nil, err
		}
		wait := delay/2 + rand.N(delay/2+1)
		if re.after > 0 {
			wait = re.after
		}
		wait = min(wait, maxBackoff)
		delay = min(2*delay, maxBackoff)
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("remote %s: %w", r.endpoint, ctx.Err())
		case <-t.C:
		}
	}
}

// maxResponse bounds the size of an embeddings answer.
const maxResponse = 256 << 20

// attempt makes one HTTP request and decodes n vectors.
func (r *Remote) attempt(ctx context.Context, body []byte, n int) ([][]float32, error) {
	actx, cancel := context.WithTimeout(ctx, r.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(actx, http.MethodPost, r.endpoint, bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("remote %s: %w: %w", r.endpoint, ErrRemote, err)
	}
	req.Header.Set("Content-Type", "application/json")
	if r.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+r.apiKey)
	}
	fail := func(ce *outbound.CallError) error {
		return fmt.Errorf("remote %s: %w: %w", r.endpoint, ce, ErrRemote)
	}
	resp, err := outbound.Do(r.client, req)
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("remote %s: %w", r.endpoint, ctx.Err()) // the caller's context, not a transient failure
		}
		var ce *outbound.CallError
		if errors.As(err, &ce) {
			return nil, &retryable{err: fail(ce)}
		}
		return nil, fmt.Errorf("remote %s: %w: %w", r.endpoint, err, ErrRemote)
	}
	defer resp.Body.Close()
	// Sized from Content-Length when the endpoint sends one: a batch's
	// answer is megabytes, which io.ReadAll would copy a dozen times.
	var buf bytes.Buffer
	if cl := resp.ContentLength; cl > 0 && cl <= maxResponse {
		buf.Grow(int(cl) + bytes.MinRead)
	}
	_, err = buf.ReadFrom(io.LimitReader(resp.Body, maxResponse+1))
	data := buf.Bytes()
	if err != nil {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("remote %s: %w", r.endpoint, ctx.Err())
		}
		return nil, &retryable{err: fail(outbound.ReadError(actx, err))}
	}
	if resp.StatusCode != http.StatusOK {
		ce := outbound.StatusError(resp, data)
		if resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode >= 500 {
			return nil, &retryable{err: fail(ce), after: ce.RetryAfter}
		}
		return nil, fail(ce)
	}
	if len(data) > maxResponse {
		return nil, fail(outbound.Malformed("answer larger than %d bytes", maxResponse))
	}
	items, ok := parseEmbeddings(data)
	if !ok {
		var rr remoteResponse
		if err := json.Unmarshal(data, &rr); err != nil {
			return nil, fail(outbound.Malformed("decode answer: %v: %s", err, outbound.Summarize(data)))
		}
		items = make([]remoteItem, len(rr.Data))
		for i, d := range rr.Data {
			items[i].vec = d.Embedding
			if d.Index != nil {
				items[i].index, items[i].hasIndex = *d.Index, true
			}
		}
	}
	if len(items) != n {
		return nil, fail(outbound.Malformed("%d embeddings for %d inputs", len(items), n))
	}
	out := make([][]float32, n)
	for pos, d := range items {
		i := pos // servers that omit index answer in input order
		if d.hasIndex {
			i = d.index
		}
		if i < 0 || i >= n || out[i] != nil {
			return nil, fail(outbound.Malformed("bad or repeated index %d", i))
		}
		dims := int(r.dims.Load())
		if dims == 0 {
			r.dims.CompareAndSwap(0, int64(len(d.vec)))
			dims = int(r.dims.Load())
		}
		if len(d.vec) == 0 || len(d.vec) != dims {
			return nil, fmt.Errorf("remote %s: embedding of %d dims, want %d: %w", r.endpoint, len(d.vec), dims, ErrRemote)
		}
		normalize(d.vec)
		out[i] = d.vec
	}
	return out, nil
}

// remoteConfigJSON is the JSON form of RemoteConfig. It has no API key:
// keys come from the server's configuration.
type remoteConfigJSON struct {
	URL           string `json:"url"`
	Model         string `json:"model"`
	Dims          int    `json:"dims,omitempty"`
	MaxTokens     int    `json:"max_tokens,omitempty"`
	QueryPrefix   string `json:"query_prefix,omitempty"`
	PassagePrefix string `json:"passage_prefix,omitempty"`
	TimeoutMS     int64  `json:"timeout_ms,omitempty"`
	BatchSize     int    `json:"batch_size,omitempty"`
	MaxRetries    int    `json:"max_retries,omitempty"`
	BackoffMS     int64  `json:"backoff_ms,omitempty"`
}

// MarshalJSON encodes the configuration with snake_case keys and durations
// in milliseconds (timeout_ms, backoff_ms); APIKey, Client and Logger are
// left out.
func (c RemoteConfig) MarshalJSON() ([]byte, error) {
	return json.Marshal(remoteConfigJSON{
		URL: c.URL, Model: c.Model, Dims: c.Dims, MaxTokens: c.MaxTokens,
		QueryPrefix: c.QueryPrefix, PassagePrefix: c.PassagePrefix, TimeoutMS: c.Timeout.Milliseconds(),
		BatchSize: c.BatchSize, MaxRetries: c.MaxRetries, BackoffMS: c.Backoff.Milliseconds(),
	})
}

// UnmarshalJSON decodes the form MarshalJSON writes; unknown keys
// (api_key_env among them) are errors wrapping ErrInvalidConfig.
func (c *RemoteConfig) UnmarshalJSON(data []byte) error {
	var j remoteConfigJSON
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&j); err != nil {
		return fmt.Errorf("remote embedding config: %w: %w", ErrInvalidConfig, err)
	}
	*c = RemoteConfig{
		URL: j.URL, Model: j.Model, Dims: j.Dims, MaxTokens: j.MaxTokens,
		QueryPrefix: j.QueryPrefix, PassagePrefix: j.PassagePrefix, Timeout: time.Duration(j.TimeoutMS) * time.Millisecond,
		BatchSize: j.BatchSize, MaxRetries: j.MaxRetries, Backoff: time.Duration(j.BackoffMS) * time.Millisecond,
	}
	return nil
}
