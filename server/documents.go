package server

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/valyala/fasthttp"

	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/internal/strictjson"
)

func (s *Server) documents(ctx *fasthttp.RequestCtx, owner, method string, ids []string, rest []string) string {
	if len(ids) != 1 {
		writeErrorStatus(ctx, 400, "documents are addressed in one collection at a time", nil)
		return "/v1/collections/{id}/documents"
	}
	coll := ids[0]
	if len(rest) == 0 {
		switch method {
		case "POST":
			if s.collectionsExist(ctx, owner, ids) {
				s.ingest(ctx, owner, coll)
			}
		case "GET":
			if !s.collectionsExist(ctx, owner, ids) {
				break
			}
			limit := 100
			if ctx.QueryArgs().Has("limit") {
				v := ctx.QueryArgs().Peek("limit")
				n, err := strconv.Atoi(string(v))
				if err != nil || n <= 0 {
					writeErrorStatus(ctx, 400, fmt.Sprintf("limit: %q is not a positive integer", v), nil)
					return "/v1/collections/{id}/documents"
				}
				limit = n
			}
			list, next, err := s.eng.ListDocuments(ctx, owner, coll, limit, string(ctx.QueryArgs().Peek("cursor")))
			if err != nil {
				writeError(ctx, err)
				break
			}
			out := map[string]any{"documents": list}
			if next != "" {
				out["next_cursor"] = next
			}
			writeJSON(ctx, 200, out)
		default:
			methodNotAllowed(ctx, "GET, POST")
		}
		return "/v1/collections/{id}/documents"
	}
	if len(rest) != 1 {
		writeErrorStatus(ctx, 404, "no such route", nil)
		return "unknown"
	}
	docID := rest[0]
	switch method {
	case "GET":
		d, err := s.eng.GetDocument(ctx, owner, coll, docID)
		if err != nil {
			writeError(ctx, err)
			break
		}
		out := map[string]any{"document_id": d.DocumentID, "fields": engine.FieldsMap(d.Fields, nil)}
		f := "sections"
		if ctx.QueryArgs().Has("result_format") {
			f = string(ctx.QueryArgs().Peek("result_format"))
		}
		switch f {
		case "sections":
			out["sections"] = d.Sections
		case "flat":
			out["content"] = d.Content(nil)
		default:
			writeErrorStatus(ctx, 400, fmt.Sprintf("result_format: %q is not supported (use sections or flat)", f), nil)
			return "/v1/collections/{id}/documents/{doc}"
		}
		writeJSON(ctx, 200, out)
	case "DELETE":
		if err := s.eng.DeleteDocument(ctx, owner, coll, docID); err != nil {
			writeError(ctx, err)
			break
		}
		ctx.SetStatusCode(204)
	default:
		methodNotAllowed(ctx, "GET, DELETE")
	}
	return "/v1/collections/{id}/documents/{doc}"
}

// ingest handles POST /v1/collections/{id}/documents: a raw file, a
// multipart upload of one or more "file" parts, or the JSON envelope. Its
// stages: the query parameters, the body into ingest requests, then one
// asynchronous job or the synchronous ingests.
func (s *Server) ingest(ctx *fasthttp.RequestCtx, owner, coll string) {
	base, async, ok := ingestParams(ctx)
	if !ok {
		return
	}
	ct := string(ctx.Request.Header.ContentType())
	mt, _, _ := mime.ParseMediaType(ct)
	var reqs []engine.IngestRequest
	if mt == "multipart/form-data" {
		if reqs, ok = multipartRequests(ctx, base); !ok {
			return
		}
	} else {
		r, ok := bodyRequest(ctx, base, ct, mt)
		if !ok {
			return
		}
		reqs = append(reqs, r)
	}
	for _, r := range reqs {
		s.metrics.ingestBytes.Add(uint64(len(r.Data)))
	}
	if async {
		s.startIngest(ctx, owner, coll, reqs)
		return
	}
	var total engine.IngestResult
	total.Documents, total.Errors = []engine.DocStatus{}, []engine.IngestError{}
	for _, r := range reqs {
		res, err := s.eng.Ingest(ctx, owner, coll, r)
		total.Documents = append(total.Documents, res.Documents...)
		total.Errors = append(total.Errors, res.Errors...)
		if err != nil {
			if len(reqs) > 1 {
				err = fmt.Errorf("file %q: %w", r.FileName, err)
			}
			writeError(ctx, err)
			return
		}
	}
	writeJSON(ctx, 200, total)
}

