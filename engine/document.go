package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/google/uuid"

	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/segment"
)

// IngestRequest describes one upload to a collection.
type IngestRequest struct {
	// Format is the format name; "" detects it from ContentType, FileName
	// and the content.
	Format string
	// ContentType is the upload's media type (may carry a charset).
	ContentType string
	// FileName is the uploaded file's name, if known.
	FileName string
	// Data is the whole upload. For record formats Reader may be used
	// instead to stream large files.
	Data []byte
	// Reader streams a record-format upload when Data is nil.
	Reader io.Reader
	// DocumentID names the document of a document-format upload.
	DocumentID string
	// IDField names the record property holding each record's id.
	IDField string
	// Documents is the JSON envelope form: documents given as sections and
	// fields. When set, Format, Data and Reader are ignored.
	Documents []DocumentInput
	// Progress, if set, is called after each flushed batch.
	Progress func(processed int)

	// jobID, set for an asynchronous job, makes the ids generated for
	// documents without one deterministic, so a resumed job replaces the
	// documents it already stored instead of adding them again.
	jobID string
	// meter, set for an asynchronous job, measures its progress.
	meter *ingestMeter
}

// DocumentInput is one document of the JSON envelope.
type DocumentInput struct {
	DocumentID string           `json:"document_id"`
	Sections   []ingest.Section `json:"sections"`
	Fields     map[string]any   `json:"fields,omitempty"`
}

// IngestResult reports what an ingest did.
type IngestResult struct {
	Documents []DocStatus   `json:"documents"`
	Errors    []IngestError `json:"errors"`
}

// DocStatus is the outcome for one document.
type DocStatus struct {
	DocumentID string `json:"document_id"`
	Status     string `json:"status"` // created or replaced
}

// IngestError reports one document or record that was not ingested.
type IngestError struct {
	DocumentID string `json:"document_id,omitempty"`
	Record     *int   `json:"record,omitempty"`
	Sheet      string `json:"sheet,omitempty"`
	Message    string `json:"message"`
}

// Document is a stored document as returned by GetDocument.
type Document struct {
	DocumentID   string           `json:"document_id"`
	CollectionID string           `json:"collection_id,omitempty"`
	Sections     []ingest.Section `json:"sections"`
	Fields       []FieldValue     `json:"-"`
}

// FieldValue is one field of a document with its values in order.
type FieldValue struct {
	Name   string `json:"n"`
	Values []any  `json:"v"` // string, float64 or bool
}

// FieldsMap renders fields as a JSON object: one value as a scalar,
// several as an array.
func FieldsMap(fields []FieldValue, include func(string) bool) map[string]any {
	m := make(map[string]any, len(fields))
	for _, f := range fields {
		if include != nil && !include(f.Name) {
			continue
		}
		if len(f.Values) == 1 {
			m[f.Name] = f.Values[0]
		} else {
			m[f.Name] = f.Values
		}
	}
	return m
}

// Content joins the sections' contents with blank lines (the flat format).
func (d *Document) Content(include func(string) bool) string {
	var sb strings.Builder
	for _, s := range d.Sections {
		if include != nil && !include(s.Type) {
			continue
		}
		if sb.Len() > 0 {
			sb.WriteString("\n\n")
		}
		sb.WriteString(s.Content)
	}
	return sb.String()
}

// storedDoc is the body stored for each document (then zstd-compressed).
type storedDoc struct {
	Sections []ingest.Section `json:"s"`
	Fields   []FieldValue     `json:"f,omitempty"`
}

