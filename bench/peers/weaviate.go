package peers

import (
	"context"
	"crypto/md5"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	pb "github.com/weaviate/weaviate/grpc/generated/protocol/v1"
	"google.golang.org/grpc"
)

// WeaviateOptions configures the Weaviate system.
type WeaviateOptions struct {
	// Bin is weaviate-server (scripts/install-weaviate.sh).
	Bin string
	// Dir holds its data (emptied first).
	Dir string
	// Version is reported.
	Version string
	// REST makes the system import over REST `/v1/batch/objects` and search
	// over GraphQL instead of gRPC (the default, the interface Weaviate's
	// documentation recommends and its current clients use).
	REST bool
}

// weaviate is a single Weaviate node in its own process, with client-given
// vectors (no vectorizer module), reached over gRPC (batch import and
// search; REST for the schema) or, with REST set, over REST and GraphQL.
type weaviate struct {
	opt    WeaviateOptions
	url    string
	proc   *proc
	conn   *grpc.ClientConn
	client pb.WeaviateClient

	mu  sync.RWMutex
	ids map[string]map[string]string // index → object UUID → document id

	reqs prepared // gRPC search requests (read-only once built)
}

// StartWeaviate starts weaviate-server on loopback with free ports.
func StartWeaviate(ctx context.Context, opt WeaviateOptions) (System, error) {
	if err := os.RemoveAll(opt.Dir); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(filepath.Join(opt.Dir, "data"), 0o755); err != nil {
		return nil, err
	}
	ports := make([]int, 6)
	for i := range ports {
		p, err := freePort()
		if err != nil {
			return nil, err
		}
		ports[i] = p
	}
	env := []string{
		"AUTHENTICATION_ANONYMOUS_ACCESS_ENABLED=true",
		"DEFAULT_VECTORIZER_MODULE=none",
		"ENABLE_MODULES=",
		"DISABLE_TELEMETRY=true",
		"PERSISTENCE_DATA_PATH=" + filepath.Join(opt.Dir, "data"),
		"CLUSTER_HOSTNAME=node1",
		"CLUSTER_ADVERTISE_ADDR=127.0.0.1",
		"CLUSTER_BIND_ADDR=127.0.0.1",
		"GO_PROFILING_DISABLE=true",
		"PROMETHEUS_MONITORING_ENABLED=false",
		"CLUSTER_GOSSIP_BIND_PORT=" + strconv.Itoa(ports[1]),
		"CLUSTER_DATA_BIND_PORT=" + strconv.Itoa(ports[2]),
		"RAFT_PORT=" + strconv.Itoa(ports[3]),
		"RAFT_INTERNAL_RPC_PORT=" + strconv.Itoa(ports[4]),
		"GRPC_PORT=" + strconv.Itoa(ports[5]),
		"RAFT_BOOTSTRAP_EXPECT=1",
		"QUERY_DEFAULTS_LIMIT=25",
		"LOG_LEVEL=warning",
	}
	args := []string{"--host", "127.0.0.1", "--port", strconv.Itoa(ports[0]), "--scheme", "http"}
	p, err := startProc(opt.Bin, args, env, filepath.Join(opt.Dir, "weaviate.log"))
	if err != nil {
		return nil, err
	}
	w := &weaviate{opt: opt, url: fmt.Sprintf("http://127.0.0.1:%d", ports[0]), proc: p, ids: map[string]map[string]string{}}
	if err := waitHTTP(ctx, w.url+"/v1/.well-known/ready", p, 3*time.Minute); err != nil {
		p.stop()
		return nil, fmt.Errorf("weaviate: %w (log %s)", err, filepath.Join(opt.Dir, "weaviate.log"))
	}
	if w.conn, w.client, err = dialWeaviate(fmt.Sprintf("127.0.0.1:%d", ports[5])); err != nil {
		p.stop()
		return nil, err
	}
	return w, nil
}

func (w *weaviate) Name() string { return "Weaviate" }

