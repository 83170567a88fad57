package engine_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"hash/fnv"
	"log/slog"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/najdi/najdi/embed"
	"github.com/najdi/najdi/engine"
	"github.com/najdi/najdi/ingest"
)

// This file is the model-based test of the engine (issue 11): a seeded
// generator of operation sequences — collections with declared fields,
// ingests of documents and records into several segments, replaces,
// deletes, merges, close and reopen, searches with random queries and
// random filters of every DSL construct, filter-only searches, query
// parameters, several collections at once, answers — applied to a real
// engine and to a simple reference model kept here, and checked after every
// step. A failing sequence is shrunk to the shortest one that still fails
// and printed with its seed.
//
// Knobs (environment): NAJDI_MODEL_SEED (first seed; default: from the
// clock, printed), NAJDI_MODEL_SEEDS (number of seeds), NAJDI_MODEL_OPS
// (operations per seed). `make model-long` runs a million operations.

// mVocab are the words of generated text: no stop words, and each its own
// stem, so that "the document contains the word" is what BM25 matches.
var mVocab = []string{"zebra", "quartz", "falcon", "maple", "cobalt", "violin", "harbor", "glacier",
	"tundra", "pepper", "orbit", "canyon", "lantern", "meadow", "saddle", "walnut", "island", "nation"}

// Field values of generated documents.
var (
	mColors = []string{"red", "green", "blue", "Red", "grey"}
	mTags   = []string{"a1", "b2", "c3", "d4"}
	mLabels = []string{"alpha", "beta", "gamma"}
)

// mFields is the schema of every generated collection. "id", "title" and
// "body" are declared so that records infer no field types.
var mFields = map[string]engine.FieldSpec{
	"color": {Type: engine.FieldEnum},
	"tags":  {Type: engine.FieldEnum, Multi: true},
	"n":     {Type: engine.FieldNumber},
	"label": {Type: engine.FieldEnumText},
	"id":    {Type: engine.FieldEnum},
	"title": {Type: engine.FieldText},
	"body":  {Type: engine.FieldText},
}

// mDoc is one document of the reference model.
type mDoc struct {
	sections []ingest.Section
	fields   map[string][]any // string or float64 values
	// searched is text searched besides the sections: the enum_text
	// fields of envelope documents.
	searched []string
}

// words returns the set of lowercase words of every section.
func (d *mDoc) hasWord(w string) bool {
	texts := slices.Clone(d.searched)
	for _, s := range d.sections {
		texts = append(texts, s.Content)
	}
	for _, s := range texts {
		for _, f := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool {
			return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
		}) {
			if f == w {
				return true
			}
		}
	}
	return false
}

// mColl is one collection of the reference model.
type mColl struct {
	semantic bool
	docs     map[string]*mDoc
}

// mOwners and mCollIDs are the names operations draw from: the same
// collection id exists under several owners.
var (
	mOwners  = []string{"", "alice"}
	mCollIDs = []string{"c1", "c2", "c3"}
)

// opKind names an operation.
type opKind int

const (
	opCreate opKind = iota
	opDropColl
	opIngestDocs
	opIngestJSONL
	opIngestCSV
	opDelete
	opMerge
	opReopen
	opSearch
	opFilterOnly
	opQueryParams
	opAnswer
	opGet
	opCount
	numOps
)

// op is one generated operation. It is data, independent of the state it
// runs in, so any subsequence of a sequence is again a valid sequence (an
// operation on something missing expects the engine's not-found error).
type op struct {
	kind     opKind
	owner    string
	colls    []string
	semantic bool
	docs     []mInput
	id       string
	query    string
	flt      fnode
	params   [][2]string // query endpoint filter:field=value
	max      int
	sections bool
}

// mInput is one generated document or record.
type mInput struct {
	id     string
	title  string
	body   string
	color  string // "" = absent
	tags   []string
	n      *float64
	label  string
	extraP string // a third section for envelope documents
}

func (o op) String() string {
	var b strings.Builder
	names := []string{"create", "drop-collection", "ingest-docs", "ingest-jsonl", "ingest-csv", "delete", "merge", "reopen", "search", "filter-only", "query-params", "answer", "get", "count"}
	fmt.Fprintf(&b, "%s owner=%q %v", names[o.kind], o.owner, o.colls)
	switch o.kind {
	case opCreate:
		fmt.Fprintf(&b, " semantic=%v", o.semantic)
	case opIngestDocs, opIngestJSONL, opIngestCSV:
		for _, d := range o.docs {
			fmt.Fprintf(&b, " {%s %q %q color=%q tags=%v n=%v label=%q}", d.id, d.title, d.body, d.color, d.tags, fmtNum(d.n), d.label)
		}
	case opDelete, opGet:
		fmt.Fprintf(&b, " %s", o.id)
	case opSearch, opFilterOnly, opAnswer:
		fmt.Fprintf(&b, " query=%q max=%d sections=%v", o.query, o.max, o.sections)
		if o.flt != nil {
			fmt.Fprintf(&b, " filter=%s", o.flt.json())
		}
	case opQueryParams:
		fmt.Fprintf(&b, " query=%q params=%v", o.query, o.params)
	}
	return b.String()
}

func fmtNum(n *float64) string {
	if n == nil {
		return "-"
	}
	return strconv.FormatFloat(*n, 'g', -1, 64)
}

// gen generates operations.
type gen struct{ r *rand.Rand }

func (g gen) pick(s []string) string { return s[g.r.IntN(len(s))] }

func (g gen) words(lo, hi int) string {
	n := lo + g.r.IntN(hi-lo+1)
	w := make([]string, n)
	for i := range w {
		w[i] = g.pick(mVocab)
	}
	return strings.Join(w, " ")
}

func (g gen) sentence() string {
	s := g.words(1, 8)
	if g.r.IntN(3) == 0 {
		s += ". " + strings.ToUpper(g.words(1, 1)[:1]) + g.words(1, 6)[1:] + "."
	}
	return s
}

