package server_test

// The model-based end-to-end test: random operation sequences against the
// real server over HTTP, checked after every step against a reference model
// kept by the test (issue 11). The engine has its own, in-process version
// (engine/model_test.go); this one goes through the whole stack — HTTP
// decoding, ingest formats, the engine, the segment store — and crashes the
// server with SIGKILL in the middle of a sequence.
//
// Knobs (environment):
//
//	NAJDI_MODEL_SEED     seed of the first sequence (default: the time; always logged)
//	NAJDI_MODEL_OPS      operations per sequence (default 1000; the embedding variant runs a third)
//	NAJDI_MODEL_SEEDS    sequences to run, with seeds seed, seed+1, ... (default 1)
//	NAJDI_MODEL_SHRINK   seconds spent shrinking a failing sequence (default 30, 0 = off)
//	NAJDI_MODEL_CHECKS   comma-separated check names to report (default: all), to chase one bug
//
// A long run: NAJDI_MODEL_OPS=2000 NAJDI_MODEL_SEEDS=50 go test ./server -run TestModel -count=1 -timeout 0 -v

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"mime/multipart"
	"net/url"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
	"unicode"

	"github.com/najdi/najdi/embed"
)

// TestModelHTTP runs a random sequence of ingests (envelope, JSONL, JSON,
// CSV, multipart), replacements, deletes, searches with random filters,
// filter-only searches, query-endpoint searches, searches over several
// collections, answers, collection re-creation and SIGKILL restarts against
// a keyword-only server, checking every answer against the model.
func TestModelHTTP(t *testing.T) {
	runModelTest(t, false, modelEnvInt(t, "NAJDI_MODEL_OPS", 1000))
}

// TestModelHTTPEmbeddings is the shorter variant over collections with the
// default embedding model, so that hybrid and semantic retrieval (the
// vector path) is checked too. It needs the installed default model.
func TestModelHTTPEmbeddings(t *testing.T) {
	models, lib := embed.CachePaths(embed.DefaultCacheDir())
	for _, p := range []string{filepath.Join(models, embed.DefaultModel), lib} {
		if _, err := os.Stat(p); err != nil {
			t.Fatalf("the default embedding model is not installed (%v): run make models (make test does)", err)
		}
	}
	runModelTest(t, true, max(modelEnvInt(t, "NAJDI_MODEL_OPS", 1000)/3, 30))
}

// modelEnvOps is the NAJDI_MODEL_OPS that gives a variant nops operations.
func modelEnvOps(embedded bool, nops int) int {
	if embedded {
		return nops * 3
	}
	return nops
}

func modelEnvInt(t *testing.T, name string, def int) int {
	v := os.Getenv(name)
	if v == "" {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		t.Fatalf("%s=%q is not a non-negative integer", name, v)
	}
	return n
}

// runModelTest runs NAJDI_MODEL_SEEDS sequences of nops operations and
// reports the first failing one.
func runModelTest(t *testing.T, embedded bool, nops int) {
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("NAJDI_MODEL_SEED"); v != "" {
		s, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			t.Fatalf("NAJDI_MODEL_SEED=%q is not an unsigned integer", v)
		}
		seed = s
	}
	runs := max(modelEnvInt(t, "NAJDI_MODEL_SEEDS", 1), 1)
	shrink := time.Duration(modelEnvInt(t, "NAJDI_MODEL_SHRINK", 30)) * time.Second
	begin := time.Now()
	var total modelStats
	for i := range runs {
		s := seed + uint64(i)
		t.Logf("model sequence of %d operations: NAJDI_MODEL_SEED=%d NAJDI_MODEL_OPS=%d", nops, s, modelEnvOps(embedded, nops))
		ops := genModelOps(s, nops)
		res := runModelOps(t, ops, embedded)
		total.add(res.stats)
		if only := os.Getenv("NAJDI_MODEL_CHECKS"); only != "" {
			res.fails = slices.DeleteFunc(res.fails, func(f modelFailure) bool {
				return !slices.Contains(strings.Split(only, ","), f.kind)
			})
		}
		if len(res.fails) == 0 {
			continue
		}
		reportModelFailures(t, s, nops, embedded, ops, res, shrink)
		return
	}
	t.Logf("%d sequence(s), %s in %v", runs, total, time.Since(begin).Round(time.Millisecond))
}

// ---------------------------------------------------------------------------
// Vocabulary and schema

// Every model collection declares these fields; Extra is undeclared and
// becomes filterable (inferred enum_text) once a document has a value there.
var modelFieldTypes = map[string]string{
	"id": "enum", "title": "text", "body": "text", "Notes": "text",
	"Color": "enum", "Tags": "enum", "Brand": "enum_text",
	"Price": "number", "Year": "number", "Sizes": "number",
}

const modelExtra = "Extra"

var (
	modelMulti       = map[string]bool{"Tags": true, "Sizes": true}
	modelCSVColumns  = []string{"id", "title", "body", "Color", "Tags", "Brand", "Price", "Year", "Sizes"}
	modelStrFields   = []string{"Color", "Tags", "Brand", "id"}
	modelNumFields   = []string{"Price", "Year", "Sizes"}
	modelTextWords   = []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima", "kočka", "řeka"}
	modelBrands      = []string{"acme", "Globex", "initech", "hooli", "Škoda"}
	modelSectionType = []string{"title", "p", "li", "h2", ""}
	modelPools       = map[string][]string{
		"Color": {"red", "green", "blue", "Amber", "teal", "navy blue", "Žlutá", "žlutá"},
		"Tags":  {"news", "sport", "tech", "Tech", "art", "food"},
		"Brand": modelBrands,
		"Extra": {"one", "two", "Three"},
	}
	modelIDRe = regexp.MustCompile(`^[A-Za-z0-9._:-]{1,128}$`)
)

func modelID(i int) string { return fmt.Sprintf("k%02d", i) }

const modelIDs = 40

func modelCollectionBody(embedded bool, maxTokens int) string {
	model := "none"
	if embedded {
		model = "default"
	}
	fields := map[string]any{}
	for name, typ := range modelFieldTypes {
		f := map[string]any{"type": typ}
		if modelMulti[name] {
			f["multi"] = true
		}
		fields[name] = f
	}
	b, _ := json.Marshal(map[string]any{
		"embedding_config": map[string]any{"model": model},
		"summary_config":   map[string]any{"max_tokens": maxTokens},
		"fields":           fields,
	})
	return string(b)
}

// modelFold lowercases and strips the diacritics of the vocabulary, as
// keyword analysis does.
var modelFoldMap = map[rune]rune{'á': 'a', 'č': 'c', 'ď': 'd', 'é': 'e', 'ě': 'e', 'í': 'i', 'ň': 'n', 'ó': 'o', 'ř': 'r', 'š': 's', 'ť': 't', 'ú': 'u', 'ů': 'u', 'ý': 'y', 'ž': 'z'}

// modelTokens splits text into the folded words keyword search matches on.
func modelTokens(s string) []string {
	var out []string
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
		rs := []rune(strings.ToLower(w))
		for i, r := range rs {
			if f, ok := modelFoldMap[r]; ok {
				rs[i] = f
			}
		}
		out = append(out, string(rs))
	}
	return out
}

func modelFormatValue(v any) string {
	switch v := v.(type) {
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	case string:
		return v
	}
	panic(fmt.Sprintf("BUG: model value %T", v))
}

func modelNum(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case string:
		f, err := strconv.ParseFloat(strings.TrimSpace(v), 64)
		return f, err == nil
	}
	return 0, false
}

// ---------------------------------------------------------------------------
// Reference model

type mSection struct {
	Type    string `json:"type"`
	Content string `json:"content"`
}

type mDoc struct {
	Sections []mSection
	Fields   map[string][]any // values: string or float64
	Record   bool             // ingested as a record (its properties are sections)
}

type mColl struct {
	docs  map[string]*mDoc
	extra bool // Extra has been seen (and inferred)
}

type mModel struct {
	colls map[string]*mColl
	names []string // sorted
}

func newModel() *mModel { return &mModel{colls: map[string]*mColl{}} }

func (m *mModel) create(name string) {
	m.colls[name] = &mColl{docs: map[string]*mDoc{}}
	if !slices.Contains(m.names, name) {
		m.names = append(m.names, name)
		sort.Strings(m.names)
	}
}

func (m *mModel) fieldType(coll, name string) (string, bool) {
	if t, ok := modelFieldTypes[name]; ok {
		return t, true
	}
	if name == modelExtra && m.colls[coll].extra {
		return "enum_text", true
	}
	return "", false
}

func (m *mModel) liveIDs(coll string) []string {
	var ids []string
	for id := range m.colls[coll].docs {
		ids = append(ids, id)
	}
	sort.Strings(ids)
	return ids
}

// searchable reports whether a section type takes part in keyword search:
// every section except those named after enum and number fields.
func modelSearchable(typ string) bool {
	t, ok := modelFieldTypes[typ]
	return !ok || (t != "enum" && t != "number")
}

// keywordMatch reports whether a searchable section of d holds a query word.
func (d *mDoc) keywordMatch(q map[string]bool) bool {
	for _, s := range d.Sections {
		if !modelSearchable(s.Type) {
			continue
		}
		for _, w := range modelTokens(s.Content) {
			if q[w] {
				return true
			}
		}
	}
	return false
}

// fieldMatch reports whether an enum_text or text field of an envelope
// document holds a query word: docs/API.md says those field types are
// "searched by keyword and semantic search".
func (d *mDoc) fieldMatch(q map[string]bool) bool {
	if d.Record {
		return false // a record's properties are its sections
	}
	for name, vals := range d.Fields {
		t := modelFieldTypes[name]
		if name == modelExtra {
			t = "enum_text"
		}
		if t != "enum_text" && t != "text" {
			continue
		}
		for _, v := range vals {
			s, _ := v.(string)
			for _, w := range modelTokens(s) {
				if q[w] {
					return true
				}
			}
		}
	}
	return false
}

