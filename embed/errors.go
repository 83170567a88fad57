package embed

import "errors"

// Sentinel errors of package embed. Errors returned by this package wrap one
// of them with short context, so callers test them with errors.Is.
var (
	// ErrNotInstalled reports a missing ONNX Runtime library or model
	// directory; scripts/install-models.sh installs them.
	ErrNotInstalled = errors.New("embed: not installed (run scripts/install-models.sh)")
	// ErrBadModel reports a model directory whose manifest, vocabulary or
	// ONNX graph is unusable.
	ErrBadModel = errors.New("embed: bad model")
	// ErrRuntime reports a failure inside ONNX Runtime.
	ErrRuntime = errors.New("embed: onnx runtime")
	// ErrRemote reports a failed call to a remote embedding endpoint.
	ErrRemote = errors.New("embed: remote")
	// ErrInvalidConfig reports invalid options or configuration.
	ErrInvalidConfig = errors.New("embed: invalid config")
	// ErrUnknownModel reports a model name that a Registry cannot resolve.
	ErrUnknownModel = errors.New("embed: unknown model")
	// ErrClosed reports use of an embedder after Close.
	ErrClosed = errors.New("embed: closed")
)
