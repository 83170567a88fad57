package engine

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestParseSearchFast checks that every body the reflection-free decoder
// reads gives the request the strict encoding/json decoder gives, on
// random bodies mixing its members with others, null, duplicates, other
// number forms, escapes, key case and white space, and that it reads the
// common bodies (the peer benchmark's, the console's) at all.
func TestParseSearchFast(t *testing.T) {
	for _, body := range []string{
		`{"query":"cancer","max_results":10,"highlight":false,"include_fields":["none"]}`,
		`{"query":"cancer","max_results":10,"highlight":false,"include_fields":["none"],"retrievers":"keyword"}`,
		`{"query": "žluťoučký kůň"}`,
		` {"query":"a b","result_format":"sections","offset":20,"include_content":["full"],"restore_diacritics":true} `,
		`{}`,
	} {
		if _, ok := parseSearchFast([]byte(body)); !ok {
			t.Errorf("not read: %s", body)
		}
	}
	values := map[string][]string{
		"string": {`"x"`, `""`, `"žluť"`, `"a\"b"`, `"\u00e9"`, `null`, `1`, `"a` + "\t" + `b"`, `"` + "\xff" + `"`, `["a"]`},
		"int":    {`0`, `10`, `999999999`, `1000000000`, `01`, `-1`, `1.0`, `1e2`, `null`, `"10"`, `10x`, `true`},
		"bool":   {`true`, `false`, `null`, `1`, `"true"`, `truex`, `tru`},
		"list":   {`[]`, `["none"]`, `["a","b"]`, `[ "a" , "b" ]`, `null`, `[null]`, `["a",]`, `"a"`, `[1]`, `["a"` + "\n" + `]`},
	}
	keys := map[string]string{
		"query": "string", "result_format": "string", "max_results": "int", "offset": "int",
		"highlight": "bool", "restore_diacritics": "bool", "include_fields": "list", "include_content": "list", "retrievers": "string",
		"Query": "string", "min_score": "int", "filter": "list", "unknown": "bool", "max_Results": "int",
	}
	var names []string
	for k := range keys {
		names = append(names, k)
	}
	ws := []string{"", " ", "\n\t", "\r\n "}
	r := rand.New(rand.NewPCG(3, 4))
	read, agreed := 0, 0
	for range 20000 {
		var sb strings.Builder
		sb.WriteString(ws[r.IntN(len(ws))] + "{")
		for i := range r.IntN(5) {
			if i > 0 {
				sb.WriteString(",")
			}
			k := names[r.IntN(len(names))]
			if r.IntN(6) == 0 {
				k = "query" // duplicates
			}
			vs := values[keys[k]]
			if r.IntN(4) > 0 {
				vs = vs[:3] // mostly valid values
			}
			sb.WriteString(ws[r.IntN(len(ws))] + `"` + k + `"` + ws[r.IntN(len(ws))] + ":" + ws[r.IntN(len(ws))] + vs[r.IntN(len(vs))] + ws[r.IntN(len(ws))])
		}
		sb.WriteString("}")
		if r.IntN(10) == 0 {
			sb.WriteString([]string{"x", "{}", " ", ","}[r.IntN(4)])
		}
		body := sb.String()
		fast, ok := parseSearchFast([]byte(body))
		if !ok {
			continue
		}
		read++
		slow, err := parseSearchStrict([]byte(body))
		if err != nil {
			t.Errorf("%s: read, but the strict decoder says %v", body, err)
			continue
		}
		if !reflect.DeepEqual(fast, slow) {
			t.Errorf("%s:\nfast   %+v\nstrict %+v", body, fast, slow)
			continue
		}
		agreed++
	}
	if read < 2000 {
		t.Errorf("only %d random bodies read", read)
	}
	t.Logf("%d random bodies read, %d agreed", read, agreed)
}