func (g gen) input(prefix string) mInput {
	in := mInput{id: fmt.Sprintf("%s%d", prefix, g.r.IntN(24)), title: g.words(1, 3), body: g.sentence()}
	if g.r.IntN(5) > 0 {
		in.color = g.pick(mColors)
	}
	if g.r.IntN(3) > 0 {
		for range 1 + g.r.IntN(3) {
			t := g.pick(mTags)
			if !slices.Contains(in.tags, t) {
				in.tags = append(in.tags, t)
			}
		}
	}
	if g.r.IntN(4) > 0 {
		n := float64(g.r.IntN(10))
		if g.r.IntN(4) == 0 {
			n += 0.5
		}
		in.n = &n
	}
	if g.r.IntN(2) == 0 {
		in.label = g.pick(mLabels)
	}
	if g.r.IntN(2) == 0 {
		in.extraP = g.sentence()
	}
	return in
}

func (g gen) colls() []string {
	n := 1
	if g.r.IntN(4) == 0 {
		n = 2
	}
	out := []string{g.pick(mCollIDs)}
	for len(out) < n {
		if c := g.pick(mCollIDs); !slices.Contains(out, c) {
			out = append(out, c)
		}
	}
	return out
}

func (g gen) op() op {
	o := op{owner: g.pick(mOwners), colls: []string{g.pick(mCollIDs)}}
	w := g.r.IntN(100)
	switch {
	case w < 6:
		o.kind = opCreate
		o.semantic = g.r.IntN(2) == 0
	case w < 7:
		o.kind = opDropColl
	case w < 25:
		o.kind = opIngestDocs
		for range 1 + g.r.IntN(6) {
			o.docs = append(o.docs, g.input("d"))
		}
	case w < 30:
		o.kind = opIngestJSONL
		for range 1 + g.r.IntN(5) {
			o.docs = append(o.docs, g.input("r"))
		}
	case w < 34:
		o.kind = opIngestCSV
		for range 1 + g.r.IntN(5) {
			o.docs = append(o.docs, g.input("r"))
		}
	case w < 42:
		o.kind = opDelete
		o.id = fmt.Sprintf("%s%d", g.pick([]string{"d", "r"}), g.r.IntN(24))
	case w < 45:
		o.kind = opMerge
	case w < 47:
		o.kind = opReopen
	case w < 70:
		o.kind = opSearch
		o.colls = g.colls()
		o.query = g.words(1, 3)
		switch g.r.IntN(8) {
		case 0:
			o.query = "unknownword " + o.query
		case 1:
			o.query = g.pick(mLabels) + " " + o.query // an enum_text value
		}
		if g.r.IntN(3) > 0 {
			o.flt = g.filter(0)
		}
		o.max = 1000
		if g.r.IntN(4) == 0 {
			o.max = 1 + g.r.IntN(5)
		}
		o.sections = g.r.IntN(2) == 0
	case w < 80:
		o.kind = opFilterOnly
		o.colls = g.colls()
		o.flt = g.filter(0)
		o.max = 1000
		if g.r.IntN(15) == 0 {
			// A filter the schema rejects, somewhere inside a valid one.
			bad := g.pick([]string{`{"term":{"nofield":"x"}}`, `{"range":{"color":{"gt":1}}}`, `{"term":{"body":"zebra"}}`, `{"match":{"color":"red"}}`})
			o.flt = fBool{must: []fnode{o.flt, fRaw(bad)}}
		}
	case w < 86:
		o.kind = opQueryParams
		o.query = g.words(1, 2)
		for range 1 + g.r.IntN(2) {
			switch g.r.IntN(3) {
			case 0:
				o.params = append(o.params, [2]string{"color", g.pick([]string{"red", "RE", "e", "blu", "grey"})})
			case 1:
				o.params = append(o.params, [2]string{"n", strconv.Itoa(g.r.IntN(10))})
			default:
				o.params = append(o.params, [2]string{"tags", g.pick(mTags)})
			}
		}
	case w < 90:
		o.kind = opAnswer
		o.colls = g.colls()
		o.query = g.words(1, 3)
		if g.r.IntN(2) == 0 {
			o.flt = g.filter(0)
		}
	case w < 96:
		o.kind = opGet
		o.id = fmt.Sprintf("%s%d", g.pick([]string{"d", "r"}), g.r.IntN(24))
	default:
		o.kind = opCount
	}
	return o
}

// fnode is a generated filter: its JSON and its reference semantics.
type fnode interface {
	json() string
	match(d *mDoc) bool
}

type fTerm struct {
	field string
	value any // string or float64
	ci    bool
}

func (f fTerm) json() string {
	v, _ := json.Marshal(f.value)
	if f.ci {
		return fmt.Sprintf(`{"term":{%q:{"value":%s,"case_insensitive":true}}}`, f.field, v)
	}
	return fmt.Sprintf(`{"term":{%q:%s}}`, f.field, v)
}

func (f fTerm) match(d *mDoc) bool {
	for _, v := range d.fields[f.field] {
		if valueEq(v, f.value, f.ci) {
			return true
		}
	}
	return false
}

func valueEq(v, want any, ci bool) bool {
	switch w := want.(type) {
	case float64:
		x, ok := v.(float64)
		return ok && x == w
	case string:
		x, ok := v.(string)
		return ok && (x == w || ci && strings.EqualFold(x, w))
	}
	return false
}

type fTerms struct {
	field  string
	values []any
}

func (f fTerms) json() string {
	v, _ := json.Marshal(f.values)
	return fmt.Sprintf(`{"terms":{%q:%s}}`, f.field, v)
}

func (f fTerms) match(d *mDoc) bool {
	for _, w := range f.values {
		if (fTerm{field: f.field, value: w}).match(d) {
			return true
		}
	}
	return false
}

