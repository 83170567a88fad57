package ingest

import (
	"bytes"
	"errors"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

func TestJSONLGSM8K(t *testing.T) {
	data := testutil.ReadDoc(t, "gsm8k-test.jsonl")
	recs, rerrs := recAll(t, FormatJSONL, data, RecordOptions{})
	if len(rerrs) != 0 {
		t.Fatalf("record errors: %v", rerrs)
	}
	if len(recs) != 1319 {
		t.Fatalf("got %d records, want 1319", len(recs))
	}
	for i, r := range recs {
		if r.Index != i || !reflect.DeepEqual(recNames(r), []string{"question", "answer"}) {
			t.Fatalf("record %d: Index %d, names %q", i, r.Index, recNames(r))
		}
		if a, _ := recProp(r, "answer"); !strings.Contains(a[0].Str, "####") {
			t.Fatalf("record %d answer lacks the #### marker: %q", i, a[0].Str)
		}
	}
	q, _ := recProp(recs[0], "question")
	if !strings.HasPrefix(q[0].Str, "Janet\u2019s ducks lay 16 eggs per day.") {
		t.Errorf("first question = %q", q[0].Str)
	}
	a, _ := recProp(recs[0], "answer")
	if !strings.HasSuffix(a[0].Str, "\n#### 18") {
		t.Errorf("first answer = %q", a[0].Str)
	}
}

func TestJSONL(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		want   []string // "index: flat"
		errIdx []int
	}{
		{
			name:   "bad line between good ones",
			in:     "{\"a\": 1}\n{\"a\": \n{\"a\": 3}\n",
			want:   []string{"0: a=#1", "2: a=#3"},
			errIdx: []int{1},
		},
		{
			name: "blank lines and CRLF",
			in:   "\r\n{\"a\": \"x\"}\r\n\r\n  \n{\"b\": [1, 2]}",
			want: []string{"1: a=x", "4: b=#1|#2"},
		},
		{
			name:   "non-object and trailing data",
			in:     "[1]\n{\"a\": 1} {\"a\": 2}\n\"s\"\n{\"ok\": true}\n",
			want:   []string{"3: ok=?true"},
			errIdx: []int{0, 1, 2},
		},
		{
			name: "nested",
			in:   `{"user": {"name": "Eva", "langs": ["cs", "en"]}, "n": null}`,
			want: []string{"0: user.name=Eva; user.langs=cs|en; n=<null>"},
		},
		{
			name: "empty",
			in:   "",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkRecords(t, FormatJSONL, tt.in, func(r Record) string { return strconv.Itoa(r.Index) + ": " + recFlat(r) }, tt.want, tt.errIdx)
		})
	}
}

func TestJSONLLongLine(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("{\"a\": 1}\n{\"s\": \"")
	b.Write(bytes.Repeat([]byte("x"), MaxRecordSize))
	b.WriteString("\"}\n{\"a\": 3}\n")
	recs, rerrs := recAll(t, FormatJSONL, b.Bytes(), RecordOptions{})
	if len(recs) != 2 || recs[1].Index != 2 {
		t.Fatalf("got %d records, want 2 around the long line", len(recs))
	}
	if len(rerrs) != 1 || rerrs[0].Index != 1 || !errors.Is(rerrs[0], ErrTooLarge) {
		t.Fatalf("record errors = %v, want one ErrTooLarge at line 1", rerrs)
	}
}

func BenchmarkJSONL(b *testing.B) {
	b.Run("gsm8k", func(b *testing.B) { recBench(b, FormatJSONL, testutil.ReadDoc(b, "gsm8k-test.jsonl")) })
}
