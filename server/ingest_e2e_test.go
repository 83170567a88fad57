package server_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"
)

type docResp struct {
	DocumentID string                           `json:"document_id"`
	Sections   []struct{ Type, Content string } `json:"sections"`
	Fields     map[string]any                   `json:"fields"`
}

func getDoc(t *testing.T, n *node, coll, id string) docResp {
	t.Helper()
	r := must(t, n.getJSON("/v1/collections/"+coll+"/documents/"+id+"?result_format=sections"), 200)
	var d docResp
	if err := json.Unmarshal(r.body, &d); err != nil {
		t.Fatal(err)
	}
	return d
}

type ingestResp struct {
	Documents []struct {
		DocumentID string `json:"document_id"`
		Status     string `json:"status"`
	} `json:"documents"`
	Errors []map[string]any `json:"errors"`
}

func ingestOK(t *testing.T, r resp) ingestResp {
	t.Helper()
	must(t, r, 200)
	var ir ingestResp
	if err := json.Unmarshal(r.body, &ir); err != nil {
		t.Fatal(err)
	}
	return ir
}

// TestIngestRealFiles ingests every real fixture over HTTP and checks the
// documents and sections one would expect from opening the file.
func TestIngestRealFiles(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "docs", "")

	t.Run("pdf", func(t *testing.T) {
		ir := ingestOK(t, n.do("POST", "/v1/collections/docs/documents?document_id=tm", "application/pdf", readFile(t, "tracemonkey.pdf")))
		if len(ir.Documents) != 1 || ir.Documents[0].DocumentID != "tm" || ir.Documents[0].Status != "created" {
			t.Fatalf("documents: %+v", ir.Documents)
		}
		d := getDoc(t, n, "docs", "tm")
		all := joinSections(d)
		for _, want := range []string{"Trace-based Just-in-Time Type Specialization", "Dynamic languages such as JavaScript are more difficult to compile"} {
			if !strings.Contains(all, want) {
				t.Errorf("PDF text lacks %q", want)
			}
		}
		if !hasType(d, "p") || len(d.Sections) < 50 {
			t.Errorf("PDF gave %d sections; want paragraphs for a 14-page paper", len(d.Sections))
		}
	})
	t.Run("docx multipart", func(t *testing.T) {
		ir := ingestOK(t, n.upload("/v1/collections/docs/documents", map[string][]byte{"testWORD.docx": readFile(t, "testWORD.docx")}))
		if len(ir.Documents) != 1 || ir.Documents[0].DocumentID != "testWORD.docx" {
			t.Fatalf("documents: %+v", ir.Documents)
		}
		d := getDoc(t, n, "docs", "testWORD.docx")
		for _, typ := range []string{"title", "h1", "p"} {
			if !hasType(d, typ) {
				t.Errorf("DOCX lacks a %q section: %+v", typ, d.Sections)
			}
		}
	})
	t.Run("html", func(t *testing.T) {
		ingestOK(t, n.do("POST", "/v1/collections/docs/documents?document_id=moz", "text/html", readFile(t, "wikipedia-mozilla.html")))
		d := getDoc(t, n, "docs", "moz")
		if d.Sections[0].Type != "title" || !strings.Contains(d.Sections[0].Content, "Mozilla") {
			t.Errorf("first HTML section %+v, want the title", d.Sections[0])
		}
		all := joinSections(d)
		if strings.Contains(all, "function(") || strings.Contains(all, "Jump to content") {
			t.Error("HTML sections contain script or navigation text")
		}
		if !hasType(d, "h2") || !hasType(d, "li") {
			t.Error("HTML lacks h2 or li sections")
		}
	})
	t.Run("text cp1250", func(t *testing.T) {
		ingestOK(t, n.do("POST", "/v1/collections/docs/documents?document_id=cz", "text/plain", readFile(t, "czech-cac-excerpt-cp1250.txt")))
		d := getDoc(t, n, "docs", "cz")
		all := joinSections(d)
		for _, w := range []string{"Kolektivní socialistický závazek", "Výzkumného ústavu meliorací v Praze", "Meziparlamentní unie v Římě"} {
			if !strings.Contains(all, w) {
				t.Errorf("decoded text lacks %q", w)
			}
		}
		if len(d.Sections) < 3 {
			t.Errorf("want one section per paragraph, got %d", len(d.Sections))
		}
	})
	t.Run("csv", func(t *testing.T) {
		keywordCollection(t, n, "countries", "")
		ir := ingestOK(t, n.do("POST", "/v1/collections/countries/documents?id_field=ISO3166-1-Alpha-3", "text/csv", readFile(t, "country-codes.csv")))
		if len(ir.Documents) < 240 {
			t.Fatalf("CSV gave %d documents, want one per row (~249); errors %v", len(ir.Documents), ir.Errors)
		}
		d := getDoc(t, n, "countries", "CZE")
		if d.Sections[0].Type != "FIFA" || d.Sections[0].Content != "CZE" {
			t.Errorf("sections must follow the column order, first is %+v", d.Sections[0])
		}
		if d.Fields["official_name_en"] != "Czechia" && d.Fields["official_name_en"] != "Czech Republic" {
			t.Errorf("field official_name_en = %v", d.Fields["official_name_en"])
		}
		c := must(t, n.getJSON("/v1/collections/countries"), 200).json(t)
		if int(c["document_count"].(float64)) != len(ir.Documents) {
			t.Errorf("document_count %v, ingested %d", c["document_count"], len(ir.Documents))
		}
	})
	t.Run("json jsonl xlsx ods", func(t *testing.T) {
		keywordCollection(t, n, "records", "")
		for _, tc := range []struct {
			file, ctype string
			min         int
		}{
			{"countries.json", "application/json", 250},
			{"gsm8k-test.jsonl", "application/x-ndjson", 1319},
			{"kyc-file-structure.xlsx", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", 100},
			{"testEXCEL.xlsx", "", 5},
			{"test-columnar.ods", "application/vnd.oasis.opendocument.spreadsheet", 3},
		} {
			r := n.do("POST", "/v1/collections/records/documents?filename="+tc.file, tc.ctype, readFile(t, tc.file))
			ir := ingestOK(t, r)
			if len(ir.Documents) < tc.min {
				t.Errorf("%s: %d documents, want at least %d (errors %v)", tc.file, len(ir.Documents), tc.min, ir.Errors)
			}
		}
		d := getDoc(t, n, "records", "countries-1")
		if d.Sections[0].Type != "name.common" || d.Sections[0].Content != "Aruba" {
			t.Errorf("first JSON record's first section %+v, want name.common Aruba", d.Sections[0])
		}
		q := getDoc(t, n, "records", "gsm8k-test-1")
		if len(q.Sections) != 2 || q.Sections[0].Type != "question" || q.Sections[1].Type != "answer" {
			t.Errorf("JSONL record sections %+v", q.Sections)
		}
	})
}