type fRange struct {
	field  string
	op     string
	bounds [2]float64
	two    bool
}

func (f fRange) json() string {
	if f.two {
		return fmt.Sprintf(`{"range":{%q:{"gte":%v,"lt":%v}}}`, f.field, f.bounds[0], f.bounds[1])
	}
	return fmt.Sprintf(`{"range":{%q:{%q:%v}}}`, f.field, f.op, f.bounds[0])
}

func (f fRange) match(d *mDoc) bool {
	for _, v := range d.fields[f.field] {
		x, ok := v.(float64)
		if !ok {
			continue
		}
		b := f.bounds[0]
		var in bool
		switch {
		case f.two:
			in = x >= b && x < f.bounds[1]
		case f.op == "gt":
			in = x > b
		case f.op == "gte":
			in = x >= b
		case f.op == "lt":
			in = x < b
		default:
			in = x <= b
		}
		if in {
			return true
		}
	}
	return false
}

type fExists struct{ field string }

func (f fExists) json() string       { return fmt.Sprintf(`{"exists":{"field":%q}}`, f.field) }
func (f fExists) match(d *mDoc) bool { return len(d.fields[f.field]) > 0 }

// fPattern is a prefix or a regexp of the simple shapes generated here:
// a literal prefix, or an alternation of first letters followed by `.*`.
type fPattern struct {
	field  string
	regexp bool
	value  string
	ok     func(s string) bool
}

func (f fPattern) json() string {
	if f.regexp {
		return fmt.Sprintf(`{"regexp":{%q:%q}}`, f.field, f.value)
	}
	return fmt.Sprintf(`{"prefix":{%q:%q}}`, f.field, f.value)
}

func (f fPattern) match(d *mDoc) bool {
	for _, v := range d.fields[f.field] {
		if s, ok := v.(string); ok && f.ok(s) {
			return true
		}
	}
	return false
}

// fRaw is a clause the schema or the DSL subset rejects: searching with it
// must answer ErrInvalid.
type fRaw string

func (f fRaw) json() string     { return string(f) }
func (f fRaw) match(*mDoc) bool { return false }

// invalid reports whether a filter holds a clause that must be rejected.
func invalid(f fnode) bool {
	switch x := f.(type) {
	case fRaw:
		return true
	case fBool:
		for _, qs := range [][]fnode{x.must, x.filter, x.should, x.mustNot} {
			for _, q := range qs {
				if invalid(q) {
					return true
				}
			}
		}
	}
	return false
}

type fConst bool

func (f fConst) json() string {
	if f {
		return `{"match_all":{}}`
	}
	return `{"match_none":{}}`
}
func (f fConst) match(*mDoc) bool { return bool(f) }

type fBool struct {
	must, filter, should, mustNot []fnode
	msm                           int // 0 = absent
}

func (f fBool) json() string {
	var parts []string
	add := func(name string, qs []fnode) {
		if len(qs) == 0 {
			return
		}
		js := make([]string, len(qs))
		for i, q := range qs {
			js[i] = q.json()
		}
		parts = append(parts, fmt.Sprintf("%q:[%s]", name, strings.Join(js, ",")))
	}
	add("must", f.must)
	add("filter", f.filter)
	add("should", f.should)
	add("must_not", f.mustNot)
	if f.msm > 0 {
		parts = append(parts, fmt.Sprintf(`"minimum_should_match":%d`, f.msm))
	}
	return `{"bool":{` + strings.Join(parts, ",") + `}}`
}

// match is Elasticsearch's bool semantics: every must and filter clause,
// no must_not clause, and at least minimum_should_match should clauses,
// which defaults to 1 when there is no must or filter clause and to 0
// otherwise.
func (f fBool) match(d *mDoc) bool {
	for _, q := range append(slices.Clone(f.must), f.filter...) {
		if !q.match(d) {
			return false
		}
	}
	for _, q := range f.mustNot {
		if q.match(d) {
			return false
		}
	}
	need := f.msm
	if need == 0 && len(f.should) > 0 && len(f.must)+len(f.filter) == 0 {
		need = 1
	}
	n := 0
	for _, q := range f.should {
		if q.match(d) {
			n++
		}
	}
	return n >= need
}

func (g gen) filter(depth int) fnode {
	k := g.r.IntN(10)
	if depth >= 2 && k >= 8 {
		k = g.r.IntN(8)
	}
	switch k {
	case 0:
		switch g.r.IntN(4) {
		case 0:
			return fTerm{field: "color", value: g.pick(append(mColors, "ZZ")), ci: g.r.IntN(3) == 0}
		case 1:
			return fTerm{field: "tags", value: g.pick(mTags)}
		case 2:
			return fTerm{field: "n", value: float64(g.r.IntN(11))}
		default:
			return fTerm{field: "label", value: g.pick(mLabels)}
		}
	case 1:
		var vs []any
		for range 1 + g.r.IntN(3) {
			if g.r.IntN(2) == 0 {
				vs = append(vs, g.pick(mColors))
			} else {
				vs = append(vs, "ZZ")
			}
		}
		return fTerms{field: "color", values: vs}
	case 2:
		b := float64(g.r.IntN(11))
		if g.r.IntN(3) == 0 {
			b += 0.5
		}
		if g.r.IntN(3) == 0 {
			return fRange{field: "n", two: true, bounds: [2]float64{b, b + float64(1+g.r.IntN(4))}}
		}
		return fRange{field: "n", op: g.pick([]string{"gt", "gte", "lt", "lte"}), bounds: [2]float64{b}}
	case 3:
		return fExists{field: g.pick([]string{"color", "tags", "n", "label"})}
	case 4:
		p := g.pick([]string{"r", "g", "gr", "R", "b"})
		return fPattern{field: "color", value: p, ok: func(s string) bool { return strings.HasPrefix(s, p) }}
	case 5:
		a, b := g.pick([]string{"a", "b", "c", "d"}), g.pick([]string{"a", "b", "c", "d"})
		return fPattern{field: "tags", regexp: true, value: "(" + a + "|" + b + ").*", ok: func(s string) bool {
			return strings.HasPrefix(s, a) || strings.HasPrefix(s, b)
		}}
	case 6:
		return fConst(g.r.IntN(4) > 0)
	default:
		var f fBool
		for range g.r.IntN(3) {
			f.must = append(f.must, g.filter(depth+1))
		}
		for range g.r.IntN(2) {
			f.filter = append(f.filter, g.filter(depth+1))
		}
		for range g.r.IntN(3) {
			f.should = append(f.should, g.filter(depth+1))
		}
		for range g.r.IntN(2) {
			f.mustNot = append(f.mustNot, g.filter(depth+1))
		}
		if len(f.should) > 0 && g.r.IntN(3) == 0 {
			f.msm = 1 + g.r.IntN(len(f.should)+1)
		}
		return f
	}
}