// ---------------------------------------------------------------------------
// Operations

// genField is one envelope field or record property as generated.
type genField struct {
	Name  string
	Vals  []any
	Array bool
	Null  bool
}

func (f genField) values() []any {
	if f.Null {
		return nil
	}
	return f.Vals
}

func (f genField) jsonValue() []byte {
	var v any
	switch {
	case f.Null:
		v = nil
	case f.Array:
		v = f.Vals
	default:
		v = f.Vals[0]
	}
	b, _ := json.Marshal(v)
	return b
}

// genDoc is one generated document (envelope) or record.
type genDoc struct {
	ID        string
	Sections  []mSection
	NoSecs    bool       // envelope: no "sections" key
	Fields    []genField // envelope fields or record properties, in order
	NoFields  bool       // envelope: no "fields" key
	RecordNoI bool       // record without an id property
}

// mop is one operation of a sequence.
type mop struct {
	Kind   string // create recreate reconfigure ingest delete search query answer restart
	Coll   string
	Format string // envelope jsonl json csv multipart
	Docs   []genDoc
	IDFld  bool
	ID     string
	Search *mSearch
	Tokens int
}

// mSearch is a search, query or answer request.
type mSearch struct {
	Colls     []string
	Query     string
	Filter    *mFilter
	Simple    [][2]string // query endpoint filter:{field}=value
	Max       int         // 0: default (10)
	Format    string
	Include   []string
	Highlight *bool
	Fields    []string // include_fields
	MaxTokens int
	// Retrievers is the request's retrievers ("", keyword, semantic).
	Retrievers string
}

// request returns the HTTP request of an operation.
func (o *mop) request(embedded bool) (method, path, ctype string, body []byte) {
	base := "/v1/collections/" + o.Coll
	switch o.Kind {
	case "create", "reconfigure":
		return "PUT", base, "application/json", []byte(modelCollectionBody(embedded, o.Tokens))
	case "delete":
		return "DELETE", base + "/documents/" + o.ID, "", nil
	case "ingest":
		return o.ingestRequest()
	case "search", "answer":
		return "POST", "/v1/collections/" + strings.Join(o.Search.Colls, ",") + "/" + o.Kind, "application/json", o.Search.body()
	case "query":
		return "GET", "/v1/collections/" + strings.Join(o.Search.Colls, ",") + "/query?" + o.Search.params().Encode(), "", nil
	}
	return "", "", "", nil
}

// describe renders an operation as the HTTP request it sends.
func (o *mop) describe(embedded bool) string {
	switch o.Kind {
	case "restart":
		return "kill -9 and restart the server"
	case "recreate":
		return fmt.Sprintf("DELETE /v1/collections/%s, then PUT it again", o.Coll)
	}
	method, path, ctype, body := o.request(embedded)
	s := method + " " + path
	if ctype != "" {
		s += " (" + strings.SplitN(ctype, ";", 2)[0] + ")"
	}
	if len(body) > 0 {
		if o.Format == "csv" || o.Format == "multipart" || o.Format == "jsonl" {
			s += " " + strconv.Quote(o.recordText())
		} else {
			s += " " + string(body)
		}
	}
	return s
}

func (o *mop) ingestRequest() (method, path, ctype string, body []byte) {
	path = "/v1/collections/" + o.Coll + "/documents"
	if o.IDFld {
		path += "?id_field=id"
	}
	switch o.Format {
	case "envelope":
		var docs []map[string]any
		for _, d := range o.Docs {
			m := map[string]any{"document_id": d.ID}
			if !d.NoSecs {
				var secs []map[string]string
				for _, s := range d.Sections {
					if s.Type == "" {
						secs = append(secs, map[string]string{"content": s.Content})
					} else {
						secs = append(secs, map[string]string{"type": s.Type, "content": s.Content})
					}
				}
				m["sections"] = secs
			}
			if !d.NoFields {
				f := map[string]json.RawMessage{}
				for _, gf := range d.Fields {
					f[gf.Name] = gf.jsonValue()
				}
				m["fields"] = f
			}
			docs = append(docs, m)
		}
		b, _ := json.Marshal(map[string]any{"documents": docs})
		return "POST", path, "application/json", b
	case "jsonl":
		return "POST", path, "application/x-ndjson", []byte(o.recordText())
	case "json":
		return "POST", path, "application/json", []byte(o.recordText())
	case "csv":
		return "POST", path, "text/csv", []byte(o.recordText())
	case "multipart":
		var buf bytes.Buffer
		w := multipart.NewWriter(&buf)
		_ = w.SetBoundary("najdi-model-boundary")
		fw, _ := w.CreateFormFile("file", "batch.csv")
		fw.Write([]byte(o.recordText()))
		w.Close()
		return "POST", path, w.FormDataContentType(), buf.Bytes()
	}
	panic("BUG: ingest format " + o.Format)
}

// recordText renders the records of a record-format upload.
func (o *mop) recordText() string {
	var b strings.Builder
	switch o.Format {
	case "jsonl", "json":
		if o.Format == "json" {
			b.WriteByte('[')
		}
		for i, d := range o.Docs {
			if i > 0 {
				if o.Format == "json" {
					b.WriteByte(',')
				} else {
					b.WriteByte('\n')
				}
			}
			b.WriteByte('{')
			for j, f := range d.Fields {
				if j > 0 {
					b.WriteByte(',')
				}
				k, _ := json.Marshal(f.Name)
				b.Write(k)
				b.WriteByte(':')
				b.Write(f.jsonValue())
			}
			b.WriteByte('}')
		}
		if o.Format == "json" {
			b.WriteByte(']')
		} else {
			b.WriteByte('\n')
		}
	default: // csv
		w := csv.NewWriter(&b)
		_ = w.Write(modelCSVColumns)
		for _, d := range o.Docs {
			row := make([]string, len(modelCSVColumns))
			for j, col := range modelCSVColumns {
				for _, f := range d.Fields {
					if f.Name == col && !f.Null {
						var parts []string
						for _, v := range f.Vals {
							parts = append(parts, modelFormatValue(v))
						}
						row[j] = strings.Join(parts, "|")
					}
				}
			}
			_ = w.Write(row)
		}
		w.Flush()
	}
	return b.String()
}

func (s *mSearch) body() []byte {
	m := map[string]any{}
	if s.Query != "" {
		m["query"] = s.Query
	}
	if s.Filter != nil {
		m["filter"] = s.Filter.json()
	}
	if s.Max > 0 {
		m["max_results"] = s.Max
	}
	if s.Format != "" {
		m["result_format"] = s.Format
	}
	if s.Include != nil {
		m["include_content"] = s.Include
	}
	if s.Highlight != nil {
		m["highlight"] = *s.Highlight
	}
	if s.Fields != nil {
		m["include_fields"] = s.Fields
	}
	if s.MaxTokens > 0 {
		m["summary_config"] = map[string]any{"max_tokens": s.MaxTokens}
	}
	if s.Retrievers != "" {
		m["retrievers"] = s.Retrievers
	}
	b, _ := json.Marshal(m)
	return b
}

func (s *mSearch) params() url.Values {
	v := url.Values{}
	if s.Query != "" {
		v.Set("query", s.Query)
	}
	if s.Filter != nil {
		b, _ := json.Marshal(s.Filter.json())
		v.Set("filter", string(b))
	}
	for _, f := range s.Simple {
		v.Add("filter:"+f[0], f[1])
	}
	if s.Max > 0 {
		v.Set("max_results", strconv.Itoa(s.Max))
	}
	if s.Format != "" {
		v.Set("result_format", s.Format)
	}
	if s.Include != nil {
		v.Set("include_content", strings.Join(s.Include, ","))
	}
	if s.Highlight != nil {
		v.Set("highlight", strconv.FormatBool(*s.Highlight))
	}
	if s.Fields != nil {
		v.Set("include_fields", strings.Join(s.Fields, ","))
	}
	if s.MaxTokens > 0 {
		v.Set("max_tokens", strconv.Itoa(s.MaxTokens))
	}
	if s.Retrievers != "" {
		v.Set("retrievers", s.Retrievers)
	}
	return v
}

// ---------------------------------------------------------------------------
// Filters: generated as a tree, sent as Elasticsearch DSL, evaluated here.

type mFilter struct {
	Op     string // term terms range exists prefix regexp contains bool match_all match_none
	Field  string
	Value  any   // term: string or float64 (or a numeric string); prefix, regexp, contains: string
	Values []any // terms
	CI     bool
	Long   bool // {"f": {"value": ...}} instead of {"f": ...}
	Bounds map[string]float64
	Flags  string
	re     func(string) bool // regexp: whole-value matcher

	Must, Filt, Should, MustNot []*mFilter
	MSM                         any             // nil, int or string
	Single                      map[string]bool // occurrence sent as one object, not an array
	Extras                      bool            // add "boost" and "_name"
}

