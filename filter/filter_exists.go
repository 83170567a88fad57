package filter

import (
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// Exists matches the documents with at least one value of Field:
// {"exists": {"field": "f"}}.
type Exists struct {
	Field string
}

// String returns the canonical JSON form.
func (q *Exists) String() string {
	var b strings.Builder
	b.WriteString(`{"exists":{"field":`)
	quoteJSON(&b, q.Field)
	b.WriteString(`}}`)
	return b.String()
}

// Validate checks that Field is filterable.
func (q *Exists) Validate(s Schema) error {
	_, err := checkField(s, q.Field, "exists")
	return err
}

func (q *Exists) eval(e *evalCtx, _, dst *roaring.Bitmap) error {
	dst.Clear()
	if bm := e.idx.Exists(q.Field); bm != nil {
		dst.Or(bm)
	}
	return nil
}

func (q *Exists) cost(e *evalCtx) (uint64, *roaring.Bitmap) {
	bm := e.idx.Exists(q.Field)
	if bm == nil {
		return 0, nil
	}
	return bm.GetCardinality(), bm
}

func parseExists(_ *parser, path string, body any) (Query, error) {
	obj, ok := body.(map[string]any)
	if !ok {
		return nil, errAt(path, "expected an object, got %s", jsonKind(body))
	}
	q := &Exists{}
	err := parseParams(path, obj, "field", params{
		"field": func(path string, v any) error {
			s, ok := v.(string)
			if !ok {
				return errAt(path, "expected a string, got %s", jsonKind(v))
			}
			q.Field = s
			return nil
		},
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}
