package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"strings"
)

// Document is one najdi document as the cluster stores it.
type Document struct {
	// ID is the najdi document id.
	ID string
	// Terms are the BM25F-weighted term frequencies of the document's
	// searchable text, analyzed by najdi (package text); Length is their
	// weighted length (Σ boost × section length). Weights must be multiples
	// of 1/TFScale.
	Terms  map[string]float32
	Length float32
	// Body is the stored document (sections, fields, metadata), returned as
	// is by Get; the cluster does not index it.
	Body json.RawMessage
	// Fields are the filter field values: string or float64 items per
	// field (a field may be multi-valued).
	Fields map[string][]any
	// Chunks are the embedded chunks of the document.
	Chunks []Chunk
}

// Chunk is one embedded span of a document.
type Chunk struct {
	Vector     []float32
	Section    int
	Start, End int // rune offsets in the section
}

// DocError reports one document the cluster did not store.
type DocError struct {
	ID  string
	Err error
}

// docID and chunkID are the cluster _id of a document and of its chunks.
func docID(id string) string             { return "d:" + id }
func chunkID(id string, n int) string    { return fmt.Sprintf("c:%d:%s", n, id) }
func idOfDoc(esID string) (string, bool) { return strings.CutPrefix(esID, "d:") }

// termsText writes the weighted terms as whitespace-separated tokens, each
// repeated round(freq × TFScale) times, sorted for determinism.
func termsText(terms map[string]float32) string {
	keys := make([]string, 0, len(terms))
	for t := range terms {
		keys = append(keys, t)
	}
	slices.Sort(keys)
	var b strings.Builder
	for _, t := range keys {
		if t == "" || strings.ContainsAny(t, " \t\n\r\f\v") {
			continue // the whitespace tokenizer would split it
		}
		n := int(math.Round(float64(terms[t]) * TFScale))
		for range n {
			b.WriteString(t)
			b.WriteByte(' ')
		}
	}
	return b.String()
}

// source returns the _source of a document entry.
func docSource(d *Document, ver string) map[string]any {
	src := map[string]any{fKind: "doc", fDoc: d.ID, fVer: ver, fTerms: termsText(d.Terms), fLen: d.Length}
	if len(d.Body) > 0 {
		src[fBody] = d.Body
	}
	for f, vs := range d.Fields {
		src[f] = vs
	}
	return src
}

// chunkSource returns the _source of a chunk entry: the chunk and a copy
// of the document's filter fields, so a k-NN search filters chunks with the
// same filter object as documents.
func chunkSource(d *Document, ch *Chunk, ver string) map[string]any {
	src := map[string]any{fKind: "chunk", fDoc: d.ID, fVer: ver, fVec: ch.Vector,
		fSection: ch.Section, fStart: ch.Start, fEnd: ch.End}
	for f, vs := range d.Fields {
		src[f] = vs
	}
	return src
}

// bulkLine is one action of a bulk request and the document it belongs to.
type bulkLine struct {
	doc    int // index into the docs slice
	action []byte
}

// Ingest writes docs into a collection, replacing documents with the same
// ids, in bulk requests bounded by Config.BulkDocs and BulkBytes. Items the
// cluster answers 429 are retried with backoff. When Ingest returns, every
// stored document is searchable (refresh=wait_for) and the chunks of the
// documents' previous versions are gone. Documents the cluster rejected are
// returned as DocErrors. The error reports a failure of the call (the
// cluster down: ErrUnavailable); then every document not yet confirmed is
// in the DocErrors too, and every document that is not is stored and
// searchable.
func (c *Client) Ingest(ctx context.Context, coll string, docs []Document) ([]DocError, error) {
	return c.IngestInto(ctx, c.alias(coll), docs)
}

