package server_test

import (
	"bufio"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/najdi/najdi/internal/testutil"
)

// Security tests of issue 18, items 1 and 2: secrets and outbound calls.
// The servers get their allow-list and API keys from NAJDI_ALLOW_OUTBOUND
// and NAJDI_SECRET where that is enough (the child process inherits the
// test's environment), so that a server that ignores them still starts
// and shows the leak instead of failing on an unknown flag.

// secSink is a local OpenAI-compatible embedding endpoint and annotation
// microservice standing in for a service a user brings. It records every
// request (path, query, headers, body) and answers with status when set.
type secSink struct {
	srv    *httptest.Server
	status int
	body   string

	mu   sync.Mutex
	reqs []secReq
}

type secReq struct {
	path, query string
	header      http.Header
	body        string
}

func newSink(t *testing.T) *secSink {
	t.Helper()
	s := &secSink{}
	s.srv = httptest.NewServer(s)
	t.Cleanup(s.srv.Close)
	return s
}

func (s *secSink) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var raw json.RawMessage
	_ = json.NewDecoder(r.Body).Decode(&raw)
	s.mu.Lock()
	s.reqs = append(s.reqs, secReq{path: r.URL.Path, query: r.URL.RawQuery, header: r.Header.Clone(), body: string(raw)})
	status, body := s.status, s.body
	s.mu.Unlock()
	if status != 0 {
		w.WriteHeader(status)
		w.Write([]byte(body))
		return
	}
	w.Header().Set("Content-Type", "application/json")
	switch r.URL.Path {
	case "/v1/embeddings":
		var req struct {
			Input []string `json:"input"`
		}
		_ = json.Unmarshal(raw, &req)
		var data []any
		for i, in := range req.Input {
			v := []float64{1, float64(len(in) % 7), 0.5, 0.25}
			data = append(data, map[string]any{"index": i, "embedding": v})
		}
		json.NewEncoder(w).Encode(map[string]any{"data": data})
	case "/annotate":
		json.NewEncoder(w).Encode(map[string]any{"intents": []any{map[string]any{"intent": "hello", "confidence": 0.9}}, "annotations": []any{}})
	default:
		http.Error(w, "no such path", 404)
	}
}

func (s *secSink) hostPort() string { return strings.TrimPrefix(s.srv.URL, "http://") }

func (s *secSink) requests() []secReq {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.reqs)
}

func (s *secSink) set(status int, body string) {
	s.mu.Lock()
	s.status, s.body = status, body
	s.mu.Unlock()
}

// remoteConfig is a collection configuration with a remote embedding
// endpoint; extra is added to the model object.
func remoteConfig(u, extra string) string {
	if extra != "" {
		extra = ", " + extra
	}
	return fmt.Sprintf(`{"embedding_config": {"model": {"url": %q, "model": "m", "dims": 4%s}}}`, u, extra)
}

func microserviceModel(name, u string) string {
	return fmt.Sprintf(`{"name": %q, "type": "annotator", "annotator": {"service": %q, "model": "x"}}`, name, u)
}

const secDoc = `{"documents": [{"document_id": "a", "sections": [{"type": "p", "content": "red apples and green pears"}]}]}`

// errMessage returns the error message of an error response.
func errMessage(t *testing.T, r resp) string {
	t.Helper()
	e, _ := r.json(t)["error"].(map[string]any)
	msg, _ := e["message"].(string)
	if msg == "" {
		t.Fatalf("no error message in %d %s", r.status, r.body)
	}
	return msg
}

