// Package bench is najdi's library of benchmark and quality workloads:
// retrieval quality on BEIR (keyword against bleve, and keyword, dense and
// hybrid through the engine), ingest parse throughput and memory, vector
// recall and scan speed, NLU accuracy and latency, diacritics restoration
// accuracy, and summary/answer quality. Only cmd/najdi-bench binds them to
// flags; each Run* function prints a report to an io.Writer.
package bench
