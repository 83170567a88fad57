package server_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/najdi/najdi/internal/testutil"
)

// overloadCSV returns a CSV of rows records, each a few KB of varied words,
// so that ingesting it takes a noticeable time without embeddings.
func overloadCSV(rows int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	var b bytes.Buffer
	b.WriteString("id,title,body\n")
	for i := range rows {
		fmt.Fprintf(&b, "r%d,title %d,", i, i)
		for w := range 400 {
			if w > 0 {
				b.WriteByte(' ')
			}
			fmt.Fprintf(&b, "w%x", rng.IntN(50000))
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// retryAfter checks a 429 answer: error code, message and a positive
// Retry-After header in seconds.
func retryAfter(t *testing.T, r resp) int {
	t.Helper()
	if r.status != 429 {
		t.Fatalf("status %d, want 429: %s", r.status, truncate(r.body, 400))
	}
	if c := r.errorCode(t); c != "too_many_requests" {
		t.Fatalf("error code %q, want too_many_requests", c)
	}
	s, err := strconv.Atoi(r.header.Get("Retry-After"))
	if err != nil || s <= 0 {
		t.Fatalf("Retry-After %q, want a positive number of seconds", r.header.Get("Retry-After"))
	}
	return s
}

// TestOverloadJobQueueBounded submits more asynchronous jobs than the
// per-owner bound: the ones beyond it answer 429 with Retry-After instead
// of queueing without bound, a synchronous ingest still answers, and once a
// job ends a new one is accepted.
func TestOverloadJobQueueBounded(t *testing.T) {
	n := start(t, "", "--no-embeddings", "--max-ingest-jobs", "10", "--max-ingest-jobs-per-owner", "3")
	keywordCollection(t, n, "load", "")
	csv := overloadCSV(1500, 1)
	var ids []string
	var busy []resp
	for range 6 {
		r := n.do("POST", "/v1/collections/load/documents?async=true&id_field=id&format=csv", "text/csv", csv)
		switch r.status {
		case 202:
			ids = append(ids, r.json(t)["job_id"].(string))
		default:
			busy = append(busy, r)
		}
	}
	if len(busy) == 0 {
		t.Fatalf("6 jobs with a per-owner bound of 3: all accepted")
	}
	if len(ids) < 3 {
		t.Fatalf("only %d of the first 3 jobs accepted: %s", len(ids), busy[0].body)
	}
	retryAfter(t, busy[0])

	// A synchronous ingest is not starved by the queued jobs.
	start := time.Now()
	must(t, n.do("POST", "/v1/collections/load/documents?document_id=small", "text/plain", []byte("a small note about overload")), 200)
	if d := time.Since(start); d > 30*time.Second {
		t.Errorf("synchronous ingest took %v behind the jobs", d)
	}

	// When the first job ends, a new job is accepted again.
	waitJob(t, n, "load", ids[0], 2*time.Minute)
	must(t, n.do("POST", "/v1/collections/load/documents?async=true&id_field=id&format=csv", "text/csv", overloadCSV(10, 2)), 202)
}

// waitJob polls a job until it is no longer running.
func waitJob(t *testing.T, n *node, coll, id string, limit time.Duration) map[string]any {
	t.Helper()
	deadline := time.Now().Add(limit)
	for time.Now().Before(deadline) {
		st := must(t, n.getJSON("/v1/collections/"+coll+"/jobs/"+id), 200).json(t)
		if st["status"] != "running" {
			return st
		}
		time.Sleep(50 * time.Millisecond)
	}
	t.Fatalf("job %s still running after %v", id, limit)
	return nil
}

// TestOverloadJobProgress checks that a running job's processed count
// grows before the job ends (the job is smaller than one flush of 2000
// documents, so only progress inside the job shows it).
func TestOverloadJobProgress(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "prog", "")
	const rows = 1900
	r := must(t, n.do("POST", "/v1/collections/prog/documents?async=true&id_field=id&format=csv", "text/csv", overloadCSV(rows, 3)), 202)
	id := r.json(t)["job_id"].(string)
	var seen []int
	deadline := time.Now().Add(2 * time.Minute)
	for {
		st := must(t, n.getJSON("/v1/collections/prog/jobs/"+id), 200).json(t)
		if st["status"] != "running" {
			if st["status"] != "done" || int(st["processed"].(float64)) != rows {
				t.Fatalf("job ended: %v", st)
			}
			break
		}
		p := int(st["processed"].(float64))
		if len(seen) == 0 || seen[len(seen)-1] != p {
			seen = append(seen, p)
		}
		if time.Now().After(deadline) {
			t.Fatalf("job still running; processed %v", seen)
		}
		time.Sleep(10 * time.Millisecond)
	}
	t.Logf("processed while running: %v", seen)
	grew := false
	for _, p := range seen {
		if p > 0 && p < rows {
			grew = true
		}
	}
	if !grew {
		t.Fatalf("processed while running: %v, want a value between 0 and %d", seen, rows)
	}
}

// clientFrom returns an HTTP client whose connections come from the
// loopback address ip (127.0.0.2 is another client to the server).
func clientFrom(ip string) *http.Client {
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	return &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			return d.DialContext(ctx, network, addr)
		},
	}}
}

func getAs(t *testing.T, c *http.Client, n *node, user, pass string) resp {
	t.Helper()
	req, _ := http.NewRequest("GET", n.base+"/v1/collections", nil)
	req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(user+":"+pass)))
	r, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return resp{status: r.StatusCode, body: b, header: r.Header}
}