// TestSecurityAPIKeys: a collection configuration cannot make the server
// send one of its environment variables anywhere. Undeclared names —
// set, unset, HOME, the LLM key's variable — all answer the same 400 and
// the endpoint never sees a key; a key the operator declared
// (NAJDI_SECRET=name=ENVVAR) is sent, by api_key_name and by the legacy
// api_key_env naming its variable, and never appears in a response.
func TestSecurityAPIKeys(t *testing.T) {
	const secret = "s3cret-of-the-server-4f9a1c"
	const declared = "declared-embedding-key-77b2"
	t.Setenv("NAJDI_TEST_SECRET", secret)
	t.Setenv("NAJDI_LLM_API_KEY", secret+"-llm")
	t.Setenv("NAJDI_TEST_EMBED_KEY", declared)
	sink := newSink(t)
	t.Setenv("NAJDI_ALLOW_OUTBOUND", sink.hostPort())
	t.Setenv("NAJDI_SECRET", "embed=NAJDI_TEST_EMBED_KEY")
	n := start(t, "")

	var bodies []string
	groups := map[string][]string{
		"api_key_env":  {"NAJDI_TEST_SECRET", "NAJDI_LLM_API_KEY", "HOME", "PATH", "NAJDI_TEST_SURELY_UNSET", "embed", ""},
		"api_key_name": {"NAJDI_TEST_SECRET", "HOME", "NAJDI_TEST_SURELY_UNSET", "nope", "EMBED", ""},
	}
	for _, field := range []string{"api_key_env", "api_key_name"} {
		var msgs []string
		for i, name := range groups[field] {
			id := fmt.Sprintf("%s-%d", strings.ReplaceAll(field, "_", "-"), i)
			r := n.putJSON("/v1/collections/"+id, remoteConfig(sink.srv.URL, fmt.Sprintf("%q: %q", field, name)))
			bodies = append(bodies, string(r.body))
			if name == "" && r.status/100 == 2 {
				continue // an empty name is no key at all
			}
			if r.status/100 == 2 {
				// Accepted: show what an ingest would send.
				bodies = append(bodies, string(n.postJSON("/v1/collections/"+id+"/documents", secDoc).body))
			}
			if r.status != 400 || r.errorCode(t) != "invalid_request" {
				t.Errorf("%s %q: status %d, want 400: %s", field, name, r.status, truncate(r.body, 300))
				continue
			}
			msg := errMessage(t, r)
			if !strings.Contains(msg, field) || !strings.Contains(msg, "--secret") {
				t.Errorf("%s %q: the message %q should name the field and the --secret flag", field, name, msg)
			}
			msgs = append(msgs, msg)
		}
		for _, m := range msgs[1:] {
			if m != msgs[0] {
				t.Errorf("%s: set and unset variables answer differently:\n%s\n%s", field, msgs[0], m)
			}
		}
	}
	both := n.putJSON("/v1/collections/both", remoteConfig(sink.srv.URL, `"api_key_name": "embed", "api_key_env": "NAJDI_TEST_EMBED_KEY"`))
	bodies = append(bodies, string(both.body))
	if both.status != 400 {
		t.Errorf("api_key_name and api_key_env together: status %d, want 400", both.status)
	}

	// Declared keys work, by name and by their variable (older configs).
	for _, cfg := range []struct{ id, extra string }{{"by-name", `"api_key_name": "embed"`}, {"by-env", `"api_key_env": "NAJDI_TEST_EMBED_KEY"`}} {
		r := n.putJSON("/v1/collections/"+cfg.id, remoteConfig(sink.srv.URL, cfg.extra))
		bodies = append(bodies, string(r.body))
		if r.status != 201 {
			t.Errorf("%s: status %d, want 201: %s", cfg.id, r.status, truncate(r.body, 300))
			continue
		}
		ir := n.postJSON("/v1/collections/"+cfg.id+"/documents", secDoc)
		bodies = append(bodies, string(ir.body))
		if ir.status != 200 {
			t.Errorf("%s: ingest status %d: %s", cfg.id, ir.status, truncate(ir.body, 300))
		}
		g := n.getJSON("/v1/collections/" + cfg.id)
		bodies = append(bodies, string(g.body))
	}
	bodies = append(bodies, string(n.getJSON("/v1/collections").body))

	sawDeclared := false
	for _, rq := range sink.requests() {
		for name, vs := range rq.header {
			for _, v := range vs {
				if strings.Contains(v, secret) {
					t.Errorf("the endpoint received the server's secret in %s: %q", name, v)
				}
				if v == "Bearer "+declared {
					sawDeclared = true
				}
			}
		}
		if strings.Contains(rq.body, secret) || strings.Contains(rq.path+rq.query, secret) {
			t.Errorf("the endpoint received the server's secret in a request: %s %s", rq.path, rq.body)
		}
	}
	if !sawDeclared {
		t.Errorf("the declared key was never sent (%d requests)", len(sink.requests()))
	}
	for _, b := range bodies {
		if strings.Contains(b, secret) || strings.Contains(b, declared) {
			t.Errorf("a response holds a key: %s", truncate([]byte(b), 400))
		}
	}
}

