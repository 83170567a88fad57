package server_test

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"
)

// ingestAccount posts an upload and checks that every record of it is
// accounted for: each record index in 0..records-1 is either a stored
// document or an entry of errors, and never both. It returns the stored
// document ids in order and the errors by record index.
func ingestAccount(t *testing.T, n *node, path, ctype string, body []byte, records int) ([]string, map[int]map[string]any) {
	t.Helper()
	ir := ingestOK(t, n.do("POST", path, ctype, body))
	var docs []string
	for _, d := range ir.Documents {
		docs = append(docs, d.DocumentID)
	}
	errs := map[int]map[string]any{}
	for _, e := range ir.Errors {
		rec, ok := e["record"].(float64)
		if !ok {
			t.Fatalf("error without a record index: %v", e)
		}
		msg, _ := e["message"].(string)
		if msg == "" {
			t.Fatalf("error without a message: %v", e)
		}
		errs[int(rec)] = e
	}
	if len(docs)+len(errs) < records {
		t.Fatalf("%d records, but only %d documents and %d errors: rows were lost silently\ndocuments %v\nerrors %v", records, len(docs), len(errs), docs, ir.Errors)
	}
	return docs, errs
}

// errMsg returns the message of the error of record i, failing when there
// is none.
func errMsg(t *testing.T, errs map[int]map[string]any, i int) string {
	t.Helper()
	e, ok := errs[i]
	if !ok {
		t.Fatalf("no error for record %d (errors: %v)", i, errs)
	}
	return e["message"].(string)
}

