package server_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/najdi/najdi/internal/testutil"
)

func docSections(i int) []map[string]string {
	return []map[string]string{
		{"type": "title", "content": fmt.Sprintf("document number %d", i)},
		{"type": "p", "content": fmt.Sprintf("first paragraph of %d: %s", i, strings.Repeat("alpha beta gamma ", 20))},
		{"type": "p", "content": fmt.Sprintf("last paragraph of %d", i)},
	}
}

// TestCrashDurability kills the real server process with SIGKILL while
// clients ingest, restarts it, and checks that every acknowledged document
// is there and no half-written document is.
func TestCrashDurability(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "crash", "")
	var mu sync.Mutex
	acked := map[string]bool{}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	client := &http.Client{Timeout: 10 * time.Second}
	for w := 0; w < 3; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; ; i += 3 {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("d%d", i)
				body, _ := json.Marshal(map[string]any{"documents": []any{map[string]any{"document_id": id, "sections": docSections(i)}}})
				r, err := client.Post(n.base+"/v1/collections/crash/documents", "application/json", bytes.NewReader(body))
				if err != nil {
					return // the server died
				}
				r.Body.Close()
				if r.StatusCode == 200 {
					mu.Lock()
					acked[id] = true
					mu.Unlock()
				}
			}
		}(w)
	}
	// A large CSV in flight when the process dies: its flushed batches may
	// survive, but never a partial row.
	wg.Add(1)
	go func() {
		defer wg.Done()
		var csv strings.Builder
		csv.WriteString("id,a,b,c\n")
		for i := 0; i < 30000; i++ {
			fmt.Fprintf(&csv, "row%d,x%d,y%d,z%d\n", i, i, i, i)
		}
		r, err := client.Post(n.base+"/v1/collections/crash/documents", "text/csv", strings.NewReader(csv.String()))
		if err == nil {
			r.Body.Close()
		}
	}()
	// Kill once enough writes are acknowledged (at least 2.5 s in, so the
	// CSV is in flight) — a busy machine acknowledges fewer per second, so
	// the wait is for a count, bounded by a minute.
	time.Sleep(2500 * time.Millisecond)
	for deadline := time.Now().Add(time.Minute); time.Now().Before(deadline); time.Sleep(50 * time.Millisecond) {
		mu.Lock()
		enough := len(acked) >= 30
		mu.Unlock()
		if enough {
			break
		}
	}
	n.kill()
	close(stop)
	wg.Wait()
	if len(acked) < 10 {
		t.Fatalf("only %d documents were acknowledged before the crash; the test needs more", len(acked))
	}
	n.boot()
	for id := range acked {
		d := getDoc(t, n, "crash", id)
		var i int
		fmt.Sscanf(id, "d%d", &i)
		checkSections(t, d, docSections(i))
	}
	// Every stored document is whole.
	cursor, total := "", 0
	for {
		r := must(t, n.getJSON("/v1/collections/crash/documents?limit=1000&cursor="+cursor), 200)
		var page struct {
			Documents []string `json:"documents"`
			Next      string   `json:"next_cursor"`
		}
		json.Unmarshal(r.body, &page)
		for _, id := range page.Documents {
			total++
			if total%50 != 0 && !strings.HasPrefix(id, "d") {
				continue // sample the CSV rows
			}
			d := getDoc(t, n, "crash", id)
			if strings.HasPrefix(id, "row") {
				if len(d.Sections) != 4 {
					t.Fatalf("row %s has %d sections, want 4", id, len(d.Sections))
				}
				continue
			}
			var i int
			fmt.Sscanf(id, "d%d", &i)
			checkSections(t, d, docSections(i))
		}
		if page.Next == "" {
			break
		}
		cursor = page.Next
	}
	c := must(t, n.getJSON("/v1/collections/crash"), 200).json(t)
	if int(c["document_count"].(float64)) != total {
		t.Errorf("document_count %v, listed %d", c["document_count"], total)
	}
	// The restarted store keeps working: search finds acknowledged documents.
	r := must(t, n.postJSON("/v1/collections/crash/search", `{"query": "last paragraph", "max_results": 5}`), 200)
	if !bytes.Contains(r.body, []byte(`"document_id":"d`)) {
		t.Errorf("search after restart found nothing: %s", truncate(r.body, 300))
	}
	t.Logf("acknowledged %d documents, %d stored after the crash", len(acked), total)
}

func checkSections(t *testing.T, d docResp, want []map[string]string) {
	t.Helper()
	if len(d.Sections) != len(want) {
		t.Fatalf("%s: %d sections, want %d", d.DocumentID, len(d.Sections), len(want))
	}
	for i, s := range d.Sections {
		if s.Type != want[i]["type"] || s.Content != want[i]["content"] {
			t.Fatalf("%s section %d = %+v, want %v", d.DocumentID, i, s, want[i])
		}
	}
}

