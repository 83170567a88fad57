// Package invindex holds the per-segment inverted indexes: keyword postings
// scored with BM25 and the filter field index.
//
// postings*.go, bm25*.go, wand*.go: a TextIndex maps each term to a posting
// list of (document, quantized weighted term frequency), held in memory as
// flat arrays in blocks of 128 postings with per-block score upper bounds
// and serialized as front-coded vocabulary plus delta-varint postings. Term frequencies are
// BM25F-style weighted by section (titles and headings count more, see
// engine.RankerConfig). Search is top-k (windowed MaxScore with
// block bounds, block-max WAND for sparse postings, exhaustive windows in a
// small index), restricted to an allow bitmap and minus a delete bitmap;
// when the allowed set is small the allowed documents are scored directly. The caller supplies term
// weights (IDF from statistics over all segments, and collections) so that
// scores are comparable across segments.
//
// field*.go: per-segment filter data — a sorted term dictionary with a
// roaring bitmap per term for enum and enum_text fields, and number values
// sorted by value in range buckets plus sparse per-document columns for
// number fields. FieldIndex implements filter.Index.
//
// Both indexes are immutable once built, safe for concurrent readers,
// serialize to versioned, checksummed bytes, and merge with a document
// remapping that drops deleted documents.
package invindex
