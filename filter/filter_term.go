package filter

import (
	"math"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// ValueKind is the JSON type a term value was written with.
type ValueKind uint8

// Value kinds.
const (
	// KindString is a JSON string.
	KindString ValueKind = iota
	// KindNumber is a JSON number; Text holds its literal.
	KindNumber
	// KindBool is a JSON boolean; Text is "true" or "false".
	KindBool
)

// Value is a term value. Text is the exact string matched against string
// fields; on number fields Text is parsed as a float64 (a numeric string is
// accepted, as in Elasticsearch).
type Value struct {
	Text string
	Kind ValueKind
}

// Number returns the numeric value of v and whether it is numeric.
func (v Value) Number() (float64, bool) {
	t := strings.TrimSpace(v.Text)
	// Only decimal literals count; the check also keeps ParseFloat from
	// allocating an error for ordinary strings on the hot path.
	if t == "" || !strings.ContainsRune("0123456789+-.", rune(t[0])) {
		return 0, false
	}
	f, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(f) {
		return 0, false
	}
	return f, true
}

func (v Value) writeJSON(b *strings.Builder) {
	if v.Kind == KindString {
		quoteJSON(b, v.Text)
		return
	}
	b.WriteString(v.Text)
}

func checkValue(field string, t FieldType, construct string, v Value) error {
	if t != FieldNumber {
		return nil
	}
	if _, ok := v.Number(); !ok {
		return errAt("filter", "%s value %q on number field %q is not a number", construct, v.Text, field)
	}
	return nil
}

// Term matches the documents where any value of Field equals Value exactly
// (case-sensitively unless CaseInsensitive): {"term": {"f": "v"}} or
// {"term": {"f": {"value": "v", "case_insensitive": true}}}. On a number
// field the value is compared numerically.
type Term struct {
	Field           string
	Value           Value
	CaseInsensitive bool
}

// String returns the canonical JSON form.
func (q *Term) String() string {
	var b strings.Builder
	b.WriteString(`{"term":{`)
	quoteJSON(&b, q.Field)
	b.WriteByte(':')
	if q.CaseInsensitive {
		b.WriteString(`{"value":`)
		q.Value.writeJSON(&b)
		b.WriteString(`,"case_insensitive":true}`)
	} else {
		q.Value.writeJSON(&b)
	}
	b.WriteString(`}}`)
	return b.String()
}

// Validate checks the field and, on number fields, that the value is numeric.
func (q *Term) Validate(s Schema) error {
	t, err := checkField(s, q.Field, "term")
	if err != nil {
		return err
	}
	return checkValue(q.Field, t, "term", q.Value)
}

func (q *Term) eval(e *evalCtx, within, dst *roaring.Bitmap) error {
	dst.Clear()
	termInto(e, q.Field, q.Value, q.CaseInsensitive, within, dst)
	return nil
}

// termInto ORs the docs matching one term value into dst.
func termInto(e *evalCtx, field string, v Value, ci bool, within, dst *roaring.Bitmap) {
	if ci {
		e.idx.Terms(field, "", func(term string, docs *roaring.Bitmap) bool {
			if strings.EqualFold(term, v.Text) {
				dst.Or(docs)
			}
			return true
		})
	} else if bm := e.idx.Term(field, v.Text); bm != nil {
		dst.Or(bm)
	}
	if f, ok := v.Number(); ok {
		e.idx.NumberRange(field, NumRange{Lo: f, Hi: f, LoIncl: true, HiIncl: true}, within, dst)
	}
}

func termCost(e *evalCtx, field string, v Value, ci bool) (uint64, *roaring.Bitmap) {
	var n uint64
	if f, ok := v.Number(); ok {
		n = e.idx.NumberRangeCount(field, NumRange{Lo: f, Hi: f, LoIncl: true, HiIncl: true})
	}
	if ci {
		return n + uint64(e.idx.NumDocs())/2 + 1, nil // never claims empty
	}
	bm := e.idx.Term(field, v.Text)
	if bm == nil {
		return n, nil
	}
	if n == 0 {
		return bm.GetCardinality(), bm
	}
	return n + bm.GetCardinality(), nil
}

func (q *Term) cost(e *evalCtx) (uint64, *roaring.Bitmap) {
	return termCost(e, q.Field, q.Value, q.CaseInsensitive)
}

func parseTerm(_ *parser, path string, body any) (Query, error) {
	field, fb, err := singleField(path, body)
	if err != nil {
		return nil, err
	}
	path += "." + field
	q := &Term{Field: field}
	obj, ok := fb.(map[string]any)
	if !ok {
		q.Value, err = parseValue(path, fb)
		return q, err
	}
	err = parseParams(path, obj, "value", params{
		"value": func(path string, v any) (err error) {
			q.Value, err = parseValue(path, v)
			return err
		},
		"case_insensitive": func(path string, v any) (err error) {
			q.CaseInsensitive, err = parseBoolFlag(path, v)
			return err
		},
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// Terms matches the documents where any value of Field equals any of
// Values: {"terms": {"f": ["a", "b"]}}. An empty Values matches nothing.
type Terms struct {
	Field  string
	Values []Value
}

// String returns the canonical JSON form.
func (q *Terms) String() string {
	var b strings.Builder
	b.WriteString(`{"terms":{`)
	quoteJSON(&b, q.Field)
	b.WriteString(`:[`)
	for i, v := range q.Values {
		if i > 0 {
			b.WriteByte(',')
		}
		v.writeJSON(&b)
	}
	b.WriteString(`]}}`)
	return b.String()
}

// Validate checks the field and, on number fields, that values are numeric.
func (q *Terms) Validate(s Schema) error {
	t, err := checkField(s, q.Field, "terms")
	if err != nil {
		return err
	}
	for _, v := range q.Values {
		if err := checkValue(q.Field, t, "terms", v); err != nil {
			return err
		}
	}
	return nil
}

func (q *Terms) eval(e *evalCtx, within, dst *roaring.Bitmap) error {
	dst.Clear()
	for _, v := range q.Values {
		termInto(e, q.Field, v, false, within, dst)
	}
	return nil
}

func (q *Terms) cost(e *evalCtx) (uint64, *roaring.Bitmap) {
	var n uint64
	var direct *roaring.Bitmap
	for _, v := range q.Values {
		c, d := termCost(e, q.Field, v, false)
		n += c
		direct = d
	}
	if len(q.Values) != 1 {
		direct = nil
	}
	return n, direct
}

func parseTerms(_ *parser, path string, body any) (Query, error) {
	field, fb, err := singleField(path, body)
	if err != nil {
		return nil, err
	}
	path += "." + field
	arr, ok := fb.([]any)
	if !ok {
		if _, isObj := fb.(map[string]any); isObj {
			return nil, unsupportedAt(path, "terms lookup")
		}
		return nil, errAt(path, "expected an array of values, got %s", jsonKind(fb))
	}
	q := &Terms{Field: field, Values: make([]Value, 0, len(arr))}
	for i, v := range arr {
		val, err := parseValue(path+"["+strconv.Itoa(i)+"]", v)
		if err != nil {
			return nil, err
		}
		q.Values = append(q.Values, val)
	}
	return q, nil
}
