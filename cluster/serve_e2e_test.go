package cluster

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The differential end-to-end suite: the real `najdi serve` binary over
// HTTP, once on its embedded store and once on each cluster node
// (--cluster-url), runs the same requests (collections, ingest of CSV,
// JSONL, the JSON envelope, plain text and HTML, filtered and
// multi-collection searches with passages and summaries, documents,
// deletes, errors) and must answer alike: the same documents in the same
// order, the same passages and summaries, scores within scoreTolerance
// (Lucene keeps document lengths in one byte).

const scoreTolerance = 0.02

var najdiBin struct {
	once sync.Once
	path string
	err  error
}

// buildNajdi builds cmd/najdi once per test binary.
func buildNajdi(t *testing.T) string {
	t.Helper()
	najdiBin.once.Do(func() {
		dir, err := os.MkdirTemp("", "najdi-cluster-e2e")
		if err != nil {
			najdiBin.err = err
			return
		}
		najdiBin.path = filepath.Join(dir, "najdi")
		cmd := exec.Command("go", "build", "-o", najdiBin.path, "../cmd/najdi")
		out, err := cmd.CombinedOutput()
		if err != nil {
			najdiBin.err = fmt.Errorf("build najdi: %v\n%s", err, out)
		}
	})
	if najdiBin.err != nil {
		t.Fatal(najdiBin.err)
	}
	return najdiBin.path
}

// najdi is a running `najdi serve`.
type najdi struct {
	url  string
	cmd  *exec.Cmd
	log  *bytes.Buffer
	data string
}

// startNajdi runs najdi serve on a free loopback port with args and waits
// until it is healthy. data "" means a fresh data directory.
func startNajdi(t *testing.T, data string, args ...string) *najdi {
	t.Helper()
	bin := buildNajdi(t)
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	if data == "" {
		data = t.TempDir()
	}
	n := &najdi{url: "http://" + addr, log: &bytes.Buffer{}, data: data}
	n.cmd = exec.Command(bin, append([]string{"serve", "--addr", addr, "--data", data}, args...)...)
	n.cmd.Stdout, n.cmd.Stderr = n.log, n.log
	if err := n.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.kill)
	deadline := time.Now().Add(2 * time.Minute)
	for time.Now().Before(deadline) {
		if r, err := http.Get(n.url + "/health"); err == nil {
			r.Body.Close()
			if r.StatusCode == 200 {
				return n
			}
		}
		if n.cmd.ProcessState != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("najdi serve did not become healthy:\n%s", n.log)
	return nil
}

// kill sends SIGKILL (as a crash would) and waits for the process.
func (n *najdi) kill() {
	if n.cmd.Process != nil && n.cmd.ProcessState == nil {
		_ = n.cmd.Process.Signal(syscall.SIGKILL)
		_, _ = n.cmd.Process.Wait()
	}
}

// call sends a request and returns the status and the decoded JSON body
// (nil when empty).
func (n *najdi) call(t *testing.T, method, path, ctype string, body []byte) (int, any) {
	t.Helper()
	req, err := http.NewRequest(method, n.url+path, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if len(bytes.TrimSpace(data)) > 0 {
		if err := json.Unmarshal(data, &v); err != nil {
			t.Fatalf("%s %s: %d %q is not JSON", method, path, resp.StatusCode, data)
		}
	}
	return resp.StatusCode, v
}

func (n *najdi) json(t *testing.T, method, path string, body any) (int, any) {
	t.Helper()
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			t.Fatal(err)
		}
	}
	return n.call(t, method, path, "application/json", raw)
}

// step is one request of the scenario and what it answered.
type step struct {
	name   string
	status int
	body   any
}

// uniquePrefix returns a fresh index prefix for a test's najdi.
func uniquePrefix() string {
	var b [4]byte
	_, _ = rand.Read(b[:])
	return "najdi-e2e-" + hex.EncodeToString(b[:]) + "-"
}

// dropPrefix deletes every index of a prefix on a node.
func dropPrefix(t *testing.T, url, prefix string) {
	c := testClient(t, url)
	_ = c.doJSON(context.Background(), "DELETE", "/"+prefix+"*", nil, nil, nil)
}

