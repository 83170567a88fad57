package engine

// Limits on the work one request can cause. Each is enforced with a clear
// 4xx (or a per-record entry in an ingest's errors) and listed in
// docs/API.md under "Limits and defaults".
const (
	// MaxDocumentBytes bounds one document's text: the bytes of its
	// sections' contents and of its fields' string values. A single-file
	// upload above it answers 413; a record or an envelope document above
	// it is reported in the ingest's errors and not stored.
	MaxDocumentBytes = 10 << 20

	// MaxColumnsPerRecord bounds the properties (columns) of one record or
	// the fields of one envelope document; a record with more is reported
	// in the ingest's errors and not stored.
	MaxColumnsPerRecord = 1000

	// MaxFieldsPerCollection bounds the distinct fields of a collection
	// (declared and inferred). A record or document that would add a field
	// beyond it is reported in the ingest's errors and not stored; a
	// configuration declaring more answers 400.
	MaxFieldsPerCollection = 1000

	// MaxQueryChars bounds a search query, in Unicode code points (400
	// above).
	MaxQueryChars = 4096

	// MaxReturnedContentBytes bounds the content returned for one document
	// of a search result (content, or its sections together); beyond it
	// the content is cut at a character boundary and the document carries
	// "truncated": true. GET .../documents/{id} returns the whole document.
	MaxReturnedContentBytes = 1 << 20

	// MaxResponseContentBytes bounds the content returned by one search
	// over all its documents; documents past it are returned truncated
	// (possibly to no content) with "truncated": true.
	MaxResponseContentBytes = 16 << 20

	// MaxRemoteDims bounds embedding_config.model.dims of a remote
	// embedding model (the largest common models have 3072 or 4096); a
	// configuration declaring more answers 400.
	MaxRemoteDims = 8192
)
