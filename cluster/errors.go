package cluster

import (
	"fmt"

	"github.com/najdi/najdi/internal/errs"
)

// Error kinds returned by the package, tested with errors.Is. Each is a
// kind of najdi's error vocabulary (internal/errs) worded for the cluster,
// so errors.Is matches the najdi kind too and the server maps it to the
// same HTTP status.
var (
	// ErrUnavailable reports a cluster that cannot be reached or answers
	// 502/503/504 after the retries (errs.Unavailable: 503).
	ErrUnavailable = errs.Alias(errs.Unavailable, "search cluster unavailable")
	// ErrInvalid reports a request the cluster rejected as malformed, or a
	// filter that cannot be expressed on the cluster (errs.Invalid: 400).
	ErrInvalid = errs.Alias(errs.Invalid, "invalid request")
	// ErrNotFound reports a missing collection or document (errs.NotFound:
	// 404).
	ErrNotFound = errs.Alias(errs.NotFound, "not found")
	// ErrConflict reports a collection that already exists (errs.Conflict:
	// 409).
	ErrConflict = errs.Alias(errs.Conflict, "conflict")
	// ErrBusy reports a cluster still answering 429 after the retries
	// (errs.Busy: 429).
	ErrBusy = errs.Alias(errs.Busy, "search cluster busy")
	// ErrCluster reports any other failure of the cluster (errs.Upstream:
	// 502).
	ErrCluster = errs.Alias(errs.Upstream, "search cluster error")
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