// TestBadInputRecordsAreReported uploads record files with one broken
// record and checks that the broken record is reported in errors with its
// record index (and the file line where the format has lines) while its
// neighbours are stored: nothing is dropped silently.
func TestBadInputRecordsAreReported(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "r", "")

	t.Run("csv unterminated quote", func(t *testing.T) {
		// The quote of row 1 (line 3) is never closed: the rows after it
		// must not vanish into its cell.
		csv := "id,text\nu1,alpha\nu2,\"beta\nu3,gamma\nu4,delta\n"
		docs, errs := ingestAccount(t, n, "/v1/collections/r/documents", "text/csv", []byte(csv), 4)
		if !slices.Equal(docs, []string{"u1", "u3", "u4"}) || len(errs) != 1 {
			t.Fatalf("documents %v, errors %v; want u1, u3, u4 stored and record 1 reported", docs, errs)
		}
		if msg := errMsg(t, errs, 1); !strings.Contains(msg, "line 3") || !strings.Contains(msg, "quote") {
			t.Errorf("record 1: message %q does not name line 3 and the quote", msg)
		}
		if d := getDoc(t, n, "r", "u3"); joinSections(d) != "u3\ngamma\n" {
			t.Errorf("u3 = %q", joinSections(d))
		}
	})
	t.Run("csv quote closed too early", func(t *testing.T) {
		// "b"x: the quote closes before x, so (read leniently) the field
		// runs on to the end of the file.
		csv := "id,text\nq1,\"b\"x,y\nq2,c\nq3,\"multi\nline\"\n"
		docs, errs := ingestAccount(t, n, "/v1/collections/r/documents", "text/csv", []byte(csv), 3)
		if !slices.Equal(docs, []string{"q2", "q3"}) || len(errs) != 1 {
			t.Fatalf("documents %v, errors %v; want q2, q3 stored and record 0 reported", docs, errs)
		}
		if msg := errMsg(t, errs, 0); !strings.Contains(msg, "line 2") {
			t.Errorf("record 0: message %q does not name line 2", msg)
		}
		if d := getDoc(t, n, "r", "q3"); joinSections(d) != "q3\nmulti\nline\n" {
			t.Errorf("q3 = %q", joinSections(d))
		}
	})
	t.Run("csv quote in the header", func(t *testing.T) {
		r := n.do("POST", "/v1/collections/r/documents", "text/csv", []byte("id,\"text\nh1,a\nh2,b\n"))
		must(t, r, 400)
		if msg := string(r.body); !strings.Contains(msg, "line 1") || !strings.Contains(msg, "quote") {
			t.Errorf("message does not name line 1 and the quote: %s", r.body)
		}
	})
	t.Run("jsonl bad line", func(t *testing.T) {
		jl := "{\"id\": \"l1\"}\n\n{\"id\": \"l2\", broken\n{\"id\": \"l3\"}\n"
		docs, errs := ingestAccount(t, n, "/v1/collections/r/documents", "application/x-ndjson", []byte(jl), 3)
		if !slices.Equal(docs, []string{"l1", "l3"}) || len(errs) != 1 {
			t.Fatalf("documents %v, errors %v", docs, errs)
		}
		if msg := errMsg(t, errs, 2); !strings.Contains(msg, "line 3") {
			t.Errorf("record 2: message %q does not name line 3", msg)
		}
	})
	t.Run("json array bad elements", func(t *testing.T) {
		// Element 1 is not an object (skipped, reported); element 2 is
		// broken JSON, after which nothing can be read: that is reported
		// at element 2, not at the count of documents read so far.
		js := `[{"id": "j1"}, 5, {"id": "j2", x}, {"id": "j3"}]`
		docs, errs := ingestAccount(t, n, "/v1/collections/r/documents", "application/json", []byte(js), 3)
		if !slices.Equal(docs, []string{"j1"}) || len(errs) != 2 {
			t.Fatalf("documents %v, errors %v", docs, errs)
		}
		if msg := errMsg(t, errs, 1); !strings.Contains(msg, "not a JSON object") {
			t.Errorf("record 1: %q", msg)
		}
		if msg := errMsg(t, errs, 2); !strings.Contains(msg, "not read") {
			t.Errorf("record 2: message %q does not say the rest was not read", msg)
		}
	})
	t.Run("xlsx bad id and broken sheet", func(t *testing.T) {
		f := excelize.NewFile()
		f.SetSheetName("Sheet1", "A")
		if _, err := f.NewSheet("B"); err != nil {
			t.Fatal(err)
		}
		rows := map[string][][]any{
			"A": {{"id", "name"}, {"a1", "x"}, {"bad id", "y"}, {"a3", "z"}},
			"B": {{"id", "name"}, {"b1", "x"}, {"b2", "y"}, {"b3", "z"}},
		}
		for sheet, rs := range rows {
			for i, r := range rs {
				cell, _ := excelize.CoordinatesToCellName(1, i+1)
				if err := f.SetSheetRow(sheet, cell, &r); err != nil {
					t.Fatal(err)
				}
			}
		}
		var b bytes.Buffer
		if err := f.Write(&b); err != nil {
			t.Fatal(err)
		}
		// Cut sheet B inside its third data row (b3).
		data := rewriteZip(t, b.Bytes(), "xl/worksheets/sheet2.xml", func(x []byte) []byte {
			i := bytes.Index(x, []byte(`r="4"`))
			if i < 0 {
				t.Fatalf("no row 4 in %s", x)
			}
			return x[:i+10]
		})
		ir := ingestOK(t, n.upload("/v1/collections/r/documents", map[string][]byte{"book.xlsx": data}))
		var docs []string
		for _, d := range ir.Documents {
			docs = append(docs, d.DocumentID)
		}
		if !slices.Equal(docs, []string{"a1", "a3", "b1", "b2"}) {
			t.Fatalf("documents %v", docs)
		}
		want := []string{`A 1 "bad id"`, `B 2 not read`}
		if len(ir.Errors) != len(want) {
			t.Fatalf("errors %v, want %d", ir.Errors, len(want))
		}
		for i, e := range ir.Errors {
			got := fmt.Sprintf("%v %v %v", e["sheet"], e["record"], e["message"])
			w := strings.Fields(want[i])
			if e["sheet"] != w[0] || fmt.Sprint(e["record"]) != w[1] || !strings.Contains(e["message"].(string), strings.Join(w[2:], " ")) {
				t.Errorf("error %d = %s, want sheet %s record %s mentioning %q", i, got, w[0], w[1], strings.Join(w[2:], " "))
			}
		}
	})
}