// clusterArgs returns the serve flags for a node and a prefix.
func clusterArgs(t *testing.T, f Flavour, prefix string) []string {
	if err := nodeErrs[f]; err != nil {
		t.Fatalf("node %s did not start: %v", f, err)
	}
	t.Cleanup(func() { dropPrefix(t, nodeURLs[f], prefix) })
	return []string{"--cluster-url", nodeURLs[f], "--cluster-prefix", prefix}
}

// e2eCorpus returns the scenario's documents: SciFact train documents as a
// CSV of records with number and enum fields, JSONL records, an envelope,
// a text file and an HTML file.
func e2eCorpus(t *testing.T) (csv, jsonl, envelope, txt, html []byte, queries []string) {
	docs, qs, _ := sciSubset(t, 60, 5)
	var b strings.Builder
	b.WriteString("id,title,abstract,year,kind\n")
	kinds := []string{"trial", "review", "cohort"}
	for i, d := range docs[:40] {
		fmt.Fprintf(&b, "%s,%q,%q,%d,%s\n", d.id, strings.ReplaceAll(d.title, `"`, `'`), strings.ReplaceAll(d.text, `"`, `'`), 1990+i%30, kinds[i%3])
	}
	csv = []byte(b.String())
	var jb bytes.Buffer
	for _, d := range docs[40:55] {
		line, _ := json.Marshal(map[string]any{"id": "j" + d.id, "title": d.title, "text": d.text, "lang": "en"})
		jb.Write(append(line, '\n'))
	}
	jsonl = jb.Bytes()
	var env []map[string]any
	for _, d := range docs[55:60] {
		env = append(env, map[string]any{"document_id": "e" + d.id, "sections": []map[string]string{{"type": "title", "content": d.title}, {"type": "body", "content": d.text}}})
	}
	// A document longer than the reranker reads whole (engine
	// rerankMaxRunes): the reranker reads its best chunk.
	var long []string
	for _, d := range docs[:8] {
		long = append(long, d.text)
	}
	env = append(env, map[string]any{"document_id": "long", "sections": []map[string]string{{"type": "title", "content": docs[0].title}, {"type": "body", "content": strings.Join(long, " ")}}})
	envelope, _ = json.Marshal(map[string]any{"documents": env})
	txt = []byte("Vitamin D and bone health\n\nVitamin D deficiency is associated with lower bone mineral density in older adults. Supplementation trials report mixed effects on fracture risk.\n")
	html = []byte("<html><head><title>Antibiotic resistance</title></head><body><h1>Antibiotic resistance</h1><p>Bacteria acquire resistance to antibiotics through mutation and horizontal gene transfer.</p><p>Surveillance of resistant strains guides treatment.</p></body></html>")
	for _, q := range qs {
		queries = append(queries, q[1])
	}
	return
}

