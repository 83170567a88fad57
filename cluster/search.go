package cluster

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"slices"
	"strconv"
	"strings"

	"github.com/najdi/najdi/filter"
)

// QueryTerm is one analyzed query term and how often the query holds it.
type QueryTerm struct {
	Term  string
	Count int
}

// Hit is one scored document of a search. Score is BM25 as najdi's
// invindex computes it (Σ idf × tf / (tf + k1 × norm), no (k1 + 1) factor).
type Hit struct {
	Collection string
	ID         string
	Score      float64
}

// Stats are the keyword statistics over the searched collections that najdi
// needs to calibrate BM25 scores (the same numbers the embedded engine sums
// over its segments).
type Stats struct {
	// Docs is the number of documents.
	Docs int64
	// DocFreq maps each query term to the number of documents holding it.
	DocFreq map[string]int64
	// AvgLength is the mean BM25F-weighted document length.
	AvgLength float64
}

// KeywordResult is the answer of Keyword.
type KeywordResult struct {
	Hits  []Hit
	Stats Stats
}

// maxWindow is the most hits one search returns (the clusters' default
// index.max_result_window).
const maxWindow = 10000

// indices returns the comma-separated aliases of collections.
func (c *Client) indices(colls []string) (string, error) {
	if len(colls) == 0 {
		return "", clusterError(ErrInvalid, 0, "search", "no collection", nil)
	}
	parts := make([]string, len(colls))
	for i, coll := range colls {
		parts[i] = c.alias(coll)
	}
	return strings.Join(parts, ","), nil
}

// Filter is a parsed najdi filter (package filter) that the caller has
// validated against Schema, the field types of the searched collections.
// The zero Filter matches every document.
type Filter struct {
	Query  filter.Query
	Schema filter.Schema
	// IDs, when not nil, further restricts the documents to these ids.
	IDs []string
}

// docFilter returns the bool filter clauses selecting entries of a kind
// ("doc" or "chunk") that match flt, translated for the cluster.
func (c *Client) docFilter(kind string, flt Filter) ([]any, error) {
	out := []any{map[string]any{"term": map[string]any{fKind: kind}}}
	if flt.IDs != nil {
		out = append(out, map[string]any{"terms": map[string]any{fDoc: flt.IDs}})
	}
	if flt.Query == nil {
		return out, nil
	}
	schema := flt.Schema
	if schema == nil {
		schema = filter.SchemaMap{}
	}
	js, err := c.Translate(flt.Query, schema)
	if err != nil {
		return nil, err
	}
	return append(out, js), nil
}

// searchResp is the part of a search answer najdi reads.
type searchResp struct {
	Hits struct {
		Total struct {
			Value int64 `json:"value"`
		} `json:"total"`
		Hits []searchHit `json:"hits"`
	} `json:"hits"`
	Aggregations json.RawMessage `json:"aggregations"`
}

// searchHit is one hit of a search answer.
type searchHit struct {
	Index  string          `json:"_index"`
	ID     string          `json:"_id"`
	Score  float64         `json:"_score"`
	Source json.RawMessage `json:"_source"`
	Sort   []any           `json:"sort"`
}

// Keyword returns the k best documents of collections for the analyzed
// query terms by BM25 over najdi's analyzed terms, among the documents
// matching flt (a Translate result, nil for all), with the collection-wide
// statistics of the terms. Term statistics are global across the searched
// collections (dfs_query_then_fetch), as on the embedded engine.
func (c *Client) Keyword(ctx context.Context, colls []string, terms []QueryTerm, flt Filter, k int) (*KeywordResult, error) {
	idx, err := c.indices(colls)
	if err != nil {
		return nil, err
	}
	df, err := c.docFilter("doc", flt)
	if err != nil {
		return nil, err
	}
	body := keywordBody(terms, df, min(k, maxWindow))
	var r searchResp
	q := url.Values{"search_type": {"dfs_query_then_fetch"}, "ignore_unavailable": {"false"}}
	if err := c.doJSON(ctx, "POST", "/"+idx+"/_search", q, body, &r); err != nil {
		return nil, fmt.Errorf("cluster: keyword search: %w", err)
	}
	res := &KeywordResult{Hits: c.keywordHits(r.Hits.Hits)}
	if res.Stats, err = keywordStats(r.Aggregations); err != nil {
		return nil, err
	}
	return res, nil
}

// noTerms names the filters-aggregation bucket of a query without terms
// (an aggregation needs at least one filter).
const noTerms = "\x00none"

