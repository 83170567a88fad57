package engine

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/google/uuid"

	"github.com/najdi/najdi/ingest"
)

func (w *writer) upload(req IngestRequest) error {
	head := req.Data
	var rd io.Reader
	if head == nil && req.Reader != nil {
		br := newPeekReader(req.Reader, 4096)
		head = br.peek
		rd = br
	}
	var f ingest.Format
	var err error
	if req.Format != "" {
		f, err = ingest.ParseFormat(req.Format)
	} else {
		f, err = ingest.DetectFormat(req.ContentType, req.FileName, head)
	}
	if err != nil {
		return kindError(ErrUnsupportedMedia, err, "cannot ingest this upload")
	}
	if len(head) == 0 && req.Reader == nil {
		return invalidf("the upload is empty")
	}
	if !f.RecordOriented() {
		return w.uploadDocument(req, f, rd)
	}
	return w.uploadRecords(req, f, rd)
}

// uploadDocument parses an upload of a document format (text, HTML, DOCX,
// PDF) into one document; rd streams it when req.Data is nil.
func (w *writer) uploadDocument(req IngestRequest, f ingest.Format, rd io.Reader) error {
	var err error
	data := req.Data
	if data == nil {
		if data, err = io.ReadAll(rd); err != nil {
			return fmt.Errorf("read upload: %w", err)
		}
	}
	if req.meter != nil {
		req.meter.bytesRead.Store(int64(len(data)))
	}
	doc, err := ingest.ParseDocument(f, data, req.ContentType)
	if err != nil {
		return w.parseError(f, err)
	}
	id := req.DocumentID
	if id == "" {
		id = w.idFromFileName(req.FileName)
	}
	if !ValidDocumentID(id) {
		return invalidField("document_id", "%q is not a valid document id (1-128 characters of A-Z a-z 0-9 . _ : -)", id)
	}
	if len(doc.Sections) == 0 {
		return &Error{Kind: ErrInvalid, Message: fmt.Sprintf("the %s file holds no text to index", f), Details: map[string]any{"format": string(f)}}
	}
	d := pendingDoc{id: id, sections: doc.Sections}
	if err := w.checkDoc(d); err != nil {
		var tl *docTooLarge
		if errors.As(err, &tl) {
			return &Error{Kind: ErrTooLarge, Message: err.Error(), Details: map[string]any{"format": string(f), "limit_bytes": MaxDocumentBytes}}
		}
		return invalidf("%v", err)
	}
	return w.add(d)
}

// uploadRecords streams the records of a record format (CSV, JSON, JSONL,
// XLSX, ODS), one document each; a bad record is reported in w.res.Errors
// and skipped.
func (w *writer) uploadRecords(req IngestRequest, f ingest.Format, rd io.Reader) error {
	if rd == nil {
		if w.jobID != "" {
			w.prescanTypes(req, f)
		}
		rd = bytes.NewReader(req.Data)
	}
	if req.meter != nil {
		rd = countingReader{rd, req.meter}
		req.meter.streamed.Store(f == ingest.FormatCSV || f == ingest.FormatJSON || f == ingest.FormatJSONL)
	}
	rr, err := ingest.NewRecordReader(f, rd, ingest.RecordOptions{Charset: charsetOf(req.ContentType)})
	if err != nil {
		return w.parseError(f, err)
	}
	stem := strings.TrimSuffix(path.Base(req.FileName), path.Ext(req.FileName))
	n := 0
	// next and sheet locate the record after the last one read, good or
	// bad: where a reader that cannot go on stopped.
	next, sheet := 0, ""
	for {
		if err := w.ctx.Err(); err != nil {
			return err
		}
		rec, err := rr.Next()
		if err == io.EOF {
			break
		}
		var re *ingest.RecordError
		if errors.As(err, &re) {
			next, sheet = re.Index+1, re.Sheet
			idx := re.Index
			w.res.Errors = append(w.res.Errors, IngestError{Record: &idx, Sheet: re.Sheet, Message: re.Err.Error()})
			continue
		}
		if err != nil {
			if n == 0 {
				return w.parseError(f, err)
			}
			idx := next
			w.res.Errors = append(w.res.Errors, IngestError{Record: &idx, Sheet: sheet, Message: "this record and the rest of the upload were not read: " + err.Error()})
			break
		}
		next, sheet = rec.Index+1, rec.Sheet
		n++
		d, perr := w.fromRecord(rec, req.IDField, stem)
		if perr == nil {
			perr = w.checkDoc(d)
		}
		if perr != nil {
			idx := rec.Index
			w.res.Errors = append(w.res.Errors, IngestError{Record: &idx, Sheet: rec.Sheet, DocumentID: d.id, Message: perr.Error()})
			continue
		}
		if err := w.add(d); err != nil {
			return err
		}
	}
	if n == 0 && len(w.res.Errors) == 0 {
		return invalidf("the %s upload holds no records", f)
	}
	return nil
}