func joinSections(d docResp) string {
	var b strings.Builder
	for _, s := range d.Sections {
		b.WriteString(s.Content)
		b.WriteString("\n")
	}
	return b.String()
}

func hasType(d docResp, typ string) bool {
	for _, s := range d.Sections {
		if s.Type == typ {
			return true
		}
	}
	return false
}

// TestBadInput checks that malformed requests get the documented 4xx JSON
// errors and that one bad record does not fail its neighbours.
func TestBadInput(t *testing.T) {
	n := start(t, "", "--no-embeddings", "--max-body", "200000")
	keywordCollection(t, n, "c", `, "fields": {"price": {"type": "number"}, "brand": {"type": "enum"}}`)
	cases := []struct {
		name   string
		r      resp
		status int
		code   string
		msg    string
	}{
		{"unknown config field", n.putJSON("/v1/collections/x", `{"serch_config": {}}`), 400, "invalid_request", "serch_config"},
		{"bad collection id", n.putJSON("/v1/collections/Bad,Id", `{}`), 400, "invalid_request", "collection"},
		{"bad language", n.putJSON("/v1/collections/y", `{"search_config": {"language": "de"}}`), 400, "invalid_request", "language"},
		{"bad field type", n.putJSON("/v1/collections/y", `{"fields": {"a": {"type": "date"}}}`), 400, "invalid_request", "fields.a.type"},
		{"missing collection", n.getJSON("/v1/collections/nope"), 404, "not_found", "nope"},
		{"unsupported format", n.do("POST", "/v1/collections/c/documents?format=exe", "application/octet-stream", []byte("MZ...")), 415, "unsupported_media_type", "exe"},
		{"corrupt pdf", n.do("POST", "/v1/collections/c/documents", "application/pdf", []byte("%PDF-1.4 garbage garbage")), 400, "invalid_request", "pdf"},
		{"corrupt docx", n.do("POST", "/v1/collections/c/documents?filename=a.docx", "", []byte("PK\x03\x04 not a zip")), 400, "invalid_request", "docx"},
		{"oversize body", rawPost(t, n, "/v1/collections/c/documents", 400000), 413, "payload_too_large", "limit"},
		{"envelope unknown field", n.postJSON("/v1/collections/c/documents", `{"documents": [{"document_id": "a", "sectons": []}]}`), 400, "invalid_request", "sectons"},
		{"empty body", n.do("POST", "/v1/collections/c/documents", "text/plain", nil), 400, "invalid_request", "empty"},
		{"search unknown field", n.postJSON("/v1/collections/c/search", `{"query": "a", "max_result": 3}`), 400, "invalid_request", "max_result"},
		{"search malformed json", n.postJSON("/v1/collections/c/search", `{"query": `), 400, "invalid_request", ""},
		{"bad max_results", n.postJSON("/v1/collections/c/search", `{"query": "a", "max_results": 0}`), 400, "invalid_request", "max_results"},
		{"bad result_format", n.postJSON("/v1/collections/c/search", `{"query": "a", "result_format": "xml"}`), 400, "invalid_request", "result_format"},
		{"filter on unknown field", n.postJSON("/v1/collections/c/search", `{"filter": {"term": {"nope": "x"}}}`), 400, "invalid_request", "nope"},
		{"filter unsupported construct", n.postJSON("/v1/collections/c/search", `{"filter": {"fuzzy": {"brand": "x"}}}`), 400, "invalid_request", "fuzzy"},
		{"missing document", n.getJSON("/v1/collections/c/documents/nope"), 404, "not_found", "nope"},
		{"wrong method", n.do("PATCH", "/v1/collections/c", "application/json", []byte("{}")), 405, "method_not_allowed", "PATCH"},
		{"unknown query parameter", n.getJSON("/v1/collections/c/query?query=a&max_result=3"), 400, "invalid_request", "max_result"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if tc.r.status != tc.status {
				t.Fatalf("status %d, want %d: %s", tc.r.status, tc.status, tc.r.body)
			}
			if code := tc.r.errorCode(t); code != tc.code {
				t.Errorf("code %q, want %q", code, tc.code)
			}
			if !strings.Contains(strings.ToLower(string(tc.r.body)), strings.ToLower(tc.msg)) {
				t.Errorf("message does not name %q: %s", tc.msg, tc.r.body)
			}
		})
	}
	t.Run("filter needs fulltext elastic", func(t *testing.T) {
		for id, cfg := range map[string]string{"off": `"fulltext_config": {"enabled": false}`, "solr": `"fulltext_config": {"engine": "solr"}`} {
			keywordCollection(t, n, id, ", "+cfg+`, "fields": {"brand": {"type": "enum"}}`)
			r := n.postJSON("/v1/collections/"+id+"/search", `{"query": "x", "filter": {"term": {"brand": "a"}}}`)
			if r.status != 400 || !strings.Contains(string(r.body), "fulltext_config") {
				t.Fatalf("%s: filter on a collection without elastic fulltext: %d %s", id, r.status, r.body)
			}
		}
	})
	t.Run("one bad csv record", func(t *testing.T) {
		csv := "id,brand,price\n1,acme,10\n2,beta,20,extra\n3,gamma,30\n"
		ir := ingestOK(t, n.do("POST", "/v1/collections/c/documents", "text/csv", []byte(csv)))
		if len(ir.Documents) != 2 || len(ir.Errors) != 1 {
			t.Fatalf("want 2 documents and 1 error, got %+v", ir)
		}
		getDoc(t, n, "c", "1")
		getDoc(t, n, "c", "3")
	})
	t.Run("one bad jsonl line", func(t *testing.T) {
		jl := "{\"id\": \"a\", \"brand\": \"x\"}\n{\"id\": \"b\", broken\n{\"id\": \"c\", \"brand\": \"y\"}\n"
		ir := ingestOK(t, n.do("POST", "/v1/collections/c/documents", "application/x-ndjson", []byte(jl)))
		if len(ir.Documents) != 2 || len(ir.Errors) != 1 {
			t.Fatalf("want 2 documents and 1 error, got %+v", ir)
		}
	})
	t.Run("bad document id in envelope", func(t *testing.T) {
		ir := ingestOK(t, n.postJSON("/v1/collections/c/documents", `{"documents": [{"document_id": "ok-1", "sections": [{"type": "p", "content": "fine"}]}, {"document_id": "bad id!", "sections": [{"type": "p", "content": "x"}]}]}`))
		if len(ir.Documents) != 1 || len(ir.Errors) != 1 || !strings.Contains(fmt.Sprint(ir.Errors[0]), "bad id!") {
			t.Fatalf("got %+v", ir)
		}
	})
}

// rawPost announces a body of size bytes and reads the answer without
// sending the body: the server must refuse by Content-Length alone (a
// client that kept writing could see a reset instead of the answer).
func rawPost(t *testing.T, n *node, path string, size int) resp {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(n.base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: %d\r\n\r\n", path, size)
	conn.SetReadDeadline(time.Now().Add(10 * time.Second))
	r, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("read answer to an oversize body: %v", err)
	}
	defer r.Body.Close()
	b, _ := io.ReadAll(r.Body)
	return resp{status: r.StatusCode, body: b, header: r.Header}
}