// keywordBody is the keyword search's request: the top k documents by
// BM25 of the terms, boosted by their counts, among those the filter
// clauses df admit, and the statistics aggregated over every document of
// the indices (count, summed length, each term's document frequency). No
// terms or k ≤ 0 ask for the statistics alone.
func keywordBody(terms []QueryTerm, df []any, k int) map[string]any {
	should := make([]any, 0, len(terms))
	perTerm := map[string]any{}
	for _, t := range terms {
		if t.Term == "" || t.Count <= 0 {
			continue
		}
		should = append(should, map[string]any{"term": map[string]any{fTerms: map[string]any{"value": t.Term, "boost": t.Count}}})
		perTerm[t.Term] = map[string]any{"term": map[string]any{fTerms: t.Term}}
	}
	if len(should) == 0 {
		perTerm[noTerms] = map[string]any{"match_none": map[string]any{}}
	}
	aggs := map[string]any{"all": map[string]any{
		"global": map[string]any{},
		"aggs": map[string]any{"docs": map[string]any{
			"filter": map[string]any{"term": map[string]any{fKind: "doc"}},
			"aggs": map[string]any{
				"len":   map[string]any{"sum": map[string]any{"field": fLen}},
				"terms": map[string]any{"filters": map[string]any{"filters": perTerm}},
			}}}}}
	body := map[string]any{
		"size": k, "_source": false, "track_total_hits": false, "aggs": aggs,
		"query": map[string]any{"bool": map[string]any{
			"should": should, "minimum_should_match": 1, "filter": df}},
	}
	if len(should) == 0 || k <= 0 {
		body["size"] = 0
		body["query"] = map[string]any{"match_none": map[string]any{}}
	}
	return body
}

// keywordHits turns the keyword search's hits into najdi's documents and
// BM25 scores. Elasticsearch's BM25 similarity keeps Lucene 7's (k1 + 1)
// factor (LegacyBM25Similarity); OpenSearch's does not. najdi's scores
// have none.
func (c *Client) keywordHits(hits []searchHit) []Hit {
	scale := 1.0
	if c.info.Flavour == Elasticsearch {
		scale = 1 / (c.cfg.K1*TFScale + 1)
	}
	var out []Hit
	for _, h := range hits {
		id, ok := idOfDoc(h.ID)
		coll, _, ok2 := c.collectionOf(h.Index)
		if ok && ok2 {
			out = append(out, Hit{Collection: coll, ID: id, Score: h.Score * scale})
		}
	}
	return out
}

// keywordStats reads the statistics keywordBody aggregates.
func keywordStats(aggs json.RawMessage) (Stats, error) {
	var a struct {
		All struct {
			Docs struct {
				DocCount int64 `json:"doc_count"`
				Len      struct {
					Value float64 `json:"value"`
				} `json:"len"`
				Terms struct {
					Buckets map[string]struct {
						DocCount int64 `json:"doc_count"`
					} `json:"buckets"`
				} `json:"terms"`
			} `json:"docs"`
		} `json:"all"`
	}
	if err := json.Unmarshal(aggs, &a); err != nil {
		return Stats{}, clusterError(ErrCluster, 0, "keyword search", "unexpected aggregations", err)
	}
	st := Stats{Docs: a.All.Docs.DocCount, DocFreq: map[string]int64{}}
	if st.Docs > 0 {
		st.AvgLength = a.All.Docs.Len.Value / float64(st.Docs)
	}
	for t, b := range a.All.Docs.Terms.Buckets {
		if t != noTerms {
			st.DocFreq[t] = b.DocCount
		}
	}
	return st, nil
}

// VectorHit is one document found by its best chunk.
type VectorHit struct {
	Collection, ID string
	// Similarity is the cosine similarity of the best chunk.
	Similarity float64
	// Section, Start and End locate the best chunk (rune offsets).
	Section, Start, End int
}

// Vector returns up to k documents of collections whose chunks are nearest
// to vec by cosine similarity (approximate, HNSW), best chunk per
// document, among the documents matching flt (nil for all).
func (c *Client) Vector(ctx context.Context, colls []string, vec []float32, flt Filter, k int) ([]VectorHit, error) {
	if k <= 0 {
		return nil, nil
	}
	k = min(k, maxWindow)
	chunks, err := c.NearestChunks(ctx, colls, vec, flt, min(4*k, maxWindow)) // documents hold several
	if err != nil {
		return nil, err
	}
	seen := map[string]bool{}
	var out []VectorHit
	for _, h := range chunks {
		if seen[h.Collection+"\x00"+h.ID] {
			continue
		}
		seen[h.Collection+"\x00"+h.ID] = true
		out = append(out, h)
		if len(out) == k {
			break
		}
	}
	return out, nil
}

