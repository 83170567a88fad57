package engine

import (
	"github.com/najdi/najdi/internal/errs"
	"github.com/najdi/najdi/internal/strictjson"
)

// Error kinds returned by the engine: the kinds of internal/errs. Callers
// test them with errors.Is; the server maps each to an HTTP status (see
// server/errors.go).
var (
	// ErrInvalid reports a request that is malformed or names bad values (400).
	ErrInvalid = errs.ErrInvalid
	// ErrNotFound reports a collection, document or job that does not exist
	// or belongs to another owner (404).
	ErrNotFound = errs.ErrNotFound
	// ErrConflict reports a request that conflicts with the current state (409).
	ErrConflict = errs.ErrConflict
	// ErrUnsupportedMedia reports a body whose format cannot be ingested (415).
	ErrUnsupportedMedia = errs.ErrUnsupportedMedia
	// ErrTooLarge reports a body or value above a configured limit (413).
	ErrTooLarge = errs.ErrTooLarge
	// ErrUpstream reports a failing external service, e.g. a remote embedding
	// or LLM endpoint (502).
	ErrUpstream = errs.ErrUpstream
	// ErrUpstreamTimeout reports an external service that did not answer in time (504).
	ErrUpstreamTimeout = errs.ErrUpstreamTimeout
	// ErrClosed reports use of an engine after Close (503).
	ErrClosed = errs.Alias(errs.ErrUnavailable, "engine closed")
	// ErrBusy reports work refused because a bound on concurrent or queued
	// work is reached (429); the Error's Details hold "limit" (its name) and
	// "retry_after_seconds".
	ErrBusy = errs.ErrBusy
)

// Error is an engine error with a machine-readable kind, a human message and
// optional details (for example the offending field). It wraps Kind so that
// errors.Is(err, ErrInvalid) works.
type Error = errs.Error

// invalidf returns an ErrInvalid error with a formatted message.
func invalidf(format string, args ...any) error { return errs.New(ErrInvalid, format, args...) }

// invalidField returns an ErrInvalid error naming the offending field.
func invalidField(field, format string, args ...any) error {
	return errs.Field(field, format, args...)
}

// notFoundf returns an ErrNotFound error with a formatted message.
func notFoundf(format string, args ...any) error { return errs.New(ErrNotFound, format, args...) }

// kindError wraps cause as an error of the given kind with a message.
func kindError(kind error, cause error, format string, args ...any) error {
	return errs.Wrap(kind, cause, format, args...)
}

// decodeRequest decodes the JSON request body into v strictly (see
// errs.DecodeJSON).
func decodeRequest(what string, body []byte, v any) error {
	return errs.DecodeJSON(what, body, v, strictjson.Options{})
}
