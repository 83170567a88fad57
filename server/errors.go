package server

import (
	"encoding/json"
	"errors"

	"github.com/valyala/fasthttp"

	"github.com/najdi/najdi/internal/errs"
	"github.com/najdi/najdi/internal/strictjson"
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

// kindStatus is the HTTP status of each error kind (internal/errs), which
// engine, nlu and summary errors share.
var kindStatus = map[error]int{
	errs.ErrInvalid: 400, errs.ErrNotFound: 404, errs.ErrConflict: 409, errs.ErrTooLarge: 413,
	errs.ErrUnsupportedMedia: 415, errs.ErrBusy: 429, errs.ErrUpstream: 502, errs.ErrUnavailable: 503,
	errs.ErrUpstreamTimeout: 504,
}

// classify returns the HTTP status of err's kind (500 without one) and the
// details of its *errs.Error.
func classify(err error) (int, map[string]any) {
	var details map[string]any
	var ee *errs.Error
	if errors.As(err, &ee) {
		details = ee.Details
	}
	if st, ok := kindStatus[errs.KindOf(err)]; ok {
		return st, details
	}
	return 500, details
}

// decodeBody decodes a JSON request body into v strictly (see
// errs.DecodeJSON).
func decodeBody(what string, body []byte, v any, opts strictjson.Options) error {
	return errs.DecodeJSON(what, body, v, opts)
}