// Ingest parses an upload and stores its documents. Each flushed batch of
// documents is written atomically and durably together with its segment;
// when Ingest returns, every document it reports is stored and searchable.
func (e *Engine) Ingest(ctx context.Context, owner, coll string, req IngestRequest) (IngestResult, error) {
	c, err := e.collection(owner, coll)
	if err != nil {
		return IngestResult{}, err
	}
	turn, err := e.ingestTurn(ctx, req.jobID != "")
	if err != nil {
		return IngestResult{}, err
	}
	defer turn.release()
	if req.meter != nil {
		req.meter.started.CompareAndSwap(0, nowFunc().UnixNano())
	}
	w := &writer{e: e, c: c, ctx: ctx, progress: req.Progress, jobID: req.jobID, turn: turn}
	if err := w.init(); err != nil {
		return IngestResult{}, err
	}
	if req.Documents != nil {
		err = w.envelope(req.Documents)
	} else {
		err = w.upload(req)
	}
	if err == nil {
		err = w.flush()
	}
	if err != nil {
		// Batches already flushed stay (they were acknowledged by progress);
		// report what happened.
		return w.res, err
	}
	if w.res.Documents == nil {
		w.res.Documents = []DocStatus{}
	}
	if w.res.Errors == nil {
		w.res.Errors = []IngestError{}
	}
	return w.res, nil
}

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
	if rd == nil {
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

func charsetOf(ct string) string {
	for _, p := range strings.Split(ct, ";") {
		p = strings.TrimSpace(p)
		if v, ok := strings.CutPrefix(strings.ToLower(p), "charset="); ok {
			return strings.Trim(v, `"`)
		}
	}
	return ""
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
	d := pendingDoc{}
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

// docTooLarge is checkDoc's error for a document over MaxDocumentBytes.
type docTooLarge struct{ n int }

func (e *docTooLarge) Error() string {
	return fmt.Sprintf("the document holds more than %d bytes of text, the limit per document is %d bytes (%d MiB)", e.n, MaxDocumentBytes, MaxDocumentBytes>>20)
}

// checkDoc validates a parsed document before it is buffered, against the
// collection's field types and the limits of limits.go: its size, valid
// UTF-8 section and field names, values of number fields that are numbers,
// and the number of distinct fields of the collection. A value that is not
// a number is an error for a settled number field (declared, or stored by
// an earlier flush); a field this upload's unflushed documents inferred as
// a number becomes enum_text instead, as the column holds text too. A
// document it accepts has its new fields' types recorded in w.types, which
// fields uses when it types them at the flush.
func (w *writer) checkDoc(d pendingDoc) error {
	size := 0
	for _, s := range d.sections {
		size += len(s.Content)
		if !utf8.ValidString(s.Type) {
			return fmt.Errorf("section type %q is not valid UTF-8", s.Type)
		}
	}
	for _, f := range d.fields {
		for _, v := range f.vals {
			size += len(v.Str)
		}
	}
	if size > MaxDocumentBytes {
		return &docTooLarge{n: MaxDocumentBytes}
	}
	var added, demote map[string]string
	for _, f := range d.fields {
		if !utf8.ValidString(f.name) {
			return fmt.Errorf("field name %q is not valid UTF-8", f.name)
		}
		// A type is settled when declared or stored by an earlier flush;
		// one inferred by this upload's unflushed documents is not yet.
		typ, settled := fieldTypeOf(&w.rec, f.name)
		known := settled
		if !known {
			typ, known = w.types[f.name]
		}
		if !known {
			typ, known = added[f.name]
		}
		// The property holding a record's id is exempt: ids inferred as
		// numbers from one file (1, 2, 3) do not reject the records of
		// another whose ids are not (a-1); the value stays text.
		if typ == FieldNumber && f.name != d.idProp {
			for _, v := range f.vals {
				if v.Kind == ingest.KindNull || (v.Kind == ingest.KindString && strings.TrimSpace(v.Str) == "") {
					continue // blank: no value
				}
				if _, ok := numberOf(v); ok {
					continue
				}
				if settled {
					return fmt.Errorf("field %q is a number field: %s is not a number", f.name, quoteValue(v))
				}
				// Not settled: the column holds text too (a CSV "Dial"
				// column of 93 and 1-684), so it is not a number field.
				if demote == nil {
					demote = map[string]string{}
				}
				demote[f.name] = FieldEnumText
				if f.enum {
					demote[f.name] = FieldEnum
				}
				break
			}
		}
		if known {
			continue
		}
		t := inferType(f)
		if t == "" {
			continue // only nulls: typed by the first real value
		}
		if n := w.fieldCount() + len(added); n >= MaxFieldsPerCollection {
			return fmt.Errorf("field %q would be field number %d of the collection, more than the limit of %d fields per collection", f.name, n+1, MaxFieldsPerCollection)
		}
		if added == nil {
			added = map[string]string{}
		}
		added[f.name] = t
	}
	if len(added)+len(demote) > 0 {
		if w.types == nil {
			w.types = map[string]string{}
		}
		for n, t := range added {
			w.types[n] = t
		}
		for n, t := range demote {
			w.types[n] = t
		}
	}
	return nil
}

// fieldCount counts the collection's distinct fields: declared, inferred,
// and new in this ingest.
func (w *writer) fieldCount() int {
	n := len(w.rec.Config.Fields)
	for name := range w.rec.Inferred {
		if _, ok := w.rec.Config.Fields[name]; !ok {
			n++
		}
	}
	for name := range w.types {
		if _, ok := fieldTypeOf(&w.rec, name); !ok {
			n++
		}
	}
	return n
}

func quoteValue(v ingest.Value) string {
	switch v.Kind {
	case ingest.KindBool:
		return strconv.FormatBool(v.Bool)
	case ingest.KindString:
		s := v.Str
		if len(s) > 64 {
			s = s[:64] + "..."
		}
		return strconv.Quote(s)
	}
	return strconv.Quote(v.Str)
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

// GetDocument returns a stored document.
func (e *Engine) GetDocument(ctx context.Context, owner, coll, id string) (Document, error) {
	c, err := e.collection(owner, coll)
	if err != nil {
		return Document{}, err
	}
	c.mu.RLock()
	_, ok := c.loc[id]
	c.mu.RUnlock()
	if !ok {
		return Document{}, notFoundf("document %q not found in collection %q", id, coll)
	}
	return e.loadDoc(c, id)
}

func (e *Engine) loadDoc(c *collection, id string) (Document, error) {
	raw, err := e.store.Document(c.num, id)
	if errorsIsNotFound(err) {
		return Document{}, notFoundf("document %q not found in collection %q", id, c.id)
	}
	if err != nil {
		return Document{}, err
	}
	var sd storedDoc
	if err := json.Unmarshal(raw, &sd); err != nil {
		return Document{}, fmt.Errorf("decode document %q: %w", id, err)
	}
	return Document{DocumentID: id, Sections: sd.Sections, Fields: sd.Fields}, nil
}

// DeleteDocument deletes a document.
func (e *Engine) DeleteDocument(ctx context.Context, owner, coll, id string) error {
	c, err := e.collection(owner, coll)
	if err != nil {
		return err
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	c.mu.RLock()
	l, ok := c.loc[id]
	segs := c.segs
	c.mu.RUnlock()
	if !ok {
		return notFoundf("document %q not found in collection %q", id, coll)
	}
	s := segByID(segs, l.seg)
	ns := withDeleted(s, []uint32{l.local})
	b := e.store.NewBatch()
	b.DeleteDocument(c.num, id)
	ns.WriteDeleted(b, c.num)
	if err := b.Commit(); err != nil {
		return err
	}
	c.mu.Lock()
	c.segs = replaceSegs(c.segs, []*segment.Segment{ns})
	delete(c.loc, id)
	c.invalidateVocabulary()
	c.mu.Unlock()
	return nil
}

// ListDocuments returns up to limit document ids after cursor in id order,
// and the cursor of the next page ("" at the end).
func (e *Engine) ListDocuments(ctx context.Context, owner, coll string, limit int, cursor string) ([]string, string, error) {
	c, err := e.collection(owner, coll)
	if err != nil {
		return nil, "", err
	}
	if limit <= 0 {
		limit = 100
	}
	if limit > 10000 {
		return nil, "", invalidField("limit", "must be at most 10000, got %d", limit)
	}
	c.mu.RLock()
	ids := make([]string, 0, len(c.loc))
	for id := range c.loc {
		if id > cursor {
			ids = append(ids, id)
		}
	}
	c.mu.RUnlock()
	sort.Strings(ids)
	next := ""
	if len(ids) > limit {
		ids = ids[:limit]
		next = ids[limit-1]
	}
	return ids, next, nil
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
