package errs_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/najdi/najdi/internal/errs"
	"github.com/najdi/najdi/internal/strictjson"
)

func TestKindOf(t *testing.T) {
	upstream := errs.Alias(errs.ErrUpstream, "annotation service failed")
	for _, tc := range []struct {
		name string
		err  error
		want error
	}{
		{"nil", nil, nil},
		{"plain error", errors.New("disk full"), nil},
		{"kind itself", errs.ErrNotFound, errs.ErrNotFound},
		{"wrapped kind", fmt.Errorf("model %q: %w", "m", errs.ErrConflict), errs.ErrConflict},
		{"alias", fmt.Errorf("ner: %w", upstream), errs.ErrUpstream},
		{"Error", errs.New(errs.ErrTooLarge, "%d bytes", 5), errs.ErrTooLarge},
		{"Field", errs.Field("max_results", "must be positive"), errs.ErrInvalid},
		{"Error's kind wins over its cause's", errs.Wrap(errs.ErrInvalid, errs.New(errs.ErrTooLarge, "big"), "bad"), errs.ErrInvalid},
		{"Error wrapped with %w", fmt.Errorf("job: %w", errs.Wrap(errs.ErrUpstreamTimeout, nil, "slow")), errs.ErrUpstreamTimeout},
		{"Error with an alias kind", &errs.Error{Kind: upstream, Message: "x"}, errs.ErrUpstream},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := errs.KindOf(tc.err); got != tc.want {
				t.Errorf("KindOf(%v) = %v, want %v", tc.err, got, tc.want)
			}
		})
	}
}

func TestAliasKeepsItsWordsAndItsKind(t *testing.T) {
	a := errs.Alias(errs.ErrInvalid, "summary: invalid")
	err := fmt.Errorf("tokenizer %q: %w", "x", a)
	if err.Error() != `tokenizer "x": summary: invalid` {
		t.Errorf("message = %q", err)
	}
	if !errors.Is(err, a) || !errors.Is(err, errs.ErrInvalid) || errors.Is(err, errs.ErrNotFound) {
		t.Errorf("errors.Is: alias %v, kind %v, other kind %v", errors.Is(err, a), errors.Is(err, errs.ErrInvalid), errors.Is(err, errs.ErrNotFound))
	}
}

func TestErrorMatchesKindAndCause(t *testing.T) {
	cause := errors.New("eof")
	err := errs.Wrap(errs.ErrUpstream, cause, "the model %q failed", "m")
	if err.Error() != `the model "m" failed: eof` {
		t.Errorf("message = %q", err)
	}
	if !errors.Is(err, errs.ErrUpstream) || !errors.Is(err, cause) {
		t.Error("Wrap's error does not match its kind and cause")
	}
}

func TestDecodeJSON(t *testing.T) {
	type inner struct {
		N int `json:"n"`
	}
	type req struct {
		Query string  `json:"query"`
		Items []inner `json:"items"`
	}
	for _, tc := range []struct {
		body, msg, field string
	}{
		{`{"query": "a"}`, "", ""},
		{`{"query": 5}`, "search request: query must be a string, got a number", "query"},
		{`{"items": [{"n": 1}, {"m": 2}]}`, `search request: unknown field "items[1].m" (known fields of items[1]: n)`, "items[1].m"},
		{`{"query": "a"} x`, "search request: unexpected data after the JSON value at line 1, column 16", ""},
	} {
		var r req
		err := errs.DecodeJSON("search request", []byte(tc.body), &r, strictjson.Options{})
		if tc.msg == "" {
			if err != nil {
				t.Errorf("%s: %v", tc.body, err)
			}
			continue
		}
		var e *errs.Error
		if !errors.As(err, &e) || !errors.Is(err, errs.ErrInvalid) {
			t.Fatalf("%s: err = %v (%T), want an Invalid *errs.Error", tc.body, err, err)
		}
		if e.Message != tc.msg {
			t.Errorf("%s: message = %q, want %q", tc.body, e.Message, tc.msg)
		}
		if got, _ := e.Details["field"].(string); got != tc.field {
			t.Errorf("%s: details.field = %q, want %q", tc.body, got, tc.field)
		}
	}
}

func TestName(t *testing.T) {
	for err, want := range map[error]string{
		errs.Field("q", "bad"): "invalid",
		fmt.Errorf("engine: %w", errs.Alias(errs.ErrUnavailable, "x")): "unavailable",
		errors.New("disk full"): "none",
	} {
		if got := errs.Name(err); got != want {
			t.Errorf("Name(%v) = %q, want %q", err, got, want)
		}
	}
	for _, k := range errs.Kinds {
		if errs.Name(k) == "none" {
			t.Errorf("kind %v has no name", k)
		}
	}
}