func (f *mFilter) json() any {
	inner := func(v any) any {
		if f.Extras {
			if m, ok := v.(map[string]any); ok {
				m["boost"] = 1.5
			}
		}
		return v
	}
	switch f.Op {
	case "match_all", "match_none":
		return map[string]any{f.Op: map[string]any{}}
	case "exists":
		return map[string]any{"exists": inner(map[string]any{"field": f.Field})}
	case "terms":
		return map[string]any{"terms": inner(map[string]any{f.Field: f.Values})}
	case "range":
		b := map[string]any{}
		for k, v := range f.Bounds {
			b[k] = v
		}
		return map[string]any{"range": map[string]any{f.Field: b}}
	case "contains":
		return map[string]any{"contains": map[string]any{f.Field: f.Value}}
	case "term", "prefix", "regexp":
		if !f.Long && !f.CI && f.Flags == "" {
			return map[string]any{f.Op: inner(map[string]any{f.Field: f.Value})}
		}
		b := map[string]any{"value": f.Value}
		if f.CI {
			b["case_insensitive"] = true
		}
		if f.Flags != "" {
			b["flags"] = f.Flags
		}
		return map[string]any{f.Op: inner(map[string]any{f.Field: b})}
	case "bool":
		b := map[string]any{}
		for _, occ := range []struct {
			name string
			qs   []*mFilter
		}{{"must", f.Must}, {"filter", f.Filt}, {"should", f.Should}, {"must_not", f.MustNot}} {
			if len(occ.qs) == 0 {
				continue
			}
			if len(occ.qs) == 1 && f.Single[occ.name] {
				b[occ.name] = occ.qs[0].json()
				continue
			}
			var list []any
			for _, q := range occ.qs {
				list = append(list, q.json())
			}
			b[occ.name] = list
		}
		if f.MSM != nil {
			b["minimum_should_match"] = f.MSM
		}
		if f.Extras {
			b["_name"] = "model"
		}
		return map[string]any{"bool": b}
	}
	panic("BUG: filter op " + f.Op)
}

// fields lists the fields a filter names.
func (f *mFilter) fields(out map[string]bool) {
	if f == nil {
		return
	}
	if f.Field != "" {
		out[f.Field] = true
	}
	for _, qs := range [][]*mFilter{f.Must, f.Filt, f.Should, f.MustNot} {
		for _, q := range qs {
			q.fields(out)
		}
	}
}

// modelMinShould is Elasticsearch's minimum_should_match for n clauses.
func modelMinShould(n int, spec any) int {
	switch s := spec.(type) {
	case int:
		if s < 0 {
			return max(n+s, 0)
		}
		return s
	case string:
		p, _ := strconv.Atoi(strings.TrimSuffix(s, "%"))
		calc := n * p / 100 // truncates toward zero
		if p < 0 {
			return max(n+calc, 0)
		}
		return calc
	}
	panic("BUG: minimum_should_match")
}

// match evaluates the filter on one document, independently of the engine.
func (f *mFilter) match(d *mDoc) bool {
	vals := d.Fields[f.Field]
	anyVal := func(pred func(v any) bool) bool {
		for _, v := range vals {
			if pred(v) {
				return true
			}
		}
		return false
	}
	isNum := modelFieldTypes[f.Field] == "number"
	eq := func(want any) func(v any) bool {
		return func(v any) bool {
			if isNum {
				a, ok1 := modelNum(want)
				b, ok2 := modelNum(v)
				return ok1 && ok2 && a == b
			}
			s, _ := v.(string)
			w, _ := want.(string)
			if f.CI {
				return strings.EqualFold(s, w)
			}
			return s == w
		}
	}
	switch f.Op {
	case "match_all":
		return true
	case "match_none":
		return false
	case "exists":
		return len(vals) > 0
	case "term":
		return anyVal(eq(f.Value))
	case "terms":
		for _, w := range f.Values {
			if anyVal(eq(w)) {
				return true
			}
		}
		return false
	case "range":
		return anyVal(func(v any) bool {
			x, ok := modelNum(v)
			if !ok {
				return false
			}
			for op, b := range f.Bounds {
				switch {
				case op == "gt" && !(x > b), op == "gte" && !(x >= b), op == "lt" && !(x < b), op == "lte" && !(x <= b):
					return false
				}
			}
			return true
		})
	case "prefix":
		p := f.Value.(string)
		return anyVal(func(v any) bool {
			s, _ := v.(string)
			if f.CI {
				rs, rp := []rune(s), []rune(p)
				return len(rs) >= len(rp) && strings.EqualFold(string(rs[:len(rp)]), p)
			}
			return strings.HasPrefix(s, p)
		})
	case "regexp":
		return anyVal(func(v any) bool { s, _ := v.(string); return f.re(s) })
	case "contains":
		p := f.Value.(string)
		if isNum {
			return anyVal(eq(p))
		}
		re, err := regexp.Compile("(?i)" + p)
		if err != nil {
			re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(p))
		}
		return anyVal(func(v any) bool { s, _ := v.(string); return re.MatchString(s) })
	case "bool":
		for _, q := range f.Must {
			if !q.match(d) {
				return false
			}
		}
		for _, q := range f.Filt {
			if !q.match(d) {
				return false
			}
		}
		for _, q := range f.MustNot {
			if q.match(d) {
				return false
			}
		}
		required := len(f.Must) + len(f.Filt)
		need := 0
		if f.MSM != nil {
			need = modelMinShould(len(f.Should), f.MSM)
		}
		if required == 0 && len(f.Should) > 0 {
			need = max(need, 1) // Lucene: a pure disjunction needs one clause
		}
		if need > len(f.Should) {
			return false
		}
		got := 0
		for _, q := range f.Should {
			if q.match(d) {
				got++
			}
		}
		return got >= need
	}
	panic("BUG: filter op " + f.Op)
}

// ---------------------------------------------------------------------------
// Generation

type modelGen struct {
	rnd   *rand.Rand
	m     *mModel
	colls []string
}

func genModelOps(seed uint64, n int) []*mop {
	g := &modelGen{rnd: rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)), m: newModel()}
	r := g.rnd
	g.colls = []string{"ma", "mb", "mc"}[:2+r.IntN(2)]
	var ops []*mop
	for _, c := range g.colls {
		ops = append(ops, &mop{Kind: "create", Coll: c, Tokens: 200 + r.IntN(800)})
		g.m.create(c)
	}
	// A few crashes per sequence, at random points, at least two.
	restarts := map[int]bool{}
	if n >= 10 {
		for len(restarts) < 2 {
			restarts[n/5+r.IntN(n*3/5)] = true
		}
	}
	for i := range n {
		if restarts[i] {
			ops = append(ops, &mop{Kind: "restart"})
			continue
		}
		var o *mop
		switch w := r.IntN(100); {
		case w < 16:
			o = g.ingest("envelope")
		case w < 21:
			o = g.ingest("jsonl")
		case w < 24:
			o = g.ingest("json")
		case w < 28:
			o = g.ingest("csv")
		case w < 30:
			o = g.ingest("multipart")
		case w < 40:
			o = &mop{Kind: "delete", Coll: g.coll(), ID: g.pickID()}
		case w < 66:
			o = &mop{Kind: "search", Search: g.search(false)}
		case w < 78:
			o = &mop{Kind: "query", Search: g.search(true)}
		case w < 88:
			o = &mop{Kind: "answer", Search: g.answer()}
		case w < 90:
			o = &mop{Kind: "restart"}
		case w < 91:
			o = &mop{Kind: "recreate", Coll: g.coll()}
		case w < 92:
			o = &mop{Kind: "reconfigure", Coll: g.coll(), Tokens: 100 + r.IntN(900)}
		default:
			// Searches right after a write are where stale state shows.
			o = &mop{Kind: "search", Search: g.search(false)}
		}
		g.m.apply(o)
		ops = append(ops, o)
	}
	return ops
}

func (g *modelGen) coll() string { return g.colls[g.rnd.IntN(len(g.colls))] }

func (g *modelGen) pickID() string {
	// Mostly live documents, so that deletes and replacements hit.
	c := g.colls[g.rnd.IntN(len(g.colls))]
	if live := g.m.liveIDs(c); len(live) > 0 && g.rnd.IntN(3) > 0 {
		return live[g.rnd.IntN(len(live))]
	}
	return modelID(g.rnd.IntN(modelIDs))
}

func (g *modelGen) word() string {
	r := g.rnd
	w := modelTextWords[r.IntN(len(modelTextWords))]
	switch r.IntN(6) {
	case 0:
		rs := []rune(w)
		w = string(unicode.ToUpper(rs[0])) + string(rs[1:])
	case 1:
		w = strings.ToUpper(w)
	}
	return w
}

func (g *modelGen) text(minWords, maxWords int) string {
	r := g.rnd
	n := minWords + r.IntN(maxWords-minWords+1)
	var b strings.Builder
	for i := range n {
		if i > 0 {
			b.WriteString([]string{" ", " ", " ", ", ", "-", ". "}[r.IntN(6)])
		}
		b.WriteString(g.word())
	}
	return b.String()
}

func (g *modelGen) value(field string) any {
	r := g.rnd
	switch field {
	case "Price":
		return float64(r.IntN(441)-40) / 4 // -10 .. 100 in quarters
	case "Year":
		return float64(1990 + r.IntN(41))
	case "Sizes":
		return float64(1 + r.IntN(10))
	case "Notes", "title", "body":
		return g.text(1, 5)
	}
	p := modelPools[field]
	return p[r.IntN(len(p))]
}

// field generates a field of an envelope document or a record property.
func (g *modelGen) field(name string, record bool) genField {
	r := g.rnd
	f := genField{Name: name}
	if !record && r.IntN(20) == 0 {
		f.Null = true
		return f
	}
	if modelMulti[name] && r.IntN(2) == 0 {
		f.Array = true
		for range r.IntN(4) {
			f.Vals = append(f.Vals, g.value(name))
		}
		if record && len(f.Vals) == 0 {
			f.Vals = append(f.Vals, g.value(name))
		}
		return f
	}
	f.Vals = []any{g.value(name)}
	return f
}

