package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client calls one najdi server. Its fields may be set before first use;
// it is safe for concurrent use afterwards.
type Client struct {
	// BaseURL is the server's address, e.g. http://127.0.0.1:8080.
	BaseURL string
	// User and Password are sent as HTTP Basic credentials when User is
	// not empty.
	User, Password string
	// HTTP is the HTTP client (default: one without a timeout; bound
	// requests with their context).
	HTTP *http.Client
	// MaxRetries is how often a request answered 429 or 503 is sent again
	// after the server's Retry-After (default 8; negative: never).
	MaxRetries int
	// MaxRetryWait caps one wait between retries (default 30 s).
	MaxRetryWait time.Duration
}

// New returns a client of the server at baseURL.
func New(baseURL string) *Client {
	return &Client{BaseURL: strings.TrimRight(baseURL, "/"), HTTP: &http.Client{}, MaxRetries: 8, MaxRetryWait: 30 * time.Second}
}

// Error is an error answer of the API.
type Error struct {
	// StatusCode is the HTTP status.
	StatusCode int
	// Code is the API's error code (invalid_request, not_found, ...).
	Code string
	// Message says what is wrong and how to fix it.
	Message string
	// Details holds the error's details (the field at fault, a limit).
	Details map[string]any
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration
}

// Error returns the code, the status and the message.
func (e *Error) Error() string {
	if e.Code == "" {
		return fmt.Sprintf("HTTP %d: %s", e.StatusCode, e.Message)
	}
	return fmt.Sprintf("%s (HTTP %d): %s", e.Code, e.StatusCode, e.Message)
}

// IsNotFound reports whether err is a 404 answer.
func IsNotFound(err error) bool { return statusOf(err) == http.StatusNotFound }

// IsUnauthorized reports whether err is a 401 or 403 answer.
func IsUnauthorized(err error) bool {
	s := statusOf(err)
	return s == http.StatusUnauthorized || s == http.StatusForbidden
}

func statusOf(err error) int {
	var e *Error
	if errors.As(err, &e) {
		return e.StatusCode
	}
	return 0
}

// request is one API call.
type request struct {
	method, path string
	query        url.Values
	ctype        string
	body         []byte
}

// do sends r, retrying overload answers, and decodes a 2xx JSON answer into
// out (when not nil). It returns the status code.
func (c *Client) do(ctx context.Context, r request, out any) (int, error) {
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	maxWait := c.MaxRetryWait
	if maxWait <= 0 {
		maxWait = 30 * time.Second
	}
	u := strings.TrimRight(c.BaseURL, "/") + r.path
	if len(r.query) > 0 {
		u += "?" + r.query.Encode()
	}
	for attempt := 0; ; attempt++ {
		req, err := http.NewRequestWithContext(ctx, r.method, u, bytes.NewReader(r.body))
		if err != nil {
			return 0, fmt.Errorf("%s %s: %w", r.method, r.path, err)
		}
		if r.body == nil {
			req.Body, req.ContentLength = nil, 0
		}
		if r.ctype != "" {
			req.Header.Set("Content-Type", r.ctype)
		}
		if c.User != "" {
			req.SetBasicAuth(c.User, c.Password)
		}
		resp, err := hc.Do(req)
		if err != nil {
			return 0, fmt.Errorf("%s %s: %w", r.method, r.path, err)
		}
		raw, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return resp.StatusCode, fmt.Errorf("%s %s: read the answer: %w", r.method, r.path, err)
		}
		if resp.StatusCode >= 200 && resp.StatusCode < 300 {
			if out != nil && len(raw) > 0 {
				if err := json.Unmarshal(raw, out); err != nil {
					return resp.StatusCode, fmt.Errorf("%s %s: decode the answer: %w", r.method, r.path, err)
				}
			}
			return resp.StatusCode, nil
		}
		apiErr := decodeError(resp, raw)
		retry := c.MaxRetries
		if retry == 0 {
			retry = 8
		}
		if (resp.StatusCode == http.StatusTooManyRequests || resp.StatusCode == http.StatusServiceUnavailable) && attempt < retry {
			wait := apiErr.RetryAfter
			if wait <= 0 {
				wait = time.Duration(1<<min(attempt, 5)) * time.Second / 2
			}
			wait = min(wait, maxWait)
			select {
			case <-ctx.Done():
				return resp.StatusCode, fmt.Errorf("%s %s: %w", r.method, r.path, ctx.Err())
			case <-time.After(wait):
			}
			continue
		}
		return resp.StatusCode, apiErr
	}
}

func decodeError(resp *http.Response, raw []byte) *Error {
	e := &Error{StatusCode: resp.StatusCode}
	if s := resp.Header.Get("Retry-After"); s != "" {
		if n, err := strconv.Atoi(s); err == nil {
			e.RetryAfter = time.Duration(n) * time.Second
		}
	}
	var body struct {
		Error struct {
			Code    string         `json:"code"`
			Message string         `json:"message"`
			Details map[string]any `json:"details"`
		} `json:"error"`
	}
	if json.Unmarshal(raw, &body) == nil && body.Error.Message != "" {
		e.Code, e.Message, e.Details = body.Error.Code, body.Error.Message, body.Error.Details
		return e
	}
	e.Message = strings.TrimSpace(string(raw))
	if len(e.Message) > 300 {
		e.Message = e.Message[:300] + "…"
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}

func jsonRequest(method, path string, v any) (request, error) {
	raw, err := json.Marshal(v)
	if err != nil {
		return request{}, fmt.Errorf("%s %s: encode the request: %w", method, path, err)
	}
	return request{method: method, path: path, ctype: "application/json", body: raw}, nil
}

// Health checks that the server is up (GET /health).
func (c *Client) Health(ctx context.Context) error {
	_, err := c.do(ctx, request{method: "GET", path: "/health"}, nil)
	return err
}
