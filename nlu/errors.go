package nlu

import "github.com/najdi/najdi/internal/errs"

// Errors returned by the Service: the kinds of internal/errs, always
// wrapped with a message that names the bad field, the conflicting model or
// the failing microservice. The HTTP layer maps them to status codes:
// ErrNotFound 404, ErrInvalid 400, ErrConflict 409, ErrUpstream 502,
// ErrUpstreamTimeout 504.
var (
	// ErrNotFound: the model or phrase set does not exist for this owner.
	ErrNotFound = errs.NotFound
	// ErrInvalid: the request body or text is invalid.
	ErrInvalid = errs.Invalid
	// ErrConflict: the resource is used by a pipeline or closed-ner model.
	ErrConflict = errs.Conflict
	// ErrUpstream: an annotation microservice failed or answered badly.
	ErrUpstream = errs.Alias(errs.Upstream, "annotation service failed")
	// ErrUpstreamTimeout: an annotation microservice did not answer in time.
	ErrUpstreamTimeout = errs.Alias(errs.UpstreamTimeout, "annotation service timed out")
)
