package server_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Limits and validation gaps of issue 18 (items 6 and 7), end to end.

type ingestAnswer struct {
	Documents []struct {
		DocumentID string `json:"document_id"`
	} `json:"documents"`
	Errors []struct {
		DocumentID string `json:"document_id"`
		Record     *int   `json:"record"`
		Message    string `json:"message"`
	} `json:"errors"`
}

func ingestAnswerOf(t *testing.T, r resp) ingestAnswer {
	t.Helper()
	must(t, r, 200)
	var a ingestAnswer
	if err := json.Unmarshal(r.body, &a); err != nil {
		t.Fatal(err)
	}
	return a
}

// errorIs checks status, error code and that the message mentions each of
// words.
func errorIs(t *testing.T, r resp, status int, code string, words ...string) {
	t.Helper()
	must(t, r, status)
	if got := r.errorCode(t); got != code {
		t.Errorf("error code %q, want %q: %s", got, code, r.body)
	}
	for _, w := range words {
		if !strings.Contains(string(r.body), w) {
			t.Errorf("error does not mention %q: %s", w, r.body)
		}
	}
}

// TestLimitsNumberFieldNotText: a value of a number field that is not a
// number is reported in errors with its record and document, not stored.
func TestLimitsNumberFieldNotText(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", `, "fields": {"price": {"type": "number"}}`)
	a := ingestAnswerOf(t, n.postJSON("/v1/collections/c/documents", `{"documents": [
		{"document_id": "ok", "sections": [{"content": "fine"}], "fields": {"price": 12}},
		{"document_id": "cheap", "sections": [{"content": "bad"}], "fields": {"price": "cheap"}}]}`))
	if len(a.Documents) != 1 || len(a.Errors) != 1 || a.Errors[0].DocumentID != "cheap" || a.Errors[0].Record == nil || *a.Errors[0].Record != 1 ||
		!strings.Contains(a.Errors[0].Message, "price") || !strings.Contains(a.Errors[0].Message, "cheap") {
		t.Fatalf("want document ok stored and document cheap reported: %+v", a)
	}
	must(t, n.getJSON("/v1/collections/c/documents/cheap"), 404)
	// a CSV row too
	a = ingestAnswerOf(t, n.do("POST", "/v1/collections/c/documents?id_field=id", "text/csv", []byte("id,price\nr1,5\nr2,n/a\n")))
	if len(a.Documents) != 1 || len(a.Errors) != 1 || a.Errors[0].DocumentID != "r2" || !strings.Contains(a.Errors[0].Message, "n/a") {
		t.Fatalf("CSV: %+v", a)
	}
}

// TestLimitsJSONContentType: JSON endpoints other than search and answer
// take application/json (with parameters) and answer 415 otherwise.
func TestLimitsJSONContentType(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	errorIs(t, n.do("PUT", "/v1/collections/c", "text/plain", []byte(`{"embedding_config": {"model": "none"}}`)), 415, "unsupported_media_type", "application/json")
	must(t, n.getJSON("/v1/collections/c"), 404)
	must(t, n.do("PUT", "/v1/collections/c", "application/json; charset=utf-8", []byte(`{"embedding_config": {"model": "none"}}`)), 201)
	if r := n.do("PUT", "/v1/collections/e", "text/plain", nil); r.status == 415 { // no body: no type needed
		t.Errorf("an empty PUT body: %d %s", r.status, r.body)
	}
	errorIs(t, n.do("POST", "/models", "text/plain", []byte(`{"name": "x"}`)), 415, "unsupported_media_type")
	errorIs(t, n.do("POST", "/phrase-sets", "application/xml", []byte(`{"name": "x"}`)), 415, "unsupported_media_type")
}