// scenario runs the shared requests against one najdi and returns what
// each answered.
func scenario(t *testing.T, n *najdi) []step {
	csv, jsonl, envelope, txt, html, queries := e2eCorpus(t)
	var out []step
	rec := func(name string, status int, body any) {
		out = append(out, step{name, status, normalize(body)})
	}
	must := func(name string, want int, status int, body any) {
		t.Helper()
		if status != want {
			t.Fatalf("%s: HTTP %d, want %d: %v", name, status, want, body)
		}
		rec(name, status, body)
	}
	s, b := n.json(t, "PUT", "/v1/collections/papers", map[string]any{"fields": map[string]any{
		"year": map[string]any{"type": "number"}, "kind": map[string]any{"type": "enum"}}})
	must("create papers", 201, s, b)
	s, b = n.json(t, "PUT", "/v1/collections/notes", map[string]any{})
	must("create notes", 201, s, b)
	s, b = n.json(t, "PUT", "/v1/collections/notes", map[string]any{})
	must("replace notes config", 200, s, b)
	s, b = n.call(t, "POST", "/v1/collections/papers/documents", "text/csv", csv)
	must("ingest csv", 200, s, b)
	s, b = n.call(t, "POST", "/v1/collections/notes/documents", "application/x-ndjson", jsonl)
	must("ingest jsonl", 200, s, b)
	s, b = n.call(t, "POST", "/v1/collections/notes/documents", "application/json", envelope)
	must("ingest envelope", 200, s, b)
	s, b = n.call(t, "POST", "/v1/collections/notes/documents?document_id=vitd", "text/plain", txt)
	must("ingest text", 200, s, b)
	s, b = n.call(t, "POST", "/v1/collections/notes/documents?document_id=abx", "text/html", html)
	must("ingest html", 200, s, b)
	s, b = n.json(t, "GET", "/v1/collections/papers", nil)
	must("get papers", 200, s, b)
	s, b = n.json(t, "GET", "/v1/collections", nil)
	must("list collections", 200, s, b)

	yes := true
	for i, q := range queries {
		s, b = n.json(t, "POST", "/v1/collections/papers/search", map[string]any{"query": q, "highlight": yes})
		must(fmt.Sprintf("hybrid %d", i), 200, s, b)
		s, b = n.json(t, "POST", "/v1/collections/papers/search", map[string]any{"query": q, "highlight": yes,
			"filter": map[string]any{"bool": map[string]any{"filter": []any{
				map[string]any{"range": map[string]any{"year": map[string]any{"gte": 2000}}},
				map[string]any{"terms": map[string]any{"kind": []string{"trial", "cohort"}}}}}}})
		must(fmt.Sprintf("filtered %d", i), 200, s, b)
		s, b = n.json(t, "POST", "/v1/collections/papers,notes/search", map[string]any{"query": q, "max_results": 5,
			"summary_config": map[string]any{"max_tokens": 300}})
		must(fmt.Sprintf("two collections with summaries %d", i), 200, s, b)
		for _, r := range []string{"keyword", "semantic"} {
			s, b = n.json(t, "POST", "/v1/collections/papers/search", map[string]any{"query": q, "highlight": yes, "retrievers": r})
			must(fmt.Sprintf("retrievers %s %d", r, i), 200, s, b)
			if r == "semantic" {
				// below_min_score counts the candidates a backend examined:
				// the embedded store's semantic-only search reads only the
				// nearest chunks the page needs, the cluster 3·candidates
				// (docs/cluster.md). The documents must agree.
				md, _ := out[len(out)-1].body.(map[string]any)["metadata"].(map[string]any)
				if _, ok := md["below_min_score"].(float64); !ok {
					t.Fatalf("retrievers semantic %d: no below_min_score in %v", i, md)
				}
				delete(md, "below_min_score")
			}
		}
	}
	s, b = n.json(t, "POST", "/v1/collections/papers/search", map[string]any{"query": queries[0], "retrievers": "bm25"})
	rec("unknown retriever", s, b)
	s, b = n.json(t, "POST", "/v1/collections/papers/search", map[string]any{"query": queries[1], "rerank": map[string]any{"top_k": 5}, "max_results": 5})
	must("reranked records", 200, s, b)
	s, b = n.json(t, "POST", "/v1/collections/notes/search", map[string]any{"query": docs0Title(csv), "rerank": map[string]any{"top_k": 5}, "max_results": 5})
	must("reranked long document", 200, s, b)
	s, b = n.json(t, "POST", "/v1/collections/notes/search", map[string]any{"query": "vitamin D bone density", "highlight": yes})
	must("text document", 200, s, b)
	s, b = n.json(t, "POST", "/v1/collections/notes/search", map[string]any{"query": "antibiotic resistance bacteria", "result_format": "sections"})
	must("html document", 200, s, b)
	s, b = n.json(t, "POST", "/v1/collections/papers/search", map[string]any{"filter": map[string]any{"term": map[string]any{"kind": "review"}}, "max_results": 50})
	must("filter only", 200, s, b)
	s, b = n.json(t, "POST", "/v1/collections/papers/search", map[string]any{"query": queries[0], "offset": 5, "max_results": 5})
	must("second page", 200, s, b)
	s, b = n.json(t, "POST", "/v1/collections/papers/search", map[string]any{"query": "x", "filter": map[string]any{"term": map[string]any{"nosuchfield": "a"}}})
	rec("unknown filter field", s, b)
	s, b = n.json(t, "POST", "/v1/collections/nosuch/search", map[string]any{"query": "x"})
	rec("unknown collection", s, b)

	// Re-ingesting a record replaces it. (After the searches: the embedded
	// engine's statistics count replaced and deleted documents until a
	// merge, the cluster's live documents only, which moves idf and so
	// scores and keyword passages a little.)
	s, b = n.call(t, "POST", "/v1/collections/papers/documents", "text/csv", []byte(strings.Join(strings.Split(string(csv), "\n")[:3], "\n")+"\n"))
	must("re-ingest csv", 200, s, b)
	ids := csvIDs(csv)
	s, b = n.json(t, "GET", "/v1/collections/papers/documents/"+ids[4], nil)
	must("get document", 200, s, b)
	s, b = n.json(t, "GET", "/v1/collections/papers/documents?limit=7", nil)
	must("list documents", 200, s, b)
	s, b = n.json(t, "DELETE", "/v1/collections/papers/documents/"+ids[4], nil)
	rec("delete document", s, b)
	s, b = n.json(t, "GET", "/v1/collections/papers/documents/"+ids[4], nil)
	rec("get deleted document", s, b)
	s, b = n.json(t, "DELETE", "/v1/collections/papers/documents/"+ids[4], nil)
	rec("delete deleted document", s, b)
	s, b = n.json(t, "POST", "/v1/collections/papers/search", map[string]any{"query": queries[0]})
	must("search after delete", 200, s, b)
	s, b = n.json(t, "GET", "/v1/collections/papers", nil)
	must("count after delete", 200, s, b)
	s, b = n.json(t, "DELETE", "/v1/collections/notes", nil)
	rec("delete collection", s, b)
	s, b = n.json(t, "GET", "/v1/collections/notes", nil)
	rec("get deleted collection", s, b)
	s, b = n.json(t, "GET", "/v1/collections", nil)
	must("list after delete", 200, s, b)
	return out
}