// IngestInto is Ingest into a named index or alias (a generation being
// rebuilt, see NewGeneration).
func (c *Client) IngestInto(ctx context.Context, index string, docs []Document) ([]DocError, error) {
	var vb [8]byte
	_, _ = rand.Read(vb[:])
	ver := hex.EncodeToString(vb[:])
	failed := map[int]error{}
	var lines []bulkLine
	for i := range docs {
		d := &docs[i]
		if d.ID == "" {
			failed[i] = clusterError(ErrInvalid, 0, "ingest", "document without id", nil)
			continue
		}
		add := func(id string, src map[string]any) error {
			meta, _ := json.Marshal(map[string]any{"index": map[string]any{"_index": index, "_id": id}})
			body, err := json.Marshal(src)
			if err != nil {
				return clusterError(ErrInvalid, 0, "ingest "+d.ID, "", err)
			}
			lines = append(lines, bulkLine{doc: i, action: slices.Concat(meta, []byte{'\n'}, body, []byte{'\n'})})
			return nil
		}
		if err := add(docID(d.ID), docSource(d, ver)); err != nil {
			failed[i] = err
			continue
		}
		for n := range d.Chunks {
			if err := add(chunkID(d.ID, n), chunkSource(d, &d.Chunks[n], ver)); err != nil {
				failed[i] = err
				break
			}
		}
	}
	for start := 0; start < len(lines); {
		end, size := start, 0
		for end < len(lines) && end-start < c.cfg.BulkDocs && (end == start || size+len(lines[end].action) <= c.cfg.BulkBytes) {
			size += len(lines[end].action)
			end++
		}
		if err := c.bulk(ctx, lines[start:end], failed); err != nil {
			// Every document with an entry in this or a later batch is
			// reported failed; the documents of earlier batches are stored
			// and searchable.
			for _, l := range lines[start:] {
				if _, ok := failed[l.doc]; !ok {
					failed[l.doc] = err
				}
			}
			return docErrors(docs, failed), err
		}
		start = end
	}
	// Remove what earlier versions of these documents left (chunks beyond
	// the new count) now that the new version is searchable.
	var ids []string
	for i := range docs {
		if _, bad := failed[i]; !bad && docs[i].ID != "" {
			ids = append(ids, docs[i].ID)
		}
	}
	for len(ids) > 0 {
		n := min(len(ids), 1000)
		q := map[string]any{"bool": map[string]any{
			"filter":   []any{map[string]any{"terms": map[string]any{fDoc: ids[:n]}}},
			"must_not": []any{map[string]any{"term": map[string]any{fVer: ver}}}}}
		if err := c.deleteMatching(ctx, index, q); err != nil {
			// The new versions are stored but old chunks may remain: the
			// documents are reported failed so that the caller retries
			// (ingest is idempotent).
			err = fmt.Errorf("cluster: remove stale chunks: %w", err)
			for i := range docs {
				if _, ok := failed[i]; !ok {
					failed[i] = err
				}
			}
			return docErrors(docs, failed), err
		}
		ids = ids[n:]
	}
	return docErrors(docs, failed), nil
}

func docErrors(docs []Document, failed map[int]error) []DocError {
	var out []DocError
	for i := range docs {
		if err, ok := failed[i]; ok {
			out = append(out, DocError{ID: docs[i].ID, Err: err})
		}
	}
	return out
}

// bulkResp is the part of a bulk answer najdi reads.
type bulkResp struct {
	Errors bool `json:"errors"`
	Items  []map[string]struct {
		ID     string          `json:"_id"`
		Status int             `json:"status"`
		Result string          `json:"result"`
		Error  json.RawMessage `json:"error"`
	} `json:"items"`
}