func (g *modelGen) ingest(format string) *mop {
	r := g.rnd
	o := &mop{Kind: "ingest", Coll: g.coll(), Format: format}
	n := 1 + r.IntN(6)
	for range n {
		id := g.pickID()
		if r.IntN(40) == 0 {
			id = "bad id"
		}
		var d genDoc
		if format == "envelope" {
			d = g.envelopeDoc(id)
		} else {
			d = g.record(id, format)
		}
		o.Docs = append(o.Docs, d)
	}
	o.IDFld = format != "envelope" && r.IntN(2) == 0
	for _, d := range o.Docs {
		if d.RecordNoI {
			o.IDFld = true // without id_field such a record would get a random id
		}
	}
	return o
}

func (g *modelGen) envelopeDoc(id string) genDoc {
	r := g.rnd
	d := genDoc{ID: id}
	switch r.IntN(40) {
	case 0: // neither sections nor fields: an error
		d.NoSecs, d.NoFields = true, true
		return d
	case 1, 2: // fields only
		d.NoSecs = true
		d.Fields = []genField{{Name: "Color", Vals: []any{g.value("Color")}}, {Name: "Price", Vals: []any{g.value("Price")}}}
		return d
	}
	for range 1 + r.IntN(3) {
		d.Sections = append(d.Sections, mSection{Type: modelSectionType[r.IntN(len(modelSectionType))], Content: g.text(1, 6)})
	}
	if r.IntN(15) == 0 { // an empty section, dropped
		d.Sections = slices.Insert(d.Sections, r.IntN(len(d.Sections)+1), mSection{Type: "p"})
	}
	names := []string{"Color", "Tags", "Brand", "Price", "Year", "Sizes", "Notes"}
	for _, name := range names {
		if r.IntN(2) == 0 {
			d.Fields = append(d.Fields, g.field(name, false))
		}
	}
	if r.IntN(6) == 0 {
		d.Fields = append(d.Fields, g.field(modelExtra, false))
	}
	if len(d.Fields) == 0 && r.IntN(2) == 0 {
		d.NoFields = true
	}
	return d
}

func (g *modelGen) record(id, format string) genDoc {
	r := g.rnd
	d := genDoc{ID: id}
	if r.IntN(30) == 0 {
		d.RecordNoI, d.ID = true, ""
	} else {
		d.Fields = append(d.Fields, genField{Name: "id", Vals: []any{id}})
	}
	for _, name := range modelCSVColumns[1:] {
		if name == "title" || r.IntN(3) > 0 {
			f := g.field(name, true)
			if format != "csv" && format != "multipart" && r.IntN(20) == 0 {
				f = genField{Name: name, Null: true}
			}
			d.Fields = append(d.Fields, f)
		}
	}
	if (format == "jsonl" || format == "json") && r.IntN(4) == 0 {
		r.Shuffle(len(d.Fields), func(i, j int) { d.Fields[i], d.Fields[j] = d.Fields[j], d.Fields[i] })
	}
	return d
}

func (g *modelGen) query() string {
	r := g.rnd
	var words []string
	for range 1 + r.IntN(3) {
		switch w := r.IntN(20); {
		case w < 13:
			word := g.word()
			if r.IntN(3) == 0 {
				word = strings.Join(modelTokens(word), "") // without diacritics
			}
			words = append(words, word)
		case w < 18:
			words = append(words, strings.ToLower(modelBrands[r.IntN(len(modelBrands))]))
		case w < 19:
			// Values of enum fields, which keyword search does not search.
			words = append(words, []string{"red", "teal", "amber", "news", "sport", "food"}[r.IntN(6)])
		default:
			words = append(words, "zzyzx")
		}
	}
	return strings.Join(words, " ")
}

func (g *modelGen) searchColls() []string {
	r := g.rnd
	if r.IntN(10) < 3 && len(g.colls) > 1 {
		cs := slices.Clone(g.colls)
		r.Shuffle(len(cs), func(i, j int) { cs[i], cs[j] = cs[j], cs[i] })
		return cs[:2+r.IntN(len(cs)-1)]
	}
	return []string{g.coll()}
}

func (g *modelGen) search(queryEndpoint bool) *mSearch {
	r := g.rnd
	s := &mSearch{Colls: g.searchColls()}
	if r.IntN(10) < 6 {
		s.Filter = g.filter(0)
	}
	if queryEndpoint && r.IntN(2) == 0 {
		for range 1 + r.IntN(2) {
			s.Simple = append(s.Simple, g.simple())
		}
		if r.IntN(2) == 0 {
			s.Filter = nil
		}
	}
	if r.IntN(10) < 7 || (s.Filter == nil && s.Simple == nil) {
		s.Query = g.query()
	}
	s.Max = []int{0, 1, 3, 10, 1000, 1000}[r.IntN(6)]
	s.Format = []string{"", "flat", "sections", "sections"}[r.IntN(4)]
	if r.IntN(3) == 0 {
		s.Include = [][]string{{"full"}, {"full", "summaries"}, {"summaries"}, {"summary"}, {"full", "summary"}}[r.IntN(5)]
	}
	if r.IntN(3) == 0 {
		h := r.IntN(2) == 0
		s.Highlight = &h
	}
	if r.IntN(7) == 0 {
		s.Fields = [][]string{{"title"}, {"title", "p", "Brand"}, {"body", "Color", "Price"}, {"li", "h2", "Tags", "title"}}[r.IntN(4)]
	}
	if r.IntN(4) == 0 {
		s.MaxTokens = 20 + r.IntN(300)
	}
	if r.IntN(4) == 0 {
		s.Retrievers = []string{"keyword", "semantic"}[r.IntN(2)]
	}
	return s
}

func (g *modelGen) answer() *mSearch {
	r := g.rnd
	s := &mSearch{Colls: g.searchColls(), Query: g.query()}
	if r.IntN(10) < 6 {
		s.Filter = g.filter(0)
	}
	if r.IntN(3) == 0 {
		h := true
		s.Highlight = &h
	}
	if r.IntN(4) == 0 {
		s.Include = [][]string{{"summaries"}, {"full"}, {"summary"}}[r.IntN(3)]
	}
	if r.IntN(3) == 0 {
		s.MaxTokens = 30 + r.IntN(300)
	}
	return s
}

// strField picks a filterable string field (rarely the inferred one).
func (g *modelGen) strField() string {
	if g.rnd.IntN(25) == 0 {
		return modelExtra
	}
	return modelStrFields[g.rnd.IntN(len(modelStrFields))]
}

// strValue picks a value of a string field: mostly one that exists.
func (g *modelGen) strValue(field string) string {
	r := g.rnd
	if r.IntN(10) == 0 {
		return []string{"ZZ", "purple", "", "k99"}[r.IntN(4)]
	}
	if field == "id" {
		return modelID(r.IntN(modelIDs))
	}
	p := modelPools[field]
	return p[r.IntN(len(p))]
}

func (g *modelGen) numValue(field string) float64 {
	r := g.rnd
	if r.IntN(10) == 0 {
		return []float64{5000, -100, 0.1}[r.IntN(3)]
	}
	return g.value(field).(float64)
}

func modelRecase(r *rand.Rand, s string) string {
	rs := []rune(s)
	for i, c := range rs {
		if r.IntN(2) == 0 {
			rs[i] = unicode.ToUpper(c)
		} else {
			rs[i] = unicode.ToLower(c)
		}
	}
	return string(rs)
}

func (g *modelGen) filter(depth int) *mFilter {
	r := g.rnd
	if depth < 3 && r.IntN(20) < 6-2*depth {
		return g.boolFilter(depth)
	}
	f := &mFilter{Long: r.IntN(3) == 0, Extras: r.IntN(15) == 0}
	switch w := r.IntN(100); {
	case w < 22:
		f.Op = "term"
		if r.IntN(3) == 0 {
			f.Field = modelNumFields[r.IntN(len(modelNumFields))]
			v := g.numValue(f.Field)
			if r.IntN(3) == 0 {
				f.Value = strconv.FormatFloat(v, 'f', -1, 64) // a numeric string
			} else {
				f.Value = v
			}
		} else {
			f.Field = g.strField()
			v := g.strValue(f.Field)
			if r.IntN(4) == 0 {
				f.CI, v = true, modelRecase(r, v)
			}
			f.Value = v
		}
	case w < 34:
		f.Op, f.Long = "terms", false
		if r.IntN(3) == 0 {
			f.Field = modelNumFields[r.IntN(len(modelNumFields))]
			for range 1 + r.IntN(3) {
				f.Values = append(f.Values, g.numValue(f.Field))
			}
		} else {
			f.Field = g.strField()
			for range 1 + r.IntN(3) {
				f.Values = append(f.Values, g.strValue(f.Field))
			}
		}
	case w < 50:
		f.Op, f.Long = "range", false
		f.Field = modelNumFields[r.IntN(len(modelNumFields))]
		// At most one lower and one upper bound: najdi refuses "lt"
		// with "lte" (Elasticsearch lets the last one win).
		f.Bounds = map[string]float64{}
		lower, upper := []string{"gt", "gte", ""}[r.IntN(3)], []string{"lt", "lte", ""}[r.IntN(3)]
		if lower == "" && upper == "" {
			lower = "gte"
		}
		for _, op := range []string{lower, upper} {
			if op != "" {
				f.Bounds[op] = g.numValue(f.Field)
			}
		}
	case w < 60:
		f.Op, f.Long = "exists", false
		if r.IntN(3) == 0 {
			f.Field = modelNumFields[r.IntN(len(modelNumFields))]
		} else {
			f.Field = g.strField()
		}
	case w < 70:
		f.Op = "prefix"
		f.Field = g.strField()
		v := []rune(g.strValue(f.Field))
		p := string(v[:r.IntN(len(v)+1)])
		if r.IntN(3) == 0 {
			f.CI, p = true, modelRecase(r, p)
		}
		f.Value = p
	case w < 84:
		f.Op = "regexp"
		f.Field = g.strField()
		g.regexp(f)
	case w < 89:
		f.Op, f.Long = "contains", false
		f.Field, f.Value = g.simpleValue()
	case w < 95:
		f.Op = "match_all"
	default:
		f.Op = "match_none"
	}
	return f
}