// prescanTypes types the new fields of a job's record upload before the
// job stores any of it: it reads the records a synchronous upload would
// hold in its first flush (FlushDocs documents or FlushBytes bytes) and
// types their fields as checkDoc does, so that the job's small progress
// flushes settle the types a synchronous upload of the same file settles
// (see typing). Errors are left to the real pass, which reports them.
func (w *writer) prescanTypes(req IngestRequest, f ingest.Format) {
	rr, err := ingest.NewRecordReader(f, bytes.NewReader(req.Data), ingest.RecordOptions{Charset: charsetOf(req.ContentType)})
	if err != nil {
		return
	}
	stem := strings.TrimSuffix(path.Base(req.FileName), path.Ext(req.FileName))
	docs, size := 0, 0
	for docs < w.e.opts.FlushDocs && size < w.e.opts.FlushBytes && w.ctx.Err() == nil {
		rec, err := rr.Next()
		if err == io.EOF {
			break
		}
		var re *ingest.RecordError
		if errors.As(err, &re) {
			continue
		}
		if err != nil {
			break
		}
		d, err := w.fromRecord(rec, req.IDField, stem)
		if err != nil || w.checkDoc(d) != nil {
			continue
		}
		docs++
		for _, s := range d.sections {
			size += len(s.Content)
		}
	}
	for name := range w.types {
		if w.decided == nil {
			w.decided = map[string]bool{}
		}
		w.decided[name] = true
	}
}

// peekReader exposes the first bytes of a stream for format detection.
type peekReader struct {
	peek []byte
	r    io.Reader
}

func newPeekReader(r io.Reader, n int) *peekReader {
	buf := make([]byte, n)
	m, _ := io.ReadFull(r, buf)
	return &peekReader{peek: buf[:m], r: io.MultiReader(bytes.NewReader(buf[:m]), r)}
}

func (p *peekReader) Read(b []byte) (int, error) { return p.r.Read(b) }

func charsetOf(ct string) string {
	for _, p := range strings.Split(ct, ";") {
		p = strings.TrimSpace(p)
		if v, ok := strings.CutPrefix(strings.ToLower(p), "charset="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
}

func (w *writer) parseError(f ingest.Format, err error) error {
	switch {
	case errors.Is(err, ingest.ErrUnsupportedFormat):
		return kindError(ErrUnsupportedMedia, err, "cannot ingest this upload")
	case errors.Is(err, ingest.ErrTooLarge):
		return &Error{Kind: ErrTooLarge, Message: fmt.Sprintf("the %s upload exceeds a parser limit: %v", f, err), Details: map[string]any{"format": string(f)}, Cause: err}
	case errors.Is(err, ingest.ErrCorrupt):
		return &Error{Kind: ErrInvalid, Message: fmt.Sprintf("the file is not a valid %s file: %v", f, err), Details: map[string]any{"format": string(f)}, Cause: err}
	}
	return &Error{Kind: ErrInvalid, Message: fmt.Sprintf("cannot parse the %s upload: %v", f, err), Details: map[string]any{"format": string(f)}, Cause: err}
}

// idFromFileName derives a document id from a file name, or generates one.
func (w *writer) idFromFileName(name string) string {
	name = path.Base(strings.ReplaceAll(name, "\\", "/"))
	if name == "." || name == "/" || name == "" {
		return w.generateID("document")
	}
	return sanitizeID(name)
}

// generateID returns a new random document id, or, in an asynchronous job,
// one derived from the job id and parts (the same on every run of the job).
func (w *writer) generateID(parts ...string) string {
	if w.jobID == "" {
		return uuid.NewString()
	}
	return uuid.NewSHA1(uuid.NameSpaceURL, []byte("najdi:job:"+w.jobID+"/"+strings.Join(parts, "/"))).String()
}

func sanitizeID(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '_', r == ':', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
		if b.Len() >= 128 {
			break
		}
	}
	if b.Len() == 0 {
		return uuid.NewString()
	}
	return b.String()
}

func (w *writer) fromRecord(rec ingest.Record, idField, stem string) (pendingDoc, error) {
	d := pendingDoc{record: true}
	if len(rec.Props) > MaxColumnsPerRecord {
		if rec.Key != "" {
			d.id = sanitizeID(rec.Key)
		}
		return d, fmt.Errorf("the record has %d columns, more than the limit of %d per record", len(rec.Props), MaxColumnsPerRecord)
	}
	for _, p := range rec.Props {
		vals := p.Values
		if spec, ok := w.rec.Config.Fields[p.Name]; ok && spec.Multi {
			vals = splitMulti(vals)
		}
		if (idField != "" && p.Name == idField) || (idField == "" && d.id == "" && (p.Name == "id" || p.Name == "document_id" || p.Name == "_id")) {
			if len(vals) == 1 && vals[0].Kind != ingest.KindNull {
				d.id, d.idProp = vals[0].Str, p.Name
			}
		}
		var parts []string
		for _, v := range vals {
			if v.Kind != ingest.KindNull && strings.TrimSpace(v.Str) != "" {
				parts = append(parts, v.Str)
			}
		}
		if len(parts) == 0 {
			continue
		}
		d.sections = append(d.sections, ingest.Section{Type: p.Name, Content: strings.Join(parts, ", ")})
		d.fields = append(d.fields, fieldInput{name: p.Name, vals: vals})
	}
	if rec.Sheet != "" {
		d.fields = append(d.fields, fieldInput{name: "sheet", vals: []ingest.Value{{Kind: ingest.KindString, Str: rec.Sheet}}, enum: true})
	}
	if d.id == "" && rec.Key != "" {
		d.id = sanitizeID(rec.Key)
	}
	if d.id == "" {
		switch {
		case idField != "":
			return d, fmt.Errorf("the record has no value in id_field %q", idField)
		case stem != "" && stem != ".":
			if rec.Sheet != "" {
				d.id = sanitizeID(stem + "-" + rec.Sheet + "-" + strconv.Itoa(rec.Index+1))
			} else {
				d.id = sanitizeID(stem + "-" + strconv.Itoa(rec.Index+1))
			}
		default:
			d.id = w.generateID("record", rec.Sheet, strconv.Itoa(rec.Index))
		}
	}
	if !ValidDocumentID(d.id) {
		return d, fmt.Errorf("%q is not a valid document id (1-128 characters of A-Z a-z 0-9 . _ : -)", d.id)
	}
	// A record's values are substrings of its whole line (encoding/csv
	// cuts them out of one string): the id outlives the record (the
	// segment's document list, a job's status), and must not keep the
	// line alive with it.
	d.id = strings.Clone(d.id)
	if len(d.sections) == 0 {
		return d, fmt.Errorf("the record is empty")
	}
	return d, nil
}

func splitMulti(vals []ingest.Value) []ingest.Value {
	var out []ingest.Value
	for _, v := range vals {
		if v.Kind != ingest.KindString || !strings.Contains(v.Str, "|") {
			out = append(out, v)
			continue
		}
		for _, p := range strings.Split(v.Str, "|") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, ingest.Value{Kind: ingest.KindString, Str: p})
			}
		}
	}
	return out
}

