package nlu

import "github.com/najdi/najdi/internal/errs"

// Errors returned by the Service: the kinds of internal/errs, always
// wrapped with a message that names the bad field, the conflicting model or
// the failing microservice. The HTTP layer maps them to status codes:
// ErrNotFound 404, ErrInvalid 400, ErrConflict 409, ErrUpstream 502,
// ErrUpstreamTimeout 504.
var (
	// ErrNotFound: the model or phrase set does not exist for this owner.
	ErrNotFound = errs.ErrNotFound
	// ErrInvalid: the request body or text is invalid.
	ErrInvalid = errs.ErrInvalid
	// ErrConflict: the resource is used by a pipeline or closed-ner model.
	ErrConflict = errs.ErrConflict
	// ErrUpstream: an annotation microservice failed or answered badly.
	ErrUpstream = errs.Alias(errs.ErrUpstream, "annotation service failed")
	// ErrUpstreamTimeout: an annotation microservice did not answer in time.
	ErrUpstreamTimeout = errs.Alias(errs.ErrUpstreamTimeout, "annotation service timed out")
)