// hashEmbedder is a feature-hashing bag-of-words embedder: each word adds
// ±1 to one of 64 dimensions; vectors are normalized. Documents sharing
// words with a query are near it. It stands in for a model only to run
// hundreds of thousands of operations quickly; TestModelRealEmbeddings runs
// the same sequences with the default ONNX model.
type hashEmbedder struct{}

func (hashEmbedder) Name() string { return "hash-64" }
func (hashEmbedder) Dims() int    { return 64 }
func (h hashEmbedder) EmbedQueries(_ context.Context, texts []string) ([][]float32, error) {
	return h.embed(texts), nil
}
func (h hashEmbedder) EmbedPassages(_ context.Context, texts []string) ([][]float32, error) {
	return h.embed(texts), nil
}
func (hashEmbedder) embed(texts []string) [][]float32 {
	out := make([][]float32, len(texts))
	for i, t := range texts {
		v := make([]float32, 64)
		v[0] = 0.05 // no zero vectors
		for _, w := range strings.Fields(strings.ToLower(t)) {
			w = strings.Trim(w, ".,")
			h := fnv.New32a()
			h.Write([]byte(w))
			x := h.Sum32()
			s := float32(1)
			if x&1 == 1 {
				s = -1
			}
			v[1+int(x>>1)%63] += s
		}
		var n float64
		for _, x := range v {
			n += float64(x * x)
		}
		for j := range v {
			v[j] /= float32(math.Sqrt(n))
		}
		out[i] = v
	}
	return out
}

type hashProvider struct{}

func (hashProvider) Embedder(cfg engine.EmbeddingConfig) (engine.Embedder, error) {
	return hashEmbedder{}, nil
}

// world runs operations against an engine and the reference model.
type world struct {
	ctx   context.Context
	opts  engine.Options
	e     *engine.Engine
	colls map[[2]string]*mColl
}

func newWorld(dir string, prov engine.EmbedderProvider, bgMerge bool) (*world, error) {
	opts := engine.Options{Dir: dir, Embedders: prov, FlushDocs: 4, MaxSegments: 1000, MergeInterval: time.Hour,
		Logger: discardLogger()}
	if bgMerge {
		opts.MaxSegments, opts.MergeInterval = 3, 5*time.Millisecond
	}
	e, err := engine.Open(opts)
	if err != nil {
		return nil, err
	}
	// Segments of up to 16 vectors (hash-64: 256 bytes each) keep them
	// inline, larger ones (flushes of longer documents, merges) get a
	// vectors file: every sequence exercises both forms and their mix
	// (3 seeds: 108 vectors files for 586 synced commits).
	e.Store().SetInlineVectorsBytes(4096)
	return &world{ctx: context.Background(), opts: opts, e: e, colls: map[[2]string]*mColl{}}, nil
}

func (w *world) close() { w.e.Close() }

func (w *world) coll(owner, id string) *mColl { return w.colls[[2]string{owner, id}] }

// expectNotFound checks that err is the engine's not-found error.
func expectNotFound(err error, what string) error {
	if !errors.Is(err, engine.ErrNotFound) {
		return fmt.Errorf("%s: want not found, got %v", what, err)
	}
	return nil
}

func (in mInput) doc(record bool) *mDoc {
	d := &mDoc{fields: map[string][]any{}}
	if in.color != "" {
		d.fields["color"] = []any{in.color}
	}
	for _, t := range in.tags {
		d.fields["tags"] = append(d.fields["tags"], t)
	}
	if in.n != nil {
		d.fields["n"] = []any{*in.n}
	}
	if in.label != "" {
		d.fields["label"] = []any{in.label}
	}
	if !record {
		if in.label != "" {
			d.searched = []string{in.label}
		}
		d.sections = []ingest.Section{{Type: "title", Content: in.title}, {Type: "p", Content: in.body}}
		if in.extraP != "" {
			d.sections = append(d.sections, ingest.Section{Type: "h1", Content: in.extraP})
		}
		return d
	}
	// A record's sections are its non-empty properties in order.
	// Every property is a field too, the declared text ones included.
	d.fields["id"] = []any{in.id}
	d.fields["title"] = []any{in.title}
	d.fields["body"] = []any{in.body}
	d.sections = []ingest.Section{{Type: "id", Content: in.id}, {Type: "title", Content: in.title}, {Type: "body", Content: in.body}}
	if in.color != "" {
		d.sections = append(d.sections, ingest.Section{Type: "color", Content: in.color})
	}
	if len(in.tags) > 0 {
		d.sections = append(d.sections, ingest.Section{Type: "tags", Content: strings.Join(in.tags, ", ")})
	}
	if in.n != nil {
		d.sections = append(d.sections, ingest.Section{Type: "n", Content: fmtNum(in.n)})
	}
	if in.label != "" {
		d.sections = append(d.sections, ingest.Section{Type: "label", Content: in.label})
	}
	return d
}

