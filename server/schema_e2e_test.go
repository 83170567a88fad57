package server_test

import (
	"bytes"
	"fmt"
	"mime/multipart"
	"strings"
	"testing"
)

// Regression tests for the mismatches schemathesis found between the
// server and /v1/openapi.json (issue 18 item 7): each request below is one
// the document calls invalid, and the server must answer it with a 400
// naming what is wrong; and the optional properties the document declares
// nullable are read as absent.

// TestSchemaEmptyParameters: a query parameter given with an empty value
// (?limit=) or a boolean other than true/false is a 400, as the document's
// integer, enum, boolean and pattern parameters say, not the default.
func TestSchemaEmptyParameters(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", "")
	must(t, n.do("POST", "/v1/collections/c/documents?document_id=d", "text/plain", []byte("alpha beta")), 200)
	for _, tc := range []struct {
		method, path, field string
	}{
		{"GET", "/v1/collections/c/documents?limit=", "limit"},
		{"GET", "/v1/collections/c/documents/d?result_format=", "result_format"},
		{"POST", "/v1/collections/c/documents?format=", "format"},
		{"POST", "/v1/collections/c/documents?document_id=", "document_id"},
		{"POST", "/v1/collections/c/documents?id_field=", "id_field"},
		{"POST", "/v1/collections/c/documents?async=", "async"},
		{"POST", "/v1/collections/c/documents?async=1", "async"},
		{"POST", "/v1/collections/c/documents?format=json&document_id=a%00b", "document_id"},
		{"GET", "/v1/collections/c/query?query=alpha&highlight=1", "highlight"},
		{"GET", "/v1/collections/c/query?query=alpha&restore_diacritics=T", "restore_diacritics"},
		// A parameter without a name ("&=") is unknown, not absent
		// (fasthttp drops it when its value is empty too).
		{"GET", "/v1/collections/c?=", "unknown query parameter"},
		{"GET", "/phrase-sets?owner=&=", "unknown query parameter"},
		{"POST", "/v1/collections/c/documents?=", "unknown query parameter"},
		{"GET", "/v1/collections/c/query?query=alpha&=", "unknown query parameter"},
	} {
		t.Run(tc.method+" "+tc.path, func(t *testing.T) {
			errorIs(t, n.do(tc.method, tc.path, "text/plain", []byte("gamma")), 400, "invalid_request", tc.field)
		})
	}
	// A collection configuration of null is not an object.
	errorIs(t, n.do("PUT", "/v1/collections/n", "application/json", []byte("null")), 400, "invalid_request", "null is not an object")
	// The values the document allows still work.
	must(t, n.getJSON("/v1/collections/c/documents?limit=1"), 200)
	must(t, n.getJSON("/v1/collections/c/documents/d?result_format=flat"), 200)
	must(t, n.getJSON("/v1/collections/c/query?query=alpha&highlight=false"), 200)
	must(t, n.do("POST", "/v1/collections/c/documents?async=false&document_id=e", "text/plain", []byte("delta")), 200)
}

// TestSchemaPhraseWords: a phrase or synonym without a word (a letter or a
// digit; & counts as "and") is a 400 naming it. "!!" used to be accepted
// and never matched; "-" was rejected only when no other phrase had a word.
func TestSchemaPhraseWords(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	for _, tc := range []struct {
		name, body, field string
	}{
		{"punctuation text", `{"name": "x", "phrases": [{"text": "!!"}]}`, "phrases[0].text"},
		{"dash text beside a word", `{"name": "x", "phrases": [{"text": "Praha"}, {"text": "-"}]}`, "phrases[1].text"},
		{"punctuation synonym", `{"name": "x", "phrases": [{"text": "Praha", "synonyms": ["..."]}]}`, "phrases[0].synonyms[0]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errorIs(t, n.postJSON("/phrase-sets", tc.body), 400, "invalid_request", tc.field, "no word")
		})
	}
	for _, text := range []string{"&", "R2-D2", "é", "0"} {
		must(t, n.postJSON("/phrase-sets", `{"name": "x", "phrases": [{"text": "`+text+`"}]}`), 201)
	}
}

// TestSchemaBlankUtterance: an intent example that is blank is a 400
// naming it (the document: every utterance holds a non-space character);
// it used to be dropped silently when another utterance of the intent was
// not blank.
func TestSchemaBlankUtterance(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	body := `{"name": "i", "type": "annotator", "annotator": {"service": "builtin", "model": "intent-classifier", "config": {"examples": {"greet": ["hello there", "  "]}}}}`
	errorIs(t, n.postJSON("/models", body), 400, "invalid_request", "annotator.config.examples.greet[1]", "blank")
	errorIs(t, n.postJSON("/models", strings.Replace(body, `"hello there", "  "`, ``, 1)), 400, "invalid_request", "greet")
}