// TestLimitsInvalidUTF8Names: a JSON body that is not UTF-8 (a field name)
// is a 400; ids that are not UTF-8 are 400s.
func TestLimitsInvalidUTF8Names(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", "")
	// JSON is UTF-8: a body that is not is a 400, not names silently
	// changed to U+FFFD.
	errorIs(t, n.do("POST", "/v1/collections/c/documents", "application/json", []byte("{\"documents\": [{\"document_id\": \"a\", \"sections\": [{\"content\": \"x\"}], \"fields\": {\"br\xffand\": \"v\"}}]}")), 400, "invalid_request", "UTF-8")
	must(t, n.getJSON("/v1/collections/c/documents/a"), 404)
	errorIs(t, n.do("PUT", "/v1/collections/d", "application/json", []byte("{\"embedding_config\": {\"model\": \"none\"}, \"fields\": {\"b\xffad\": {\"type\": \"enum\"}}}")), 400, "invalid_request", "UTF-8")
	errorIs(t, n.do("POST", "/models", "application/json", []byte("{\"name\": \"\xff\"}")), 400, "invalid_request", "UTF-8")
	errorIs(t, n.do("PUT", "/v1/collections/c%FF", "application/json", []byte(`{}`)), 400, "invalid_request")
	errorIs(t, n.do("POST", "/v1/collections/c/documents?document_id=d%FF", "text/plain", []byte("text")), 400, "invalid_request")
}

// TestLimitsTokenizerBeforeSearch: a bad summary tokenizer is a 400 found
// before the search runs (also when no summary is asked for).
func TestLimitsTokenizerBeforeSearch(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", "")
	must(t, n.do("POST", "/v1/collections/c/documents?document_id=d", "text/plain", []byte("alpha beta gamma")), 200)
	for _, inc := range []string{`["summary"]`, `["full"]`} {
		errorIs(t, n.postJSON("/v1/collections/c/search", `{"query": "alpha", "include_content": `+inc+`, "summary_config": {"tokenizer": "bogus"}}`), 400, "invalid_request", "summary_config.tokenizer")
	}
}

// rawExchange writes req on a new connection, then reads one response.
func rawExchange(t *testing.T, n *node, req []byte) (*http.Response, []byte) {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(n.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := conn.Write(req); err != nil {
		t.Fatalf("write request: %v", err)
	}
	r, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read the answer: %v", err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return r, b
}

// TestLimitsLongRequestLine: a URL of some KiB is served; a longer one
// answers 414, long headers 431, in JSON, echoing nothing of the request.
func TestLimitsLongRequestLine(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", "")
	q := strings.Repeat("x", 20000) // 20 KB: over fasthttp's default 4 KiB buffer
	r := n.getJSON("/v1/collections/c/query?query=" + q)
	must(t, r, 400) // served: the query is over 4096 characters
	for _, tt := range []struct {
		name   string
		req    string
		status int
		code   string
	}{
		{"url", "GET /v1/collections/c/query?query=" + strings.Repeat("secretpart", 10000) + " HTTP/1.1\r\nHost: x\r\n\r\n", 414, "uri_too_long"},
		{"headers", "GET /health HTTP/1.1\r\nHost: x\r\nX-Big: " + strings.Repeat("secretpart", 10000) + "\r\n\r\n", 431, "request_header_fields_too_large"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			resp, body := rawExchange(t, n, []byte(tt.req))
			r := resp2(resp, body)
			must(t, r, tt.status)
			r.errorCode(t)
			if bytes.Contains(body, []byte("secretpart")) || bytes.Contains(body, []byte("buffer")) {
				t.Errorf("the answer echoes the request or names fasthttp's buffer: %s", body)
			}
		})
	}
}

func resp2(r *http.Response, body []byte) resp {
	return resp{status: r.StatusCode, body: body, header: r.Header}
}

// TestLimitsOversizeBodyWrittenFirst: a client that writes a whole body
// over --max-body before reading gets the 413, not a connection reset.
func TestLimitsOversizeBodyWrittenFirst(t *testing.T) {
	n := start(t, "", "--no-embeddings", "--max-body", "65536")
	keywordCollection(t, n, "c", "")
	body := bytes.Repeat([]byte("word "), 32<<20/5) // 32 MB: more than the kernel buffers hold
	req := fmt.Sprintf("POST /v1/collections/c/documents?document_id=big HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", len(body))
	for i := 0; i < 3; i++ {
		resp, b := rawExchange(t, n, append([]byte(req), body...))
		r := resp2(resp, b)
		must(t, r, 413)
		if r.errorCode(t) != "payload_too_large" {
			t.Errorf("%s", b)
		}
	}
}