// bulk sends lines, retrying the items answered 429, and records the
// documents with failed items in failed.
func (c *Client) bulk(ctx context.Context, lines []bulkLine, failed map[int]error) error {
	for n := 0; len(lines) > 0; n++ {
		var buf bytes.Buffer
		for _, l := range lines {
			buf.Write(l.action)
		}
		data, err := c.do(ctx, "POST", "/_bulk", url.Values{"refresh": {"wait_for"}}, buf.Bytes())
		if err != nil {
			return fmt.Errorf("cluster: bulk of %d actions: %w", len(lines), err)
		}
		var r bulkResp
		if err := json.Unmarshal(data, &r); err != nil || len(r.Items) != len(lines) {
			return clusterError(ErrCluster, 0, "bulk", "unexpected answer", nil)
		}
		if !r.Errors {
			return nil
		}
		var again []bulkLine
		for i, item := range r.Items {
			for _, res := range item {
				switch {
				case res.Status < 300:
				case res.Status == 429 && n < c.cfg.MaxRetries:
					again = append(again, lines[i])
				default:
					if _, ok := failed[lines[i].doc]; !ok {
						failed[lines[i].doc] = clusterError(kindOf(res.Status), res.Status, "store document", reason([]byte(`{"error":`+string(res.Error)+`}`)), nil)
					}
				}
			}
		}
		if len(again) > 0 {
			if err := c.backoff(ctx, n); err != nil {
				return clusterError(ErrBusy, 0, "bulk", "", err)
			}
		}
		lines = again
	}
	return nil
}

// Delete removes documents (and their chunks) from a collection and
// returns the ids that existed. Deleted documents are gone from searches
// when Delete returns.
func (c *Client) Delete(ctx context.Context, coll string, ids []string) ([]string, error) {
	var found []string
	for start := 0; start < len(ids); start += c.cfg.BulkDocs {
		part := ids[start:min(len(ids), start+c.cfg.BulkDocs)]
		var buf bytes.Buffer
		for _, id := range part {
			meta, _ := json.Marshal(map[string]any{"delete": map[string]any{"_index": c.alias(coll), "_id": docID(id)}})
			buf.Write(meta)
			buf.WriteByte('\n')
		}
		data, err := c.do(ctx, "POST", "/_bulk", url.Values{"refresh": {"wait_for"}}, buf.Bytes())
		if err != nil {
			return found, fmt.Errorf("cluster: delete %d documents: %w", len(part), err)
		}
		var r bulkResp
		if err := json.Unmarshal(data, &r); err != nil || len(r.Items) != len(part) {
			return found, clusterError(ErrCluster, 0, "delete", "unexpected answer", nil)
		}
		for i, item := range r.Items {
			for _, res := range item {
				switch {
				case res.Status == 200 && res.Result == "deleted":
					found = append(found, part[i])
				case res.Status == 404:
				default:
					return found, clusterError(kindOf(res.Status), res.Status, "delete "+part[i], reason([]byte(`{"error":`+string(res.Error)+`}`)), nil)
				}
			}
		}
		q := map[string]any{"terms": map[string]any{fDoc: part}}
		if err := c.deleteMatching(ctx, c.alias(coll), q); err != nil {
			return found, fmt.Errorf("cluster: delete chunks: %w", err)
		}
	}
	return found, nil
}

// deleteMatching deletes every entry of index matching query with searches
// and bulk deletes (refresh=wait_for). It does not use _delete_by_query,
// which lives in a module (reindex) that not every distribution ships.
func (c *Client) deleteMatching(ctx context.Context, index string, query any) error {
	for {
		var r searchResp
		body := map[string]any{"size": 5000, "_source": false, "track_total_hits": false, "query": query}
		if err := c.doJSON(ctx, "POST", "/"+index+"/_search", nil, body, &r); err != nil {
			return err
		}
		if len(r.Hits.Hits) == 0 {
			return nil
		}
		var buf bytes.Buffer
		for _, h := range r.Hits.Hits {
			meta, _ := json.Marshal(map[string]any{"delete": map[string]any{"_index": h.Index, "_id": h.ID}})
			buf.Write(meta)
			buf.WriteByte('\n')
		}
		data, err := c.do(ctx, "POST", "/_bulk", url.Values{"refresh": {"wait_for"}}, buf.Bytes())
		if err != nil {
			return err
		}
		var br bulkResp
		if err := json.Unmarshal(data, &br); err != nil {
			return clusterError(ErrCluster, 0, "bulk delete", "unexpected answer", err)
		}
		for _, item := range br.Items {
			for _, res := range item {
				if res.Status >= 300 && res.Status != 404 {
					return clusterError(kindOf(res.Status), res.Status, "delete "+res.ID, reason([]byte(`{"error":`+string(res.Error)+`}`)), nil)
				}
			}
		}
	}
}
