package cluster

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/najdi/najdi/filter"
	"github.com/najdi/najdi/internal/errs"
)

func TestTranslate(t *testing.T) {
	es := &Client{info: Info{Flavour: Elasticsearch, Version: "8.19.8", Major: 8}}
	os3 := &Client{info: Info{Flavour: OpenSearch, Version: "3.5.0", Major: 3}}
	schema := filter.SchemaMap{"e": filter.FieldEnum, "n": filter.FieldNumber}
	for _, tc := range []struct {
		c          *Client
		in, want   string
		wantErrKin error
	}{
		{es, `{"term":{"e":"Ab"}}`, `{"term":{"e":"Ab"}}`, nil},
		{es, `{"term":{"e":{"value":"Čaj 1","case_insensitive":true}}}`, `{"regexp":{"e":{"value":"[Čč][aA][jJ]\\ 1","flags":"ALL"}}}`, nil},
		{es, `{"prefix":{"e":{"value":"k","case_insensitive":true}}}`, "{\"regexp\":{\"e\":{\"value\":\"[k\u212aK].*\",\"flags\":\"ALL\"}}}", nil},
		{es, `{"regexp":{"e":{"value":"[a-c]ň\"x.\"~(b)","case_insensitive":true}}}`, `{"regexp":{"e":{"value":"[a-cA-C][ňŇ][xX]\\.~([bB])","flags":"ALL"}}}`, nil},
		{es, `{"regexp":{"e":"~(b)"}}`, `{"regexp":{"e":{"value":"~(b)","flags":"ALL"}}}`, nil},
		{os3, `{"regexp":{"e":"~(b)"}}`, `{"regexp":{"e":{"value":"~(b)","flags":"INTERSECTION|COMPLEMENT|EMPTY|ANYSTRING|INTERVAL"}}}`, nil},
		{es, `{"contains":{"e":"a.b"}}`, ``, ErrInvalid},
		{es, `{"contains":{"e":"a\\.b"}}`, `{"regexp":{"e":{"value":".*[aA]\\.[bB].*","flags":"ALL"}}}`, nil},
		{es, `{"contains":{"n":"2.5"}}`, `{"term":{"n":2.5}}`, nil},
		{es, `{"bool":{"must_not":{"term":{"n":1}},"minimum_should_match":"50%"}}`, `{"bool":{"must_not":[{"term":{"n":1}}],"minimum_should_match":"50%"}}`, nil},
	} {
		q, err := filter.Parse([]byte(tc.in))
		if err != nil {
			t.Fatalf("%s: %v", tc.in, err)
		}
		got, err := tc.c.Translate(q, schema)
		if tc.wantErrKin != nil {
			if !errors.Is(err, tc.wantErrKin) {
				t.Errorf("%s: error %v, want %v", tc.in, err, tc.wantErrKin)
			}
			continue
		}
		if err != nil || string(got) != tc.want {
			t.Errorf("%s (%s):\n got  %s %v\n want %s", tc.in, tc.c.info.Flavour, got, err, tc.want)
		}
		var v any
		if err := json.Unmarshal(got, &v); err != nil {
			t.Errorf("%s: invalid JSON %s", tc.in, got)
		}
	}
}

func TestMeta(t *testing.T) {
	forEachNode(t, func(t *testing.T, c *Client) {
		ctx := testCtx(t)
		if _, err := c.GetMeta(ctx, "coll/x"); !errors.Is(err, ErrNotFound) {
			t.Fatalf("GetMeta before any put: %v", err)
		}
		if keys, err := c.ListMeta(ctx, "coll/"); err != nil || len(keys) != 0 {
			t.Fatalf("ListMeta before any put: %v %v", keys, err)
		}
		for _, k := range []string{"coll/b", "coll/a", "nlu/m"} {
			if err := c.PutMeta(ctx, k, json.RawMessage(`{"name":"`+k+`","n":[1,2]}`)); err != nil {
				t.Fatal(err)
			}
		}
		v, err := c.GetMeta(ctx, "coll/a")
		if err != nil || string(v) != `{"name":"coll/a","n":[1,2]}` {
			t.Fatalf("GetMeta = %s, %v", v, err)
		}
		keys, err := c.ListMeta(ctx, "coll/")
		if err != nil || !slices.Equal(keys, []string{"coll/a", "coll/b"}) {
			t.Fatalf("ListMeta = %v, %v", keys, err)
		}
		if err := c.DeleteMeta(ctx, "coll/a"); err != nil {
			t.Fatal(err)
		}
		if err := c.DeleteMeta(context.Background(), "coll/a"); err != nil {
			t.Fatalf("second delete: %v", err)
		}
		keys, _ = c.ListMeta(ctx, "coll/")
		if !slices.Equal(keys, []string{"coll/b"}) {
			t.Fatalf("ListMeta after delete = %v", keys)
		}
	})
}

func TestErrorKindsAreNajdiKinds(t *testing.T) {
	for _, tc := range []struct {
		status int
		kind   error
	}{{400, errs.ErrInvalid}, {404, errs.ErrNotFound}, {409, errs.ErrConflict}, {429, errs.ErrBusy},
		{503, errs.ErrUnavailable}, {504, errs.ErrUnavailable}, {500, errs.ErrUpstream}} {
		err := clusterError(kindOf(tc.status), tc.status, "op", "", nil)
		if !errors.Is(err, tc.kind) || !errors.Is(err, kindOf(tc.status)) {
			t.Errorf("HTTP %d: %v is not %v", tc.status, err, tc.kind)
		}
	}
}