// hostileURLs are base URLs that must never be called: loopback, private
// and link-local addresses in every spelling, and credentials.
func hostileURLs(port string) []string {
	return []string{
		"http://127.0.0.1:" + port,
		"http://[::1]:" + port,
		"http://localhost:" + port,
		"http://2130706433:" + port,
		"http://0x7f000001:" + port,
		"http://0177.0.0.1:" + port,
		"http://127.1:" + port,
		"http://[::ffff:127.0.0.1]:" + port,
		"http://user:pw@127.0.0.1:" + port,
		"http://169.254.169.254",
		"http://169.254.169.254/latest/meta-data",
		"http://10.0.0.1",
		"http://192.168.1.1",
		"http://0.0.0.0:" + port,
		"http://[fd00::1]",
		"http://[fe80::1%25lo]:" + port,
	}
}

// TestSecurityNoOutboundByDefault: without --allow-outbound no URL that a
// collection or an NLU model names is accepted, and nothing is called. A
// well-formed URL is refused naming the flag; the others are refused for
// their form (credentials, numeric host spellings, escapes) first.
func TestSecurityNoOutboundByDefault(t *testing.T) {
	sink := newSink(t)
	_, port, _ := net.SplitHostPort(sink.hostPort())
	t.Setenv("NAJDI_ALLOW_OUTBOUND", "")
	n := start(t, "")
	urls := append([]string{sink.srv.URL, "http://embeddings.example.com", "https://api.openai.com"}, hostileURLs(port)...)
	for i, u := range urls {
		id := fmt.Sprintf("c%d", i)
		follow := u == sink.srv.URL // show what an accepted config does (the others could hang)
		r := n.putJSON("/v1/collections/"+id, remoteConfig(u, ""))
		if r.status/100 == 2 && follow {
			n.postJSON("/v1/collections/"+id+"/documents", secDoc)
		}
		wellFormed := !strings.ContainsAny(u, "@%") && !strings.Contains(u, "ffff") && !strings.Contains(u, "//0") && !strings.Contains(u, "//2") && !strings.Contains(u, "127.1:")
		if r.status != 400 || wellFormed && !strings.Contains(errMessage(t, r), "--allow-outbound") {
			t.Errorf("collection with %s: %d %s, want 400 naming --allow-outbound", u, r.status, truncate(r.body, 300))
		}
		m := n.postJSON("/models", microserviceModel(id, u))
		if m.status/100 == 2 && follow {
			var created struct {
				ModelID string `json:"model_id"`
			}
			json.Unmarshal(m.body, &created)
			n.postJSON("/models/"+created.ModelID+"/analyze", `{"text": "hello"}`)
		}
		if m.status != 400 || wellFormed && !strings.Contains(errMessage(t, m), "--allow-outbound") {
			t.Errorf("annotator with %s: %d %s, want 400 naming --allow-outbound", u, m.status, truncate(m.body, 300))
		}
	}
	if got := sink.requests(); len(got) != 0 {
		t.Errorf("the local endpoint was called %d times without an allow-list", len(got))
	}
}