// apply runs one operation and checks the engine against the model.
func (w *world) apply(o op) error {
	ctx := w.ctx
	c := w.coll(o.owner, o.colls[0])
	switch o.kind {
	case opCreate:
		cfg := engine.CollectionConfig{Fields: mFields, EmbeddingConfig: engine.EmbeddingConfig{Model: "none"}}
		if o.semantic {
			cfg.EmbeddingConfig.Model = "default"
		}
		if c != nil {
			// Putting the same collection again keeps its documents; a
			// different embedding model is another collection: skip.
			if c.semantic != o.semantic {
				return nil
			}
			_, created, err := w.e.PutCollection(ctx, o.owner, o.colls[0], cfg)
			if err != nil || created {
				return fmt.Errorf("put existing collection: created %v, %v", created, err)
			}
			return w.checkCount(o.owner, o.colls[0])
		}
		_, created, err := w.e.PutCollection(ctx, o.owner, o.colls[0], cfg)
		if err != nil || !created {
			return fmt.Errorf("create collection: created %v, %v", created, err)
		}
		w.colls[[2]string{o.owner, o.colls[0]}] = &mColl{semantic: o.semantic, docs: map[string]*mDoc{}}
	case opDropColl:
		err := w.e.DeleteCollection(ctx, o.owner, o.colls[0])
		if c == nil {
			return expectNotFound(err, "drop missing collection")
		}
		if err != nil {
			return err
		}
		delete(w.colls, [2]string{o.owner, o.colls[0]})
		if _, err := w.e.GetCollection(ctx, o.owner, o.colls[0]); expectNotFound(err, "dropped collection") != nil {
			return expectNotFound(err, "dropped collection")
		}
	case opIngestDocs, opIngestJSONL, opIngestCSV:
		return w.ingest(o, c)
	case opDelete:
		err := w.e.DeleteDocument(ctx, o.owner, o.colls[0], o.id)
		if c == nil || c.docs[o.id] == nil {
			return expectNotFound(err, "delete "+o.id)
		}
		if err != nil {
			return fmt.Errorf("delete %s: %v", o.id, err)
		}
		delete(c.docs, o.id)
		if _, err := w.e.GetDocument(ctx, o.owner, o.colls[0], o.id); expectNotFound(err, "get deleted") != nil {
			return expectNotFound(err, "get deleted "+o.id)
		}
	case opMerge:
		err := w.e.MergeNow(o.owner, o.colls[0])
		if c == nil {
			return expectNotFound(err, "merge missing collection")
		}
		if err != nil {
			return fmt.Errorf("merge: %v", err)
		}
	case opReopen:
		if err := w.e.Close(); err != nil {
			return fmt.Errorf("close: %v", err)
		}
		e, err := engine.Open(w.opts)
		if err != nil {
			return fmt.Errorf("reopen: %v", err)
		}
		e.Store().SetInlineVectorsBytes(4096)
		w.e = e
		for k := range w.colls {
			if err := w.checkCount(k[0], k[1]); err != nil {
				return fmt.Errorf("after reopen: %v", err)
			}
		}
	case opSearch, opFilterOnly, opQueryParams, opAnswer:
		return w.search(o)
	case opGet:
		got, err := w.e.GetDocument(ctx, o.owner, o.colls[0], o.id)
		if c == nil || c.docs[o.id] == nil {
			return expectNotFound(err, "get "+o.id)
		}
		if err != nil {
			return fmt.Errorf("get %s: %v", o.id, err)
		}
		return sameDoc(got, c.docs[o.id])
	case opCount:
		if c == nil {
			_, err := w.e.GetCollection(ctx, o.owner, o.colls[0])
			return expectNotFound(err, "missing collection")
		}
		return w.checkCount(o.owner, o.colls[0])
	}
	return nil
}

// sameDoc compares a stored document with the model.
func sameDoc(got engine.Document, want *mDoc) error {
	if !slices.Equal(got.Sections, want.sections) {
		return fmt.Errorf("document %s: sections %v, want %v", got.DocumentID, got.Sections, want.sections)
	}
	gf := engine.FieldsMap(got.Fields, nil)
	for name, vals := range want.fields {
		if !sameValues(gf[name], vals) {
			return fmt.Errorf("document %s: field %s = %v, want %v", got.DocumentID, name, gf[name], vals)
		}
	}
	for name := range gf {
		if _, ok := want.fields[name]; !ok {
			return fmt.Errorf("document %s: unexpected field %s = %v", got.DocumentID, name, gf[name])
		}
	}
	return nil
}

func sameValues(got any, want []any) bool {
	var g []any
	switch x := got.(type) {
	case []any:
		g = x
	case nil:
	default:
		g = []any{x}
	}
	if len(g) != len(want) {
		return false
	}
	for i := range g {
		if fmt.Sprint(g[i]) != fmt.Sprint(want[i]) {
			return false
		}
	}
	return true
}

func (w *world) checkCount(owner, id string) error {
	c := w.coll(owner, id)
	info, err := w.e.GetCollection(w.ctx, owner, id)
	if err != nil {
		return fmt.Errorf("get collection %q/%s: %v", owner, id, err)
	}
	ids, _, err := w.e.ListDocuments(w.ctx, owner, id, 10000, "")
	if err != nil {
		return err
	}
	want := make([]string, 0, len(c.docs))
	for d := range c.docs {
		want = append(want, d)
	}
	sort.Strings(want)
	if int(info.DocumentCount) != len(ids) || !slices.Equal(ids, want) {
		return fmt.Errorf("collection %q/%s: document_count %d, listed %v, model %v", owner, id, info.DocumentCount, ids, want)
	}
	return nil
}