// NearestChunks returns the k chunks of collections nearest to vec by
// cosine similarity (approximate, HNSW), best first, among the documents
// matching flt (nil for all): several chunks of a document may be among
// them, as in the embedded engine's vector search.
func (c *Client) NearestChunks(ctx context.Context, colls []string, vec []float32, flt Filter, k int) ([]VectorHit, error) {
	idx, err := c.indices(colls)
	if err != nil {
		return nil, err
	}
	if k <= 0 {
		return nil, nil
	}
	cf, err := c.docFilter("chunk", flt)
	if err != nil {
		return nil, err
	}
	kc := min(k, maxWindow)
	cand := max(kc, 100)
	src := []string{fDoc, fSection, fStart, fEnd}
	var body map[string]any
	switch c.info.Flavour {
	case OpenSearch:
		body = map[string]any{"size": kc, "_source": src, "query": map[string]any{"knn": map[string]any{
			fVec: map[string]any{"vector": vec, "k": kc,
				"filter": map[string]any{"bool": map[string]any{"filter": cf}}}}}}
	default:
		body = map[string]any{"size": kc, "_source": src, "knn": map[string]any{
			"field": fVec, "query_vector": vec, "k": kc, "num_candidates": cand,
			"filter": cf}}
	}
	var r searchResp
	if err := c.doJSON(ctx, "POST", "/"+idx+"/_search", nil, body, &r); err != nil {
		return nil, fmt.Errorf("cluster: vector search: %w", err)
	}
	var out []VectorHit
	for _, h := range r.Hits.Hits {
		var s struct {
			Doc     string `json:"@doc"`
			Section int    `json:"@section"`
			Start   int    `json:"@start"`
			End     int    `json:"@end"`
		}
		if json.Unmarshal(h.Source, &s) != nil {
			continue
		}
		coll, _, ok := c.collectionOf(h.Index)
		if !ok {
			continue
		}
		// Both engines score cosine as (1 + cos) / 2.
		out = append(out, VectorHit{Collection: coll, ID: s.Doc, Similarity: 2*h.Score - 1,
			Section: s.Section, Start: s.Start, End: s.End})
	}
	return out, nil
}

// Count returns the number of documents of collections matching flt (nil
// for all).
func (c *Client) Count(ctx context.Context, colls []string, flt Filter) (int64, error) {
	idx, err := c.indices(colls)
	if err != nil {
		return 0, err
	}
	df, err := c.docFilter("doc", flt)
	if err != nil {
		return 0, err
	}
	var r struct {
		Count int64 `json:"count"`
	}
	body := map[string]any{"query": map[string]any{"bool": map[string]any{"filter": df}}}
	if err := c.doJSON(ctx, "POST", "/"+idx+"/_count", nil, body, &r); err != nil {
		return 0, fmt.Errorf("cluster: count: %w", err)
	}
	return r.Count, nil
}

// FilterIDs returns the ids of the documents of a collection matching flt
// (nil for all), in ascending byte order.
func (c *Client) FilterIDs(ctx context.Context, coll string, flt Filter) ([]string, error) {
	var out []string
	after := ""
	for {
		ids, next, err := c.page(ctx, coll, flt, after, 10000)
		if err != nil {
			return nil, err
		}
		out = append(out, ids...)
		if next == "" {
			return out, nil
		}
		after = next
	}
}

// List returns up to n document ids of a collection after the id after
// ("" for the first page), ascending, and the cursor of the next page (""
// when this is the last).
func (c *Client) List(ctx context.Context, coll, after string, n int) ([]string, string, error) {
	return c.page(ctx, coll, Filter{}, after, n)
}

func (c *Client) page(ctx context.Context, coll string, flt Filter, after string, n int) ([]string, string, error) {
	df, err := c.docFilter("doc", flt)
	if err != nil {
		return nil, "", err
	}
	body := map[string]any{
		"size": n, "_source": false, "track_total_hits": false,
		"sort":  []any{map[string]any{fDoc: "asc"}},
		"query": map[string]any{"bool": map[string]any{"filter": df}},
	}
	if after != "" {
		body["search_after"] = []any{after}
	}
	var r searchResp
	if err := c.doJSON(ctx, "POST", "/"+c.alias(coll)+"/_search", nil, body, &r); err != nil {
		return nil, "", fmt.Errorf("cluster: list documents: %w", err)
	}
	ids := make([]string, 0, len(r.Hits.Hits))
	for _, h := range r.Hits.Hits {
		if id, ok := idOfDoc(h.ID); ok {
			ids = append(ids, id)
		}
	}
	next := ""
	if len(r.Hits.Hits) == n && n > 0 {
		next = ids[len(ids)-1]
	}
	return ids, next, nil
}

// Get returns the stored body of a document, ErrNotFound when there is
// none.
func (c *Client) Get(ctx context.Context, coll, id string) (json.RawMessage, error) {
	var r struct {
		Found  bool `json:"found"`
		Source struct {
			Body json.RawMessage `json:"@body"`
		} `json:"_source"`
	}
	err := c.doJSON(ctx, "GET", "/"+c.alias(coll)+"/_doc/"+url.PathEscape(docID(id)), url.Values{"_source_includes": {fBody}}, nil, &r)
	if err != nil || !r.Found {
		if err == nil || strings.Contains(err.Error(), "HTTP 404") {
			return nil, clusterError(ErrNotFound, 0, "get document "+strconv.Quote(id), "no such document", nil)
		}
		return nil, fmt.Errorf("cluster: get document: %w", err)
	}
	return r.Source.Body, nil
}