// TestOverloadFailedLogins floods wrong passwords from one client: beyond
// the limit they answer 429 with Retry-After, while a user whose
// credentials were already verified and a user logging in from another
// client still get in.
func TestOverloadFailedLogins(t *testing.T) {
	users := testutil.UsersFile(t, "alice:wonderland", "bob:builder", "carol:singer")
	n := start(t, "", "--no-embeddings", "--users", users)
	one, two := clientFrom("127.0.0.1"), clientFrom("127.0.0.2")
	must(t, getAs(t, one, n, "alice", "wonderland"), 200)

	limited := -1
	for i := range 30 {
		r := getAs(t, one, n, "bob", fmt.Sprintf("guess%d", i))
		if r.status == 429 {
			retryAfter(t, r)
			limited = i
			break
		}
		if r.status != 401 {
			t.Fatalf("wrong password %d: %d %s", i, r.status, r.body)
		}
	}
	if limited < 0 {
		t.Fatal("30 wrong passwords in a row: no 429")
	}
	if limited > 10 {
		t.Errorf("first 429 after %d failures, want at most 10", limited)
	}
	// Limited requests are refused before the password is checked: even the
	// right one.
	retryAfter(t, getAs(t, one, n, "carol", "singer"))
	// Credentials verified before the flood still work from the same client.
	must(t, getAs(t, one, n, "alice", "wonderland"), 200)
	// Another client logs in with the right password.
	must(t, getAs(t, two, n, "carol", "singer"), 200)
	// The attacked user name is limited from every client.
	retryAfter(t, getAs(t, two, n, "bob", "guess-again"))
}

// heapLive reads najdi_go_heap_live_bytes from /metrics.
func heapLive(t *testing.T, n *node) int64 {
	t.Helper()
	r := must(t, n.getJSON("/metrics"), 200)
	for _, l := range strings.Split(string(r.body), "\n") {
		if v, ok := strings.CutPrefix(l, "najdi_go_heap_live_bytes "); ok {
			x, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				t.Fatalf("najdi_go_heap_live_bytes %q: %v", v, err)
			}
			return x
		}
	}
	t.Fatalf("/metrics has no najdi_go_heap_live_bytes:\n%s", truncate(r.body, 2000))
	return 0
}

// TestOverloadJobsMemoryFlat ingests the same 150 large CSV records (40 KB
// each) again and again in asynchronous jobs: the collection keeps its
// size, and so must the server's live Go heap. Each finished job's status
// listed its documents by ids cut out of the CSV records, which kept every
// whole record alive (6 MB a job here; 1.2 MB per 1000 documents of
// 1.3 KB in najdi-bench overload).
func TestOverloadJobsMemoryFlat(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "mem", "")
	var b bytes.Buffer
	b.WriteString("id,title,pad\n")
	for i := range 150 {
		fmt.Fprintf(&b, "r%d,record %d,%s\n", i, i, strings.Repeat("z", 40000))
	}
	job := func() {
		t.Helper()
		r := n.do("POST", "/v1/collections/mem/documents?async=true&id_field=id&format=csv", "text/csv", b.Bytes())
		if r.status != 202 {
			t.Fatalf("job: %d %s", r.status, truncate(r.body, 400))
		}
		st := waitJob(t, n, "mem", r.json(t)["job_id"].(string), 2*time.Minute)
		if st["status"] != "done" || st["processed"] != float64(150) {
			t.Fatalf("job ended %v", st["status"])
		}
	}
	for range 3 {
		job()
	}
	before := heapLive(t, n)
	const jobs = 16
	for range jobs {
		job()
	}
	after := heapLive(t, n)
	t.Logf("live heap after 3 jobs %d MiB, after %d more %d MiB", before>>20, jobs, after>>20)
	// 16 jobs of 6 MB: a record kept per document would add 96 MB.
	if grew := after - before; grew > 30<<20 {
		t.Fatalf("live heap grew %d MiB over %d jobs that replaced the same 150 documents (from %d to %d MiB)", grew>>20, jobs, before>>20, after>>20)
	}
}

// TestIdleConnectionsHoldNoBodies uploads a 4 MB body on each of 24
// keep-alive connections and leaves them open and idle: the server must
// not keep each connection's request buffer (fasthttp does unless
// ReduceMemoryUsage: idle connections × --max-body, without bound). The
// garbage collector runs often (GOGC=25) while more requests go over one
// other connection, so that the live heap read from /metrics is current.
func TestIdleConnectionsHoldNoBodies(t *testing.T) {
	t.Setenv("GOGC", "25")
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "idle", "")
	body := []byte(`{"query": "` + strings.Repeat("a ", 2<<20) + `"}`) // 4 MB: a query over the length limit, refused with 400 once read
	post := func(c *http.Client) {
		t.Helper()
		r, err := c.Post(n.base+"/v1/collections/idle/search", "application/json", bytes.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, r.Body)
		r.Body.Close()
		if r.StatusCode != 400 {
			t.Fatalf("a 4 MB query: status %d, want 400", r.StatusCode)
		}
	}
	const conns = 24
	idle := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: conns, MaxConnsPerHost: conns}}
	defer idle.CloseIdleConnections()
	var wg sync.WaitGroup
	for range conns {
		wg.Add(1)
		go func() { defer wg.Done(); post(idle) }()
	}
	wg.Wait()
	other := &http.Client{Transport: &http.Transport{MaxConnsPerHost: 1}}
	defer other.CloseIdleConnections()
	for range 20 {
		post(other)
	}
	live := heapLive(t, n)
	t.Logf("live heap with %d idle connections that each uploaded 4 MB: %d MiB", conns, live>>20)
	if live > 48<<20 {
		t.Fatalf("live heap %d MiB with %d idle connections: their 4 MB request buffers are kept (%d MiB)", live>>20, conns, conns*4)
	}
}