func (w *world) ingest(o op, c *mColl) error {
	req := engine.IngestRequest{}
	record := o.kind != opIngestDocs
	switch o.kind {
	case opIngestDocs:
		for _, in := range o.docs {
			d := in.doc(false)
			fields := map[string]any{}
			for k, v := range d.fields {
				if k == "tags" {
					fields[k] = v
				} else {
					fields[k] = v[0]
				}
			}
			req.Documents = append(req.Documents, engine.DocumentInput{DocumentID: in.id, Sections: d.sections, Fields: fields})
		}
	case opIngestJSONL:
		var b strings.Builder
		for _, in := range o.docs {
			m := map[string]any{"id": in.id, "title": in.title, "body": in.body}
			if in.color != "" {
				m["color"] = in.color
			}
			if len(in.tags) > 0 {
				m["tags"] = strings.Join(in.tags, "|")
			}
			if in.n != nil {
				m["n"] = *in.n
			}
			if in.label != "" {
				m["label"] = in.label
			}
			// Key order of the line: id, title, body, then the fields.
			line := fmt.Sprintf(`{"id":%q,"title":%q,"body":%q`, in.id, in.title, in.body)
			for _, k := range []string{"color", "tags", "n", "label"} {
				if v, ok := m[k]; ok {
					js, _ := json.Marshal(v)
					line += fmt.Sprintf(`,%q:%s`, k, js)
				}
			}
			b.WriteString(line + "}\n")
		}
		req.Format, req.Data, req.IDField = "jsonl", []byte(b.String()), "id"
	case opIngestCSV:
		var b strings.Builder
		b.WriteString("id,title,body,color,tags,n,label\n")
		for _, in := range o.docs {
			n := ""
			if in.n != nil {
				n = fmtNum(in.n)
			}
			fmt.Fprintf(&b, "%s,%s,%q,%s,%s,%s,%s\n", in.id, in.title, in.body, in.color, strings.Join(in.tags, "|"), n, in.label)
		}
		req.Format, req.Data, req.IDField = "csv", []byte(b.String()), "id"
	}
	res, err := w.e.Ingest(w.ctx, o.owner, o.colls[0], req)
	if c == nil {
		return expectNotFound(err, "ingest into missing collection")
	}
	if err != nil {
		return fmt.Errorf("ingest: %v", err)
	}
	if len(res.Errors) > 0 {
		return fmt.Errorf("ingest errors: %+v", res.Errors)
	}
	if len(res.Documents) != len(o.docs) {
		return fmt.Errorf("ingest acknowledged %d of %d documents: %+v", len(res.Documents), len(o.docs), res.Documents)
	}
	seen := map[string]bool{}
	for i, in := range o.docs {
		st := res.Documents[i]
		if st.DocumentID != in.id {
			return fmt.Errorf("ingest status %d names %s, want %s", i, st.DocumentID, in.id)
		}
		want := "created"
		if c.docs[in.id] != nil || seen[in.id] {
			want = "replaced"
		}
		if st.Status != want {
			return fmt.Errorf("ingest %s: status %s, want %s", in.id, st.Status, want)
		}
		seen[in.id] = true
		c.docs[in.id] = in.doc(record)
	}
	return nil
}

// search runs a search, filter-only search, query-parameter search or
// answer and checks every returned document.
func (w *world) search(o op) error {
	var colls []*mColl
	missing := false
	for _, id := range o.colls {
		c := w.coll(o.owner, id)
		if c == nil {
			missing = true
		}
		colls = append(colls, c)
	}
	req := engine.SearchRequest{Query: o.query, MaxResults: &o.max}
	if o.max == 0 {
		m := 1000
		req.MaxResults = &m
	}
	if o.flt != nil {
		req.Filter = json.RawMessage(o.flt.json())
	}
	if o.sections {
		req.ResultFormat = "sections"
	}
	req.SimpleFilters = o.params
	var (
		res engine.SearchResponse
		err error
	)
	if o.kind == opAnswer {
		hl := true
		req.Highlight = &hl
		res, err = w.e.Answer(w.ctx, o.owner, o.colls, req)
	} else {
		res, err = w.e.Search(w.ctx, o.owner, o.colls, req)
	}
	if missing {
		return expectNotFound(err, "search a missing collection")
	}
	if o.query != "" && len(colls) > 1 && colls[0].semantic != colls[1].semantic {
		if !errors.Is(err, engine.ErrInvalid) {
			return fmt.Errorf("search over collections of different models: want invalid, got %v", err)
		}
		return nil
	}
	if o.flt != nil && invalid(o.flt) {
		if !errors.Is(err, engine.ErrInvalid) {
			return fmt.Errorf("search with a filter the schema rejects: want invalid, got %v", err)
		}
		return nil
	}
	if err != nil {
		return fmt.Errorf("search: %v", err)
	}
	match := func(d *mDoc) bool {
		if o.flt != nil && !o.flt.match(d) {
			return false
		}
		for _, p := range o.params {
			if !paramMatch(d, p) {
				return false
			}
		}
		return true
	}
	// allowed: every live document of the searched collections that
	// matches the filter.
	type key struct{ coll, id string }
	allowed := map[key]*mDoc{}
	for i, c := range colls {
		for id, d := range c.docs {
			if match(d) {
				allowed[key{o.colls[i], id}] = d
			}
		}
	}
	seen := map[key]bool{}
	got := []key{}
	prev := math.Inf(1)
	for _, rd := range res.Documents {
		cid := rd.CollectionID
		if len(o.colls) == 1 {
			if cid != "" {
				return fmt.Errorf("single-collection result names collection %q", cid)
			}
			cid = o.colls[0]
		} else if !slices.Contains(o.colls, cid) {
			return fmt.Errorf("result %s from collection %q, searched %v", rd.DocumentID, cid, o.colls)
		}
		k := key{cid, rd.DocumentID}
		d, ok := allowed[k]
		if !ok {
			var c *mColl
			if i := slices.Index(o.colls, cid); i >= 0 {
				c = colls[i]
			}
			if c == nil || c.docs[rd.DocumentID] == nil {
				return fmt.Errorf("result %s/%s (source %s) does not exist or was deleted", cid, rd.DocumentID, rd.Source)
			}
			return fmt.Errorf("result %s/%s (source %s) does not match the filter", cid, rd.DocumentID, rd.Source)
		}
		if seen[k] {
			return fmt.Errorf("result %s/%s twice", cid, rd.DocumentID)
		}
		seen[k] = true
		got = append(got, k)
		if rd.Score > prev {
			return fmt.Errorf("results not sorted by score: %v after %v", rd.Score, prev)
		}
		prev = rd.Score
		if err := checkRendered(rd, d, o); err != nil {
			return err
		}
	}
	if len(res.Documents) > *req.MaxResults {
		return fmt.Errorf("%d results, max_results %d", len(res.Documents), *req.MaxResults)
	}
	if o.kind == opAnswer {
		for _, src := range res.Metadata.AnswerSources {
			found := false
			for k := range allowed {
				found = found || k.id == src
			}
			if !found {
				return fmt.Errorf("answer quotes %s, which is not an allowed document", src)
			}
		}
		if res.Answer == nil {
			return fmt.Errorf("answer missing")
		}
		return nil
	}
	if *req.MaxResults < len(allowed) {
		return nil
	}
	// Completeness. Filter only: exactly the allowed set. With a query:
	// at least every allowed document that contains a query word.
	if o.query == "" {
		if len(got) != len(allowed) {
			return fmt.Errorf("filter-only search returned %d documents, %d match", len(got), len(allowed))
		}
		return nil
	}
	words := strings.Fields(o.query)
	for k, d := range allowed {
		has := false
		for _, qw := range words {
			has = has || d.hasWord(qw)
		}
		if has && !seen[k] {
			return fmt.Errorf("document %s/%s contains a query word and matches, but was not returned (got %v)", k.coll, k.id, got)
		}
	}
	return nil
}