func (g *modelGen) boolFilter(depth int) *mFilter {
	r := g.rnd
	f := &mFilter{Op: "bool", Single: map[string]bool{}, Extras: r.IntN(15) == 0}
	if r.IntN(25) == 0 {
		return f // {"bool": {}} matches everything
	}
	gen := func(name string, max int) []*mFilter {
		var qs []*mFilter
		for range r.IntN(max + 1) {
			qs = append(qs, g.filter(depth+1))
		}
		if len(qs) == 1 && r.IntN(2) == 0 {
			f.Single[name] = true
		}
		return qs
	}
	for f.Must == nil && f.Filt == nil && f.Should == nil && f.MustNot == nil {
		f.Must = gen("must", 2)
		f.Filt = gen("filter", 1)
		f.Should = gen("should", 3)
		f.MustNot = gen("must_not", 2)
	}
	if len(f.Should) > 0 && r.IntN(3) == 0 {
		f.MSM = []any{0, 1, 2, 3, -1, "50%", "-25%", "100%", "34%", "-50%"}[r.IntN(10)]
	}
	return f
}

// regexp generates a Lucene regular expression that means the same as the
// Go matcher built next to it: literals, ., classes, groups with
// alternation, ?, *, +, {n,m}, and at the top level complement (~),
// intersection (&) and numeric intervals (<n-m>).
func (g *modelGen) regexp(f *mFilter) {
	r := g.rnd
	if f.Field == "id" && r.IntN(3) == 0 {
		lo := r.IntN(modelIDs)
		hi := lo + r.IntN(modelIDs-lo)
		f.Value = fmt.Sprintf("k<%02d-%02d>", lo, hi)
		f.re = func(s string) bool {
			n, err := strconv.Atoi(strings.TrimPrefix(s, "k"))
			return strings.HasPrefix(s, "k") && len(s) == 3 && err == nil && lo <= n && n <= hi
		}
		return
	}
	// An empty alternative parses differently in Lucene and RE2: values
	// in patterns are never empty.
	value := func() string {
		if v := g.strValue(f.Field); v != "" {
			return v
		}
		return "ZZ"
	}
	pattern := func() string {
		switch r.IntN(6) {
		case 0:
			return []string{".*", ".+", "[a-m].*", ".*e.*", ".{3,5}", "[^r].*", "k[0-2][0-9]", "[a-zA-Z ]*"}[r.IntN(8)]
		case 1:
			return "(" + g.regexpOf(value()) + "|" + g.regexpOf(value()) + ")"
		}
		return g.regexpOf(value())
	}
	p := pattern()
	goRe := p
	switch r.IntN(12) {
	case 0:
		f.Value = "~(" + p + ")"
	case 1:
		q := pattern()
		f.Value = "(" + p + ")&(" + q + ")"
		goRe = q
	default:
		f.Value = p
	}
	if r.IntN(4) == 0 && !strings.Contains(f.Value.(string), "[^") {
		f.CI = true
	}
	prefix := "^(?:"
	if f.CI {
		prefix = "(?i)^(?:"
	}
	first := regexp.MustCompile(prefix + p + ")$")
	second := regexp.MustCompile(prefix + goRe + ")$")
	switch {
	case strings.HasPrefix(f.Value.(string), "~"):
		f.re = func(s string) bool { return !first.MatchString(s) }
	case goRe != p:
		f.re = func(s string) bool { return first.MatchString(s) && second.MatchString(s) }
	default:
		f.re = first.MatchString
		if r.IntN(3) == 0 {
			f.Flags = []string{"ALL", "NONE"}[r.IntN(2)]
		}
	}
	if r.IntN(10) == 0 && !f.CI {
		f.Flags = "ALL"
	}
}

// regexpOf turns a value into a pattern that matches it or something close.
func (g *modelGen) regexpOf(v string) string {
	r := g.rnd
	var b strings.Builder
	for _, c := range v {
		switch r.IntN(12) {
		case 0:
			b.WriteByte('.')
		case 1:
			b.WriteString(".*")
			return b.String()
		case 2:
			fmt.Fprintf(&b, "[%c%c]", c, 'a'+rune(r.IntN(26)))
		case 3:
			fmt.Fprintf(&b, "%c?", c)
		case 4:
			fmt.Fprintf(&b, "%c+", c)
		case 5:
			fmt.Fprintf(&b, "%c{1,2}", c)
		default:
			if c == ' ' || unicode.IsLetter(c) || unicode.IsDigit(c) {
				b.WriteRune(c)
			} else {
				b.WriteByte('.')
			}
		}
	}
	return b.String()
}

// simpleValue generates a filter:{field}=value pair of the query endpoint.
func (g *modelGen) simpleValue() (string, string) {
	r := g.rnd
	if r.IntN(4) == 0 {
		f := modelNumFields[r.IntN(len(modelNumFields))]
		v := strconv.FormatFloat(g.numValue(f), 'f', -1, 64)
		if r.IntN(4) == 0 && !strings.Contains(v, ".") {
			v += ".0" // numerically equal
		}
		return f, v
	}
	f := g.strField()
	v := []rune(g.strValue(f))
	switch r.IntN(6) {
	case 0:
		return f, "(" + string(v) + "|" + g.strValue(f) + ")"
	case 1:
		return f, []string{"(re", "a[", ".*", "^t", "e$"}[r.IntN(5)]
	}
	i := r.IntN(len(v) + 1)
	j := i + r.IntN(len(v)-i+1)
	return f, modelRecase(r, string(v[i:j]))
}

func (g *modelGen) simple() [2]string {
	f, v := g.simpleValue()
	return [2]string{f, v}
}

// ---------------------------------------------------------------------------
// Applying writes to the model

// ingestExpect is what an upload should answer.
type ingestExpect struct {
	status map[string]string // id → created | replaced ("" when the id occurs twice)
	errs   map[int]bool      // record indices reported in errors
}

// expectDoc returns the document a generated entry becomes, or "" and nil
// when it must be reported as an error.
func expectDoc(format string, d genDoc) (string, *mDoc) {
	if format == "envelope" {
		if !modelIDRe.MatchString(d.ID) || (d.NoSecs && d.NoFields) {
			return "", nil
		}
		doc := &mDoc{Fields: map[string][]any{}}
		for _, s := range d.Sections {
			if s.Content == "" {
				continue
			}
			if s.Type == "" {
				s.Type = "p"
			}
			doc.Sections = append(doc.Sections, s)
		}
		for _, f := range d.Fields {
			if vs := f.values(); len(vs) > 0 {
				doc.Fields[f.Name] = vs
			}
		}
		return d.ID, doc
	}
	if d.RecordNoI || !modelIDRe.MatchString(d.ID) {
		return "", nil
	}
	doc := &mDoc{Fields: map[string][]any{}, Record: true}
	for _, f := range d.Fields {
		vs := f.values()
		if len(vs) == 0 {
			continue
		}
		var parts []string
		for _, v := range vs {
			parts = append(parts, modelFormatValue(v))
		}
		doc.Sections = append(doc.Sections, mSection{Type: f.Name, Content: strings.Join(parts, ", ")})
		doc.Fields[f.Name] = vs
	}
	if format == "csv" || format == "multipart" {
		// CSV sections follow the header's column order.
		order := map[string]int{}
		for i, c := range modelCSVColumns {
			order[c] = i
		}
		slices.SortStableFunc(doc.Sections, func(a, b mSection) int { return order[a.Type] - order[b.Type] })
	}
	return d.ID, doc
}

// apply changes the model as a write operation should and returns the
// expected answer of an upload.
func (m *mModel) apply(o *mop) ingestExpect {
	var ex ingestExpect
	switch o.Kind {
	case "create":
		m.create(o.Coll)
	case "recreate":
		m.create(o.Coll)
	case "delete":
		delete(m.colls[o.Coll].docs, o.ID)
	case "ingest":
		c := m.colls[o.Coll]
		ex.status, ex.errs = map[string]string{}, map[int]bool{}
		seen := map[string]int{}
		last := map[string]*mDoc{}
		for i, d := range o.Docs {
			id, doc := expectDoc(o.Format, d)
			if doc == nil {
				ex.errs[i] = true
				continue
			}
			seen[id]++
			if seen[id] == 1 {
				if _, ok := c.docs[id]; ok {
					ex.status[id] = "replaced"
				} else {
					ex.status[id] = "created"
				}
			} else {
				ex.status[id] = ""
			}
			c.docs[id] = doc
			last[id] = doc
		}
		// Fields are typed from the documents the upload stores: an
		// occurrence replaced by a later one of the same id is not seen.
		for _, doc := range last {
			if len(doc.Fields[modelExtra]) > 0 {
				c.extra = true
			}
		}
	}
	return ex
}

// ---------------------------------------------------------------------------
// Running and checking

type modelFailure struct {
	kind string
	step int
	msg  string
	n    int // occurrences
}

type modelStats struct {
	ops, searches, restarts, docsChecked, requests int
	hits, semHits                                  int // documents returned by searches; by the semantic retriever
	narrowing                                      int // searches whose filter kept some but not all live documents
}

func (s *modelStats) add(o modelStats) {
	s.ops += o.ops
	s.searches += o.searches
	s.restarts += o.restarts
	s.docsChecked += o.docsChecked
	s.requests += o.requests
	s.hits += o.hits
	s.semHits += o.semHits
	s.narrowing += o.narrowing
}

func (s modelStats) String() string {
	return fmt.Sprintf("%d operations (%d searches, %d with a filter that narrowed, returning %d documents, %d of them semantic; %d kill -9 restarts), %d document comparisons, %d HTTP requests",
		s.ops, s.searches, s.narrowing, s.hits, s.semHits, s.restarts, s.docsChecked, s.requests)
}

