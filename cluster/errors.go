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
	// 502/503/504 after the retries (errs.ErrUnavailable: 503).
	ErrUnavailable = errs.Alias(errs.ErrUnavailable, "search cluster unavailable")
	// ErrInvalid reports a request the cluster rejected as malformed, or a
	// filter that cannot be expressed on the cluster (errs.ErrInvalid: 400).
	ErrInvalid = errs.Alias(errs.ErrInvalid, "invalid request")
	// ErrNotFound reports a missing collection or document (errs.ErrNotFound:
	// 404).
	ErrNotFound = errs.Alias(errs.ErrNotFound, "not found")
	// ErrConflict reports a collection that already exists (errs.ErrConflict:
	// 409).
	ErrConflict = errs.Alias(errs.ErrConflict, "conflict")
	// ErrBusy reports a cluster still answering 429 after the retries
	// (errs.ErrBusy: 429).
	ErrBusy = errs.Alias(errs.ErrBusy, "search cluster busy")
	// ErrCluster reports any other failure of the cluster (errs.ErrUpstream:
	// 502).
	ErrCluster = errs.Alias(errs.ErrUpstream, "search cluster error")
)

// clusterError returns a failed cluster request as najdi's *errs.Error:
// of kind kind (one of the kinds above), with the message "<op>: <kind>
// (HTTP <status>): <reason>: <cause>" (status 0: the cluster did not
// answer), the cluster's status in Details["cluster_status"], and the
// cause. errors.Is matches the kind, its najdi kind and the cause.
func clusterError(kind error, status int, op, reason string, cause error) error {
	msg := op + ": " + kind.Error()
	if status != 0 {
		msg += fmt.Sprintf(" (HTTP %d)", status)
	}
	if reason != "" {
		msg += ": " + reason
	}
	if cause != nil {
		msg += ": " + cause.Error()
	}
	e := &errs.Error{Kind: kind, Message: msg, Cause: cause}
	if status != 0 {
		e.Details = map[string]any{"cluster_status": status}
	}
	return e
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
