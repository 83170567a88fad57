package cluster

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/najdi/najdi/filter"
)

// Internal field names. They start with '@', which najdi field names never
// do, so they cannot collide with a collection's filter fields, which are
// mapped at the top level under their own names (a filter object is passed
// to the cluster unchanged).
const (
	fKind    = "@kind"    // keyword: "doc" or "chunk"
	fDoc     = "@doc"     // keyword: najdi document id (on docs and chunks)
	fVer     = "@ver"     // keyword: the ingest that wrote the entry
	fTerms   = "@terms"   // text, whitespace analyzer, najdi BM25: analyzed terms
	fLen     = "@len"     // double: BM25F-weighted document length
	fBody    = "@body"    // object, not indexed: the stored document
	fVec     = "@vec"     // dense_vector / knn_vector: one chunk's embedding
	fSection = "@section" // integer: the chunk's section
	fStart   = "@start"   // integer: the chunk's first rune
	fEnd     = "@end"     // integer: the chunk's end rune
)

// TFScale is the factor applied to najdi's weighted term frequencies
// before they are written as repeated tokens: section boosts are multiples
// of 1/TFScale (title 2, heading 1.5, body 1), so every weighted frequency
// and weighted length becomes a whole number of tokens. BM25 is unchanged
// when tf, document length and average length are all scaled by TFScale
// and k1 is too, so the index's similarity uses k1 × TFScale.
const TFScale = 2

// Schema is what a collection's index needs to know: its filter fields and
// the embedding dimension of its chunks.
type Schema struct {
	// Fields maps each filter field to its type (enum, enum_text, number).
	Fields map[string]filter.FieldType
	// Dims is the embedding dimension; 0 means the collection has no
	// vectors.
	Dims int
}

// fieldMapping returns the mapping of one filter field.
func fieldMapping(name string, t filter.FieldType) (map[string]any, error) {
	if name == "" || strings.HasPrefix(name, "@") || strings.ContainsAny(name, ".*") {
		return nil, clusterError(ErrInvalid, 0, "map field", fmt.Sprintf("field name %q cannot be mapped on the cluster (empty, starting with '@', or holding '.' or '*')", name), nil)
	}
	switch t {
	case filter.FieldEnum:
		return map[string]any{"type": "keyword"}, nil
	case filter.FieldEnumText:
		return map[string]any{"type": "keyword", "fields": map[string]any{
			"text": map[string]any{"type": "text", "analyzer": "whitespace"}}}, nil
	case filter.FieldNumber:
		return map[string]any{"type": "double"}, nil
	}
	return nil, nil // other types are not filter fields: stored in @body only
}

// indexBody returns the create-index request for a collection generation.
func (c *Client) indexBody(s Schema, alias string) (json.RawMessage, error) {
	k1, b := c.cfg.K1, c.cfg.B
	props := map[string]any{
		fKind:    map[string]any{"type": "keyword"},
		fDoc:     map[string]any{"type": "keyword"},
		fVer:     map[string]any{"type": "keyword"},
		fTerms:   map[string]any{"type": "text", "analyzer": "whitespace", "similarity": "najdi_bm25", "index_options": "freqs"},
		fLen:     map[string]any{"type": "double", "index": false},
		fBody:    map[string]any{"type": "object", "enabled": false},
		fSection: map[string]any{"type": "integer", "index": false},
		fStart:   map[string]any{"type": "integer", "index": false},
		fEnd:     map[string]any{"type": "integer", "index": false},
	}
	for name, t := range s.Fields {
		m, err := fieldMapping(name, t)
		if err != nil {
			return nil, err
		}
		if m != nil {
			props[name] = m
		}
	}
	index := map[string]any{
		"number_of_shards":   1,
		"number_of_replicas": 0,
		"similarity": map[string]any{"najdi_bm25": map[string]any{
			"type": "BM25", "k1": k1 * TFScale, "b": b}},
	}
	if s.Dims > 0 {
		switch c.info.Flavour {
		case OpenSearch:
			index["knn"] = true
			props[fVec] = map[string]any{"type": "knn_vector", "dimension": s.Dims,
				"method": map[string]any{"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"}}
		default:
			props[fVec] = map[string]any{"type": "dense_vector", "dims": s.Dims, "index": true,
				"similarity": "cosine", "index_options": map[string]any{"type": "hnsw"}}
		}
	}
	body := map[string]any{
		"settings": map[string]any{"index": index},
		"mappings": map[string]any{"dynamic": false, "properties": props},
	}
	if alias != "" {
		body["aliases"] = map[string]any{alias: map[string]any{"is_write_index": true}}
	}
	return json.Marshal(body)
}