// docs0Title returns the title of the corpus's first document (the title
// of the long envelope document), from the CSV.
func docs0Title(csv []byte) string {
	line := strings.Split(string(csv), "\n")[1]
	_, rest, _ := strings.Cut(line, ",\"")
	title, _, _ := strings.Cut(rest, "\"")
	return title
}

func csvIDs(csv []byte) []string {
	var ids []string
	for i, line := range strings.Split(strings.TrimSpace(string(csv)), "\n") {
		if i > 0 {
			ids = append(ids, strings.SplitN(line, ",", 2)[0])
		}
	}
	return ids
}

// normalize drops what differs between any two runs (ids, clocks,
// timings, sizes on disk).
func normalize(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := map[string]any{}
		for k, e := range x {
			switch k {
			case "search_id", "took_ms", "timings", "created_at", "updated_at", "size_bytes":
				continue
			}
			out[k] = normalize(e)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalize(e)
		}
		return out
	}
	return v
}

// diff compares two answers: equal, but numbers under a key named
// "score" within scoreTolerance. It returns the first difference.
func diff(path string, a, b any) string {
	switch x := a.(type) {
	case map[string]any:
		y, ok := b.(map[string]any)
		if !ok {
			return fmt.Sprintf("%s: %v vs %v", path, a, b)
		}
		keys := map[string]bool{}
		for k := range x {
			keys[k] = true
		}
		for k := range y {
			keys[k] = true
		}
		var ks []string
		for k := range keys {
			ks = append(ks, k)
		}
		sort.Strings(ks)
		for _, k := range ks {
			if k == "summary" && sameOrder(x["documents"], y["documents"]) != "" {
				continue // another order of near-tied documents: another summary
			}
			if k == "score" {
				fa, oka := x[k].(float64)
				fb, okb := y[k].(float64)
				if oka && okb && math.Abs(fa-fb) <= scoreTolerance {
					continue
				}
			}
			if d := diff(path+"."+k, x[k], y[k]); d != "" {
				return d
			}
		}
		return ""
	case []any:
		y, ok := b.([]any)
		if !ok || len(x) != len(y) {
			return fmt.Sprintf("%s: %d items vs %v", path, len(x), short(b))
		}
		if _, docs := firstMap(x); docs && strings.HasSuffix(path, ".documents") {
			return diffDocs(path, x, y)
		}
		for i := range x {
			if d := diff(fmt.Sprintf("%s[%d]", path, i), x[i], y[i]); d != "" {
				return d
			}
		}
		return ""
	}
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("%s: %v vs %v", path, short(a), short(b))
	}
	return ""
}