// TestLimitsPerRequestWork: query length, document size, columns per
// record, fields per collection and returned content are bounded.
func TestLimitsPerRequestWork(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", "")
	t.Run("query length", func(t *testing.T) {
		errorIs(t, n.postJSON("/v1/collections/c/search", map[string]any{"query": strings.Repeat("slovo ", 1000), "restore_diacritics": true}), 400, "invalid_request", "4096")
	})
	t.Run("document size", func(t *testing.T) {
		big := bytes.Repeat([]byte("word "), 10<<20/5+1)
		errorIs(t, n.do("POST", "/v1/collections/c/documents?document_id=big", "text/plain", big), 413, "payload_too_large", "limit")
		must(t, n.getJSON("/v1/collections/c/documents/big"), 404)
	})
	t.Run("columns per record", func(t *testing.T) {
		var hdr, row []string
		for i := 0; i < 1001; i++ {
			hdr, row = append(hdr, fmt.Sprintf("col%d", i)), append(row, "v")
		}
		csv := "id," + strings.Join(hdr, ",") + "\nwide," + strings.Join(row, ",") + "\n"
		a := ingestAnswerOf(t, n.do("POST", "/v1/collections/c/documents?id_field=id", "text/csv", []byte(csv)))
		if len(a.Documents) != 0 || len(a.Errors) != 1 || !strings.Contains(a.Errors[0].Message, "1000") {
			t.Fatalf("a record of 1002 columns: %+v", a)
		}
	})
	t.Run("fields per collection", func(t *testing.T) {
		keywordCollection(t, n, "f", "")
		var docs []map[string]any
		for d := 0; d < 3; d++ {
			fields := map[string]any{}
			for i := 0; i < 400; i++ {
				fields[fmt.Sprintf("d%d_f%d", d, i)] = "v"
			}
			docs = append(docs, map[string]any{"document_id": fmt.Sprintf("d%d", d), "sections": []any{map[string]any{"content": "x"}}, "fields": fields})
		}
		a := ingestAnswerOf(t, n.postJSON("/v1/collections/f/documents", map[string]any{"documents": docs}))
		if len(a.Documents) != 2 || len(a.Errors) != 1 || a.Errors[0].DocumentID != "d2" || !strings.Contains(a.Errors[0].Message, "fields per collection") {
			t.Fatalf("1200 fields: %+v", a)
		}
	})
	t.Run("returned content", func(t *testing.T) {
		keywordCollection(t, n, "r", "")
		big := "needle " + strings.Repeat("obsah ", (3<<20)/6)
		must(t, n.do("POST", "/v1/collections/r/documents?document_id=big", "text/plain", []byte(big)), 200)
		r := must(t, n.postJSON("/v1/collections/r/search", `{"query": "needle"}`), 200)
		if len(r.body) > 2<<20 {
			t.Errorf("a search returned %d bytes", len(r.body))
		}
		var out struct {
			Documents []struct {
				Content   string `json:"content"`
				Truncated bool   `json:"truncated"`
			} `json:"documents"`
		}
		json.Unmarshal(r.body, &out)
		if len(out.Documents) != 1 || !out.Documents[0].Truncated || len(out.Documents[0].Content) > 1<<20 {
			t.Errorf("want one document, truncated to 1 MiB: %d documents", len(out.Documents))
		}
	})
	t.Run("intent examples", func(t *testing.T) {
		ex := map[string][]string{}
		for i := 0; i < 10001; i++ {
			k := fmt.Sprintf("i%d", i%5)
			ex[k] = append(ex[k], fmt.Sprintf("book a flight number %d", i))
		}
		body := map[string]any{"name": "big", "type": "annotator", "annotator": map[string]any{"service": "builtin", "model": "intent-classifier", "config": map[string]any{"examples": ex}}}
		start := time.Now()
		errorIs(t, n.postJSON("/models", body), 400, "invalid_request", "10000")
		if d := time.Since(start); d > 10*time.Second {
			t.Errorf("refusing took %v", d)
		}
	})
}

