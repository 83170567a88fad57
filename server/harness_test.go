package server_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"mime/multipart"
	"net/http"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/najdi/najdi/internal/testutil"
)

// binPath is the najdi binary built once for the end-to-end tests.
var binPath string

func TestMain(m *testing.M) { testutil.RunWithNajdi(m, "../cmd/najdi", &binPath) }

// sharedData finds ../shared/data from the package directory upwards.
func sharedData(t testing.TB) string {
	t.Helper()
	return testutil.SharedData(t)
}

// node is a running najdi server process.
type node struct {
	t    testing.TB
	cmd  *exec.Cmd
	base string
	data string
	args []string
	log  *bytes.Buffer
	user string
	pass string
}

// start runs `najdi serve` with a fresh data dir (or data, when set) and
// waits for /health.
func start(t testing.TB, data string, extra ...string) *node {
	t.Helper()
	if data == "" {
		data = t.TempDir()
	}
	n := &node{t: t, data: data, args: extra}
	n.boot()
	t.Cleanup(n.kill)
	return n
}

func (n *node) boot() {
	n.log = &bytes.Buffer{}
	n.cmd, n.base = testutil.Serve(n.t, binPath, n.data, n.log, n.args...)
}

// kill stops the process with SIGKILL (a crash) if it still runs.
func (n *node) kill() {
	if n.cmd != nil && n.cmd.Process != nil {
		_ = n.cmd.Process.Signal(syscall.SIGKILL)
		_, _ = n.cmd.Process.Wait()
		n.cmd = nil
	}
}

// restart crashes the node and starts it again on the same data.
func (n *node) restart() {
	n.kill()
	n.boot()
}

type resp struct {
	status int
	body   []byte
	header http.Header
}

func (r resp) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("response is not a JSON object (%d): %s", r.status, r.body)
	}
	return m
}

// errorCode returns error.code of an error body.
func (r resp) errorCode(t testing.TB) string {
	t.Helper()
	m := r.json(t)
	e, ok := m["error"].(map[string]any)
	if !ok {
		t.Fatalf("no error object in %s", r.body)
	}
	if msg, _ := e["message"].(string); msg == "" {
		t.Fatalf("error without a message: %s", r.body)
	}
	return e["code"].(string)
}

func (n *node) do(method, path, ctype string, body []byte) resp {
	n.t.Helper()
	req, err := http.NewRequest(method, n.base+path, bytes.NewReader(body))
	if err != nil {
		n.t.Fatal(err)
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if n.user != "" {
		req.Header.Set("Authorization", "Basic "+base64.StdEncoding.EncodeToString([]byte(n.user+":"+n.pass)))
	}
	c := &http.Client{Timeout: 120 * time.Second}
	r, err := c.Do(req)
	if err != nil {
		n.t.Fatalf("%s %s: %v", method, path, err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return resp{status: r.StatusCode, body: b, header: r.Header}
}

func (n *node) as(user, pass string) *node {
	c := *n
	c.user, c.pass = user, pass
	return &c
}

func (n *node) getJSON(path string) resp { return n.do("GET", path, "", nil) }

func (n *node) postJSON(path string, v any) resp { return n.sendJSON("POST", path, v) }

func (n *node) putJSON(path string, v any) resp { return n.sendJSON("PUT", path, v) }

// sendJSON sends v (a JSON string as is, anything else marshalled).
func (n *node) sendJSON(method, path string, v any) resp {
	b, ok := v.(string)
	if !ok {
		raw, _ := json.Marshal(v)
		b = string(raw)
	}
	return n.do(method, path, "application/json", []byte(b))
}

// upload sends files as one multipart request.
func (n *node) upload(path string, files map[string][]byte) resp {
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	for name, data := range files {
		fw, err := w.CreateFormFile("file", name)
		if err != nil {
			n.t.Fatal(err)
		}
		fw.Write(data)
	}
	w.Close()
	return n.do("POST", path, w.FormDataContentType(), buf.Bytes())
}

func must(t testing.TB, r resp, status int) resp {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, truncate(r.body, 600))
	}
	return r
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// readFile reads a sample document of shared/data/docs.
func readFile(t testing.TB, name string) []byte { return testutil.ReadDoc(t, name) }

func keywordCollection(t testing.TB, n *node, id string, extra string) {
	t.Helper()
	body := `{"embedding_config": {"model": "none"}` + extra + `}`
	r := n.putJSON("/v1/collections/"+id, body)
	if r.status != 201 && r.status != 200 {
		t.Fatalf("create collection: %d %s", r.status, r.body)
	}
}
