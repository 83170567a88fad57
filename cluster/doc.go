// Package cluster is najdi's backend on an Elasticsearch 8.x or OpenSearch
// 2.x/3.x cluster: the same collections, documents and retrieval as the
// embedded engine, stored in a cluster the operator already runs, so that
// several najdi replicas can serve one cluster behind a load balancer.
//
// # Why
//
// Users who outgrow one machine keep najdi's API and move the documents to
// a distributed engine. Everything above retrieval (analysis, embedding,
// fusion, calibration, passages, summaries, answers, NLU) stays in najdi,
// so both backends rank and answer alike. EngineBackend implements
// engine.Backend, the engine's boundary (najdi serve --cluster-url).
//
// # Layout on the cluster
//
// Each collection is one index per generation, <prefix><collection>.g<N>,
// behind the alias <prefix><collection> (default prefix "najdi-"); a
// reindex writes generation N+1 (NewGeneration, IngestInto) and swaps the
// alias atomically (SwapGeneration), deleting the old one. One shard, no
// replicas by default. Each document is one entry (_id "d:<id>") and each
// embedded chunk another ("c:<n>:<id>"):
//
//	@kind     keyword  "doc" or "chunk"
//	@doc      keyword  the najdi document id (both kinds)
//	@ver      keyword  the ingest that wrote the entry (stale chunks go)
//	@terms    text     najdi's analyzed terms, whitespace analyzer, BM25
//	@len      double   the BM25F-weighted length (statistics)
//	@body     object   the stored document, not indexed
//	@vec      dense_vector (ES, cosine, hnsw) / knn_vector (OpenSearch,
//	          lucene engine, cosinesimil): one chunk's embedding
//	@section, @start, @end   where the chunk is
//	<field>   the collection's filter fields at the top level: enum →
//	          keyword, enum_text → keyword + text subfield, number → double
//	          (copied onto chunks so k-NN filters use the same object)
//
// The meta index <prefix>_meta holds najdi's own records (PutMeta).
//
// # Keyword ranking
//
// najdi analyzes text itself (package text: folding, stopwords, stemming)
// and writes the BM25F-weighted terms as whitespace-separated tokens, each
// repeated round(weight × TFScale) times: section boosts (title 2, heading
// 1.5) are multiples of 1/TFScale, and BM25 with tf, length and average
// length all scaled by TFScale equals najdi's BM25 when k1 is scaled too,
// so the field's similarity is BM25 with k1 × TFScale and najdi's b. Both
// backends score the same terms; the only difference is Lucene's one-byte
// length norms. Searches use dfs_query_then_fetch so term statistics span
// all searched collections, and a global aggregation returns the document
// count, document frequencies and average length najdi calibrates with.
// Elasticsearch's BM25 keeps Lucene 7's (k1 + 1) factor, which Keyword
// divides out.
//
// # Filters
//
// The filter object is Elasticsearch's query DSL, so a parsed and validated
// najdi filter passes through (Translate), with three rewrites: najdi's
// contains extension, case-insensitive clauses (spelled out with najdi's
// Unicode simple folding, because Lucene 9 folds ASCII only and Lucene 10
// folds differently), and OpenSearch 3's regexp flag ALL, which no longer
// enables the complement operator. The differential test checks hundreds
// of random filters against filter.Eval on real nodes.
//
// # Writes and failures
//
// Ingest sends bounded bulk requests (BulkDocs actions, BulkBytes) with
// refresh=wait_for, retries items answered 429 and requests answered
// 429/502/503/504 or not answered with exponential backoff and jitter, then
// removes the previous versions' chunks; a document is searchable when
// Ingest returns. Documents the cluster rejects are returned one by one; a
// cluster that cannot be reached is ErrUnavailable (najdi's 503) after two
// quick retries of a refused connection. Replacing a document never
// removes the old version before the new one is stored.
//
// Delete-by-query is not used: it lives in Elasticsearch's reindex module,
// which the integ-test distribution lacks; searches plus bulk deletes do.
package cluster
