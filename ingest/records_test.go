package ingest

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

// recAll reads every record of data; record errors are collected, any other
// error fails the test.
func recAll(tb testing.TB, f Format, data []byte, opts RecordOptions) ([]Record, []*RecordError) {
	tb.Helper()
	recs, rerrs, err := recAllErr(f, data, opts)
	if err != nil {
		tb.Fatalf("%s: %v", f, err)
	}
	return recs, rerrs
}

// recAllErr reads every record of data and returns the first fatal error.
func recAllErr(f Format, data []byte, opts RecordOptions) ([]Record, []*RecordError, error) {
	rr, err := NewRecordReader(f, bytes.NewReader(data), opts)
	if err != nil {
		return nil, nil, err
	}
	var recs []Record
	var rerrs []*RecordError
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			return recs, rerrs, nil
		}
		var re *RecordError
		if errors.As(err, &re) {
			rerrs = append(rerrs, re)
			continue
		}
		if err != nil {
			return recs, rerrs, err
		}
		recs = append(recs, rec)
	}
}

// recNames returns the property names of rec.
func recNames(rec Record) []string {
	names := make([]string, len(rec.Props))
	for i, p := range rec.Props {
		names[i] = p.Name
	}
	return names
}

// recProp returns the values of property name, and whether it exists.
func recProp(rec Record, name string) ([]Value, bool) {
	for _, p := range rec.Props {
		if p.Name == name {
			return p.Values, true
		}
	}
	return nil, false
}

// recStrs renders values as strings, "<null>" for null, for compact checks.
func recStrs(vals []Value) []string {
	out := make([]string, len(vals))
	for i, v := range vals {
		if v.Kind == KindNull {
			out[i] = "<null>"
		} else {
			out[i] = v.Str
		}
	}
	return out
}

// checkRecords reads in as format f and checks the records, each shown by
// show, and the indexes of the record errors.
func checkRecords(t *testing.T, f Format, in string, show func(Record) string, want []string, errIdx []int) {
	t.Helper()
	recs, rerrs := recAll(t, f, []byte(in), RecordOptions{})
	var got []string
	for _, r := range recs {
		got = append(got, show(r))
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("records:\n got %q\nwant %q", got, want)
	}
	var idx []int
	for _, e := range rerrs {
		idx = append(idx, e.Index)
	}
	if !reflect.DeepEqual(idx, errIdx) {
		t.Errorf("record errors at %v, want %v", idx, errIdx)
	}
}

// recFlat renders a record as "name=v1|v2" lines for table tests; numbers
// are marked with #, booleans with ?, nulls are <null>.
func recFlat(rec Record) string {
	var b strings.Builder
	for i, p := range rec.Props {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.Name)
		b.WriteByte('=')
		for j, v := range p.Values {
			if j > 0 {
				b.WriteByte('|')
			}
			switch v.Kind {
			case KindNull:
				b.WriteString("<null>")
			case KindNumber:
				b.WriteString("#" + v.Str)
			case KindBool:
				b.WriteString("?" + v.Str)
			default:
				b.WriteString(v.Str)
			}
		}
	}
	return b.String()
}

// recSheetLines returns "sheet/index: recFlat" for each record, the form
// the spreadsheet tests compare.
func recSheetLines(recs []Record) []string {
	out := make([]string, 0, len(recs))
	for _, r := range recs {
		out = append(out, r.Sheet+"/"+strconv.Itoa(r.Index)+": "+recFlat(r))
	}
	return out
}

func TestRecParseNumber(t *testing.T) {
	tests := []struct {
		in   string
		ok   bool
		want float64
	}{
		{"0", true, 0},
		{"42", true, 42},
		{"-7", true, -7},
		{"0.5", true, 0.5},
		{"-0.25", true, -0.25},
		{"1e3", true, 1000},
		{"1.5E-2", true, 0.015},
		{"2e+2", true, 200},
		{"004", false, 0},
		{"00", false, 0},
		{"+420", false, 0},
		{"1,5", false, 0},
		{".5", false, 0},
		{"5.", false, 0},
		{"1e", false, 0},
		{"-", false, 0},
		{"", false, 0},
		{" 1", false, 0},
		{"1 ", false, 0},
		{"0x10", false, 0},
		{"NaN", false, 0},
		{"1e999", false, 0},
		{"12a", false, 0},
	}
	for _, tt := range tests {
		got, ok := recParseNumber(tt.in)
		if ok != tt.ok || got != tt.want {
			t.Errorf("recParseNumber(%q) = %v, %v; want %v, %v", tt.in, got, ok, tt.want, tt.ok)
		}
	}
}

func TestRecHeaderNames(t *testing.T) {
	tests := []struct {
		in, want []string
	}{
		{[]string{"a", "b"}, []string{"a", "b"}},
		{[]string{"a", "", "c"}, []string{"a", "column_2", "c"}},
		{[]string{"name", "name", "name"}, []string{"name", "name_2", "name_3"}},
		{[]string{"x", "x", "x_2"}, []string{"x", "x_3", "x_2"}},
		{[]string{"", "column_1"}, []string{"column_1", "column_1_2"}},
		{nil, []string{}},
	}
	for _, tt := range tests {
		if got := recHeaderNames(tt.in); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("recHeaderNames(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestNewRecordReaderUnsupported(t *testing.T) {
	for _, f := range []Format{FormatText, FormatPDF, "nope"} {
		if _, err := NewRecordReader(f, strings.NewReader("x"), RecordOptions{}); !errors.Is(err, ErrUnsupportedFormat) {
			t.Errorf("NewRecordReader(%q) error = %v, want ErrUnsupportedFormat", f, err)
		}
	}
}

// recSink keeps benchmark results alive.
var recSink int

// recBench parses data as format once per iteration.
func recBench(b *testing.B, format Format, data []byte) {
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		recs, _, err := recAllErr(format, data, RecordOptions{})
		if err != nil {
			b.Fatal(err)
		}
		recSink += len(recs)
	}
}
