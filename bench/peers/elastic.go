package peers

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// ElasticOptions configures an Elasticsearch or OpenSearch system.
type ElasticOptions struct {
	// Flavour is "elasticsearch" or "opensearch".
	Flavour string
	// Script is scripts/cluster.sh, which installs and starts the node.
	Script string
	// Env is added to the script's environment: the benchmark runs nodes
	// of its own (NAJDI_CLUSTER_HOME, NAJDI_CLUSTER_PORT,
	// NAJDI_CLUSTER_HEAP), apart from the nodes other work may use.
	Env []string
	// Heap is the JVM heap, for the report.
	Heap string
}

func (o ElasticOptions) script(ctx context.Context, action string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, o.Script, action, o.Flavour)
	cmd.Env = append(os.Environ(), o.Env...)
	return cmd
}

// elastic is a single Elasticsearch or OpenSearch node started by
// scripts/cluster.sh (the nodes of najdi's cluster backend), reached over its
// REST API: _bulk ingest, match/knn queries.
type elastic struct {
	opt     ElasticOptions
	url     string
	version string
	started bool // the node was started here (and is stopped by Close)
	pid     int
	rrf     bool     // hybrid through the rrf retriever (Elasticsearch with a license allowing it)
	reqs    prepared // search bodies
}

// StartElastic starts (or reuses) the node of opt.Flavour.
func StartElastic(ctx context.Context, opt ElasticOptions) (System, error) {
	e := &elastic{opt: opt}
	if err := opt.script(ctx, "status").Run(); err != nil {
		e.started = true
	}
	up := opt.script(ctx, "up")
	up.Stderr = os.Stderr
	out, err := up.Output()
	if err != nil {
		return nil, fmt.Errorf("%s up: %w", opt.Script, err)
	}
	lines := strings.Fields(strings.TrimSpace(string(out)))
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s up %s printed no URL", opt.Script, opt.Flavour)
	}
	e.url = lines[len(lines)-1]
	pidOut, err := opt.script(ctx, "pid").Output()
	if err != nil {
		return nil, fmt.Errorf("%s pid: %w", opt.Script, err)
	}
	if e.pid, err = strconv.Atoi(strings.TrimSpace(string(pidOut))); err != nil {
		return nil, fmt.Errorf("%s pid: %q: %w", opt.Script, pidOut, err)
	}
	// The root endpoint is a module the test distributions lack: the
	// version comes from the local node's info.
	var info struct {
		Nodes map[string]struct {
			Version string `json:"version"`
		} `json:"nodes"`
	}
	if err := doJSON(ctx, http.MethodGet, e.url+"/_nodes/_local", nil, &info); err != nil {
		return nil, err
	}
	for _, n := range info.Nodes {
		e.version = n.Version
	}
	if opt.Flavour == "elasticsearch" {
		var lic struct {
			License struct {
				Type string `json:"type"`
			} `json:"license"`
		}
		if err := doJSON(ctx, http.MethodGet, e.url+"/_license", nil, &lic); err == nil {
			e.rrf = lic.License.Type == "trial" || lic.License.Type == "enterprise" || lic.License.Type == "platinum"
		}
	}
	return e, nil
}

func (e *elastic) Name() string {
	if e.opt.Flavour == "opensearch" {
		return "OpenSearch"
	}
	return "Elasticsearch"
}

func (e *elastic) Settings() string {
	common := "single node started by `scripts/cluster.sh` (JVM heap " + e.opt.Heap + "), 1 shard, 0 replicas, " +
		"`" + e.analyzer() + "` analyzer on title and body, `multi_match` (best_fields) for keyword queries, `refresh_interval: -1` during the bulk load " +
		"then a refresh and a force merge to one segment (timed apart from the ingest), `_source: false`; "
	if e.opt.Flavour == "opensearch" {
		return "OpenSearch " + e.version + " with the k-NN plugin: " + common +
			"`knn_vector` with HNSW on the `lucene` engine (the k-NN plugin from Maven Central ships no faiss native library; faiss fails to load), `cosinesimil`, `knn` query with k 10 (ef_search default 100) " +
			"and the filter inside the knn query (efficient filtering); hybrid = a `bool` `should` of the match and the knn query " +
			"(scores summed: the `hybrid` query with score normalization needs the neural-search plugin, not installed) " +
			"(https://docs.opensearch.org/latest/vector-search/, https://docs.opensearch.org/latest/vector-search/filter-search-knn/)"
	}
	hy := "hybrid = `query` + `knn` in one request, scores summed (the RRF retriever is an X-Pack feature, absent from this distribution and above the basic license)"
	if e.rrf {
		hy = "hybrid = the `rrf` retriever over a `standard` (match) and a `knn` retriever"
	}
	return "Elasticsearch " + e.version + ": " + common +
		"the `standard` analyzer because the distribution on Maven Central (integ-test zip) lacks the analysis-common module with the `english` analyzer — this costs Elasticsearch some keyword quality; " +
		"`dense_vector` indexed with its default `int8_hnsw` (m 16, ef_construction 100), cosine similarity, top-level `knn` with k 10 and " +
		"num_candidates 100, the filter inside the knn section; " + hy +
		" (https://www.elastic.co/guide/en/elasticsearch/reference/8.19/knn-search.html, " +
		"https://www.elastic.co/guide/en/elasticsearch/reference/8.19/tune-for-indexing-speed.html)"
}

