package filter

import (
	"errors"
	"fmt"
	"math"
	"sync"

	"github.com/RoaringBitmap/roaring/v2"
)

// ErrInvalid is wrapped by every error about a malformed filter or a filter
// that does not fit the collection schema (HTTP 400).
var ErrInvalid = errors.New("invalid filter")

// ErrUnsupported is wrapped by errors about well-formed Elasticsearch
// constructs that najdi does not implement (HTTP 400 naming the construct).
// Such errors wrap ErrInvalid too.
var ErrUnsupported = fmt.Errorf("%w: unsupported construct", ErrInvalid)

// ErrTooComplex is wrapped by errors about a regular expression whose
// automaton exceeds the complexity limits (HTTP 400).
var ErrTooComplex = fmt.Errorf("%w: too complex", ErrInvalid)

// kindError is an error of one of the kinds above (in its chain, for
// errors.Is) whose message is only what it says about the filter:
// "filter.bool.must[0]: unsupported construct \"fuzzy\"", not the kind's
// words again.
type kindError struct {
	kind error
	msg  string
}

func (e *kindError) Error() string { return e.msg }
func (e *kindError) Unwrap() error { return e.kind }

// errorf returns a kindError of kind with a formatted message.
func errorf(kind error, format string, args ...any) error {
	return &kindError{kind: kind, msg: fmt.Sprintf(format, args...)}
}

// FieldType is the schema type of a field. Only FieldEnum, FieldEnumText and
// FieldNumber are filterable; any other value (such as "text") is not.
type FieldType string

// Filterable field types.
const (
	// FieldEnum is an exact-value string field that is not searchable text.
	FieldEnum FieldType = "enum"
	// FieldEnumText is an exact-value string field whose text is also searchable.
	FieldEnumText FieldType = "enum_text"
	// FieldNumber is a float64 field filterable by range.
	FieldNumber FieldType = "number"
)

// Schema tells Validate the type of each field. The second result is false
// for an unknown field.
type Schema interface {
	FieldType(field string) (FieldType, bool)
}

// SchemaMap is a Schema backed by a map from field name to type.
type SchemaMap map[string]FieldType

// FieldType returns the type of field and whether it is known.
func (m SchemaMap) FieldType(field string) (FieldType, bool) {
	t, ok := m[field]
	return t, ok
}

// Query is one clause of the filter DSL. Implementations are the clause
// types of this package (Bool, Term, Terms, Range, Regexp, Exists, MatchAll,
// MatchNone, Prefix, Contains); they are immutable once built and safe for
// concurrent evaluation.
type Query interface {
	// String returns the canonical JSON form of the clause; Parse of it
	// yields an equal clause.
	String() string
	// Validate checks the clause and its children against the schema.
	Validate(s Schema) error

	// eval sets dst to the matching docs. If within is non-nil the result
	// may be restricted to docs in within (the caller intersects anyway).
	eval(e *evalCtx, within, dst *roaring.Bitmap) error
	// cost estimates the number of docs the clause yields, for ordering
	// conjunctions; direct is non-nil when the result is one read-only
	// index bitmap that can be used without evaluation.
	cost(e *evalCtx) (n uint64, direct *roaring.Bitmap)
}

// NumRange is a numeric interval; infinite bounds are allowed.
type NumRange struct {
	Lo, Hi         float64
	LoIncl, HiIncl bool
}

// Contains reports whether v lies in the interval.
func (r NumRange) Contains(v float64) bool {
	if v < r.Lo || (v == r.Lo && !r.LoIncl) {
		return false
	}
	if v > r.Hi || (v == r.Hi && !r.HiIncl) {
		return false
	}
	return true
}

// Empty reports whether no value can lie in the interval.
func (r NumRange) Empty() bool {
	return r.Lo > r.Hi || (r.Lo == r.Hi && !(r.LoIncl && r.HiIncl)) || math.IsNaN(r.Lo) || math.IsNaN(r.Hi)
}

// Index is what a filter is evaluated against: the field data of one
// segment. Documents are numbered 0..NumDocs()-1. Bitmaps returned by the
// index are read-only for the caller.
type Index interface {
	// NumDocs returns the number of documents of the segment.
	NumDocs() uint32
	// Term returns the docs whose string field holds value, nil if none.
	Term(field, value string) *roaring.Bitmap
	// Terms calls fn for the terms of string field that are >= from, in
	// ascending byte order, until fn returns false.
	Terms(field, from string, fn func(term string, docs *roaring.Bitmap) bool)
	// NumberRange ORs into dst the docs with a value of the number field in
	// r. If within is non-nil the index may restrict the added docs to
	// within (it chooses the cheaper strategy).
	NumberRange(field string, r NumRange, within, dst *roaring.Bitmap)
	// NumberRangeCount returns an upper bound of the docs NumberRange would
	// add, cheaply (used to order conjunctions).
	NumberRangeCount(field string, r NumRange) uint64
	// Exists returns the docs with at least one value of field, nil if none.
	Exists(field string) *roaring.Bitmap
}

// Eval sets dst (cleared first, caller-owned) to the docs of idx matching q.
// Eval does not validate q against a schema; call Validate first. It uses
// pooled scratch bitmaps and does not retain dst or idx.
func Eval(q Query, idx Index, dst *roaring.Bitmap) error {
	e := evalCtxPool.Get().(*evalCtx)
	e.idx = idx
	err := q.eval(e, nil, dst)
	e.idx = nil
	evalCtxPool.Put(e)
	return err
}

// evalCtx carries the index and a free list of scratch bitmaps.
type evalCtx struct {
	idx  Index
	free []*roaring.Bitmap
	ords [][]fltOrder
}

// fltOrder is one conjunct of a Bool with its estimated cost.
type fltOrder struct {
	q      Query
	n      uint64
	direct *roaring.Bitmap
}

var evalCtxPool = sync.Pool{New: func() any { return &evalCtx{} }}

func (e *evalCtx) get() *roaring.Bitmap {
	if n := len(e.free); n > 0 {
		b := e.free[n-1]
		e.free = e.free[:n-1]
		b.Clear()
		return b
	}
	return roaring.New()
}

func (e *evalCtx) put(b *roaring.Bitmap) { e.free = append(e.free, b) }

func (e *evalCtx) getOrds() []fltOrder {
	if n := len(e.ords); n > 0 {
		o := e.ords[n-1]
		e.ords = e.ords[:n-1]
		return o[:0]
	}
	return make([]fltOrder, 0, 8)
}

func (e *evalCtx) putOrds(o []fltOrder) {
	clear(o)
	e.ords = append(e.ords, o[:0])
}

// all sets dst to every doc of the index.
func (e *evalCtx) all(dst *roaring.Bitmap) {
	dst.Clear()
	if n := e.idx.NumDocs(); n > 0 {
		dst.AddRange(0, uint64(n))
	}
}
