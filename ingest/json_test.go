package ingest

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

func TestJSONCountries(t *testing.T) {
	recs, rerrs := recAll(t, FormatJSON, testutil.ReadDoc(t, "countries.json"), RecordOptions{})
	if len(rerrs) != 0 {
		t.Fatalf("record errors: %v", rerrs)
	}
	if len(recs) != 250 {
		t.Fatalf("got %d records, want 250", len(recs))
	}
	byCode := map[string]Record{}
	for i, r := range recs {
		if r.Index != i {
			t.Fatalf("record %d has Index %d", i, r.Index)
		}
		v, _ := recProp(r, "cca3")
		byCode[recStrs(v)[0]] = r
	}
	aruba := recs[0]
	// Top-level keys of the first record in file order (checked with
	// Python's order-preserving json module); empty "borders" is absent.
	wantTop := []string{"name", "tld", "cca2", "ccn3", "cca3", "cioc", "independent", "status", "unMember", "unRegionalGroup", "currencies", "idd", "capital", "altSpellings", "region", "subregion", "languages", "translations", "latlng", "landlocked", "area", "flag", "demonyms"}
	var top []string
	for _, n := range recNames(aruba) {
		head, _, _ := strings.Cut(n, ".")
		if len(top) == 0 || top[len(top)-1] != head {
			top = append(top, head)
		}
	}
	if !reflect.DeepEqual(top, wantTop) {
		t.Errorf("top-level order = %q\nwant %q", top, wantTop)
	}
	if got := recNames(aruba)[:6]; !reflect.DeepEqual(got, []string{"name.common", "name.official", "name.native.nld.official", "name.native.nld.common", "name.native.pap.official", "name.native.pap.common"}) {
		t.Errorf("first names = %q", got)
	}
	checks := []struct {
		rec  Record
		prop string
		want string // recFlat-style value rendering
	}{
		{aruba, "name.common", "Aruba"},
		{aruba, "translations.ces.common", "Aruba"},
		{aruba, "independent", "?false"},
		{aruba, "ccn3", "533"},
		{aruba, "idd.suffixes", "97"},
		{aruba, "currencies.AWG.symbol", "ƒ"},
		{aruba, "area", "#180"},
		{byCode["CZE"], "translations.ces.common", "Česko"},
		{byCode["CZE"], "translations.ces.official", "Česká republika"},
		{byCode["DEU"], "translations.ces.common", "Německo"},
		{byCode["AFG"], "ccn3", "004"},
		{byCode["AFG"], "borders", "IRN|PAK|TKM|UZB|TJK|CHN"},
		{byCode["CZE"], "latlng", "#49.75|#15.5"},
		{byCode["AFG"], "name.native.prs.common", "افغانستان"},
	}
	for _, c := range checks {
		vals, ok := recProp(c.rec, c.prop)
		got := recFlat(Record{Props: []Property{{Name: "", Values: vals}}})[1:]
		if !ok || got != c.want {
			t.Errorf("%s = %q (present %v), want %q", c.prop, got, ok, c.want)
		}
	}
	if _, ok := recProp(aruba, "borders"); ok {
		t.Errorf("empty borders array gave a property")
	}
}

func TestJSON(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   []string // "key: flat" per record
		errIdx []int
	}{
		{
			name: "array of records",
			in:   `[{"a": 1, "b": "x"}, {"b": "y", "a": 2.50}]`,
			want: []string{": a=#1; b=x", ": b=y; a=#2.50"},
		},
		{
			name:   "non-object elements",
			in:     `[{"a": 1}, 5, [1, {"x": 2}], "s", {"a": 2}, null]`,
			want:   []string{": a=#1", ": a=#2"},
			errIdx: []int{1, 2, 3, 5},
		},
		{
			name: "object of records",
			in:   `{"cz": {"name": "Česko", "pop": 10.9}, "sk": {"name": "Slovensko"}}`,
			want: []string{"cz: name=Česko; pop=#10.9", "sk: name=Slovensko"},
		},
		{
			name: "wrapper with one array of objects",
			in:   `{"total": 2, "data": [{"id": "a"}, {"id": "b"}], "tags": ["x"]}`,
			want: []string{": id=a", ": id=b"},
		},
		{
			name: "plain object is one record",
			in:   `{"id": 7, "tags": ["a", "b"], "meta": {"ok": true, "n": null}}`,
			want: []string{": id=#7; tags=a|b; meta.ok=?true; meta.n=<null>"},
		},
		{
			name: "two arrays of objects make one record",
			in:   `{"a": [{"x": 1}], "b": [{"x": 2}]}`,
			want: []string{": a.x=#1; b.x=#2"},
		},
		{
			name: "array of objects merges by dotted name",
			in:   `[{"id": 1, "currencies": [{"code": "CZK", "name": "koruna"}, {"code": "EUR"}], "z": [[1, 2], [3]]}]`,
			want: []string{": id=#1; currencies.code=CZK|EUR; currencies.name=koruna; z=#1|#2|#3"},
		},
		{
			name: "duplicate key and empty containers",
			in:   `[{"a": 1, "e": [], "o": {}, "a": 2, "s": ""}]`,
			want: []string{": a=#1|#2; s="},
		},
		{
			name: "number text kept",
			in:   `[{"big": 12345678901234567890, "exp": 1E+2, "neg": -0.0}]`,
			want: []string{": big=#12345678901234567890; exp=#1E+2; neg=#-0.0"},
		},
		{
			name: "empty array",
			in:   " [ ] ",
		},
		{
			name: "empty object of records",
			in:   `{}`,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRecords(t, FormatJSON, tt.in, func(r Record) string { return r.Key + ": " + recFlat(r) }, tt.want, tt.errIdx)
		})
	}
}

func TestJSONErrors(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want error
		recs int // records read before the error
	}{
		{"truncated array", `[{"a": 1}, {"a": `, ErrCorrupt, 1},
		{"scalar top level", `"just a string"`, ErrCorrupt, 0},
		{"trailing data", `[{"a": 1}] x`, ErrCorrupt, 1},
		{"bad object", `{"a": 1,}`, ErrCorrupt, 0},
		{"deep nesting", "[" + strings.Repeat(`{"a":`, MaxRecordDepth+2) + "1" + strings.Repeat("}", MaxRecordDepth+2) + "]", ErrCorrupt, 0},
		{"garbage", `<html>`, ErrCorrupt, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, _, err := recAllErr(FormatJSON, []byte(tt.in), RecordOptions{})
			if !errors.Is(err, tt.want) {
				t.Errorf("error = %v, want %v", err, tt.want)
			}
			if len(recs) != tt.recs {
				t.Errorf("got %d records before the error, want %d", len(recs), tt.recs)
			}
		})
	}
}

func BenchmarkJSON(b *testing.B) {
	b.Run("countries", func(b *testing.B) { recBench(b, FormatJSON, testutil.ReadDoc(b, "countries.json")) })
}

func TestJSONElementLimit(t *testing.T) {
	var b bytes.Buffer
	b.WriteString(`[{"a": 1}, {"s": "`)
	// The limit counts bytes read ahead by the decoder too: exceed it by
	// more than a read-ahead.
	b.Write(bytes.Repeat([]byte("x"), MaxRecordSize+1<<20))
	b.WriteString(`"}, {"a": 3}]`)
	recs, _, err := recAllErr(FormatJSON, b.Bytes(), RecordOptions{})
	if !errors.Is(err, ErrTooLarge) || len(recs) != 1 {
		t.Fatalf("got %d records, error %v; want 1 record then ErrTooLarge", len(recs), err)
	}
}
