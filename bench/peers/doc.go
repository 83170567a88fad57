// Package peers benchmarks najdi side by side with the systems users already
// know — Weaviate, Elasticsearch, OpenSearch and bleve — on the same machine,
// the same data and the same precomputed vectors, in one run: each system is
// started on loopback, loaded, and asked the same queries, the systems taking
// turns query by query so that machine noise hits all alike. The result is a
// Markdown report with PNG plots (`najdi-bench peers`, `make bench-peers`).
package peers