func (w *writer) envelope(docs []DocumentInput) error {
	for i, in := range docs {
		idx := i
		if !ValidDocumentID(in.DocumentID) {
			w.res.Errors = append(w.res.Errors, IngestError{Record: &idx, DocumentID: in.DocumentID, Message: fmt.Sprintf("document_id %q is not valid (1-128 characters of A-Z a-z 0-9 . _ : -)", in.DocumentID)})
			continue
		}
		d := pendingDoc{id: in.DocumentID}
		for _, s := range in.Sections {
			if strings.TrimSpace(s.Type) == "" {
				s.Type = "p"
			}
			if strings.TrimSpace(s.Content) == "" {
				continue
			}
			d.sections = append(d.sections, s)
		}
		if len(in.Fields) > MaxColumnsPerRecord {
			w.res.Errors = append(w.res.Errors, IngestError{Record: &idx, DocumentID: in.DocumentID, Message: fmt.Sprintf("the document has %d fields, more than the limit of %d per document", len(in.Fields), MaxColumnsPerRecord)})
			continue
		}
		names := make([]string, 0, len(in.Fields))
		for n := range in.Fields {
			names = append(names, n)
		}
		sort.Strings(names)
		var bad error
		for _, n := range names {
			vals, err := jsonValues(in.Fields[n])
			if err != nil {
				bad = fmt.Errorf("fields.%s: %v", n, err)
				break
			}
			d.fields = append(d.fields, fieldInput{name: n, vals: vals})
		}
		if bad == nil && len(d.sections) == 0 && len(d.fields) == 0 {
			bad = fmt.Errorf("the document has no sections and no fields")
		}
		if bad == nil {
			bad = w.checkDoc(d)
		}
		if bad != nil {
			w.res.Errors = append(w.res.Errors, IngestError{Record: &idx, DocumentID: in.DocumentID, Message: bad.Error()})
			continue
		}
		if err := w.add(d); err != nil {
			return err
		}
	}
	return nil
}

func jsonValues(v any) ([]ingest.Value, error) {
	switch x := v.(type) {
	case []any:
		var out []ingest.Value
		for _, e := range x {
			if _, nested := e.([]any); nested {
				return nil, fmt.Errorf("nested arrays are not supported")
			}
			vs, err := jsonValues(e)
			if err != nil {
				return nil, err
			}
			out = append(out, vs...)
		}
		return out, nil
	case nil:
		return nil, nil
	case string:
		return []ingest.Value{{Kind: ingest.KindString, Str: x}}, nil
	case bool:
		return []ingest.Value{{Kind: ingest.KindBool, Bool: x, Str: strconv.FormatBool(x)}}, nil
	case float64:
		return []ingest.Value{{Kind: ingest.KindNumber, Num: x, Str: strconv.FormatFloat(x, 'g', -1, 64)}}, nil
	case json.Number:
		f, err := x.Float64()
		if err != nil || math.IsInf(f, 0) {
			return nil, fmt.Errorf("number %s is out of range", x)
		}
		return []ingest.Value{{Kind: ingest.KindNumber, Num: f, Str: x.String()}}, nil
	case map[string]any:
		return nil, fmt.Errorf("objects are not supported as field values")
	}
	return nil, fmt.Errorf("unsupported value %T", v)
}