// paramMatch is the query endpoint's filter:field=value: a number field
// compares for equality, other fields contain the value case-insensitively.
func paramMatch(d *mDoc, p [2]string) bool {
	for _, v := range d.fields[p[0]] {
		switch x := v.(type) {
		case float64:
			if n, err := strconv.ParseFloat(p[1], 64); err == nil && n == x {
				return true
			}
		case string:
			if strings.Contains(strings.ToLower(x), strings.ToLower(p[1])) {
				return true
			}
		}
	}
	return false
}

// checkRendered checks a returned document's content and passages.
func checkRendered(rd engine.ResultDoc, d *mDoc, o op) error {
	if o.kind != opAnswer {
		if o.sections {
			if !slices.Equal(rd.Sections, d.sections) {
				return fmt.Errorf("result %s: sections %v, want %v", rd.DocumentID, rd.Sections, d.sections)
			}
		} else if rd.Content == nil || *rd.Content == "" {
			return fmt.Errorf("result %s: no content", rd.DocumentID)
		}
	}
	for _, p := range rd.Passages {
		if p.SectionIndex < 0 || p.SectionIndex >= len(d.sections) {
			return fmt.Errorf("result %s: passage section %d of %d", rd.DocumentID, p.SectionIndex, len(d.sections))
		}
		runes := []rune(d.sections[p.SectionIndex].Content)
		if p.Offsets[0] < 0 || p.Offsets[0] >= p.Offsets[1] || p.Offsets[1] > len(runes) {
			return fmt.Errorf("result %s: passage offsets %v in a section of %d runes", rd.DocumentID, p.Offsets, len(runes))
		}
		if s := string(runes[p.Offsets[0]:p.Offsets[1]]); s != p.Text {
			return fmt.Errorf("result %s: passage %q, offsets slice %q", rd.DocumentID, p.Text, s)
		}
	}
	return nil
}

// run applies ops to a fresh world and returns the index of the first
// failing operation and its error (-1, nil when all pass).
func run(dir string, prov engine.EmbedderProvider, bgMerge bool, ops []op) (int, error) {
	w, err := newWorld(dir, prov, bgMerge)
	if err != nil {
		return 0, err
	}
	defer w.close()
	for i, o := range ops {
		if err := w.apply(o); err != nil {
			return i, err
		}
	}
	return -1, nil
}

// shrink removes operations from a failing sequence while it still fails
// (delta debugging over chunks, then single operations).
func shrink(t *testing.T, prov engine.EmbedderProvider, bgMerge bool, ops []op) []op {
	fails := func(s []op) bool {
		i, _ := run(t.TempDir(), prov, bgMerge, s)
		return i >= 0
	}
	for chunk := len(ops) / 2; chunk >= 1; chunk /= 2 {
		for i := 0; i+chunk <= len(ops); {
			cand := append(slices.Clone(ops[:i]), ops[i+chunk:]...)
			if fails(cand) {
				ops = cand
			} else {
				i += chunk
			}
		}
	}
	return ops
}

func envInt(name string, def int) int {
	if v, err := strconv.Atoi(os.Getenv(name)); err == nil && v > 0 {
		return v
	}
	return def
}

// modelSeeds returns the seeds to run: NAJDI_MODEL_SEED.. or clock-based.
func modelSeeds(t *testing.T, n int) []uint64 {
	first := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("NAJDI_MODEL_SEED"), 10, 64); err == nil {
		first = v
	}
	seeds := make([]uint64, envInt("NAJDI_MODEL_SEEDS", n))
	for i := range seeds {
		seeds[i] = first + uint64(i)
	}
	return seeds
}

func genOps(seed uint64, n int) []op {
	g := gen{r: rand.New(rand.NewPCG(seed, 0x6e616a6469))}
	ops := make([]op, 0, n+1)
	// Start with a collection so that short runs do something.
	ops = append(ops, op{kind: opCreate, owner: "", colls: []string{"c1"}, semantic: seed%2 == 0})
	for len(ops) < n {
		ops = append(ops, g.op())
	}
	return ops
}

