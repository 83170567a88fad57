// Package server serves najdi's HTTP API over valyala/fasthttp.
//
// Handlers are plain functions over the engine and NLU service APIs: they
// decode and validate the request (unknown JSON fields are rejected), call
// the engine, and encode JSON. Errors become {"error": {"code", "message",
// "details"}} with the status of their kind (errors.go). Authentication is
// HTTP Basic against bcrypt hashes (auth.go) with per-owner isolation;
// failed logins are limited per client and per user name, and bcrypt runs
// on a few workers, never for cached valid credentials (limit.go);
// /metrics renders Prometheus text (metrics.go); /v1/openapi.json describes
// every route. fasthttp's contract holds: no handler keeps a *RequestCtx or
// its buffers after returning (asynchronous ingests copy the body).
package server