func (w *weaviate) Settings() string {
	api := "schema over REST; batch import over gRPC `BatchObjects` (batches of 1000, vectors as `vector_bytes`) and queries over gRPC `Search` " +
		"(`bm25_search`, `near_vector`, `hybrid_search`, `filters`; the UUID only is returned, mapped back to the document id by the client), " +
		"the interface Weaviate recommends for speed and its v4 Python and v5 Go clients use (https://docs.weaviate.io/weaviate/api/grpc)"
	if w.opt.REST {
		api = "batch import over REST `/v1/batch/objects`, queries over GraphQL `/v1/graphql` (`bm25`, `nearVector`, `hybrid`, `where`)"
	}
	return "Weaviate " + w.opt.Version + " (`go install github.com/weaviate/weaviate/cmd/weaviate-server`), single node, " +
		"defaults: HNSW vector index (efConstruction 128, maxConnections 32, dynamic ef), cosine distance, BM25 k1 1.2 b 0.75, " +
		"hybrid = its default relativeScoreFusion with alpha 0.75 (https://docs.weaviate.io/weaviate/config-refs/indexing/vector-index, " +
		"https://docs.weaviate.io/weaviate/search/hybrid); vectors given by the client (`vectorizer: none`); " + api
}

func (w *weaviate) Supports(Kind) bool { return true }

// className maps an index name to a Weaviate class name (capitalised,
// letters and digits).
func className(index string) string {
	var b strings.Builder
	for i, r := range index {
		switch {
		case r >= 'a' && r <= 'z' && i == 0:
			b.WriteRune(r - 'a' + 'A')
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			b.WriteRune(r)
		}
	}
	return b.String()
}

func (w *weaviate) Create(ctx context.Context, index string) error {
	w.mu.Lock()
	delete(w.ids, index)
	w.mu.Unlock()
	cls := className(index)
	_ = doJSON(ctx, http.MethodDelete, w.url+"/v1/schema/"+cls, nil, nil)
	schema := map[string]any{
		"class":      cls,
		"vectorizer": "none",
		"properties": []map[string]any{
			{"name": "docid", "dataType": []string{"text"}, "tokenization": "field", "indexSearchable": false},
			{"name": "title", "dataType": []string{"text"}},
			{"name": "body", "dataType": []string{"text"}},
			{"name": "bucket", "dataType": []string{"int"}},
		},
	}
	if err := doJSON(ctx, http.MethodPost, w.url+"/v1/schema", schema, nil); err != nil {
		return fmt.Errorf("weaviate create %s: %w", cls, err)
	}
	return nil
}