func runModel(t *testing.T, prov engine.EmbedderProvider, seeds []uint64, nops int) {
	total := 0
	for _, seed := range seeds {
		bg := seed%3 == 0
		ops := genOps(seed, nops)
		i, err := run(t.TempDir(), prov, bg, ops)
		total += len(ops)
		if i < 0 {
			continue
		}
		t.Errorf("seed %d (background merges %v): operation %d failed: %v", seed, bg, i, err)
		min := shrink(t, prov, bg, ops[:i+1])
		var b strings.Builder
		for j, o := range min {
			fmt.Fprintf(&b, "\n  %3d %s", j, o)
		}
		_, err = run(t.TempDir(), prov, bg, min)
		t.Fatalf("shortest failing sequence (%d operations) of seed %d, rerun with NAJDI_MODEL_SEED=%d NAJDI_MODEL_SEEDS=1: %v%s", len(min), seed, seed, err, b.String())
	}
	t.Logf("%d operations over %d seeds (first %d) passed", total, len(seeds), seeds[0])
}

// TestModel runs random operation sequences against the engine with a
// feature-hashing embedder for semantic collections, and checks each step
// against the reference model.
func TestModel(t *testing.T) {
	runModel(t, hashProvider{}, modelSeeds(t, 8), envInt("NAJDI_MODEL_OPS", 500))
}

func discardLogger() *slog.Logger { return slog.New(slog.DiscardHandler) }

// TestModelRealEmbeddings runs shorter sequences with the default ONNX
// model (bge-small-en-v1.5) for semantic collections.
func TestModelRealEmbeddings(t *testing.T) {
	p, err := engine.NewModelProvider(embed.CachePaths(embed.DefaultCacheDir()))
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	runModel(t, p, modelSeeds(t, 2), envInt("NAJDI_MODEL_OPS", 150))
}

// TestModelConcurrent applies a generated sequence's writes from one
// goroutine while readers search the same collections (run it with
// -race). Readers check what holds at any interleaving: every result
// belongs to a searched collection, is a document that was written there,
// and matched the filter in one of the versions written; filter-only
// results are unique and sorted by id.
func TestModelConcurrent(t *testing.T) {
	seeds := modelSeeds(t, 2)
	for _, seed := range seeds {
		w, err := newWorld(t.TempDir(), hashProvider{}, true)
		if err != nil {
			t.Fatal(err)
		}
		g := gen{r: rand.New(rand.NewPCG(seed, 1))}
		ctx := context.Background()
		cfgs := map[string]bool{"c1": false, "c2": true}
		for id, sem := range cfgs {
			if err := w.apply(op{kind: opCreate, colls: []string{id}, semantic: sem}); err != nil {
				t.Fatal(err)
			}
		}
		// versions[coll][id] holds every version of a document ever written.
		var mu sync.Mutex
		searches := 0
		versions := map[string]map[string][]*mDoc{"c1": {}, "c2": {}}
		done := make(chan struct{})
		var wg sync.WaitGroup
		errs := make(chan error, 8)
		for r := range 2 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				rg := gen{r: rand.New(rand.NewPCG(seed, uint64(100+r)))}
				for {
					select {
					case <-done:
						return
					default:
					}
					coll := rg.pick([]string{"c1", "c2"})
					flt := rg.filter(0)
					q := rg.words(1, 2)
					if rg.r.IntN(3) == 0 {
						q = ""
					}
					max := 1000
					res, err := w.e.Search(ctx, "", []string{coll}, engine.SearchRequest{Query: q, Filter: json.RawMessage(flt.json()), MaxResults: &max})
					if err != nil {
						errs <- fmt.Errorf("search: %v", err)
						return
					}
					mu.Lock()
					searches++
					for i, rd := range res.Documents {
						vs := versions[coll][rd.DocumentID]
						ok := false
						for _, v := range vs {
							ok = ok || flt.match(v)
						}
						if !ok {
							errs <- fmt.Errorf("seed %d: %s result %s (source %s) was never written or never matched %s", seed, coll, rd.DocumentID, rd.Source, flt.json())
						}
						if rd.Content == nil || *rd.Content == "" {
							errs <- fmt.Errorf("seed %d: %s result %s has no content (deleted after the search began?)", seed, coll, rd.DocumentID)
						}
						if q == "" && i > 0 && res.Documents[i-1].DocumentID >= rd.DocumentID {
							errs <- fmt.Errorf("seed %d: filter-only results not unique and sorted: %s then %s", seed, res.Documents[i-1].DocumentID, rd.DocumentID)
						}
					}
					mu.Unlock()
				}
			}()
		}
		for range envInt("NAJDI_MODEL_OPS", 300) {
			o := g.op()
			if o.kind != opIngestDocs && o.kind != opIngestJSONL && o.kind != opIngestCSV && o.kind != opDelete && o.kind != opMerge {
				continue
			}
			o.owner, o.colls = "", []string{g.pick([]string{"c1", "c2"})}
			if o.kind != opDelete && o.kind != opMerge {
				mu.Lock()
				for _, in := range o.docs {
					m := versions[o.colls[0]]
					m[in.id] = append(m[in.id], in.doc(o.kind != opIngestDocs))
				}
				mu.Unlock()
			}
			if err := w.apply(o); err != nil {
				t.Errorf("seed %d: %s: %v", seed, o, err)
				break
			}
		}
		close(done)
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Error(err)
		}
		t.Logf("seed %d: %d searches ran beside the writer", seed, searches)
		// Quiet again: the whole model holds.
		for id := range cfgs {
			if err := w.checkCount("", id); err != nil {
				t.Errorf("seed %d: %v", seed, err)
			}
		}
		w.close()
	}
}
