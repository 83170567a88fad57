// Package api holds the JSON types of najdi's HTTP API that more than one
// package speaks: the search response (documents, passages, summaries,
// metadata), the ingest result and job status, and the NLU model
// configuration.
//
// # Why
//
// The engine produces these values, the NLU service stores models in them,
// and the Go client (package client) decodes them. Defining them once keeps
// the three in step: engine, nlu and client re-export them with type
// aliases (engine.SearchResponse is api.SearchResponse), so a field added
// here reaches the server and the client together. The package imports
// only the standard library, so a program that uses the client does not
// link the engine, its models or its parsers.
//
// # How it works inside
//
// The types are plain structs with JSON tags. SearchResponse.AppendJSON
// (json.go) encodes a search response without reflection, byte for byte
// what encoding/json writes (TestAppendJSONMatchesEncodingJSON holds the
// two together); the server uses it on every search.
package api