// TestSecurityAllowOutbound: --allow-outbound 127.0.0.1:PORT lets exactly
// that endpoint be used (embeddings and annotation), not another port of
// the same host; URLs with a query, a fragment or credentials are refused
// so that the fixed paths (/v1/embeddings, /annotate) cannot be cancelled.
func TestSecurityAllowOutbound(t *testing.T) {
	sink := newSink(t)
	other := newSink(t)
	n := start(t, "", "--allow-outbound", sink.hostPort())

	must(t, n.putJSON("/v1/collections/ok", remoteConfig(sink.srv.URL, "")), 201)
	ingestOK(t, n.postJSON("/v1/collections/ok/documents", secDoc))
	must(t, n.postJSON("/v1/collections/ok/search", `{"query": "apples"}`), 200)
	m := createModel(t, n, microserviceModel("ok", sink.srv.URL))
	a := analyze(t, n, m.ModelID, "hello there")
	if len(a.Intents) == 0 || a.Intents[0].Intent != "hello" {
		t.Fatalf("the allowed annotation service was not used: %+v", a.Intents)
	}
	// A path prefix is kept and the fixed suffix appended.
	must(t, n.putJSON("/v1/collections/prefixed", remoteConfig(sink.srv.URL+"/v1", "")), 201)
	ingestOK(t, n.postJSON("/v1/collections/prefixed/documents", secDoc))

	refused := []string{
		other.srv.URL, // same host, another port
		sink.srv.URL + "/admin?x=",
		sink.srv.URL + "/admin?",
		sink.srv.URL + "/admin#",
		sink.srv.URL + "/admin#x",
		sink.srv.URL + "/?x=1",
		"http://user:pw@" + sink.hostPort(),
		"http://user@" + sink.hostPort(),
		"http://" + sink.hostPort() + "/a/../admin",
		"ftp://" + sink.hostPort(),
	}
	for i, u := range refused {
		id := fmt.Sprintf("r%d", i)
		r := n.putJSON("/v1/collections/"+id, remoteConfig(u, ""))
		if r.status/100 == 2 {
			n.postJSON("/v1/collections/"+id+"/documents", secDoc)
		}
		if r.status != 400 {
			t.Errorf("collection with %s: %d %s, want 400", u, r.status, truncate(r.body, 300))
		}
		mr := n.postJSON("/models", microserviceModel(id, u))
		if mr.status/100 == 2 {
			var created struct {
				ModelID string `json:"model_id"`
			}
			json.Unmarshal(mr.body, &created)
			n.postJSON("/models/"+created.ModelID+"/analyze", `{"text": "hello"}`)
		}
		if mr.status != 400 {
			t.Errorf("annotator with %s: %d %s, want 400", u, mr.status, truncate(mr.body, 300))
		}
	}
	for _, rq := range sink.requests() {
		if (rq.path != "/v1/embeddings" && rq.path != "/annotate") || rq.query != "" {
			t.Errorf("the endpoint was called at %s?%s", rq.path, rq.query)
		}
	}
	if got := other.requests(); len(got) != 0 {
		t.Errorf("a port not on the allow-list was called %d times", len(got))
	}
}

// TestSecurityResolvedAddresses: with --allow-outbound '*' (any public
// host) a name that resolves to loopback is refused when dialing, and IP
// literals of special ranges already when configured.
func TestSecurityResolvedAddresses(t *testing.T) {
	sink := newSink(t)
	_, port, _ := net.SplitHostPort(sink.hostPort())
	n := start(t, "", "--allow-outbound", "*")
	for i, u := range hostileURLs(port) {
		if strings.Contains(u, "localhost") {
			continue
		}
		r := n.putJSON(fmt.Sprintf("/v1/collections/h%d", i), remoteConfig(u, ""))
		if r.status != 400 {
			t.Errorf("collection with %s: %d %s, want 400", u, r.status, truncate(r.body, 300))
		}
	}
	// localhost is a name: accepted, then refused at the resolved address.
	must(t, n.putJSON("/v1/collections/local", remoteConfig("http://localhost:"+port, "")), 201)
	r := n.postJSON("/v1/collections/local/documents", secDoc)
	if r.status != 502 {
		t.Errorf("ingest through localhost: %d %s, want 502", r.status, truncate(r.body, 300))
	}
	m := createModel(t, n, microserviceModel("local", "http://localhost:"+port))
	if r := n.postJSON("/models/"+m.ModelID+"/analyze", `{"text": "hello"}`); r.status != 502 {
		t.Errorf("analyze through localhost: %d %s, want 502", r.status, truncate(r.body, 300))
	}
	if got := sink.requests(); len(got) != 0 {
		t.Errorf("the loopback endpoint was called %d times through a public-only allow-list", len(got))
	}
}