// rewriteZip returns the archive with the named entry's content changed by
// edit.
func rewriteZip(t *testing.T, data []byte, name string, edit func([]byte) []byte) []byte {
	t.Helper()
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	zw := zip.NewWriter(&out)
	found := false
	for _, f := range zr.File {
		rc, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			t.Fatal(err)
		}
		if f.Name == name {
			b, found = edit(b), true
		}
		w, err := zw.Create(f.Name)
		if err != nil {
			t.Fatal(err)
		}
		w.Write(b)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	if !found {
		t.Fatalf("no %s in the archive", name)
	}
	return out.Bytes()
}

// apiErr is a decoded error body.
type apiErr struct {
	Error struct {
		Code    string         `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	} `json:"error"`
}

func decodeErr(t *testing.T, r resp) apiErr {
	t.Helper()
	var e apiErr
	if err := json.Unmarshal(r.body, &e); err != nil || e.Error.Message == "" {
		t.Fatalf("not an error body (%d): %s", r.status, r.body)
	}
	return e
}

// goInternals are words of encoding/json and Go that must not reach a
// client.
var goInternals = []string{"Go struct", "Go value", "unmarshal", "json:", "engine.", "server.", "ingest.", "[]string", "float64", "int64", "map["}

// TestBadInputJSONTypes sends values of the wrong JSON type, unknown fields
// and malformed JSON to every endpoint that decodes a JSON body and checks
// that the 400 says what is wrong in the API's words, naming the field by
// its JSON path, without encoding/json's Go vocabulary.
func TestBadInputJSONTypes(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", "")
	model := createModel(t, n, `{"name": "builtin-ner", "language": "en"}`)
	cases := []struct {
		name, method, path, body string
		msg, field               string // the message holds msg; details.field is field when set
	}{
		{"search max_results string", "POST", "/v1/collections/c/search", `{"query": "a", "max_results": "3"}`, "max_results must be an integer", "max_results"},
		{"search max_results fraction", "POST", "/v1/collections/c/search", `{"query": "a", "max_results": 2.5}`, "max_results must be an integer", "max_results"},
		{"search query number", "POST", "/v1/collections/c/search", `{"query": 5}`, "query must be a string", "query"},
		{"search highlight string", "POST", "/v1/collections/c/search", `{"query": "a", "highlight": "yes"}`, "highlight must be a boolean", "highlight"},
		{"search include_content string", "POST", "/v1/collections/c/search", `{"query": "a", "include_content": "full"}`, "include_content must be an array of strings", "include_content"},
		{"search include_content element", "POST", "/v1/collections/c/search", `{"query": "a", "include_content": ["full", 1]}`, "include_content[1] must be a string", "include_content[1]"},
		{"search summary_config max_tokens", "POST", "/v1/collections/c/search", `{"query": "a", "summary_config": {"max_tokens": "5"}}`, "summary_config.max_tokens must be an integer", "summary_config.max_tokens"},
		{"search summary_config array", "POST", "/v1/collections/c/search", `{"query": "a", "summary_config": []}`, "summary_config must be an object", "summary_config"},
		{"search unknown nested field", "POST", "/v1/collections/c/search", `{"query": "a", "summary_config": {"max_tokenz": 5}}`, `unknown field "summary_config.max_tokenz"`, "summary_config.max_tokenz"},
		{"search unknown field", "POST", "/v1/collections/c/search", `{"query": "a", "max_result": 3}`, `unknown field "max_result"`, "max_result"},
		{"search malformed", "POST", "/v1/collections/c/search", "{\n  \"query\": \"a\",\n  \"max_results\": 3,,\n}", "line 3", ""},
		{"search truncated", "POST", "/v1/collections/c/search", `{"query": "a"`, "malformed JSON", ""},
		{"search trailing data", "POST", "/v1/collections/c/search", `{"query": "a"} {}`, "after the JSON", ""},
		{"answer max_results string", "POST", "/v1/collections/c/answer", `{"query": "a", "max_results": "3"}`, "max_results must be an integer", "max_results"},
		{"config max_tokens string", "PUT", "/v1/collections/c2", `{"summary_config": {"max_tokens": "5"}}`, "summary_config.max_tokens must be an integer", "summary_config.max_tokens"},
		{"config multi string", "PUT", "/v1/collections/c2", `{"fields": {"brand": {"type": "enum", "multi": "yes"}}}`, "fields.brand.multi must be a boolean", "fields.brand.multi"},
		{"config unknown field in a field spec", "PUT", "/v1/collections/c2", `{"fields": {"brand": {"typ": "enum"}}}`, `unknown field "fields.brand.typ"`, "fields.brand.typ"},
		{"config search_config array", "PUT", "/v1/collections/c2", `{"search_config": []}`, "search_config must be an object", "search_config"},
		{"config remote url number", "PUT", "/v1/collections/c2", `{"embedding_config": {"model": {"url": 5, "model": "m"}}}`, "embedding_config.model.url must be a string", "embedding_config.model.url"},
		{"config remote unknown field", "PUT", "/v1/collections/c2", `{"embedding_config": {"model": {"url": "http://x", "model": "m", "dim": 3}}}`, `unknown field "embedding_config.model.dim"`, "embedding_config.model.dim"},
		{"envelope document_id number", "POST", "/v1/collections/c/documents", `{"documents": [{"document_id": "a", "sections": [{"type": "p", "content": "x"}]}, {"document_id": 7}]}`, "documents[1].document_id must be a string", "documents[1].document_id"},
		{"envelope section content number", "POST", "/v1/collections/c/documents", `{"documents": [{"document_id": "a", "sections": [{"type": "p", "content": 5}]}]}`, "documents[0].sections[0].content must be a string", "documents[0].sections[0].content"},
		{"envelope documents object", "POST", "/v1/collections/c/documents", `{"documents": {}}`, "documents must be an array", "documents"},
		{"envelope unknown field", "POST", "/v1/collections/c/documents", `{"documents": [{"document_id": "a", "sectons": []}]}`, `unknown field "documents[0].sectons"`, "documents[0].sectons"},
		{"analyze text number", "POST", "/models/" + model.ModelID + "/analyze", `{"text": 5}`, "text must be a string", "text"},
		{"analyze unknown field", "POST", "/models/" + model.ModelID + "/analyze", `{"txt": "a"}`, `unknown field "txt"`, "txt"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := n.sendJSON(tc.method, tc.path, tc.body)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %s", r.status, r.body)
			}
			e := decodeErr(t, r)
			if e.Error.Code != "invalid_request" {
				t.Errorf("code %q", e.Error.Code)
			}
			if !strings.Contains(e.Error.Message, tc.msg) {
				t.Errorf("message %q does not contain %q", e.Error.Message, tc.msg)
			}
			for _, w := range goInternals {
				if strings.Contains(e.Error.Message, w) {
					t.Errorf("message %q leaks %q", e.Error.Message, w)
				}
			}
			if tc.field != "" && e.Error.Details["field"] != tc.field {
				t.Errorf("details.field = %v, want %q", e.Error.Details["field"], tc.field)
			}
		})
	}
}

// TestBadInputMaxTokens checks that summary_config.max_tokens of 0 or
// less is rejected wherever it is sent, instead of meaning the default.
func TestBadInputMaxTokens(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", "")
	ingestOK(t, n.postJSON("/v1/collections/c/documents", `{"documents": [{"document_id": "d", "sections": [{"type": "p", "content": "alpha beta"}]}]}`))
	for _, tc := range []struct{ name, method, path, body string }{
		{"search zero", "POST", "/v1/collections/c/search", `{"query": "alpha", "include_content": ["summaries"], "summary_config": {"max_tokens": 0}}`},
		{"search zero without summaries", "POST", "/v1/collections/c/search", `{"query": "alpha", "summary_config": {"max_tokens": 0}}`},
		{"search negative", "POST", "/v1/collections/c/search", `{"query": "alpha", "summary_config": {"max_tokens": -5}}`},
		{"answer zero", "POST", "/v1/collections/c/answer", `{"query": "alpha", "summary_config": {"max_tokens": 0}}`},
		{"query zero", "GET", "/v1/collections/c/query?query=alpha&max_tokens=0", ""},
		{"config zero", "PUT", "/v1/collections/c", `{"embedding_config": {"model": "none"}, "summary_config": {"max_tokens": 0}}`},
		{"config negative", "PUT", "/v1/collections/c3", `{"summary_config": {"max_tokens": -1}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := n.sendJSON(tc.method, tc.path, tc.body)
			if r.status != 400 {
				t.Fatalf("status %d, want 400: %s", r.status, r.body)
			}
			if e := decodeErr(t, r); !strings.Contains(e.Error.Message, "max_tokens") {
				t.Errorf("message %q does not name max_tokens", e.Error.Message)
			}
		})
	}
	// The collection kept its configuration.
	c := must(t, n.getJSON("/v1/collections/c"), 200).json(t)
	if mt := c["summary_config"].(map[string]any)["max_tokens"]; mt != float64(1000) {
		t.Errorf("max_tokens = %v after rejected updates", mt)
	}
}