// Match returns up to k documents of collections holding every one of
// terms in their analyzed terms (najdi's exact-identifier tier), among the
// documents matching flt, without scores.
func (c *Client) Match(ctx context.Context, colls []string, terms []string, flt Filter, k int) ([]Hit, error) {
	idx, err := c.indices(colls)
	if err != nil {
		return nil, err
	}
	if len(terms) == 0 || k <= 0 {
		return nil, nil
	}
	df, err := c.docFilter("doc", flt)
	if err != nil {
		return nil, err
	}
	for _, t := range terms {
		df = append(df, map[string]any{"term": map[string]any{fTerms: t}})
	}
	body := map[string]any{"size": min(k, maxWindow), "_source": false, "track_total_hits": false,
		"query": map[string]any{"bool": map[string]any{"filter": df}}}
	var r searchResp
	if err := c.doJSON(ctx, "POST", "/"+idx+"/_search", nil, body, &r); err != nil {
		return nil, fmt.Errorf("cluster: identifier search: %w", err)
	}
	var out []Hit
	for _, h := range r.Hits.Hits {
		id, ok := idOfDoc(h.ID)
		coll, _, ok2 := c.collectionOf(h.Index)
		if ok && ok2 {
			out = append(out, Hit{Collection: coll, ID: id})
		}
	}
	return out, nil
}

// StoredChunk is one stored chunk of a document with its vector.
type StoredChunk struct {
	Chunk
	// N is the chunk's number in its document.
	N int
}

// ChunkVectors returns the stored chunks (with their vectors) of the
// documents ids of a collection, by document id, each document's chunks in
// order.
func (c *Client) ChunkVectors(ctx context.Context, coll string, ids []string) (map[string][]StoredChunk, error) {
	out := map[string][]StoredChunk{}
	if len(ids) == 0 {
		return out, nil
	}
	df, err := c.docFilter("chunk", Filter{IDs: ids})
	if err != nil {
		return nil, err
	}
	body := map[string]any{"size": maxWindow, "_source": []string{fDoc, fVec, fSection, fStart, fEnd},
		"track_total_hits": false, "query": map[string]any{"bool": map[string]any{"filter": df}}}
	var r searchResp
	if err := c.doJSON(ctx, "POST", "/"+c.alias(coll)+"/_search", nil, body, &r); err != nil {
		return nil, fmt.Errorf("cluster: chunk vectors: %w", err)
	}
	for _, h := range r.Hits.Hits {
		var s struct {
			Doc     string    `json:"@doc"`
			Vec     []float32 `json:"@vec"`
			Section int       `json:"@section"`
			Start   int       `json:"@start"`
			End     int       `json:"@end"`
		}
		if err := json.Unmarshal(h.Source, &s); err != nil {
			return nil, clusterError(ErrCluster, 0, "chunk vectors", "unexpected chunk", err)
		}
		n := 0
		if _, rest, ok := strings.Cut(h.ID, ":"); ok {
			if num, _, ok := strings.Cut(rest, ":"); ok {
				n, _ = strconv.Atoi(num)
			}
		}
		out[s.Doc] = append(out[s.Doc], StoredChunk{Chunk: Chunk{Vector: s.Vec, Section: s.Section, Start: s.Start, End: s.End}, N: n})
	}
	for _, chs := range out {
		slices.SortFunc(chs, func(a, b StoredChunk) int { return a.N - b.N })
	}
	return out, nil
}

// Exists returns which of ids are documents of a collection.
func (c *Client) Exists(ctx context.Context, coll string, ids []string) (map[string]bool, error) {
	out := map[string]bool{}
	for len(ids) > 0 {
		part := ids[:min(len(ids), maxWindow)]
		ids = ids[len(part):]
		df, err := c.docFilter("doc", Filter{IDs: part})
		if err != nil {
			return nil, err
		}
		body := map[string]any{"size": len(part), "_source": false, "track_total_hits": false,
			"query": map[string]any{"bool": map[string]any{"filter": df}}}
		var r searchResp
		if err := c.doJSON(ctx, "POST", "/"+c.alias(coll)+"/_search", nil, body, &r); err != nil {
			return nil, fmt.Errorf("cluster: find documents: %w", err)
		}
		for _, h := range r.Hits.Hits {
			if id, ok := idOfDoc(h.ID); ok {
				out[id] = true
			}
		}
	}
	return out, nil
}
