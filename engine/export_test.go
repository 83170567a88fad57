package engine

// SetMinChunksPerCand sets the least chunks per document candidate a
// semantic search asks a segment for (semanticK; 3 is the former rule)
// and returns a function restoring it, for benchmarks of the external
// test package.
func SetMinChunksPerCand(n int) (restore func()) {
	old := minChunksPerCand
	minChunksPerCand = n
	return func() { minChunksPerCand = old }
}
