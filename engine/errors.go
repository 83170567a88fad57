package engine

import (
	"errors"
	"fmt"

	"github.com/najdi/najdi/internal/strictjson"
)

// Error kinds returned by the engine. Callers test them with errors.Is; the
// server maps each to an HTTP status (see server/errors.go).
var (
	// ErrInvalid reports a request that is malformed or names bad values (400).
	ErrInvalid = errors.New("invalid request")
	// ErrNotFound reports a collection, document or job that does not exist
	// or belongs to another owner (404).
	ErrNotFound = errors.New("not found")
	// ErrConflict reports a request that conflicts with the current state (409).
	ErrConflict = errors.New("conflict")
	// ErrUnsupportedMedia reports a body whose format cannot be ingested (415).
	ErrUnsupportedMedia = errors.New("unsupported media type")
	// ErrTooLarge reports a body or value above a configured limit (413).
	ErrTooLarge = errors.New("payload too large")
	// ErrUpstream reports a failing external service, e.g. a remote embedding
	// or LLM endpoint (502).
	ErrUpstream = errors.New("upstream service failed")
	// ErrUpstreamTimeout reports an external service that did not answer in time (504).
	ErrUpstreamTimeout = errors.New("upstream service timed out")
	// ErrClosed reports use of an engine after Close (503).
	ErrClosed = errors.New("engine closed")
	// ErrBusy reports work refused because a bound on concurrent or queued
	// work is reached (429); the Error's Details hold "limit" (its name) and
	// "retry_after_seconds".
	ErrBusy = errors.New("too many requests")
)

// Error is an engine error with a machine-readable kind, a human message and
// optional details (for example the offending field). It wraps Kind so that
// errors.Is(err, ErrInvalid) works.
type Error struct {
	Kind    error
	Message string
	Details map[string]any
	Cause   error
}

// Error implements error.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the kind and the cause, so errors.Is matches both.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Kind, e.Cause}
	}
	return []error{e.Kind}
}

// invalidf returns an ErrInvalid error with a formatted message.
func invalidf(format string, args ...any) error {
	return &Error{Kind: ErrInvalid, Message: fmt.Sprintf(format, args...)}
}

// invalidField returns an ErrInvalid error naming the offending field.
func invalidField(field, format string, args ...any) error {
	return &Error{Kind: ErrInvalid, Message: field + ": " + fmt.Sprintf(format, args...), Details: map[string]any{"field": field}}
}

// notFoundf returns an ErrNotFound error with a formatted message.
func notFoundf(format string, args ...any) error {
	return &Error{Kind: ErrNotFound, Message: fmt.Sprintf(format, args...)}
}

// kindError wraps cause as an error of the given kind with a message.
func kindError(kind error, cause error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if cause != nil {
		msg += ": " + cause.Error()
	}
	return &Error{Kind: kind, Message: msg, Cause: cause}
}

// decodeRequest decodes the JSON request body into v strictly (see
// strictjson). A failure is an ErrInvalid error whose message starts with
// what and, when it is about one field, names it in details.field by its
// JSON path.
func decodeRequest(what string, body []byte, v any) error {
	err := strictjson.Decode(body, v)
	if err == nil {
		return nil
	}
	e := &Error{Kind: ErrInvalid, Message: what + ": " + err.Error(), Cause: err}
	var se *strictjson.Error
	if errors.As(err, &se) && se.Path != "" {
		e.Details = map[string]any{"field": se.Path}
	}
	return e
}