type modelResult struct {
	fails []modelFailure
	stats modelStats
	log   string // tail of the server log
}

type modelRun struct {
	t        *testing.T
	n        *node
	m        *mModel
	embedded bool
	rnd      *rand.Rand
	step     int
	fails    []modelFailure
	stop     bool
	stats    modelStats
}

// write-side failures make the model diverge from the server: the run stops.
var modelFatalKinds = map[string]bool{"ingest": true, "delete": true, "collection": true}

func (r *modelRun) fail(kind, format string, args ...any) {
	for i := range r.fails {
		if r.fails[i].kind == kind {
			r.fails[i].n++
			return
		}
	}
	r.fails = append(r.fails, modelFailure{kind: kind, step: r.step, msg: fmt.Sprintf(format, args...), n: 1})
	if modelFatalKinds[kind] {
		r.stop = true
	}
}

func (r *modelRun) do(method, path, ctype string, body []byte) resp {
	r.stats.requests++
	return r.n.do(method, path, ctype, body)
}

// modelStepTimeout is how long one step may take before it is reported.
const modelStepTimeout = 3 * time.Minute

// runModelOps starts a fresh server, runs ops against it and the model and
// returns the failures found.
func runModelOps(t *testing.T, ops []*mop, embedded bool) modelResult {
	t.Helper()
	args := []string{"--no-embeddings"}
	if embedded {
		args = nil
	}
	r := &modelRun{t: t, n: start(t, "", args...), m: newModel(), embedded: embedded, rnd: rand.New(rand.NewPCG(uint64(len(ops)), 7))}
	// A step that hangs is named on stderr before the test's timeout
	// dumps the goroutines.
	var current atomic.Int64
	watch := time.AfterFunc(modelStepTimeout, func() {
		i := current.Load()
		fmt.Fprintf(os.Stderr, "model test: step %d has run for over %v: %s\n", i, modelStepTimeout, ops[i].describe(embedded))
	})
	defer watch.Stop()
	done := false
	defer func() {
		if !done { // a harness t.Fatal (the server died or hung): say where
			t.Logf("the sequence stopped at step %d:\n%s\nserver log:\n%s", r.step, modelOpLog(ops[:min(r.step+1, len(ops))], embedded), modelTail(r.n.log.String(), 3000))
		}
		r.n.kill()
	}()
	for i, o := range ops {
		r.step = i
		current.Store(int64(i))
		watch.Reset(modelStepTimeout)
		r.exec(o)
		r.stats.ops++
		if r.stop {
			break
		}
		r.checkState(o)
		if r.stop {
			break
		}
	}
	done = true
	return modelResult{fails: r.fails, stats: r.stats, log: modelTail(r.n.log.String(), 3000)}
}

func modelTail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

func (r *modelRun) exec(o *mop) {
	switch o.Kind {
	case "restart":
		r.stats.restarts++
		r.n.restart()
		return
	case "recreate":
		if got := r.do("DELETE", "/v1/collections/"+o.Coll, "", nil); got.status != 204 {
			r.fail("collection", "DELETE collection %s: %d %s", o.Coll, got.status, truncate(got.body, 300))
			return
		}
		r.m.apply(o)
		o = &mop{Kind: "create", Coll: o.Coll, Tokens: 1000}
		fallthrough
	case "create", "reconfigure":
		_, existed := r.m.colls[o.Coll]
		want := 201
		if existed && o.Kind == "reconfigure" {
			want = 200
		}
		method, path, ctype, body := o.request(r.embedded)
		if got := r.do(method, path, ctype, body); got.status != want {
			r.fail("collection", "%s %s: %d, want %d: %s", method, path, got.status, want, truncate(got.body, 300))
		}
		if o.Kind == "create" {
			r.m.apply(o)
		}
	case "delete":
		_, live := r.m.colls[o.Coll].docs[o.ID]
		want := 404
		if live {
			want = 204
		}
		if got := r.do("DELETE", "/v1/collections/"+o.Coll+"/documents/"+o.ID, "", nil); got.status != want {
			r.fail("delete", "DELETE %s/%s: %d, want %d: %s", o.Coll, o.ID, got.status, want, truncate(got.body, 300))
		}
		r.m.apply(o)
	case "ingest":
		r.ingest(o)
	case "search", "query", "answer":
		r.stats.searches++
		r.search(o)
	default:
		panic("BUG: op " + o.Kind)
	}
}

