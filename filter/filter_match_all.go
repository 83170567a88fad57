package filter

import (
	"github.com/RoaringBitmap/roaring/v2"
)

// MatchAll matches every document: {"match_all": {}}.
type MatchAll struct{}

// String returns the canonical JSON form.
func (MatchAll) String() string { return `{"match_all":{}}` }

// Validate always succeeds.
func (MatchAll) Validate(Schema) error { return nil }

func (MatchAll) eval(e *evalCtx, _, dst *roaring.Bitmap) error {
	e.all(dst)
	return nil
}

func (MatchAll) cost(e *evalCtx) (uint64, *roaring.Bitmap) { return uint64(e.idx.NumDocs()), nil }

// MatchNone matches no document: {"match_none": {}}.
type MatchNone struct{}

// String returns the canonical JSON form.
func (MatchNone) String() string { return `{"match_none":{}}` }

// Validate always succeeds.
func (MatchNone) Validate(Schema) error { return nil }

func (MatchNone) eval(_ *evalCtx, _, dst *roaring.Bitmap) error {
	dst.Clear()
	return nil
}

func (MatchNone) cost(*evalCtx) (uint64, *roaring.Bitmap) { return 0, nil }

func parseMatchAll(_ *parser, path string, body any) (Query, error) {
	if err := checkEmptyParams(path, body); err != nil {
		return nil, err
	}
	return MatchAll{}, nil
}

func parseMatchNone(_ *parser, path string, body any) (Query, error) {
	if err := checkEmptyParams(path, body); err != nil {
		return nil, err
	}
	return MatchNone{}, nil
}

func checkEmptyParams(path string, body any) error {
	obj, ok := body.(map[string]any)
	if !ok {
		return errAt(path, "expected an object, got %s", jsonKind(body))
	}
	return parseParams(path, obj, "", nil)
}
