package cluster

import (
	"errors"
	"fmt"
)

// Error kinds returned by the package, tested with errors.Is. They follow
// najdi's vocabulary (engine.Err*), so the server maps them to the same
// HTTP statuses.
var (
	// ErrUnavailable reports a cluster that cannot be reached or answers
	// 502/503/504 after the retries (najdi answers 503).
	ErrUnavailable = errors.New("search cluster unavailable")
	// ErrInvalid reports a request the cluster rejected as malformed, or a
	// filter that cannot be expressed on the cluster (400).
	ErrInvalid = errors.New("invalid request")
	// ErrNotFound reports a missing collection or document (404).
	ErrNotFound = errors.New("not found")
	// ErrConflict reports a collection that already exists (409).
	ErrConflict = errors.New("conflict")
	// ErrBusy reports a cluster still answering 429 after the retries (429).
	ErrBusy = errors.New("search cluster busy")
	// ErrCluster reports any other failure of the cluster (500-class).
	ErrCluster = errors.New("search cluster error")
)

// Error is a failed cluster request: the kind, the HTTP status the cluster
// answered (0 when it did not answer), what najdi was doing and the
// cluster's own reason.
type Error struct {
	Kind   error
	Status int
	Op     string
	Reason string
	Cause  error
}

// Error implements error.
func (e *Error) Error() string {
	msg := e.Op + ": " + e.Kind.Error()
	if e.Status != 0 {
		msg += fmt.Sprintf(" (HTTP %d)", e.Status)
	}
	if e.Reason != "" {
		msg += ": " + e.Reason
	}
	if e.Cause != nil {
		msg += ": " + e.Cause.Error()
	}
	return msg
}

// Unwrap returns the kind and the cause, so errors.Is matches both.
func (e *Error) Unwrap() []error {
	if e.Cause != nil {
		return []error{e.Kind, e.Cause}
	}
	return []error{e.Kind}
}

// kindOf maps an HTTP status of the cluster to an error kind.
func kindOf(status int) error {
	switch {
	case status == 400:
		return ErrInvalid
	case status == 404:
		return ErrNotFound
	case status == 409:
		return ErrConflict
	case status == 429:
		return ErrBusy
	case status == 502 || status == 503 || status == 504:
		return ErrUnavailable
	}
	return ErrCluster
}
