package filter

import (
	"regexp"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// Contains is the simple filter of the query endpoint (`filter:{field}=value`):
// it matches the documents where a value of Field contains Value, where
// Value is a Go (RE2) regular expression searched anywhere in the field
// value, case-insensitively; a Value that is not a valid RE2 expression is
// searched as a literal substring. On a number field Value must be a number
// and is compared for equality. Its JSON form is the najdi extension
// {"contains": {"f": "value"}}.
type Contains struct {
	Field string
	Value string

	re *regexp.Regexp
}

// NewContains returns a compiled Contains clause.
func NewContains(field, value string) (*Contains, error) {
	re, err := regexp.Compile("(?i)" + value)
	if err != nil {
		re = regexp.MustCompile("(?i)" + regexp.QuoteMeta(value))
	}
	return &Contains{Field: field, Value: value, re: re}, nil
}

// String returns the canonical JSON form.
func (q *Contains) String() string {
	var b strings.Builder
	b.WriteString(`{"contains":{`)
	quoteJSON(&b, q.Field)
	b.WriteByte(':')
	quoteJSON(&b, q.Value)
	b.WriteString(`}}`)
	return b.String()
}

// Validate checks the field and, on number fields, that Value is a number.
func (q *Contains) Validate(s Schema) error {
	t, err := checkField(s, q.Field, "contains")
	if err != nil {
		return err
	}
	if t == FieldNumber {
		if _, ok := (Value{Text: q.Value}).Number(); !ok {
			return errorf(ErrInvalid, "filter on number field %q: %q is not a number", q.Field, q.Value)
		}
	}
	return nil
}

func (q *Contains) eval(e *evalCtx, within, dst *roaring.Bitmap) error {
	dst.Clear()
	re := q.re
	if re == nil {
		c, _ := NewContains(q.Field, q.Value)
		re = c.re
	}
	e.idx.Terms(q.Field, "", func(term string, docs *roaring.Bitmap) bool {
		if re.MatchString(term) {
			dst.Or(docs)
		}
		return true
	})
	if f, ok := (Value{Text: q.Value}).Number(); ok {
		e.idx.NumberRange(q.Field, NumRange{Lo: f, Hi: f, LoIncl: true, HiIncl: true}, within, dst)
	}
	return nil
}

func (q *Contains) cost(e *evalCtx) (uint64, *roaring.Bitmap) {
	return uint64(e.idx.NumDocs()) + 1, nil
}

func parseContains(_ *parser, path string, body any) (Query, error) {
	field, fb, err := singleField(path, body)
	if err != nil {
		return nil, err
	}
	s, ok := fb.(string)
	if !ok {
		return nil, errAt(path+"."+field, "expected a string, got %s", jsonKind(fb))
	}
	return NewContains(field, s)
}