// TestSecurityUpstreamErrors: an upstream error body is not echoed, and a
// closed port, an open port of another protocol and an HTTP server of
// another kind answer the same message (apart from the URL the client
// gave), so the server cannot be used to scan ports.
func TestSecurityUpstreamErrors(t *testing.T) {
	const marker = "INTERNAL-MARKER-d41d8cd9"
	failing := newSink(t)
	failing.set(500, `{"error": {"message": "`+marker+` token=abc"}}`)
	wrongHTTP := newSink(t)
	wrongHTTP.set(404, "<html>"+marker+" admin console</html>")
	wrong200 := newSink(t)
	wrong200.set(200, "<html>"+marker+"</html>")

	banner, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { banner.Close() })
	go func() {
		for {
			c, err := banner.Accept()
			if err != nil {
				return
			}
			c.Write([]byte("SSH-2.0-OpenSSH_9.6 " + marker + "\r\n"))
			time.Sleep(50 * time.Millisecond)
			c.Close()
		}
	}()
	closed := testutil.FreeAddr(t) // nothing listens there any more

	t.Setenv("NAJDI_ALLOW_OUTBOUND", "127.0.0.1")
	n := start(t, "")
	targets := []struct{ name, url string }{
		{"http 500", failing.srv.URL},
		{"closed port", "http://" + closed},
		{"other protocol", "http://" + banner.Addr().String()},
		{"other http 404", wrongHTTP.srv.URL},
		{"other http 200", wrong200.srv.URL},
	}
	var embedMsgs, annMsgs []string
	for i, tg := range targets {
		id := fmt.Sprintf("t%d", i)
		r := n.putJSON("/v1/collections/"+id, remoteConfig(tg.url, ""))
		if r.status != 201 {
			t.Fatalf("%s: create: %d %s", tg.name, r.status, truncate(r.body, 300))
		}
		embedMsgs = upstreamFailure(t, n.postJSON("/v1/collections/"+id+"/documents", secDoc), tg.name+": ingest", tg.url, marker, embedMsgs)

		mr := n.postJSON("/models", microserviceModel(id, tg.url))
		if mr.status != 201 {
			t.Fatalf("%s: create model: %d %s", tg.name, mr.status, truncate(mr.body, 300))
		}
		m := decodeModel(t, mr)
		annMsgs = upstreamFailure(t, n.postJSON("/models/"+m.ModelID+"/analyze", `{"text": "hello"}`), tg.name+": analyze", tg.url, marker, annMsgs)
	}
	for what, msgs := range map[string][]string{"embedding": embedMsgs, "annotation": annMsgs} {
		for i := 1; i < len(msgs); i++ {
			if msgs[i] != msgs[0] {
				t.Errorf("%s errors differ between %s and %s:\n%s\n%s", what, targets[0].name, targets[i].name, msgs[0], msgs[i])
			}
		}
	}
}

// TestSecurityLogQuotesNoRequest: a request fasthttp cannot parse is
// logged without its bytes: its Authorization header (Basic credentials)
// was written into the server's log with the rest of the request.
func TestSecurityLogQuotesNoRequest(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	secret := base64.StdEncoding.EncodeToString([]byte("alice:s3cret-password"))
	for _, raw := range []string{
		"GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " + secret + "\r\nX-Bad: a\x00b\r\n\r\n",
		"POST /v1/collections HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " + secret + "\r\nContent-Length: zz\r\n\r\n",
		"GET /health HTTP/1.1\r\nHost: x\r\nAuthorization: Basic " + secret + "\x00\r\n\r\n",
	} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(n.base, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		conn.SetDeadline(time.Now().Add(10 * time.Second))
		conn.Write([]byte(raw))
		r, err := http.ReadResponse(bufio.NewReader(conn), nil)
		conn.Close()
		if err != nil {
			t.Fatalf("no answer to a malformed request: %v", err)
		}
		if r.StatusCode != 400 {
			t.Errorf("malformed request answered %d, want 400", r.StatusCode)
		}
	}
	time.Sleep(200 * time.Millisecond) // the log is written after the answer
	if log := n.log.String(); strings.Contains(log, secret) || strings.Contains(log, "s3cret") {
		t.Fatalf("the server log quotes the credentials of a malformed request:\n%s", log)
	}
}

// upstreamFailure checks the answer r to a request (what) whose upstream
// at url failed: 502, without echoing what the upstream said (marker, an
// SSH banner). It returns msgs with the error message, the URL replaced
// by "URL", added.
func upstreamFailure(t *testing.T, r resp, what, url, marker string, msgs []string) []string {
	t.Helper()
	if strings.Contains(string(r.body), marker) || strings.Contains(string(r.body), "SSH") {
		t.Errorf("%s: the error echoes the upstream answer: %s", what, r.body)
	}
	if r.status != 502 {
		t.Errorf("%s: %d %s, want 502", what, r.status, truncate(r.body, 300))
		return msgs
	}
	return append(msgs, fmt.Sprintf("%d %s", r.status, strings.ReplaceAll(errMessage(t, r), url, "URL")))
}
