package server

import (
	"encoding/json"
	"errors"

	"github.com/valyala/fasthttp"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/internal/strictjson"
	"github.com/najdi/najdi/nlu"
)

// apiError is the JSON error body: {"error": {"code", "message", "details"}}.
type apiError struct {
	Error apiErrorBody `json:"error"`
}

type apiErrorBody struct {
	Code    string         `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
}

// statusCodes maps HTTP statuses to the documented error codes.
var statusCodes = map[int]string{
	400: "invalid_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
	405: "method_not_allowed", 408: "request_timeout", 409: "conflict", 413: "payload_too_large",
	414: "uri_too_long", 415: "unsupported_media_type", 429: "too_many_requests",
	431: "request_header_fields_too_large", 500: "internal", 502: "bad_gateway", 503: "unavailable", 504: "gateway_timeout",
}

// writeError writes err as a JSON error with the status of its kind.
func writeError(ctx *fasthttp.RequestCtx, err error) {
	status, details := classify(err)
	msg := err.Error()
	if status == 500 {
		msg = "internal error: " + msg
	}
	if status == 429 {
		setRetryAfter(ctx, details)
	}
	writeErrorStatus(ctx, status, msg, details)
}

func writeErrorStatus(ctx *fasthttp.RequestCtx, status int, msg string, details map[string]any) {
	body, _ := json.Marshal(apiError{Error: apiErrorBody{Code: statusCodes[status], Message: msg, Details: details}})
	ctx.Response.Header.SetContentType("application/json")
	ctx.SetStatusCode(status)
	ctx.SetBody(body)
}

func classify(err error) (int, map[string]any) {
	var details map[string]any
	var ee *engine.Error
	if errors.As(err, &ee) {
		details = ee.Details
	}
	switch {
	case errors.Is(err, engine.ErrInvalid), errors.Is(err, nlu.ErrInvalid):
		return 400, details
	case errors.Is(err, engine.ErrNotFound), errors.Is(err, nlu.ErrNotFound):
		return 404, details
	case errors.Is(err, engine.ErrConflict), errors.Is(err, nlu.ErrConflict):
		return 409, details
	case errors.Is(err, engine.ErrTooLarge):
		return 413, details
	case errors.Is(err, engine.ErrUnsupportedMedia):
		return 415, details
	case errors.Is(err, engine.ErrUpstreamTimeout), errors.Is(err, nlu.ErrUpstreamTimeout):
		return 504, details
	case errors.Is(err, engine.ErrUpstream), errors.Is(err, nlu.ErrUpstream):
		return 502, details
	case errors.Is(err, engine.ErrClosed):
		return 503, details
	case errors.Is(err, engine.ErrBusy):
		return 429, details
	}
	return 500, details
}

// decodeBody decodes a JSON request body into v strictly (see strictjson).
// A failure is an engine ErrInvalid error whose message starts with what
// and, when it is about one field, names it in details.field by its JSON
// path.
func decodeBody(what string, body []byte, v any, opts strictjson.Options) error {
	err := opts.Decode(body, v)
	if err == nil {
		return nil
	}
	e := &engine.Error{Kind: engine.ErrInvalid, Message: what + ": " + err.Error(), Cause: err}
	var se *strictjson.Error
	if errors.As(err, &se) && se.Path != "" {
		e.Details = map[string]any{"field": se.Path}
	}
	return e
}