// ingestKnownParams are the query parameters of an ingest.
var ingestKnownParams = map[string]bool{"format": true, "document_id": true, "id_field": true, "async": true, "filename": true, "owner": true}

// ingestParams reads and checks the query parameters of an ingest into the
// request every file shares, and async. On a bad parameter it writes the
// 400 and returns ok false.
func ingestParams(ctx *fasthttp.RequestCtx) (base engine.IngestRequest, async, ok bool) {
	args := ctx.QueryArgs()
	base = engine.IngestRequest{
		Format:     string(args.Peek("format")),
		DocumentID: string(args.Peek("document_id")),
		IDField:    string(args.Peek("id_field")),
	}
	if rejectEmptyParams(ctx, "format", "document_id", "id_field", "async") {
		return base, false, false
	}
	// document_id is checked whatever the format (a record upload does
	// not use it, but a malformed one is still a mistake).
	if id := string(args.Peek("document_id")); id != "" && !engine.ValidDocumentID(id) {
		writeErrorStatus(ctx, 400, fmt.Sprintf("document_id: %q is not a valid document id (1-128 characters of A-Z a-z 0-9 . _ : -)", id), map[string]any{"field": "document_id"})
		return base, false, false
	}
	if v := args.Peek("async"); len(v) > 0 {
		b, err := parseBoolParam("async", string(v))
		if err != nil {
			writeError(ctx, err)
			return base, false, false
		}
		async = b
	}
	var bad string
	unknown := emptyParamName(ctx)
	for k := range args.All() {
		if !ingestKnownParams[string(k)] && !unknown {
			bad, unknown = string(k), true
		}
	}
	if unknown {
		writeErrorStatus(ctx, 400, fmt.Sprintf("unknown query parameter %q (known: format, document_id, id_field, async, filename)", bad), nil)
		return base, false, false
	}
	return base, async, true
}

// multipartRequests turns the "file" parts of a multipart body into one
// ingest request each. On a bad body it writes the 400 and returns ok
// false.
func multipartRequests(ctx *fasthttp.RequestCtx, base engine.IngestRequest) (reqs []engine.IngestRequest, ok bool) {
	form, err := ctx.MultipartForm()
	if err != nil {
		writeErrorStatus(ctx, 400, "cannot read the multipart body: "+err.Error(), nil)
		return nil, false
	}
	// Only "file" parts: another part is a mistake (a misspelt name, or a
	// form field the API does not take), not something to skip.
	for name := range form.Value {
		writeErrorStatus(ctx, 400, fmt.Sprintf("multipart part %q: only \"file\" parts are read (a form field is not)", name), map[string]any{"part": name})
		return nil, false
	}
	for name := range form.File {
		if name != "file" {
			writeErrorStatus(ctx, 400, fmt.Sprintf("multipart part %q: only \"file\" parts are read", name), map[string]any{"part": name})
			return nil, false
		}
	}
	files := form.File["file"]
	if len(files) == 0 {
		writeErrorStatus(ctx, 400, `the multipart body has no "file" part`, nil)
		return nil, false
	}
	for _, fh := range files {
		f, err := fh.Open()
		if err != nil {
			writeErrorStatus(ctx, 400, "cannot read part "+fh.Filename+": "+err.Error(), nil)
			return nil, false
		}
		data, err := io.ReadAll(f)
		f.Close()
		if err != nil {
			writeErrorStatus(ctx, 400, "cannot read part "+fh.Filename+": "+err.Error(), nil)
			return nil, false
		}
		r := base
		r.Data, r.FileName, r.ContentType = data, fh.Filename, fh.Header.Get("Content-Type")
		if len(files) > 1 && r.DocumentID != "" {
			writeErrorStatus(ctx, 400, "document_id names one document: upload several files without it", nil)
			return nil, false
		}
		reqs = append(reqs, r)
	}
	return reqs, true
}

