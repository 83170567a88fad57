package filter

import (
	"encoding/json"
	"math"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// Range matches the documents with a value of the number Field within the
// bounds: {"range": {"price": {"gte": 10, "lt": 20}}}. Nil bounds are open;
// a range without bounds matches every document with a numeric value.
// Range applies to number fields only (a range on enum strings is rejected
// by Validate).
type Range struct {
	Field            string
	GT, GTE, LT, LTE *float64
}

// String returns the canonical JSON form.
func (q *Range) String() string {
	var b strings.Builder
	b.WriteString(`{"range":{`)
	quoteJSON(&b, q.Field)
	b.WriteString(`:{`)
	first := true
	for _, op := range [...]struct {
		name string
		v    *float64
	}{{"gt", q.GT}, {"gte", q.GTE}, {"lt", q.LT}, {"lte", q.LTE}} {
		if op.v == nil {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteByte('"')
		b.WriteString(op.name)
		b.WriteString(`":`)
		b.WriteString(formatFloat(*op.v))
	}
	b.WriteString(`}}}`)
	return b.String()
}

// Validate checks that Field is a number field.
func (q *Range) Validate(s Schema) error {
	_, err := checkField(s, q.Field, "range", FieldNumber)
	return err
}

// numRange converts the bounds to an interval.
func (q *Range) numRange() NumRange {
	r := NumRange{Lo: math.Inf(-1), Hi: math.Inf(1), LoIncl: true, HiIncl: true}
	if q.GT != nil {
		r.Lo, r.LoIncl = *q.GT, false
	}
	if q.GTE != nil && (q.GT == nil || *q.GTE > *q.GT) {
		r.Lo, r.LoIncl = *q.GTE, true
	}
	if q.LT != nil {
		r.Hi, r.HiIncl = *q.LT, false
	}
	if q.LTE != nil && (q.LT == nil || *q.LTE < *q.LT) {
		r.Hi, r.HiIncl = *q.LTE, true
	}
	return r
}

func (q *Range) eval(e *evalCtx, within, dst *roaring.Bitmap) error {
	dst.Clear()
	if r := q.numRange(); !r.Empty() {
		e.idx.NumberRange(q.Field, r, within, dst)
	}
	return nil
}

func (q *Range) cost(e *evalCtx) (uint64, *roaring.Bitmap) {
	r := q.numRange()
	if r.Empty() {
		return 0, nil
	}
	return e.idx.NumberRangeCount(q.Field, r), nil
}

func parseRange(_ *parser, path string, body any) (Query, error) {
	field, fb, err := singleField(path, body)
	if err != nil {
		return nil, err
	}
	path += "." + field
	obj, ok := fb.(map[string]any)
	if !ok {
		return nil, errAt(path, "expected an object of operators, got %s", jsonKind(fb))
	}
	q := &Range{Field: field}
	// Elasticsearch lets a later gt/gte (lt/lte) replace an earlier one; a
	// map has no order, so both present is rejected as ambiguous.
	for k, v := range obj {
		var dst **float64
		switch k {
		case "gt":
			dst = &q.GT
		case "gte":
			dst = &q.GTE
		case "lt":
			dst = &q.LT
		case "lte":
			dst = &q.LTE
		case "boost":
			if err := checkBoost(path+".boost", v); err != nil {
				return nil, err
			}
			continue
		case "_name":
			continue
		case "from", "to", "include_lower", "include_upper", "format", "relation", "time_zone":
			return nil, unsupportedAt(path+"."+k, "range "+k)
		default:
			return nil, errAt(path, "unknown operator %q", k)
		}
		f, err := parseBound(path+"."+k, v)
		if err != nil {
			return nil, err
		}
		*dst = f
	}
	if q.GT != nil && q.GTE != nil {
		return nil, errAt(path, "both \"gt\" and \"gte\" given")
	}
	if q.LT != nil && q.LTE != nil {
		return nil, errAt(path, "both \"lt\" and \"lte\" given")
	}
	return q, nil
}

// parseBound decodes a range bound: a number, a numeric string, or null
// (unbounded, as in Elasticsearch).
func parseBound(path string, v any) (*float64, error) {
	var s string
	switch x := v.(type) {
	case nil:
		return nil, nil
	case json.Number:
		s = x.String()
	case string:
		s = strings.TrimSpace(x)
	default:
		return nil, errAt(path, "expected a number, got %s", jsonKind(v))
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
		return nil, errAt(path, "%q is not a finite number", s)
	}
	return &f, nil
}