// TestLimitsUnknownQueryParameters: every endpoint rejects a query
// parameter it does not take (a typo never passes silently), after a 404
// for a missing resource of its path.
func TestLimitsUnknownQueryParameters(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", "")
	must(t, n.do("POST", "/v1/collections/c/documents?document_id=d", "text/plain", []byte("alpha")), 200)
	for _, path := range []string{"/v1/collections?x=1", "/v1/collections/c?limt=5", "/v1/collections/c/documents?limt=5",
		"/v1/collections/c/documents/d?format=flat", "/models?x=", "/phrase-sets?x=1"} {
		errorIs(t, n.getJSON(path), 400, "invalid_request", "unknown query parameter")
	}
	errorIs(t, n.postJSON("/v1/collections/c/search?max_results=3", `{"query": "alpha"}`), 400, "invalid_request", "max_results")
	must(t, n.getJSON("/v1/collections/nope?x=1"), 404)
	must(t, n.getJSON("/v1/collections/c/documents/nope?x=1"), 404)
	must(t, n.getJSON("/v1/collections?owner="), 200)
	must(t, n.getJSON("/v1/collections/c/documents?limit=1&cursor="), 200)
	must(t, n.getJSON("/v1/collections/c/documents/d?result_format=flat"), 200)
	must(t, n.do("DELETE", "/v1/collections/c?x=1", "", nil), 400)
	must(t, n.getJSON("/v1/collections/c"), 200) // not deleted
}

// TestLimitsRefusedBodyWrittenFirst (issue 18, item 7): a client that
// writes a whole 32 MB request before reading gets the server's answer to
// it — 413 for a body over --max-body, 414 for a request line and 431 for
// headers over their limit, 400 for a body that is not what the route
// takes — never a connection reset, also after its connection gave its
// buffers back (ReduceMemoryUsage) and on the second request of a
// keep-alive connection.
func TestLimitsRefusedBodyWrittenFirst(t *testing.T) {
	n := start(t, "", "--no-embeddings", "--max-body", "16777216")
	keywordCollection(t, n, "c", "")
	body := bytes.Repeat([]byte("word "), 32<<20/5)
	small := []byte(`{"query": "x", "bogus": 1}`)
	for _, tc := range []struct {
		name   string
		req    string
		body   []byte
		status int
	}{
		{"over --max-body", "POST /v1/collections/c/documents?document_id=big HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", body, 413},
		{"request line too long", "POST /v1/collections/c/documents?document_id=" + strings.Repeat("x", 70000) + " HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", body, 414},
		{"headers too large", "POST /v1/collections/c/documents HTTP/1.1\r\nHost: x\r\nX-Pad: " + strings.Repeat("y", 70000) + "\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", body, 431},
		{"bad body after a good request", "POST /v1/collections/c/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 17\r\n\r\n{\"query\": \"word\"}" +
			"POST /v1/collections/c/search HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n", small, 400},
	} {
		t.Run(tc.name, func(t *testing.T) {
			raw := append([]byte(fmt.Sprintf(tc.req, len(tc.body))), tc.body...)
			conn, err := net.Dial("tcp", strings.TrimPrefix(n.base, "http://"))
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			conn.SetDeadline(time.Now().Add(60 * time.Second))
			if _, err := conn.Write(raw); err != nil {
				t.Fatalf("write the whole request: %v", err)
			}
			br := bufio.NewReader(conn)
			var r *http.Response
			for {
				r, err = http.ReadResponse(br, nil)
				if err != nil {
					t.Fatalf("read the answer after writing the whole request: %v", err)
				}
				b, _ := io.ReadAll(r.Body)
				r.Body.Close()
				if r.StatusCode == 200 {
					continue // the good request before the bad one
				}
				if r.StatusCode != tc.status || !bytes.Contains(b, []byte(`"error"`)) {
					t.Fatalf("status %d, want %d with a JSON error: %s", r.StatusCode, tc.status, truncate(b, 300))
				}
				break
			}
		})
	}
}