// uuidOf derives a stable UUID from a document id.
func uuidOf(id string) string {
	h := md5.Sum([]byte(id))
	h[6] = h[6]&0x0f | 0x30
	h[8] = h[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", h[0:4], h[4:6], h[6:8], h[8:10], h[10:16])
}

const weaviateBatch = 1000

type weaviateBatchResult struct {
	Result struct {
		Errors *struct {
			Error []struct {
				Message string `json:"message"`
			} `json:"error"`
		} `json:"errors"`
	} `json:"result"`
}

func (w *weaviate) Ingest(ctx context.Context, index string, docs []Doc) error {
	w.mu.Lock()
	m := w.ids[index]
	if m == nil {
		m = make(map[string]string, len(docs))
		w.ids[index] = m
	}
	for _, d := range docs {
		m[uuidOf(d.ID)] = d.ID
	}
	w.mu.Unlock()
	if !w.opt.REST {
		return w.grpcIngest(ctx, index, docs)
	}
	return w.restIngest(ctx, index, docs)
}

// idsOf returns the UUID → document id map of index.
func (w *weaviate) idsOf(index string) map[string]string {
	w.mu.RLock()
	defer w.mu.RUnlock()
	return w.ids[index]
}

// restIngest imports docs over REST `/v1/batch/objects`.
func (w *weaviate) restIngest(ctx context.Context, index string, docs []Doc) error {
	cls := className(index)
	for lo := 0; lo < len(docs); lo += weaviateBatch {
		part := docs[lo:min(lo+weaviateBatch, len(docs))]
		objs := make([]map[string]any, len(part))
		for i, d := range part {
			objs[i] = map[string]any{
				"class":      cls,
				"id":         uuidOf(d.ID),
				"properties": map[string]any{"docid": d.ID, "title": d.Title, "body": d.Text, "bucket": d.Bucket},
				"vector":     d.Vector,
			}
		}
		var res []weaviateBatchResult
		if err := doJSON(ctx, http.MethodPost, w.url+"/v1/batch/objects", map[string]any{"objects": objs}, &res); err != nil {
			return fmt.Errorf("weaviate ingest: %w", err)
		}
		for _, r := range res {
			if r.Result.Errors != nil && len(r.Result.Errors.Error) > 0 {
				return fmt.Errorf("weaviate ingest: %s", r.Result.Errors.Error[0].Message)
			}
		}
	}
	return nil
}

// weaviateQuery builds the GraphQL query of one search.
func weaviateQuery(cls string, kind Kind, q Query, k int) string {
	var args []string
	switch kind {
	case Keyword:
		args = append(args, fmt.Sprintf(`bm25:{query:%s,properties:["title","body"]}`, gqlString(q.Text)))
	case Vector:
		args = append(args, fmt.Sprintf(`nearVector:{vector:%s}`, gqlVector(q.Vector)))
	default:
		args = append(args, fmt.Sprintf(`hybrid:{query:%s,vector:%s,properties:["title","body"]}`, gqlString(q.Text), gqlVector(q.Vector)))
	}
	if m := filterMax(kind); m > 0 {
		args = append(args, fmt.Sprintf(`where:{path:["bucket"],operator:LessThan,valueInt:%d}`, m))
	}
	args = append(args, fmt.Sprintf("limit:%d", k))
	return fmt.Sprintf("{Get{%s(%s){docid}}}", cls, strings.Join(args, ","))
}

func gqlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

func gqlVector(v []float32) string {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String()
}

// parseWeaviate reads the ids out of a GraphQL answer for class cls.
func parseWeaviate(data []byte, cls string) (Result, error) {
	var r struct {
		Data struct {
			Get map[string][]struct {
				DocID string `json:"docid"`
			} `json:"Get"`
		} `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(data, &r); err != nil {
		return Result{}, fmt.Errorf("weaviate answer: %w", err)
	}
	if len(r.Errors) > 0 {
		return Result{}, fmt.Errorf("weaviate answer: %s", r.Errors[0].Message)
	}
	hits, ok := r.Data.Get[cls]
	if !ok {
		return Result{}, fmt.Errorf("weaviate answer: no class %s in data.Get", cls)
	}
	res := Result{IDs: make([]string, len(hits))}
	for i, h := range hits {
		res.IDs[i] = h.DocID
	}
	return res, nil
}

func (w *weaviate) Search(ctx context.Context, index string, kind Kind, q Query, k int) (Result, error) {
	if !w.opt.REST {
		return w.grpcSearch(ctx, index, kind, q, k)
	}
	return w.restSearch(ctx, index, kind, q, k)
}

// restSearch runs one search over GraphQL.
func (w *weaviate) restSearch(ctx context.Context, index string, kind Kind, q Query, k int) (Result, error) {
	cls := className(index)
	var raw json.RawMessage
	if err := doJSON(ctx, http.MethodPost, w.url+"/v1/graphql", map[string]string{"query": weaviateQuery(cls, kind, q, k)}, &raw); err != nil {
		return Result{}, err
	}
	return parseWeaviate(raw, cls)
}

func (w *weaviate) Footprint(ctx context.Context, index string) (int64, int64, error) {
	return processFootprint(w.proc.pid(), filepath.Join(w.opt.Dir, "data"))
}

// CPUTime returns the CPU time Weaviate's server has used.
func (w *weaviate) CPUTime() (time.Duration, error) { return cpuTime(w.proc.pid()) }

func (w *weaviate) Drop(ctx context.Context, index string) error {
	w.mu.Lock()
	delete(w.ids, index)
	w.mu.Unlock()
	return doJSON(ctx, http.MethodDelete, w.url+"/v1/schema/"+className(index), nil, nil)
}

func (w *weaviate) Close() error {
	if w.conn != nil {
		w.conn.Close()
	}
	w.proc.stop()
	return nil
}