// TestAuthIsolation checks Basic authentication and per-owner isolation.
func TestAuthIsolation(t *testing.T) {
	users := testutil.UsersFile(t, "alice:wonderland:user", "bob:builder:user", "root:toor:admin")
	n := start(t, "", "--no-embeddings", "--users", users)
	alice, bob, root := n.as("alice", "wonderland"), n.as("bob", "builder"), n.as("root", "toor")

	if r := n.getJSON("/v1/collections"); r.status != 401 || r.errorCode(t) != "unauthorized" || r.header.Get("WWW-Authenticate") == "" {
		t.Fatalf("no credentials: %d %s", r.status, r.body)
	}
	if r := n.as("alice", "wrong").getJSON("/v1/collections"); r.status != 401 {
		t.Fatalf("wrong password: %d", r.status)
	}
	must(t, alice.putJSON("/v1/collections/news", `{"embedding_config": {"model": "none"}}`), 201)
	must(t, alice.postJSON("/v1/collections/news/documents", `{"documents": [{"document_id": "a1", "sections": [{"type": "p", "content": "alice secret memo"}]}]}`), 200)
	for _, r := range []resp{
		bob.getJSON("/v1/collections/news"),
		bob.getJSON("/v1/collections/news/documents/a1"),
		bob.postJSON("/v1/collections/news/search", `{"query": "secret"}`),
		bob.do("DELETE", "/v1/collections/news", "", nil),
	} {
		if r.status != 404 {
			t.Fatalf("bob reached alice's collection: %d %s", r.status, r.body)
		}
	}
	// Bob's own "news" is a different collection.
	must(t, bob.putJSON("/v1/collections/news", `{"embedding_config": {"model": "none"}}`), 201)
	r := must(t, bob.postJSON("/v1/collections/news/search", `{"query": "secret"}`), 200).json(t)
	if docs, _ := r["documents"].([]any); len(docs) != 0 {
		t.Fatalf("bob's collection returned alice's documents: %v", r)
	}
	list := must(t, alice.getJSON("/v1/collections"), 200).json(t)["collections"].([]any)
	if len(list) != 1 {
		t.Fatalf("alice lists %d collections, want 1", len(list))
	}
	all := must(t, root.getJSON("/v1/collections"), 200).json(t)["collections"].([]any)
	if len(all) != 2 {
		t.Fatalf("admin lists %d collections, want 2", len(all))
	}
	must(t, root.getJSON("/v1/collections/news/documents/a1?owner=alice"), 200)
	// Metrics name owners and collections: admins only.
	if r := alice.getJSON("/metrics"); r.status != 403 {
		t.Fatalf("a user read the metrics: %d", r.status)
	}
	if r := n.getJSON("/metrics"); r.status != 401 {
		t.Fatalf("anonymous metrics: %d", r.status)
	}
	if m := must(t, root.getJSON("/metrics"), 200); !strings.Contains(string(m.body), `najdi_documents{owner="alice",collection="news"} 1`) {
		t.Fatalf("admin metrics lack alice's collection: %s", truncate(m.body, 400))
	}
	// An admin ingests and queries on a user's behalf.
	must(t, root.postJSON("/v1/collections/news/documents?owner=alice", `{"documents": [{"document_id": "a2", "sections": [{"type": "p", "content": "added by the admin"}]}]}`), 200)
	must(t, alice.getJSON("/v1/collections/news/documents/a2"), 200)
	must(t, root.getJSON("/v1/collections/news/query?query=admin&owner=alice"), 200)
	// NLU resources are isolated too.
	m := must(t, alice.postJSON("/models", `{"name": "re", "type": "annotator", "annotator": {"service": "builtin", "model": "regex", "config": {"patterns": {"code": "[A-Z]{3}"}}}}`), 201).json(t)
	id := m["model_id"].(string)
	if r := bob.getJSON("/models/" + id); r.status != 404 {
		t.Fatalf("bob reached alice's model: %d", r.status)
	}
}

// TestAsyncJobSurvivesCrash kills the server with SIGKILL while an
// accepted asynchronous ingest runs, restarts it and checks that the job is
// resumed and finishes with every row stored once: rows without ids get the
// same generated ids on the second run, so none is doubled.
func TestAsyncJobSurvivesCrash(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "jobs", "")
	const rows = 100000
	var csv strings.Builder
	csv.WriteString("a,b,c\n") // no id column, no file name: generated ids
	for i := 0; i < rows; i++ {
		fmt.Fprintf(&csv, "alpha %d,beta %d,gamma %d\n", i, i, i)
	}
	r := must(t, n.do("POST", "/v1/collections/jobs/documents?async=true", "text/csv", []byte(csv.String())), 202).json(t)
	job := r["job_id"].(string)
	// Kill once the first batches are stored, well before the end.
	var st map[string]any
	for start := time.Now(); time.Since(start) < 30*time.Second; time.Sleep(10 * time.Millisecond) {
		st = must(t, n.getJSON("/v1/collections/jobs/jobs/"+job), 200).json(t)
		if st["status"] != "running" || st["processed"].(float64) > 0 {
			break
		}
	}
	if st["status"] != "running" || st["processed"].(float64) == 0 {
		t.Fatalf("job %v before the crash, want running with stored batches (change the upload size or the wait)", st)
	}
	before := st["processed"].(float64)
	n.kill()
	n.boot()
	deadline := time.Now().Add(3 * time.Minute)
	for {
		st = must(t, n.getJSON("/v1/collections/jobs/jobs/"+job), 200).json(t)
		if st["status"] != "running" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("resumed job did not finish: %v", st)
		}
		time.Sleep(100 * time.Millisecond)
	}
	if st["status"] != "done" || st["processed"].(float64) != rows || st["restarts"].(float64) != 1 {
		t.Fatalf("job after the crash: status %v, processed %v, restarts %v, error %v; want done, %d, 1", st["status"], st["processed"], st["restarts"], st["error"], rows)
	}
	c := must(t, n.getJSON("/v1/collections/jobs"), 200).json(t)
	if got := int(c["document_count"].(float64)); got != rows {
		t.Fatalf("document_count %d after the resumed job, want %d (none lost, none doubled)", got, rows)
	}
	t.Logf("%v of %d rows stored when the server was killed; all %d after the resumed job", before, rows, rows)
	// A finished job's status survives another restart.
	n.restart()
	st = must(t, n.getJSON("/v1/collections/jobs/jobs/"+job), 200).json(t)
	if st["status"] != "done" || st["processed"].(float64) != rows {
		t.Fatalf("finished job after a restart: %v", st)
	}
}
