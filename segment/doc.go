// Package segment is najdi's durable store: immutable segments of indexed
// documents, compressed document bodies and generic key-values, all in one
// cockroachdb/pebble database.
//
// Store wraps Pebble with the key layout of docs/format/store.md: every write goes
// through a Batch committed with Sync, so an acknowledged write survives a
// crash; segment parts are split into 1 MiB chunks with a CRC-32C each;
// document bodies are zstd-compressed (klauspost/compress). Segment bundles
// a segment's parts — document ids, keyword postings (invindex.TextIndex),
// filter fields (invindex.FieldIndex), chunk vectors (vector.Index), the
// chunk table and the delete bitmap — and loads or writes them as a unit.
// The float32 chunk vectors are the exception to "all in Pebble": a
// segment with more than Store.InlineVectors bytes of them (256 KiB by
// default) keeps them in a vectors file of its own (Store.VectorsPath),
// fsynced before the segment's batch commits, removed after the batch that
// deletes the segment, memory-mapped by the vector index instead of held
// on the heap; Open removes the files of no stored segment. A smaller
// segment (a small write's flush) keeps them inline in its vector part,
// so that the batch's one WAL sync makes it durable.
// Only the delete bitmap of a segment ever changes, and it is replaced
// copy-on-write, so readers need no locks.
package segment