// TestBadInputEmptyResults checks that a search without hits returns the
// arrays it was asked for, empty, instead of omitting them.
func TestBadInputEmptyResults(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", `, "fields": {"brand": {"type": "enum"}}`)
	ingestOK(t, n.postJSON("/v1/collections/c/documents", `{"documents": [{"document_id": "d", "sections": [{"type": "p", "content": "alpha beta"}], "fields": {"brand": "acme"}}]}`))
	arrays := func(t *testing.T, r resp, want []string, absent []string) {
		t.Helper()
		m := must(t, r, 200).json(t)
		get := func(k string) (any, bool) {
			if strings.HasPrefix(k, "metadata.") {
				v, ok := m["metadata"].(map[string]any)[strings.TrimPrefix(k, "metadata.")]
				return v, ok
			}
			v, ok := m[k]
			return v, ok
		}
		for _, k := range want {
			v, ok := get(k)
			if a, isArr := v.([]any); !ok || !isArr || len(a) != 0 {
				t.Errorf("%s = %v (present %v), want []: %s", k, v, ok, r.body)
			}
		}
		for _, k := range absent {
			if v, ok := get(k); ok {
				t.Errorf("%s = %v, want it absent", k, v)
			}
		}
	}
	t.Run("search", func(t *testing.T) {
		arrays(t, n.postJSON("/v1/collections/c/search", `{"query": "zzzqqq"}`), []string{"documents"}, []string{"summaries", "metadata.answer_sources"})
	})
	t.Run("search filter only", func(t *testing.T) {
		arrays(t, n.postJSON("/v1/collections/c/search", `{"filter": {"term": {"brand": "none"}}}`), []string{"documents"}, nil)
	})
	t.Run("search summaries", func(t *testing.T) {
		r := n.postJSON("/v1/collections/c/search", `{"query": "zzzqqq", "include_content": ["full", "summaries", "summary"]}`)
		arrays(t, r, []string{"documents", "summaries"}, nil)
		if s, ok := r.json(t)["summary"].(string); !ok || s != "" {
			t.Errorf("summary = %v, want \"\"", r.json(t)["summary"])
		}
	})
	t.Run("search summaries only", func(t *testing.T) {
		arrays(t, n.postJSON("/v1/collections/c/search", `{"query": "zzzqqq", "include_content": ["summaries"]}`), []string{"summaries"}, []string{"documents"})
	})
	t.Run("query", func(t *testing.T) {
		arrays(t, n.getJSON("/v1/collections/c/query?query=zzzqqq"), []string{"documents"}, nil)
		arrays(t, n.getJSON("/v1/collections/c/query?query=zzzqqq&include_content=summaries"), []string{"summaries"}, nil)
	})
	t.Run("answer", func(t *testing.T) {
		arrays(t, n.postJSON("/v1/collections/c/answer", `{"query": "zzzqqq"}`), []string{"metadata.answer_sources"}, []string{"documents", "summaries"})
		arrays(t, n.postJSON("/v1/collections/c/answer", `{"query": "zzzqqq", "highlight": true}`), []string{"documents", "metadata.answer_sources"}, nil)
		arrays(t, n.postJSON("/v1/collections/c/answer", `{"query": "zzzqqq", "include_content": ["full", "summaries"]}`), []string{"documents", "summaries", "metadata.answer_sources"}, nil)
	})
}