func (r *modelRun) ingest(o *mop) {
	method, path, ctype, body := o.request(r.embedded)
	ex := r.m.apply(o)
	got := r.do(method, path, ctype, body)
	if got.status != 200 {
		r.fail("ingest", "%s %s: %d %s", method, path, got.status, truncate(got.body, 500))
		return
	}
	var ans struct {
		Documents []struct {
			DocumentID string `json:"document_id"`
			Status     string `json:"status"`
		} `json:"documents"`
		Errors []struct {
			Record  int    `json:"record"`
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(got.body, &ans); err != nil {
		r.fail("ingest", "ingest answer: %v: %s", err, truncate(got.body, 300))
		return
	}
	gotErrs := map[int]bool{}
	for _, e := range ans.Errors {
		gotErrs[e.Record] = true
	}
	if !reflect.DeepEqual(gotErrs, ex.errs) {
		r.fail("ingest", "ingest reported errors for records %v, want %v: %s", slices.Sorted(mapKeys(gotErrs)), slices.Sorted(mapKeys(ex.errs)), truncate(got.body, 500))
		return
	}
	gotIDs := map[string]bool{}
	for _, d := range ans.Documents {
		gotIDs[d.DocumentID] = true
		want, ok := ex.status[d.DocumentID]
		if !ok {
			r.fail("ingest", "ingest reported document %q, which the upload does not hold valid: %s", d.DocumentID, truncate(got.body, 500))
			return
		}
		if want != "" && d.Status != want {
			r.fail("ingest-status", "ingest reported %s %q, want %q", d.DocumentID, d.Status, want)
		}
	}
	for id := range ex.status {
		if !gotIDs[id] {
			r.fail("ingest", "ingest did not report document %q: %s", id, truncate(got.body, 500))
			return
		}
	}
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

// checkState compares every collection's document_count and listing with
// the model, and fetches the documents the operation touched and a few
// others (all of them after a restart).
func (r *modelRun) checkState(o *mop) {
	for _, c := range r.m.names {
		live := r.m.liveIDs(c)
		got := r.do("GET", "/v1/collections/"+c, "", nil)
		if got.status != 200 {
			r.fail("collection", "GET collection %s: %d %s", c, got.status, truncate(got.body, 300))
			return
		}
		var coll struct {
			Count int `json:"document_count"`
		}
		_ = json.Unmarshal(got.body, &coll)
		if coll.Count != len(live) {
			r.fail("document-count", "collection %s: document_count %d, the model holds %d live documents", c, coll.Count, len(live))
		}
		limit := []int{0, 0, 5, 16}[r.rnd.IntN(4)]
		var listed []string
		cursor := ""
		for page := 0; ; page++ {
			q := url.Values{}
			if limit > 0 {
				q.Set("limit", strconv.Itoa(limit))
			}
			if cursor != "" {
				q.Set("cursor", cursor)
			}
			got := r.do("GET", "/v1/collections/"+c+"/documents?"+q.Encode(), "", nil)
			var l struct {
				Documents []string `json:"documents"`
				Next      string   `json:"next_cursor"`
			}
			if got.status != 200 || json.Unmarshal(got.body, &l) != nil {
				r.fail("listing", "list %s: %d %s", c, got.status, truncate(got.body, 300))
				return
			}
			listed = append(listed, l.Documents...)
			if l.Next == "" || page > modelIDs {
				break
			}
			cursor = l.Next
		}
		if !slices.Equal(listed, live) && !(len(listed) == 0 && len(live) == 0) {
			r.fail("listing", "collection %s lists %v, the model holds %v", c, listed, live)
		}
	}
	type ref struct{ coll, id string }
	var fetch []ref
	if o.Kind == "restart" {
		for _, c := range r.m.names {
			for _, id := range r.m.liveIDs(c) {
				fetch = append(fetch, ref{c, id})
			}
		}
	}
	if o.Kind == "ingest" {
		for _, d := range o.Docs {
			if d.ID != "" {
				fetch = append(fetch, ref{o.Coll, d.ID})
			}
		}
	}
	if o.Kind == "delete" {
		fetch = append(fetch, ref{o.Coll, o.ID})
	}
	for range 2 {
		fetch = append(fetch, ref{r.m.names[r.rnd.IntN(len(r.m.names))], modelID(r.rnd.IntN(modelIDs))})
	}
	for _, f := range fetch {
		r.checkFetch(f.coll, f.id)
	}
}

// checkFetch compares GET .../documents/{id} with the model.
func (r *modelRun) checkFetch(coll, id string) {
	if !modelIDRe.MatchString(id) {
		return
	}
	doc := r.m.colls[coll].docs[id]
	flat := r.rnd.IntN(4) == 0
	path := "/v1/collections/" + coll + "/documents/" + id
	if flat {
		path += "?result_format=flat"
	}
	got := r.do("GET", path, "", nil)
	if doc == nil {
		if got.status != 404 {
			r.fail("fetch-deleted", "GET %s: %d, want 404 (the document is not live): %s", path, got.status, truncate(got.body, 300))
		}
		return
	}
	r.stats.docsChecked++
	if got.status != 200 {
		r.fail("fetch", "GET %s: %d, want 200: %s", path, got.status, truncate(got.body, 300))
		return
	}
	var d struct {
		DocumentID string         `json:"document_id"`
		Fields     map[string]any `json:"fields"`
		Sections   []mSection     `json:"sections"`
		Content    *string        `json:"content"`
	}
	if err := json.Unmarshal(got.body, &d); err != nil || d.DocumentID != id {
		r.fail("fetch", "GET %s: %s", path, truncate(got.body, 300))
		return
	}
	where := "GET " + path
	r.compareFields(where, doc, d.Fields, nil)
	if flat {
		r.compareContent(where, doc, d.Content, nil)
	} else {
		r.compareSections(where, doc, d.Sections, nil)
	}
}

// expectedFields renders the model's fields as the API returns them.
func expectedFields(doc *mDoc, include map[string]bool) map[string]any {
	out := map[string]any{}
	for name, vs := range doc.Fields {
		if include != nil && !include[name] {
			continue
		}
		if len(vs) == 1 {
			out[name] = vs[0]
		} else {
			out[name] = slices.Clone(vs)
		}
	}
	return out
}

func (r *modelRun) compareFields(where string, doc *mDoc, got map[string]any, include map[string]bool) {
	want := expectedFields(doc, include)
	if got == nil {
		got = map[string]any{}
	}
	if reflect.DeepEqual(got, want) {
		return
	}
	// Numbers of number fields returned as numeric strings are a
	// separate finding from wrong values.
	same := len(got) == len(want)
	for k, w := range want {
		if !modelSameNumbers(w, got[k]) {
			same = false
		}
	}
	if same {
		r.fail("number-field-as-string", "%s: fields %v, want %v (values of a number field come back as strings)", where, modelJSON(got), modelJSON(want))
		return
	}
	r.fail("stale-content", "%s: fields %s, the last ingested are %s", where, modelJSON(got), modelJSON(want))
}

// modelSameNumbers reports whether a and b are equal when numeric strings
// count as numbers.
func modelSameNumbers(a, b any) bool {
	as, aok := a.([]any)
	bs, bok := b.([]any)
	if aok != bok {
		return false
	}
	if !aok {
		as, bs = []any{a}, []any{b}
	}
	if len(as) != len(bs) {
		return false
	}
	for i := range as {
		x, ok1 := modelNum(as[i])
		y, ok2 := modelNum(bs[i])
		if !(ok1 && ok2 && x == y) && !reflect.DeepEqual(as[i], bs[i]) {
			return false
		}
	}
	return true
}

func modelJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func includedSections(doc *mDoc, include map[string]bool) []mSection {
	out := []mSection{}
	for _, s := range doc.Sections {
		if include == nil || include[s.Type] {
			out = append(out, s)
		}
	}
	return out
}

func (r *modelRun) compareSections(where string, doc *mDoc, got []mSection, include map[string]bool) {
	want := includedSections(doc, include)
	if got == nil {
		got = []mSection{}
	}
	if !slices.Equal(got, want) {
		r.fail("stale-content", "%s: sections %s, the last ingested are %s", where, modelJSON(got), modelJSON(want))
	}
}

func (r *modelRun) compareContent(where string, doc *mDoc, got *string, include map[string]bool) {
	var parts []string
	for _, s := range includedSections(doc, include) {
		parts = append(parts, s.Content)
	}
	want := strings.Join(parts, "\n\n")
	if got == nil || *got != want {
		r.fail("stale-content", "%s: content %s, the last ingested is %q", where, modelJSON(got), want)
	}
}

const modelNoAnswer = "No relevant documents were found to answer the question."

func (r *modelRun) search(o *mop) {
	s := o.Search
	method, path, ctype, body := o.request(r.embedded)
	where := method + " " + path
	if method == "POST" {
		where += " " + string(body)
	}
	// A filter naming Extra is a 400 on a collection that never saw it.
	named := map[string]bool{}
	s.Filter.fields(named)
	for _, f := range s.Simple {
		named[f[0]] = true
	}
	valid := true
	for _, c := range s.Colls {
		for f := range named {
			if _, ok := r.m.fieldType(c, f); !ok {
				valid = false
			}
		}
	}
	got := r.do(method, path, ctype, body)
	if !valid {
		if got.status != 400 {
			r.fail("status", "%s: %d, want 400 (a filter field is unknown in a searched collection): %s", where, got.status, truncate(got.body, 300))
		}
		return
	}
	// The model's collections are all keyword-only or all hybrid: semantic
	// retrieval alone is there only in the hybrid ones.
	if s.Retrievers == "semantic" && !r.embedded {
		if got.status != 400 || !strings.Contains(string(got.body), `"retrievers"`) {
			r.fail("status", "%s: %d, want 400 naming retrievers (semantic on keyword-only collections): %s", where, got.status, truncate(got.body, 300))
		}
		return
	}
	// keywordOnly: the search runs keyword retrieval alone; semanticOnly:
	// semantic retrieval alone, so keyword matches need not come back.
	keywordOnly := !r.embedded || s.Retrievers == "keyword"
	semanticOnly := s.Retrievers == "semantic"
	if got.status != 200 {
		r.fail("status", "%s: %d, want 200: %s", where, got.status, truncate(got.body, 500))
		return
	}
	var res searchResp
	if err := json.Unmarshal(got.body, &res); err != nil {
		r.fail("status", "%s: %v: %s", where, err, truncate(got.body, 300))
		return
	}
	// The reference: allowed documents (live, in a searched collection,
	// matching the filter), in the filter-only order.
	type key struct{ coll, id string }
	allowed := map[key]*mDoc{}
	var order []key
	colls := slices.Clone(s.Colls)
	sort.Strings(colls)
	for _, c := range colls {
		for _, id := range r.m.liveIDs(c) {
			d := r.m.colls[c].docs[id]
			if s.Filter != nil && !s.Filter.match(d) {
				continue
			}
			ok := true
			for _, sf := range s.Simple {
				if !(&mFilter{Op: "contains", Field: sf[0], Value: sf[1]}).match(d) {
					ok = false
				}
			}
			if ok {
				allowed[key{c, id}] = d
				order = append(order, key{c, id})
			}
		}
	}
	live := 0
	for _, c := range s.Colls {
		live += len(r.m.colls[c].docs)
	}
	if len(order) > 0 && len(order) < live {
		r.stats.narrowing++
	}
	qwords := map[string]bool{}
	for _, w := range modelTokens(s.Query) {
		qwords[w] = true
	}
	var kw, fieldOnly []key // keyword matches through sections; only through envelope fields
	for _, k := range order {
		d := allowed[k]
		if d.keywordMatch(qwords) {
			kw = append(kw, k)
		} else if d.fieldMatch(qwords) {
			fieldOnly = append(fieldOnly, k)
		}
	}
	maxResults := s.Max
	if maxResults == 0 {
		maxResults = 10
	}
	answer := o.Kind == "answer"
	full := s.Include == nil || slices.Contains(s.Include, "full")
	if answer && s.Include == nil {
		full = false
	}
	docsOut := full || (s.Highlight != nil && *s.Highlight)
	highlight := s.Highlight == nil || *s.Highlight
	var include map[string]bool
	if s.Fields != nil {
		include = map[string]bool{}
		for _, f := range s.Fields {
			include[f] = true
		}
	}
	multi := len(s.Colls) > 1

	if !docsOut && len(res.Documents) > 0 {
		r.fail("response-shape", "%s: documents returned without full content or highlight: true", where)
	}
	returned := map[key]bool{}
	var prev *key
	prevScore := 2.0
	for i, d := range res.Documents {
		coll := s.Colls[0]
		if multi {
			coll = d.CollectionID
			if !slices.Contains(s.Colls, coll) {
				r.fail("foreign-collection", "%s: documents[%d] %s has collection_id %q, not a searched collection", where, i, d.DocumentID, coll)
				continue
			}
		} else if d.CollectionID != "" {
			r.fail("response-shape", "%s: collection_id %q in a one-collection search", where, d.CollectionID)
		}
		r.stats.hits++
		if strings.HasPrefix(d.Source, "sem") {
			r.stats.semHits++
		}
		k := key{coll, d.DocumentID}
		if returned[k] {
			r.fail("duplicate", "%s: %s/%s returned twice", where, coll, d.DocumentID)
		}
		returned[k] = true
		doc, live := r.m.colls[coll].docs[d.DocumentID]
		if !live {
			r.fail("deleted-returned", "%s: documents[%d] %s/%s (source %s) is not a live document", where, i, coll, d.DocumentID, d.Source)
			continue
		}
		if _, ok := allowed[k]; !ok {
			r.fail("filter-mismatch", "%s: documents[%d] %s/%s (source %s) does not match the filter; its fields are %s", where, i, coll, d.DocumentID, d.Source, modelJSON(doc.Fields))
			continue
		}
		// Order: score descending, ties by collection id then document id.
		if d.Score < 0 || d.Score > 1 {
			r.fail("score", "%s: score %v of %s outside 0..1", where, d.Score, d.DocumentID)
		}
		if prev != nil && (d.Score > prevScore || d.Score == prevScore && (k.coll < prev.coll || k.coll == prev.coll && k.id < prev.id)) {
			r.fail("order", "%s: %s/%s (%v) after %s/%s (%v)", where, k.coll, k.id, d.Score, prev.coll, prev.id, prevScore)
		}
		prev, prevScore = &k, d.Score
		// Content: what was last ingested.
		dwhere := fmt.Sprintf("%s: documents[%d] %s/%s", where, i, coll, d.DocumentID)
		if full {
			r.compareFields(dwhere, doc, d.Fields, include)
			if s.Format == "sections" {
				r.compareSections(dwhere, doc, d.Sections, include)
			} else {
				r.compareContent(dwhere, doc, d.Content, include)
			}
		} else if d.Content != nil || d.Sections != nil || d.Fields != nil {
			r.fail("response-shape", "%s: content without include_content full", dwhere)
		}
		// Passages slice the section they point to.
		if !highlight || s.Query == "" {
			if len(d.Passages) > 0 {
				r.fail("response-shape", "%s: passages without a query or with highlight false", dwhere)
			}
		}
		secs := doc.Sections
		if s.Format == "sections" {
			secs = includedSections(doc, include)
		}
		if len(d.Passages) > 3 {
			r.fail("passages", "%s: %d passages, at most 3", dwhere, len(d.Passages))
		}
		for _, p := range d.Passages {
			if p.SectionIndex < 0 || p.SectionIndex >= len(secs) {
				r.fail("passage-offsets", "%s: passage section_index %d of %d sections", dwhere, p.SectionIndex, len(secs))
				continue
			}
			sec := secs[p.SectionIndex]
			runes := []rune(sec.Content)
			if p.Offsets[0] < 0 || p.Offsets[0] >= p.Offsets[1] || p.Offsets[1] > len(runes) {
				r.fail("passage-offsets", "%s: passage offsets %v outside section %d of %d code points", dwhere, p.Offsets, p.SectionIndex, len(runes))
				continue
			}
			if string(runes[p.Offsets[0]:p.Offsets[1]]) != p.Text {
				r.fail("passage-offsets", "%s: sections[%d].content[%d:%d] = %q, passage text %q", dwhere, p.SectionIndex, p.Offsets[0], p.Offsets[1], string(runes[p.Offsets[0]:p.Offsets[1]]), p.Text)
			}
			if include != nil && !include[sec.Type] {
				r.fail("passage-offsets", "%s: a passage points to section %d of type %q, which include_fields leaves out", dwhere, p.SectionIndex, sec.Type)
			}
			if p.Score < 0 || p.Score > 1 {
				r.fail("score", "%s: passage score %v", dwhere, p.Score)
			}
		}
		// Sources and keyword evidence.
		isKw := slices.Contains(kw, k)
		switch {
		case s.Query == "":
			if d.Score != 1 || d.Source != "key" {
				r.fail("filter-only", "%s: filter-only hit with score %v source %q, want 1 and key", dwhere, d.Score, d.Source)
			}
		case keywordOnly:
			if d.Source != "key" {
				r.fail("source", "%s: source %q in a keyword-only search", dwhere, d.Source)
			}
			if !isKw && !slices.Contains(fieldOnly, k) {
				r.fail("keyword-without-term", "%s: returned by a keyword-only search but holds no query word of %q", dwhere, s.Query)
			}
		case semanticOnly:
			if d.Source != "sem" {
				r.fail("source", "%s: source %q in a semantic-only search", dwhere, d.Source)
			}
		default:
			switch d.Source {
			case "sem":
				if isKw {
					r.fail("source", "%s: source sem, but a searchable section holds a query word of %q", dwhere, s.Query)
				}
			case "key", "sem-key":
				if !isKw && !slices.Contains(fieldOnly, k) {
					r.fail("keyword-without-term", "%s: source %s but no query word of %q", dwhere, d.Source, s.Query)
				}
			default:
				r.fail("source", "%s: source %q", dwhere, d.Source)
			}
		}
	}
	if docsOut && !answer {
		n := len(res.Documents)
		switch {
		case s.Query == "":
			// Filter-only: exactly the matching documents, in id order.
			want := order[:min(len(order), maxResults)]
			var gotKeys []key
			for _, d := range res.Documents {
				coll := s.Colls[0]
				if multi {
					coll = d.CollectionID
				}
				gotKeys = append(gotKeys, key{coll, d.DocumentID})
			}
			if !slices.Equal(gotKeys, want) && !(len(gotKeys) == 0 && len(want) == 0) {
				r.fail("filter-only", "%s: returned %v, want %v", where, gotKeys, want)
			}
		case n < maxResults && !semanticOnly:
			// Fewer than asked: every keyword match is there.
			for _, k := range kw {
				if !returned[k] {
					r.fail("keyword-missed", "%s: %s/%s holds a query word in a searchable section and matches the filter, but only %d documents came back", where, k.coll, k.id, n)
					break
				}
			}
			for _, k := range fieldOnly {
				if !returned[k] {
					r.fail("envelope-field-not-searched", "%s: %s/%s has a query word of %q in an enum_text or text field (fields %s), which docs/API.md says keyword search searches, but it was not returned", where, k.coll, k.id, s.Query, modelJSON(allowed[k].Fields))
					break
				}
			}
		}
		if keywordOnly && s.Query != "" && n < min(maxResults, len(kw)) {
			r.fail("keyword-missed", "%s: %d documents, but %d allowed documents hold a query word", where, n, len(kw))
		}
	}
	// Summaries, the summary and the answer draw on allowed documents only.
	for _, sm := range res.Summaries {
		coll := s.Colls[0]
		if multi {
			coll = sm.CollectionID
		}
		if _, ok := allowed[key{coll, sm.DocumentID}]; !ok {
			r.fail("summary-leak", "%s: a summary of %s/%s, which is not live or does not match the filter", where, coll, sm.DocumentID)
		}
	}
	maxTokens := s.MaxTokens
	if res.Metadata.Tokens != nil && maxTokens > 0 && res.Metadata.Tokens.PromptTokens > maxTokens {
		r.fail("summary-budget", "%s: prompt_tokens %d over max_tokens %d", where, res.Metadata.Tokens.PromptTokens, maxTokens)
	}
	if answer {
		if res.Answer == nil {
			r.fail("answer", "%s: no answer", where)
			return
		}
		ids := map[string]bool{}
		for k := range allowed {
			ids[k.id] = true
		}
		for _, src := range res.Metadata.AnswerSources {
			if !ids[src] {
				r.fail("answer-leak", "%s: answer_sources names %q, which is not live or does not match the filter; answer %q", where, src, *res.Answer)
			}
		}
		noEvidence := len(allowed) == 0 || (!r.embedded && len(kw) == 0 && len(fieldOnly) == 0)
		if noEvidence && *res.Answer != modelNoAnswer {
			r.fail("answer-leak", "%s: no allowed document holds a query word, yet the answer is %q", where, *res.Answer)
		}
	}
}

// ---------------------------------------------------------------------------
// Reporting and shrinking

func modelOpLog(ops []*mop, embedded bool) string {
	var b strings.Builder
	for i, o := range ops {
		fmt.Fprintf(&b, "%4d  %s\n", i, o.describe(embedded))
	}
	return b.String()
}

func reportModelFailures(t *testing.T, seed uint64, nops int, embedded bool, ops []*mop, res modelResult, budget time.Duration) {
	t.Helper()
	name := "TestModelHTTP"
	if embedded {
		name = "TestModelHTTPEmbeddings"
	}
	repro := fmt.Sprintf("NAJDI_MODEL_SEED=%d NAJDI_MODEL_OPS=%d go test ./server -run '^%s$' -count=1 -v", seed, modelEnvOps(embedded, nops), name)
	logPath := filepath.Join(os.TempDir(), fmt.Sprintf("najdi-model-%d.log", seed))
	last := 0
	for _, f := range res.fails {
		last = max(last, f.step)
	}
	_ = os.WriteFile(logPath, []byte(modelOpLog(ops[:last+1], embedded)+"\nserver log:\n"+res.log), 0o644)
	for _, f := range res.fails {
		t.Errorf("model check %q failed at step %d (%d times in the sequence; seed %d):\n  step: %s\n  %s\nreproduce: %s\nthe operations up to the last failure: %s",
			f.kind, f.step, f.n, seed, ops[f.step].describe(embedded), f.msg, repro, logPath)
	}
	if budget <= 0 {
		return
	}
	end := time.Now().Add(budget)
	for i, f := range res.fails {
		// Every check gets its share of what is left.
		deadline := time.Now().Add(time.Until(end) / time.Duration(len(res.fails)-i))
		short, fail, tries := shrinkModelOps(t, ops[:f.step+1], f.kind, embedded, deadline)
		t.Errorf("check %q: shortest failing sequence found (%d of %d operations, %d runs while shrinking; seed %d):\n%s  → %s",
			f.kind, len(short), f.step+1, tries, seed, modelOpLog(short, embedded), fail.msg)
	}
}

// shrinkModelOps removes chunks of operations (never the collection
// creations at the start) while the sequence still fails the same check.
func shrinkModelOps(t *testing.T, ops []*mop, kind string, embedded bool, deadline time.Time) ([]*mop, modelFailure, int) {
	t.Helper()
	fixed := 0
	for fixed < len(ops) && ops[fixed].Kind == "create" {
		fixed++
	}
	best := ops
	bestFail := modelFailure{kind: kind, msg: "(not reproduced while shrinking)"}
	tries, repeat := 0, 1
	try := func(cand []*mop) bool {
		for range repeat {
			tries++
			res := runModelOps(t, cand, embedded)
			for _, f := range res.fails {
				if f.kind == kind {
					best, bestFail = cand[:f.step+1], f
					return true
				}
			}
		}
		return false
	}
	if !try(best) {
		// A flaky failure (the pooled-buffer kind): give every candidate
		// three chances.
		repeat = 3
		if !try(best) {
			return best, bestFail, tries
		}
	}
	for chunk := max((len(best)-fixed)/2, 1); chunk >= 1 && time.Now().Before(deadline); {
		removed := false
		for i := fixed; i < len(best) && time.Now().Before(deadline); {
			end := min(i+chunk, len(best))
			cand := append(slices.Clone(best[:i]), best[end:]...)
			if len(cand) > fixed && try(cand) {
				removed = true
				continue
			}
			i = end
		}
		if !removed {
			if chunk == 1 {
				break
			}
			chunk /= 2
		}
	}
	return best, bestFail, tries
}
