package outbound

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptrace"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
	"unicode"
	"unicode/utf8"
)

// CallError is a failed outbound call. Its message is one of two fixed
// phrases — it never holds what the upstream answered or why the
// connection failed, which would let a client scan ports and read
// internal services through the server — and Detail holds those for the
// operator's log.
type CallError struct {
	// Timeout is set when the connection was made but no answer came
	// before the request's deadline. A deadline that expires while
	// connecting is not a timeout: a filtered port must look like a closed
	// one.
	Timeout bool
	// Status is the HTTP status of an answer that was not usable (0 when
	// there was no answer).
	Status int
	// RetryAfter is the delay a 429 or 503 answer asked for in seconds
	// (0 when absent).
	RetryAfter time.Duration
	// Detail says what happened, for logs only: the transport error, or
	// the status and the start of the body (see Summarize).
	Detail string
}

// Error returns "no answer in time" or "no usable answer".
func (e *CallError) Error() string {
	if e.Timeout {
		return "no answer in time"
	}
	return "no usable answer"
}

// Unwrap returns ErrTimeout and context.DeadlineExceeded for a timeout,
// else ErrFailed.
func (e *CallError) Unwrap() []error {
	if e.Timeout {
		return []error{ErrTimeout, context.DeadlineExceeded}
	}
	return []error{ErrFailed}
}

// Do sends req with client. A transport failure returns a *CallError
// (Timeout set only when the deadline expired after a connection was
// obtained); a failure caused by the cancellation of the caller's own
// context is returned as the context's error. Any response is returned as
// is: the caller checks its status (StatusError) and its body (Malformed).
func Do(client *http.Client, req *http.Request) (*http.Response, error) {
	var connected atomic.Bool
	trace := &httptrace.ClientTrace{GotConn: func(httptrace.GotConnInfo) { connected.Store(true) }}
	ctx := req.Context()
	resp, err := client.Do(req.WithContext(httptrace.WithClientTrace(ctx, trace)))
	if err == nil {
		return resp, nil
	}
	if errors.Is(ctx.Err(), context.Canceled) {
		return nil, ctx.Err()
	}
	var ne net.Error
	timeout := ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
	return nil, &CallError{Timeout: timeout && connected.Load(), Detail: err.Error()}
}

// ReadError wraps an error met while reading a response body: a
// *CallError, with Timeout set when ctx's deadline expired.
func ReadError(ctx context.Context, err error) *CallError {
	var ne net.Error
	timeout := ctx.Err() != nil || errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
	return &CallError{Timeout: timeout, Detail: "read response: " + err.Error()}
}

// maxDetail bounds how much of an error body Detail quotes.
const maxDetail = 200

// StatusError returns the *CallError of a response whose status the
// caller cannot use, with the status, Retry-After in seconds and, in
// Detail, the status and the first 200 bytes of body summarized
// (Summarize). body is what the caller read; resp.Body is not read.
func StatusError(resp *http.Response, body []byte) *CallError {
	e := &CallError{Status: resp.StatusCode, Detail: fmt.Sprintf("HTTP %d: %s", resp.StatusCode, Summarize(body))}
	if s, err := strconv.Atoi(strings.TrimSpace(resp.Header.Get("Retry-After"))); err == nil && s >= 0 {
		e.RetryAfter = time.Duration(s) * time.Second
	}
	return e
}

// Malformed returns the *CallError of a 2xx answer the caller cannot use;
// detail says why, for the log.
func Malformed(format string, args ...any) *CallError {
	return &CallError{Detail: fmt.Sprintf(format, args...)}
}

// Summarize returns the first 200 bytes of an upstream answer for a log
// line: valid UTF-8, control characters and other non-printing runes
// replaced by '.', white space runs collapsed, "…" when cut.
func Summarize(body []byte) string {
	cut := len(body) > maxDetail
	if cut {
		body = body[:maxDetail]
	}
	var b strings.Builder
	space := false
	for len(body) > 0 {
		r, n := utf8.DecodeRune(body)
		body = body[n:]
		switch {
		case r == utf8.RuneError && n <= 1:
			if len(body) == 0 && cut {
				break // a rune cut in two
			}
			b.WriteByte('.')
		case unicode.IsSpace(r):
			if !space {
				b.WriteByte(' ')
			}
			space = true
			continue
		case !unicode.IsPrint(r):
			b.WriteByte('.')
		default:
			b.WriteRune(r)
		}
		space = false
	}
	s := strings.TrimSpace(b.String())
	if cut {
		s += "…"
	}
	return s
}