// TestSchemaNullIsAbsent: every optional property the document declares
// nullable is read as absent when it is null (the body is accepted).
func TestSchemaNullIsAbsent(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	ps := must(t, n.postJSON("/phrase-sets", `{"name": "city", "phrases": [{"text": "Praha"}]}`), 201).json(t)["phrase_set_id"].(string)
	for _, tc := range []struct {
		method, path, body string
		status             int
	}{
		{"PUT", "/v1/collections/a", `{"search_config": null, "fulltext_config": null, "summary_config": null, "fields": null, "embedding_config": {"model": "none"}}`, 201},
		{"PUT", "/v1/collections/b", `{"search_config": {"language": null, "restore_diacritics": null}, "fulltext_config": {"enabled": null, "engine": null}, "summary_config": {"max_tokens": null, "tokenizer": null, "summary_separator": null, "document_separator": null}, "fields": {"f": {"type": "enum", "multi": null}}, "embedding_config": {"model": "none"}}`, 201},
		{"POST", "/v1/collections/a/documents", `{"documents": [{"document_id": "d", "sections": [{"type": null, "content": "alpha"}], "fields": null}]}`, 200},
		{"POST", "/v1/collections/a/search", `{"query": "alpha", "max_results": null, "result_format": null, "include_content": null, "include_fields": null, "highlight": null, "restore_diacritics": null, "filter": null, "summary_config": null}`, 200},
		{"POST", "/v1/collections/a/search", `{"query": null, "filter": {"match_all": {}}}`, 200},
		{"POST", "/phrase-sets", `{"name": "x", "description": null, "language": null, "case_sensitive": null, "phrases": [{"text": "a", "value": null, "synonyms": null}]}`, 201},
		{"POST", "/models", `{"name": "builtin-ner", "language": "en", "description": null, "type": null, "annotator": null, "pipeline": null}`, 201},
		{"POST", "/models", `{"name": "m", "type": "annotator", "description": null, "language": null, "annotator": {"service": "builtin", "model": "intent-classifier", "language": null, "config": {"examples": {"a": ["hi"]}, "threshold": null, "language": null}}}`, 201},
		{"POST", "/models", `{"name": "p", "type": "pipeline", "mode": "parallel", "annotator": null, "language": null, "phrase_set_ids": null, "pipeline": {"models": [{"name": "closed-ner", "model_id": null, "language": null, "description": null, "phrase_set_ids": ["` + ps + `"]}]}}`, 201},
	} {
		r := n.do(tc.method, tc.path, "application/json", []byte(tc.body))
		if r.status != tc.status {
			t.Errorf("%s %s %s: %d, want %d: %s", tc.method, tc.path, tc.body, r.status, tc.status, r.body)
		}
	}
}

// TestSchemaMultipartParts: a multipart upload holds "file" parts only
// (the document's additionalProperties: false); a form field or a part of
// another name is a 400 naming it, not silently skipped.
func TestSchemaMultipartParts(t *testing.T) {
	n := start(t, "", "--no-embeddings")
	keywordCollection(t, n, "c", "")
	body := func(field, fileName string) (string, []byte) {
		var b bytes.Buffer
		w := multipart.NewWriter(&b)
		if field != "" {
			w.WriteField(field, "x")
		}
		fw, _ := w.CreateFormFile(fileName, "a.txt")
		fw.Write([]byte("alpha beta"))
		w.Close()
		return w.FormDataContentType(), b.Bytes()
	}
	ct, b := body("document_id", "file")
	errorIs(t, n.do("POST", "/v1/collections/c/documents", ct, b), 400, "invalid_request", `"document_id"`)
	ct, b = body("", "files")
	errorIs(t, n.do("POST", "/v1/collections/c/documents", ct, b), 400, "invalid_request", `"files"`)
	ct, b = body("", "file")
	must(t, n.do("POST", "/v1/collections/c/documents", ct, b), 200)
}

// TestSchemaURLSchemeCase: the scheme of a remote embedding URL is case
// insensitive, as for annotation microservices and as the document's
// pattern says (HTTP://host was a 400 for embeddings only).
func TestSchemaURLSchemeCase(t *testing.T) {
	n := start(t, "", "--allow-outbound", "127.0.0.1:9")
	for i, u := range []string{"http://127.0.0.1:9", "HTTP://127.0.0.1:9/v1", "Https://127.0.0.1:9"} {
		must(t, n.putJSON(fmt.Sprintf("/v1/collections/r%d", i), `{"embedding_config": {"model": {"url": "`+u+`", "model": "m", "dims": 4}}}`), 201)
		must(t, n.postJSON("/models", `{"name": "m", "type": "annotator", "annotator": {"service": "`+u+`"}}`), 201)
	}
	errorIs(t, n.putJSON("/v1/collections/x", `{"embedding_config": {"model": {"url": "ftp://127.0.0.1:9", "model": "m", "dims": 4}}}`), 400, "invalid_request", "embedding_config.model.url")
}
