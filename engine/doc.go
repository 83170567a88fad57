// Package engine is najdi's embedded search engine and the library API that
// the HTTP server, the benchmarks and other Go programs use.
//
// # What
//
// An Engine holds collections of documents for owners. Documents come from
// uploads of any supported format (package ingest) or from a JSON envelope
// of sections and fields. Search combines BM25 keyword retrieval (package
// invindex) with semantic retrieval over chunk embeddings (packages embed
// and vector) into one calibrated score in 0..1, narrows results with the
// Elasticsearch-style filter DSL (package filter), cuts passages (package
// text), builds token-budgeted summaries and answers (package summary) and
// restores Czech diacritics in queries (package text/diacritics).
//
// # How it works inside
//
// Each collection is a list of immutable segments (package segment) stored
// in one Pebble database. An ingest buffers parsed documents; a flush
// analyzes and embeds them into a new segment without locks, then commits
// the document bodies, the segment and the delete bitmaps of replaced
// documents in one synced Pebble batch under the collection's write lock.
// An in-memory map document id → (segment, local number) is rebuilt from
// the segments on open. A background merger combines small segments and
// rewrites mostly-deleted ones, carrying over deletes made while it worked;
// it also returns freed memory to the system after large merges and at
// idle (releaseMemory, which first has the store let go of the large
// batches Pebble still points at), and has vector files the page cache
// dropped read back (warmVectors). Open returns the memory that loading
// the segments freed. Readers take a snapshot of the segment list and
// never block writers.
//
// A search analyzes the query with the collection's analyzer, weighs terms
// with statistics over all searched collections, takes the top candidates of
// each retriever per segment (filters and deletes restrict both), completes
// the missing evidence of every candidate (BM25 for semantic-only ones, the
// best chunk similarity for keyword-only ones), fuses the calibrated scores
// with RankerConfig's weights and sorts by score, then collection id, then
// document id. See ARCHITECTURE.md for the whole flow and RankerConfig for
// the calibration.
//
// The files follow a search in order: search.go (Search), plan.go
// (validation), restore.go, retrieve.go (candidates), rank.go (calibration,
// fusion, order), passages.go, render.go, answer.go; and an ingest:
// writer.go (Ingest, flush), writer_parse.go, writer_check.go,
// writer_build.go. Below them is the backend seam (backend.go): the
// embedded store (local.go, local_retrieve.go) or a search cluster
// (remote.go).
//
// # Errors
//
// Every error a caller should react to wraps one of ErrInvalid, ErrNotFound,
// ErrConflict, ErrUnsupportedMedia, ErrTooLarge, ErrUpstream,
// ErrUpstreamTimeout, ErrClosed or ErrBusy, the kinds of internal/errs
// shared with packages nlu and summary; *Error carries a message meant for
// the API user and optional details.
package engine
