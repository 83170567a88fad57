package summary

import "github.com/najdi/najdi/internal/errs"

// Errors of the summary package, of the kinds of internal/errs. Callers
// test for them with errors.Is; the server maps ErrInvalid to 400,
// ErrUpstream to 502 and ErrUpstreamTimeout to 504.
var (
	// ErrInvalid reports a bad configuration value (unknown tokenizer,
	// negative budget, missing LLM URL, a budget too small for a prompt).
	ErrInvalid = errs.Alias(errs.ErrInvalid, "summary: invalid")
	// ErrUpstream reports a failing LLM endpoint: a transport error, a
	// non-2xx status or a response that cannot be decoded.
	ErrUpstream = errs.Alias(errs.ErrUpstream, "summary: upstream error")
	// ErrUpstreamTimeout reports an LLM endpoint that did not answer within
	// the timeout or the caller's deadline.
	ErrUpstreamTimeout = errs.Alias(errs.ErrUpstreamTimeout, "summary: upstream timeout")
)