// bodyRequest turns a raw body (a file, or the JSON envelope) of media type
// mt into an ingest request. On a bad body it writes the 400 and returns ok
// false.
func bodyRequest(ctx *fasthttp.RequestCtx, base engine.IngestRequest, ct, mt string) (r engine.IngestRequest, ok bool) {
	body := ctx.PostBody()
	if len(body) == 0 {
		writeErrorStatus(ctx, 400, "the request body is empty: send a file, a multipart upload or the JSON envelope {\"documents\": [...]}", nil)
		return r, false
	}
	r = base
	r.ContentType = ct
	r.FileName = string(ctx.QueryArgs().Peek("filename"))
	if r.Format == "" && (mt == "application/json" || mt == "") && looksLikeEnvelope(body) {
		docs, err := parseEnvelope(body)
		if err != nil {
			writeError(ctx, err)
			return r, false
		}
		r.Documents = docs
	} else {
		r.Data = append([]byte(nil), body...)
	}
	return r, true
}

// startIngest starts an asynchronous ingest job of one request and answers
// 202 with the job's id and status URL.
func (s *Server) startIngest(ctx *fasthttp.RequestCtx, owner, coll string, reqs []engine.IngestRequest) {
	if len(reqs) != 1 {
		writeErrorStatus(ctx, 400, "async ingest takes one file per request", nil)
		return
	}
	id, err := s.eng.StartIngest(owner, coll, reqs[0])
	if err != nil {
		writeError(ctx, err)
		return
	}
	writeJSON(ctx, 202, map[string]any{"job_id": id, "status_url": fmt.Sprintf("/v1/collections/%s/jobs/%s", coll, id)})
}

// parseBoolParam reads a boolean query parameter: true or false, as the
// OpenAPI document declares it (not 1, t or TRUE).
func parseBoolParam(name, v string) (bool, error) {
	switch v {
	case "true":
		return true, nil
	case "false":
		return false, nil
	}
	return false, &engine.Error{Kind: engine.ErrInvalid, Message: fmt.Sprintf("%s: %q is not a boolean (true or false)", name, v), Details: map[string]any{"field": name}}
}

// looksLikeEnvelope reports whether a JSON body is an object whose first
// key is "documents".
func looksLikeEnvelope(body []byte) bool {
	d := json.NewDecoder(bytes.NewReader(body))
	t, err := d.Token()
	if err != nil || t != json.Delim('{') {
		return false
	}
	t, err = d.Token()
	return err == nil && t == "documents"
}

func parseEnvelope(body []byte) ([]engine.DocumentInput, error) {
	var env struct {
		Documents []engine.DocumentInput `json:"documents"`
	}
	if err := decodeBody("documents envelope", body, &env, strictjson.Options{UseNumber: true}); err != nil {
		return nil, err
	}
	if len(env.Documents) == 0 {
		return nil, &engine.Error{Kind: engine.ErrInvalid, Message: "documents envelope: \"documents\" is empty"}
	}
	return env.Documents, nil
}

// jsonBody reports whether the request's body may be read as JSON: it is
// empty, or its Content-Type is application/json or a +json type (with
// parameters such as charset). Otherwise it answers 415 (400 for a body
// that is not UTF-8) and returns false.
// The search and answer endpoints are more lenient (see isJSON).
func jsonBody(ctx *fasthttp.RequestCtx) bool {
	if len(bytes.TrimSpace(ctx.PostBody())) == 0 {
		return true
	}
	ct := string(ctx.Request.Header.ContentType())
	mt, _, err := mime.ParseMediaType(ct)
	if err == nil && (mt == "application/json" || strings.HasSuffix(mt, "+json")) {
		if !utf8.Valid(ctx.PostBody()) {
			writeErrorStatus(ctx, 400, "the JSON body is not valid UTF-8", nil)
			return false
		}
		return true
	}
	if ct == "" {
		ct = "none"
	}
	writeErrorStatus(ctx, 415, fmt.Sprintf("send the body as Content-Type: application/json (got %s)", strconv.Quote(ct)), nil)
	return false
}