func (e *elastic) Supports(Kind) bool { return true }

// analyzer is the text analyzer: english, except on the Elasticsearch
// distribution cluster.sh installs (the integ-test zip from Maven Central),
// which lacks the analysis-common module and with it every language
// analyzer and stemmer.
func (e *elastic) analyzer() string {
	if e.opt.Flavour == "elasticsearch" {
		return "standard"
	}
	return "english"
}

func (e *elastic) indexName(index string) string { return "peers-" + strings.ToLower(index) }

func (e *elastic) Create(ctx context.Context, index string) error {
	name := e.indexName(index)
	_ = doJSON(ctx, http.MethodDelete, e.url+"/"+name, nil, nil)
	dims := 384
	var vec map[string]any
	settings := map[string]any{"number_of_shards": 1, "number_of_replicas": 0, "refresh_interval": "-1"}
	if e.opt.Flavour == "opensearch" {
		settings["index.knn"] = true
		vec = map[string]any{"type": "knn_vector", "dimension": dims, "method": map[string]any{"name": "hnsw", "engine": "lucene", "space_type": "cosinesimil"}}
	} else {
		vec = map[string]any{"type": "dense_vector", "dims": dims, "index": true, "similarity": "cosine"}
	}
	body := map[string]any{
		"settings": settings,
		"mappings": map[string]any{"properties": map[string]any{
			"title":  map[string]any{"type": "text", "analyzer": e.analyzer()},
			"body":   map[string]any{"type": "text", "analyzer": e.analyzer()},
			"bucket": map[string]any{"type": "integer"},
			"vec":    vec,
		}},
	}
	if err := doJSON(ctx, http.MethodPut, e.url+"/"+name, body, nil); err != nil {
		return fmt.Errorf("%s create %s: %w", e.Name(), name, err)
	}
	return nil
}

const elasticBatch = 1000

func (e *elastic) Ingest(ctx context.Context, index string, docs []Doc) error {
	name := e.indexName(index)
	var buf bytes.Buffer
	for lo := 0; lo < len(docs); lo += elasticBatch {
		buf.Reset()
		enc := json.NewEncoder(&buf)
		for _, d := range docs[lo:min(lo+elasticBatch, len(docs))] {
			_ = enc.Encode(map[string]any{"index": map[string]any{"_index": name, "_id": d.ID}})
			_ = enc.Encode(map[string]any{"title": d.Title, "body": d.Text, "bucket": d.Bucket, "vec": d.Vector})
		}
		var res struct {
			Errors bool `json:"errors"`
			Items  []map[string]struct {
				Error json.RawMessage `json:"error"`
			} `json:"items"`
		}
		if err := doJSON(ctx, http.MethodPost, e.url+"/_bulk", buf.Bytes(), &res, "Content-Type", "application/x-ndjson"); err != nil {
			return fmt.Errorf("%s bulk: %w", e.Name(), err)
		}
		if res.Errors {
			for _, it := range res.Items {
				for _, v := range it {
					if len(v.Error) > 0 {
						return fmt.Errorf("%s bulk: %s", e.Name(), clip(string(v.Error), 300))
					}
				}
			}
			return fmt.Errorf("%s bulk: errors", e.Name())
		}
	}
	if err := doJSON(ctx, http.MethodPut, e.url+"/"+name+"/_settings", map[string]any{"index": map[string]any{"refresh_interval": "1s"}}, nil); err != nil {
		return err
	}
	return doJSON(ctx, http.MethodPost, e.url+"/"+name+"/_refresh", nil, nil)
}