// TestBadInputUnknownCollectionFirst checks that a request naming a
// collection that does not exist answers 404 whatever else is wrong with
// its body or parameters: the path is the first thing checked.
func TestBadInputUnknownCollectionFirst(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", "")
	for _, tc := range []struct{ name, method, path, ctype, body string }{
		{"ingest empty envelope", "POST", "/v1/collections/nope/documents", "application/json", `{"documents": []}`},
		{"ingest bad envelope", "POST", "/v1/collections/nope/documents", "application/json", `{"documents": [{"document_id": 5}]}`},
		{"ingest empty body", "POST", "/v1/collections/nope/documents", "text/csv", ""},
		{"ingest unknown parameter", "POST", "/v1/collections/nope/documents?bogus=1", "text/csv", "a\n1\n"},
		{"ingest bad async", "POST", "/v1/collections/nope/documents?async=maybe", "text/csv", "a\n1\n"},
		{"ingest async", "POST", "/v1/collections/nope/documents?async=true", "application/json", `{"documents": []}`},
		{"list bad limit", "GET", "/v1/collections/nope/documents?limit=x", "", ""},
		{"get document bad format", "GET", "/v1/collections/nope/documents/d?result_format=xml", "", ""},
		{"search bad body", "POST", "/v1/collections/nope/search", "application/json", `{"max_results": "x"}`},
		{"search empty body", "POST", "/v1/collections/nope/search", "application/json", ""},
		{"search wrong content type", "POST", "/v1/collections/nope/search", "text/plain", `{"query": "a"}`},
		{"search one of several", "POST", "/v1/collections/c,nope/search", "application/json", `{"max_results": 0}`},
		{"answer bad body", "POST", "/v1/collections/nope/answer", "application/json", `{}`},
		{"query bad parameter", "GET", "/v1/collections/nope/query?max_results=x", "", ""},
		{"query unknown parameter", "GET", "/v1/collections/nope/query?bogus=1", "", ""},
		{"job", "GET", "/v1/collections/nope/jobs/j", "", ""},
		{"update model bad body", "PUT", "/models/nope", "application/json", `{"name": 5}`},
		{"analyze bad body", "POST", "/models/nope/analyze", "application/json", `{"text": 5}`},
		{"update phrase set bad body", "PUT", "/phrase-sets/nope", "application/json", `{"name": 5}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := n.do(tc.method, tc.path, tc.ctype, []byte(tc.body))
			if r.status != 404 {
				t.Fatalf("status %d, want 404: %s", r.status, r.body)
			}
			if code := r.errorCode(t); code != "not_found" {
				t.Errorf("code %q", code)
			}
			if !strings.Contains(string(r.body), "nope") {
				t.Errorf("message does not name nope: %s", r.body)
			}
		})
	}
}

// TestBadInputIntegralNumbers: an integer property of a search body takes
// an integral number written with a fraction (11.0), as JSON Schema counts
// it an integer, at any depth: rerank.top_k was refused ("must be an
// integer, got a number 11.0") while max_results was read.
func TestBadInputIntegralNumbers(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", "")
	must(t, n.do("POST", "/v1/collections/c/documents?document_id=d", "text/plain", []byte("alpha beta")), 200)
	for _, body := range []string{
		`{"query": "alpha", "max_results": 5.0}`,
		`{"query": "alpha", "rerank": {"top_k": 11.0}}`,
		`{"query": "alpha", "offset": 0.0, "rerank": {"top_k": 1e1}}`,
	} {
		// Read: searched, or 503 for a rerank on a server without a
		// reranker (--no-embeddings), never 400.
		r := n.postJSON("/v1/collections/c/search", body)
		if r.status != 200 && !(r.status == 503 && strings.Contains(body, "rerank")) {
			t.Errorf("%s: %d %s", body, r.status, r.body)
		}
	}
	errorIs(t, n.postJSON("/v1/collections/c/search", `{"query": "alpha", "rerank": {"top_k": 11.5}}`), 400, "invalid_request", "rerank.top_k")
}
