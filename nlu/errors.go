package nlu

import "errors"

// Errors returned by the Service, always wrapped with a message that names
// the bad field, the conflicting model or the failing microservice. The
// HTTP layer maps them to status codes: ErrNotFound 404, ErrInvalid 400,
// ErrConflict 409, ErrUpstream 502, ErrUpstreamTimeout 504.
var (
	// ErrNotFound: the model or phrase set does not exist for this owner.
	ErrNotFound = errors.New("not found")
	// ErrInvalid: the request body or text is invalid.
	ErrInvalid = errors.New("invalid request")
	// ErrConflict: the resource is used by a pipeline or closed-ner model.
	ErrConflict = errors.New("conflict")
	// ErrUpstream: an annotation microservice failed or answered badly.
	ErrUpstream = errors.New("annotation service failed")
	// ErrUpstreamTimeout: an annotation microservice did not answer in time.
	ErrUpstreamTimeout = errors.New("annotation service timed out")
)