func firstMap(x []any) (map[string]any, bool) {
	if len(x) == 0 {
		return nil, false
	}
	m, ok := x[0].(map[string]any)
	return m, ok
}

// sameOrder returns "" when two result lists hold the same documents in
// the same order.
func sameOrder(a, b any) string {
	x, _ := a.([]any)
	y, _ := b.([]any)
	if len(x) != len(y) {
		return "length"
	}
	for i := range x {
		a, _ := x[i].(map[string]any)
		b, _ := y[i].(map[string]any)
		if a == nil || b == nil || a["document_id"] != b["document_id"] {
			return "order"
		}
	}
	return ""
}

// nearTies counts the answers whose documents came in another order
// among near-equal scores (diffDocs).
var nearTies int

// diffDocs compares two result lists. The documents must be the same, in
// the same order, except that documents whose scores are within
// scoreTolerance of each other may trade places (Lucene's one-byte length
// norms move BM25 scores slightly), also across the end of the list.
// Documents are compared by id.
func diffDocs(path string, a, b []any) string {
	id := func(v any) string { s, _ := v.(map[string]any)["document_id"].(string); return s }
	score := func(v any) float64 { f, _ := v.(map[string]any)["score"].(float64); return f }
	byID := map[string]any{}
	for _, d := range b {
		byID[id(d)] = d
	}
	reordered := false
	for i := range a {
		if id(a[i]) == id(b[i]) {
			continue
		}
		reordered = true
		if math.Abs(score(a[i])-score(b[i])) > scoreTolerance {
			return fmt.Sprintf("%s[%d]: document %s (score %v) vs %s (score %v)", path, i, id(a[i]), score(a[i]), id(b[i]), score(b[i]))
		}
	}
	if reordered {
		nearTies++
		last := score(a[len(a)-1])
		for i, d := range a {
			if byID[id(d)] == nil && math.Abs(score(d)-last) > scoreTolerance {
				return fmt.Sprintf("%s[%d]: document %s (score %v) is missing", path, i, id(d), score(d))
			}
		}
	}
	for i, d := range a {
		if o := byID[id(d)]; o != nil {
			if dd := diff(fmt.Sprintf("%s[%d]", path, i), d, o); dd != "" {
				return dd
			}
		}
	}
	return ""
}