// Optimize force-merges index to one segment (after the timed ingest).
func (e *elastic) Optimize(ctx context.Context, index string) error {
	name := e.indexName(index)
	if err := doJSON(ctx, http.MethodPost, e.url+"/"+name+"/_forcemerge?max_num_segments=1", nil, nil); err != nil {
		return err
	}
	return doJSON(ctx, http.MethodPost, e.url+"/"+name+"/_refresh", nil, nil)
}

// elasticBody builds the search request of one query.
func elasticBody(flavour string, rrf bool, kind Kind, q Query, k int) map[string]any {
	match := map[string]any{"multi_match": map[string]any{"query": q.Text, "fields": []string{"title", "body"}}}
	var filter map[string]any
	if m := filterMax(kind); m > 0 {
		filter = map[string]any{"range": map[string]any{"bucket": map[string]any{"lt": m}}}
	}
	body := map[string]any{"size": k, "_source": false}
	if flavour == "opensearch" {
		knnq := map[string]any{"vector": q.Vector, "k": k}
		if filter != nil {
			knnq["filter"] = filter
		}
		knn := map[string]any{"knn": map[string]any{"vec": knnq}}
		switch kind {
		case Keyword:
			body["query"] = match
		case Vector:
			body["query"] = knn
		default:
			b := map[string]any{"should": []any{match, knn}}
			if filter != nil {
				b["filter"] = filter
			}
			body["query"] = map[string]any{"bool": b}
		}
		return body
	}
	knn := map[string]any{"field": "vec", "query_vector": q.Vector, "k": k, "num_candidates": 100}
	if filter != nil {
		knn["filter"] = filter
	}
	switch kind {
	case Keyword:
		body["query"] = match
	case Vector:
		body["knn"] = knn
	default:
		if rrf {
			std := map[string]any{"query": match}
			if filter != nil {
				std["filter"] = filter
			}
			body["retriever"] = map[string]any{"rrf": map[string]any{"retrievers": []any{
				map[string]any{"standard": std}, map[string]any{"knn": knn}}}}
			return body
		}
		if filter != nil {
			body["query"] = map[string]any{"bool": map[string]any{"must": match, "filter": filter}}
		} else {
			body["query"] = match
		}
		body["knn"] = knn
	}
	return body
}

// parseElastic reads ids and took out of a search answer.
func parseElastic(data []byte) (Result, error) {
	var r struct {
		Took int64 `json:"took"`
		Hits *struct {
			Hits []struct {
				ID string `json:"_id"`
			} `json:"hits"`
		} `json:"hits"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return Result{}, fmt.Errorf("search answer: %w", err)
	}
	if r.Hits == nil {
		return Result{}, fmt.Errorf("search answer without hits: %s", clip(string(data), 200))
	}
	res := Result{Took: time.Duration(r.Took) * time.Millisecond, IDs: make([]string, len(r.Hits.Hits))}
	for i, h := range r.Hits.Hits {
		res.IDs[i] = h.ID
	}
	return res, nil
}

func (e *elastic) Search(ctx context.Context, index string, kind Kind, q Query, k int) (Result, error) {
	body, err := e.reqs.get(queryKey{index, kind, q.ID, k}, func() (any, error) {
		return json.Marshal(elasticBody(e.opt.Flavour, e.rrf, kind, q, k))
	})
	if err != nil {
		return Result{}, err
	}
	var raw []byte
	if err := doJSON(ctx, http.MethodPost, e.url+"/"+e.indexName(index)+"/_search", body, &raw); err != nil {
		return Result{}, err
	}
	return parseElastic(raw)
}

func (e *elastic) Footprint(ctx context.Context, index string) (int64, int64, error) {
	rss, err := rssOf(e.pid)
	if err != nil {
		return 0, 0, err
	}
	var st struct {
		Indices map[string]struct {
			Total struct {
				Store struct {
					SizeInBytes int64 `json:"size_in_bytes"`
				} `json:"store"`
			} `json:"total"`
		} `json:"indices"`
	}
	name := e.indexName(index)
	if err := doJSON(ctx, http.MethodGet, e.url+"/"+name+"/_stats/store", nil, &st); err != nil {
		return rss, 0, err
	}
	return rss, st.Indices[name].Total.Store.SizeInBytes, nil
}

func (e *elastic) Drop(ctx context.Context, index string) error {
	return doJSON(ctx, http.MethodDelete, e.url+"/"+e.indexName(index), nil, nil)
}

// Close stops the node if it was started here; a node that was already
// running (used by others) keeps running, without the benchmark's indexes.
func (e *elastic) Close() error {
	_ = doJSON(context.Background(), http.MethodDelete, e.url+"/peers-*", nil, nil)
	if e.started {
		return e.opt.script(context.Background(), "down").Run()
	}
	return nil
}
