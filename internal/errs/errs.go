// Package errs is najdi's one error vocabulary: the kinds of failure an API
// caller can act on, shared by engine, nlu and summary (each re-exports the
// kinds it returns) and mapped to HTTP statuses once, by server/errors.go.
//
// A kind is a sentinel tested with errors.Is. Packages return it wrapped
// with a message that names the bad field, the missing resource or the
// failing service: either as an *Error (a message, machine-readable details
// and the cause) or with fmt.Errorf("...: %w", kind). A package that words
// a kind its own way ("annotation service failed") declares it with Alias,
// which keeps errors.Is working for both the alias and the kind.
//
// Naming: the kinds' messages carry no package prefix, as they are the
// API's vocabulary ("invalid request", "not found"); every other sentinel
// of the module is package-specific and starts with its package name
// ("segment: not found", "vector: corrupt index").
package errs

import (
	"errors"
	"fmt"

	"github.com/najdi/najdi/internal/strictjson"
)

// The kinds, with the HTTP status server/errors.go gives each, and the name
// Name gives each.
var (
	// ErrInvalid: the request is malformed or names bad values (400).
	ErrInvalid = errors.New("invalid request")
	// ErrNotFound: a collection, document, job, model or phrase set does not
	// exist or belongs to another owner (404).
	ErrNotFound = errors.New("not found")
	// ErrConflict: the request conflicts with the current state (409).
	ErrConflict = errors.New("conflict")
	// ErrTooLarge: a body or value is above a configured limit (413).
	ErrTooLarge = errors.New("payload too large")
	// ErrUnsupportedMedia: a body's format cannot be read (415).
	ErrUnsupportedMedia = errors.New("unsupported media type")
	// ErrBusy: a bound on concurrent or queued work is reached (429).
	ErrBusy = errors.New("too many requests")
	// ErrUpstream: an external service (remote embeddings, an LLM, an
	// annotation microservice) failed or answered badly (502).
	ErrUpstream = errors.New("upstream service failed")
	// ErrUnavailable: the component is closed or cannot be reached (503).
	ErrUnavailable = errors.New("service unavailable")
	// ErrUpstreamTimeout: an external service did not answer in time (504).
	ErrUpstreamTimeout = errors.New("upstream service timed out")
)

// names are the kinds' short names, for logs and test output.
var names = map[error]string{
	ErrInvalid: "invalid", ErrNotFound: "not found", ErrConflict: "conflict", ErrTooLarge: "too large",
	ErrUnsupportedMedia: "unsupported media", ErrBusy: "busy", ErrUpstream: "upstream",
	ErrUnavailable: "unavailable", ErrUpstreamTimeout: "upstream timeout",
}

// Name returns the short name of err's kind (see KindOf), "none" without
// one.
func Name(err error) string {
	if n, ok := names[KindOf(err)]; ok {
		return n
	}
	return "none"
}

// Kinds lists every kind, in the order KindOf tests them.
var Kinds = []error{ErrInvalid, ErrNotFound, ErrConflict, ErrTooLarge, ErrUnsupportedMedia, ErrUpstreamTimeout, ErrUpstream, ErrUnavailable, ErrBusy}

// KindOf returns the kind of err: the Kind of the outermost *Error, else
// the first kind of Kinds that errors.Is finds in err; nil when err has
// none. An *Error's own kind wins over the kinds of its cause (an invalid
// request whose cause is a too-large value stays invalid).
func KindOf(err error) error {
	var e *Error
	if errors.As(err, &e) && e.Kind != nil {
		if k := KindOf(e.Kind); k != nil {
			return k
		}
	}
	for _, k := range Kinds {
		if errors.Is(err, k) {
			return k
		}
	}
	return nil
}

// alias is a kind worded by one package.
type alias struct {
	kind error
	msg  string
}

func (a *alias) Error() string { return a.msg }
func (a *alias) Unwrap() error { return a.kind }

// Alias returns a sentinel of the given kind with its own message:
// errors.Is matches both the sentinel and the kind.
func Alias(kind error, msg string) error { return &alias{kind: kind, msg: msg} }

// Error is an error of a kind with a message for the API caller, optional
// machine-readable details (for example "field", the offending field's
// JSON path) and the cause. errors.Is matches its kind and its cause.
type Error struct {
	Kind    error
	Message string
	Details map[string]any
	Cause   error
}

// Error implements error: the message alone.
func (e *Error) Error() string { return e.Message }

// Unwrap returns the kind and the cause, so errors.Is matches both.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Kind, e.Cause}
	}
	return []error{e.Kind}
}

// New returns an error of kind with a formatted message.
func New(kind error, format string, args ...any) error {
	return &Error{Kind: kind, Message: fmt.Sprintf(format, args...)}
}

// Field returns an Invalid error about one field: its message starts with
// the field's name and details.field names it.
func Field(field, format string, args ...any) error {
	return &Error{Kind: ErrInvalid, Message: field + ": " + fmt.Sprintf(format, args...), Details: map[string]any{"field": field}}
}

// Wrap returns an error of kind whose message is the formatted text, then
// ": " and the cause's message.
func Wrap(kind error, cause error, format string, args ...any) error {
	msg := fmt.Sprintf(format, args...)
	if cause != nil {
		msg += ": " + cause.Error()
	}
	return &Error{Kind: kind, Message: msg, Cause: cause}
}

// DecodeJSON decodes a JSON request body into v strictly (see strictjson).
// A failure is an Invalid error whose message starts with what and, when it
// is about one field, names it in details.field by its JSON path.
func DecodeJSON(what string, body []byte, v any, opts strictjson.Options) error {
	err := opts.Decode(body, v)
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