func short(v any) string {
	s := fmt.Sprint(v)
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

// TestServeDifferential runs the scenario on the embedded store and on
// each cluster and compares every answer.
func TestServeDifferential(t *testing.T) {
	embedded := scenario(t, startNajdi(t, ""))
	for _, f := range testFlavours() {
		t.Run(string(f), func(t *testing.T) {
			n := startNajdi(t, "", clusterArgs(t, f, uniquePrefix())...)
			got := scenario(t, n)
			if len(got) != len(embedded) {
				t.Fatalf("%d steps, want %d", len(got), len(embedded))
			}
			bad := 0
			for i := range got {
				if got[i].status != embedded[i].status {
					t.Errorf("%s: HTTP %d on %s, %d embedded: %v", got[i].name, got[i].status, f, embedded[i].status, short(got[i].body))
					bad++
					continue
				}
				if d := diff("", embedded[i].body, got[i].body); d != "" {
					t.Errorf("%s: differs (embedded vs %s) at %s", got[i].name, f, d)
					bad++
				}
			}
			t.Logf("%s: %d of %d answers agree with the embedded engine (%d with near-tied documents in another order)", f, len(got)-bad, len(got), nearTies)
			nearTies = 0
		})
	}
}

// keywordCSV returns n short records for keyword-only collections.
func keywordCSV(from, n int) []byte {
	var b strings.Builder
	b.WriteString("id,text,group\n")
	for i := from; i < from+n; i++ {
		fmt.Fprintf(&b, "r%05d,record %d about topic%d and word%d,g%d\n", i, i, i%17, i%101, i%5)
	}
	return []byte(b.String())
}

func docCount(t *testing.T, n *najdi, coll string) float64 {
	t.Helper()
	s, b := n.json(t, "GET", "/v1/collections/"+coll, nil)
	if s != 200 {
		t.Fatalf("GET collection %s: HTTP %d %v", coll, s, b)
	}
	return b.(map[string]any)["document_count"].(float64)
}

// TestServeReplicas runs two najdi replicas on one cluster: what one
// writes the other serves at once, and a replica killed with SIGKILL and
// started again with an empty data directory loses nothing.
func TestServeReplicas(t *testing.T) {
	for _, f := range testFlavours() {
		t.Run(string(f), func(t *testing.T) {
			args := clusterArgs(t, f, uniquePrefix())
			a := startNajdi(t, "", args...)
			b := startNajdi(t, "", args...)
			if s, body := a.json(t, "PUT", "/v1/collections/shared", map[string]any{"embedding_config": map[string]any{"model": "none"}, "fields": map[string]any{"group": map[string]any{"type": "enum"}}}); s != 201 {
				t.Fatalf("create on a: %d %v", s, body)
			}
			if s, body := b.call(t, "POST", "/v1/collections/shared/documents", "text/csv", keywordCSV(0, 300)); s != 200 {
				t.Fatalf("ingest on b: %d %v", s, body)
			}
			if n := docCount(t, a, "shared"); n != 300 {
				t.Fatalf("a sees %v documents after b ingested 300", n)
			}
			query := map[string]any{"query": "topic3 word7", "filter": map[string]any{"term": map[string]any{"group": "g2"}}}
			s, before := a.json(t, "POST", "/v1/collections/shared/search", query)
			if s != 200 || len(before.(map[string]any)["documents"].([]any)) == 0 {
				t.Fatalf("search on a: %d %v", s, before)
			}
			_, onB := b.json(t, "POST", "/v1/collections/shared/search", query)
			if d := diff("", normalize(before), normalize(onB)); d != "" {
				t.Fatalf("replicas answer differently: %s", d)
			}
			// An NLU phrase set made on a lives on the cluster too.
			s, ps := a.json(t, "POST", "/phrase-sets", map[string]any{"name": "colours", "phrases": []any{map[string]any{"text": "red"}, map[string]any{"text": "blue"}}})
			if s != 201 {
				t.Fatalf("create phrase set on a: %d %v", s, ps)
			}
			psID, _ := ps.(map[string]any)["phrase_set_id"].(string)
			a.kill()
			a2 := startNajdi(t, "", args...)
			if s, got := a2.json(t, "GET", "/phrase-sets/"+psID, nil); s != 200 || got.(map[string]any)["name"] != "colours" {
				t.Fatalf("restarted replica: phrase set %q: %d %v", psID, s, got)
			}
			if n := docCount(t, a2, "shared"); n != 300 {
				t.Fatalf("restarted replica sees %v documents, want 300", n)
			}
			_, after := a2.json(t, "POST", "/v1/collections/shared/search", query)
			if d := diff("", normalize(before), normalize(after)); d != "" {
				t.Fatalf("restarted replica answers differently: %s", d)
			}
			if s, body := b.json(t, "DELETE", "/v1/collections/shared", nil); s != 200 && s != 204 {
				t.Fatalf("delete on b: %d %v", s, body)
			}
			if s, _ := a2.json(t, "GET", "/v1/collections/shared", nil); s != 404 {
				t.Fatalf("a2 GET deleted collection: HTTP %d, want 404", s)
			}
		})
	}
}

// TestServeNodeLostMidIngest cuts the cluster off (a loopback proxy
// closes) while najdi ingests an upload: the client gets a 503 that names
// the documents stored and those not; every document named stored is on
// the node, and sending the others again completes the collection.
func TestServeNodeLostMidIngest(t *testing.T) {
	for _, f := range testFlavours() {
		t.Run(string(f), func(t *testing.T) {
			prefix := uniquePrefix()
			direct := clusterArgs(t, f, prefix)
			c := testClient(t, nodeURLs[f])
			p := newProxy(t, c.base.Host)
			n := startNajdi(t, "", "--cluster-url", "http://"+p.ln.Addr().String(), "--cluster-prefix", prefix)
			if s, body := n.json(t, "PUT", "/v1/collections/mid", map[string]any{"embedding_config": map[string]any{"model": "none"}}); s != 201 {
				t.Fatalf("create: %d %v", s, body)
			}
			const total = 3000
			ctx := testCtx(t)
			go func() {
				defer p.close()
				for range 3000 {
					var r struct {
						Count int64 `json:"count"`
					}
					body := map[string]any{"query": map[string]any{"term": map[string]any{fKind: "doc"}}}
					if c.doJSON(ctx, "POST", "/"+prefix+"mid/_count", nil, body, &r) == nil && r.Count >= 600 { // the second bulk request is in: the first was acknowledged
						return
					}
					time.Sleep(10 * time.Millisecond)
				}
			}()
			s, body := n.call(t, "POST", "/v1/collections/mid/documents", "text/csv", keywordCSV(0, total))
			if s != 503 {
				t.Fatalf("ingest with the node lost: HTTP %d %v, want 503", s, short(body))
			}
			e := body.(map[string]any)["error"].(map[string]any)
			details, _ := e["details"].(map[string]any)
			toStrings := func(v any) []string {
				var out []string
				for _, x := range v.([]any) {
					out = append(out, x.(string))
				}
				return out
			}
			if details == nil || details["failed_documents"] == nil || details["stored_documents"] == nil {
				t.Fatalf("503 without the documents stored and failed: %v", e)
			}
			stored, failed := toStrings(details["stored_documents"]), toStrings(details["failed_documents"])
			if len(stored) == 0 || len(failed) == 0 {
				t.Fatalf("%d stored, %d failed: want some of each (%v)", len(stored), len(failed), e["message"])
			}
			t.Logf("%s: HTTP 503 %q: %d stored, %d named failed", f, e["message"], len(stored), len(failed))
			// The replica still answers, with 503s, while the node is cut off.
			if s, body := n.json(t, "GET", "/v1/collections/mid", nil); s != 503 {
				t.Fatalf("GET collection with the node cut off: HTTP %d %v, want 503", s, body)
			}
			// A replica on the node: every acknowledged document is there.
			n2 := startNajdi(t, "", direct...)
			have := map[string]bool{}
			cursor := ""
			for {
				_, page := n2.json(t, "GET", "/v1/collections/mid/documents?limit=1000&cursor="+cursor, nil)
				m := page.(map[string]any)
				for _, id := range toStrings(m["documents"]) {
					have[id] = true
				}
				next, _ := m["next_cursor"].(string)
				if next == "" {
					break
				}
				cursor = next
			}
			for _, id := range stored {
				if !have[id] {
					t.Fatalf("document %s was acknowledged but is not stored", id)
				}
			}
			// Send everything not acknowledged again.
			ack := map[string]bool{}
			for _, id := range stored {
				ack[id] = true
			}
			var b strings.Builder
			b.WriteString("id,text,group\n")
			for i, line := range strings.Split(strings.TrimSpace(string(keywordCSV(0, total))), "\n")[1:] {
				if !ack[fmt.Sprintf("r%05d", i)] {
					b.WriteString(line + "\n")
				}
			}
			if s, body := n2.call(t, "POST", "/v1/collections/mid/documents", "text/csv", []byte(b.String())); s != 200 {
				t.Fatalf("resend: HTTP %d %v", s, short(body))
			}
			if got := docCount(t, n2, "mid"); got != total {
				t.Fatalf("%v documents after resending, want %d", got, total)
			}
		})
	}
}
