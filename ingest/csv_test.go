package ingest

import (
	"bytes"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/unicode"
)

func TestCSVCountryCodes(t *testing.T) {
	data := testutil.ReadDoc(t, "country-codes.csv")
	// The header line has no quotes, so a plain split gives the names.
	first, _, _ := bytes.Cut(data, []byte("\n"))
	header := strings.Split(strings.TrimRight(string(first), "\r"), ",")
	if len(header) != 56 {
		t.Fatalf("fixture header has %d names, want 56", len(header))
	}
	recs, rerrs := recAll(t, FormatCSV, data, RecordOptions{})
	if len(rerrs) != 0 {
		t.Fatalf("record errors: %v", rerrs)
	}
	// 250 lines, no quoted newlines: 249 data rows.
	if len(recs) != 249 {
		t.Fatalf("got %d records, want 249", len(recs))
	}
	r0 := recs[0]
	if got := recNames(r0); !reflect.DeepEqual(got, header) {
		t.Fatalf("property names = %q\nwant header %q", got, header)
	}
	for i, rec := range recs {
		if rec.Index != i || len(rec.Props) != 56 {
			t.Fatalf("record %d: Index %d, %d props", i, rec.Index, len(rec.Props))
		}
	}
	checks := []struct {
		prop string
		kind ValueKind
		str  string
	}{
		{"FIFA", KindString, "AFG"},
		{"Dial", KindNumber, "93"},
		{"UNTERM Russian Formal", KindString, "Исламская Республика Афганистан"},
		{"UNTERM Chinese Formal", KindString, "阿富汗伊斯兰共和国"},
		{"official_name_ar", KindString, "أفغانستان"},
		{"UNTERM Spanish Formal", KindString, "la República Islámica del Afganistán"},
		{"Intermediate Region Code", KindNull, ""},
		{"Capital", KindString, "Kabul"},
	}
	for _, c := range checks {
		vals, ok := recProp(r0, c.prop)
		if !ok || len(vals) != 1 || vals[0].Kind != c.kind || vals[0].Str != c.str {
			t.Errorf("first record %s = %+v, want kind %d %q", c.prop, vals, c.kind, c.str)
		}
	}
	if v, _ := recProp(r0, "Dial"); v[0].Num != 93 {
		t.Errorf("Dial Num = %v, want 93", v[0].Num)
	}
	if v, _ := recProp(recs[len(recs)-1], "ISO3166-1-Alpha-3"); recStrs(v)[0] != "ZWE" {
		t.Errorf("last record alpha-3 = %v, want ZWE", recStrs(v))
	}
}

func TestCSV(t *testing.T) {
	cp1250 := func(s string) []byte {
		b, err := charmap.Windows1250.NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	utf16 := func(s string) []byte {
		b, err := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte(s))
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	tests := []struct {
		name   string
		in     []byte
		opts   RecordOptions
		want   []string // recFlat of each record
		errIdx []int    // indexes of record errors
	}{
		{
			name: "comma with number forms",
			in:   []byte("id,code,price,phone\n1,004,1.50,+420\n2,,-0.5,1e3\n"),
			want: []string{
				"id=#1; code=004; price=#1.50; phone=+420",
				"id=#2; code=<null>; price=#-0.5; phone=#1e3",
			},
		},
		{
			name: "semicolon windows-1250",
			in:   cp1250("jméno;město;částka\r\nŽofie;Plzeň;1,5\r\nŠtěpán;Brno;12\r\n"),
			want: []string{
				"jméno=Žofie; město=Plzeň; částka=1,5",
				"jméno=Štěpán; město=Brno; částka=#12",
			},
		},
		{
			name: "tab separated",
			in:   []byte("a\tb\tc\nx, y\tz\t3\nu\tv\tw\n"),
			want: []string{"a=x, y; b=z; c=#3", "a=u; b=v; c=w"},
		},
		{
			name: "pipe separated",
			in:   []byte("a|b\n1|2\n3|4\n"),
			want: []string{"a=#1; b=#2", "a=#3; b=#4"},
		},
		{
			name: "quoted newline, delimiter and doubled quotes",
			in:   []byte("title,body\n\"a, b\",\"line 1\nline 2 \"\"quoted\"\"\"\nc,d\n"),
			want: []string{"title=a, b; body=line 1\nline 2 \"quoted\"", "title=c; body=d"},
		},
		{
			name:   "ragged rows",
			in:     []byte("a,b,c\n1,2,3\n4,5,6,7\n8,9\n10,11,12\n"),
			want:   []string{"a=#1; b=#2; c=#3", "a=#8; b=#9; c=<null>", "a=#10; b=#11; c=#12"},
			errIdx: []int{1},
		},
		{
			name: "utf-8 bom",
			in:   []byte("\xEF\xBB\xBFname,n\nčaj,1\n"),
			want: []string{"name=čaj; n=#1"},
		},
		{
			name: "utf-16 with bom",
			in:   utf16("název;počet\nčaj;2\nkáva;3\n"),
			want: []string{"název=čaj; počet=#2", "název=káva; počet=#3"},
		},
		{
			name: "blank and duplicate headers",
			in:   []byte("name,,name\na,b,c\n"),
			want: []string{"name=a; column_2=b; name_2=c"},
		},
		{
			name: "explicit delimiter",
			in:   []byte("a;b,c\n1;2,3\n"),
			opts: RecordOptions{Delimiter: ';'},
			want: []string{"a=#1; b,c=2,3"},
		},
		{
			name: "declared charset",
			in:   cp1250("k\nčíslo\n"),
			opts: RecordOptions{Charset: "windows-1250"},
			want: []string{"k=číslo"},
		},
		{
			name: "header only",
			in:   []byte("a,b\n"),
		},
		{
			name: "empty",
			in:   nil,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, rerrs := recAll(t, FormatCSV, tt.in, tt.opts)
			var got []string
			for _, r := range recs {
				got = append(got, recFlat(r))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("records:\n got %q\nwant %q", got, tt.want)
			}
			var idx []int
			for _, e := range rerrs {
				idx = append(idx, e.Index)
				if !errors.Is(e, ErrCorrupt) {
					t.Errorf("record error %v does not wrap ErrCorrupt", e)
				}
			}
			if !reflect.DeepEqual(idx, tt.errIdx) {
				t.Errorf("record errors at %v, want %v", idx, tt.errIdx)
			}
		})
	}
}

func TestCSVSniffDelimiter(t *testing.T) {
	tests := []struct {
		in   string
		want rune
	}{
		{"a,b,c\n1,2,3\n", ','},
		{"a;b;c\n1,5;2;3\n4;5,5;6\n", ';'},
		{"a\tb\n1\t2\n", '\t'},
		{"a|b|c\n1|2|3\n", '|'},
		{"\"x;y\",b\n\"1;2\",3\n", ','},
		{"single\ncolumn\n", ','},
		{"", ','},
	}
	for _, tt := range tests {
		if got := csvSniffDelimiter([]byte(tt.in), true); got != tt.want {
			t.Errorf("csvSniffDelimiter(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// csvGenReader streams a generated CSV of rows rows without holding it.
type csvGenReader struct {
	rows, next int
	buf        []byte
}

func (g *csvGenReader) Read(p []byte) (int, error) {
	for len(g.buf) == 0 {
		if g.next > g.rows {
			return 0, io.EOF
		}
		if g.next == 0 {
			g.buf = append(g.buf, "id,name,text\n"...)
		} else {
			g.buf = append(g.buf, "12345,\"a, name\",some longer text to fill the row\n"...)
		}
		g.next++
	}
	n := copy(p, g.buf)
	g.buf = g.buf[n:]
	return n, nil
}

func TestCSVStreamsLargeInput(t *testing.T) {
	// A reader that would fail on being read to the end at once still
	// yields its first records: the CSV reader streams.
	rr, err := NewRecordReader(FormatCSV, &csvGenReader{rows: 1 << 30}, RecordOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 1000 {
		rec, err := rr.Next()
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if rec.Index != i || recFlat(rec) != "id=#12345; name=a, name; text=some longer text to fill the row" {
			t.Fatalf("record %d = %d %q", i, rec.Index, recFlat(rec))
		}
	}
}

func BenchmarkCSV(b *testing.B) {
	b.Run("country-codes", func(b *testing.B) { recBench(b, FormatCSV, testutil.ReadDoc(b, "country-codes.csv")) })
	b.Run("numeric", func(b *testing.B) {
		var buf bytes.Buffer
		buf.WriteString("id,x,y,label\n")
		for i := range 20000 {
			buf.WriteString(strconv.Itoa(i) + ",1.25,-3e2,\"a, b\"\n")
		}
		recBench(b, FormatCSV, buf.Bytes())
	})
}

func TestCSVRowLimit(t *testing.T) {
	var b bytes.Buffer
	b.WriteString("a,b\n1,2\n\"unterminated,")
	b.Write(bytes.Repeat([]byte("x,y\n"), MaxRecordSize/4+1024))
	recs, _, err := recAllErr(FormatCSV, b.Bytes(), RecordOptions{})
	if !errors.Is(err, ErrTooLarge) || len(recs) != 1 {
		t.Fatalf("got %d records, error %v; want 1 record then ErrTooLarge", len(recs), err)
	}
}

// TestCSVRunawayQuotedField checks that a quoted field that is never
// closed, or that holds a stray quote, does not swallow the rows after it:
// its row is a *RecordError naming the quote's line, and reading goes on
// with the next line.
func TestCSVRunawayQuotedField(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []string // recFlat of each record
		errs []string // "index: message" of each record error
	}{
		{
			name: "rows after the quote",
			in:   "id,text\n1,a\n2,\"b\n3,c\n4,d\n",
			want: []string{"id=#1; text=a", "id=#3; text=c", "id=#4; text=d"},
			errs: []string{"1: line 3: the quoted field that starts at column 3 is never closed: corrupt file"},
		},
		{
			name: "quote closed before other text",
			in:   "id,text\n\"x\"y,1\n2,3\n",
			want: []string{"id=#2; text=#3"},
			errs: []string{"0: line 2: the quoted field that starts at column 1 is never closed: corrupt file"},
		},
		{
			name: "doubled quote at the end of the line",
			in:   "id,text\n1,\"x\"\"\n2,3\n",
			want: []string{"id=#2; text=#3"},
			errs: []string{"0: line 2: the quoted field that starts at column 3 is never closed: corrupt file"},
		},
		{
			name: "after a closed multi-line field",
			in:   "id,text,more\n\"m\nn\",\"x\n2,3,4\n",
			want: []string{"id=#2; text=#3; more=#4"},
			errs: []string{"0: line 3: the quoted field that starts at column 4 is never closed: corrupt file"},
		},
		{
			name: "after blank lines, CRLF",
			in:   "id,text\r\n\r\n\r\n1,\"x\r\n2,3\r\n",
			want: []string{"id=#2; text=#3"},
			errs: []string{"0: line 4: the quoted field that starts at column 3 is never closed: corrupt file"},
		},
		{
			name: "twice",
			in:   "id,text\n1,\"x\n2,\"y\n3,z\n",
			want: []string{"id=#3; text=z"},
			errs: []string{
				"0: line 2: the quoted field that starts at column 3 is never closed: corrupt file",
				"1: line 3: the quoted field that starts at column 3 is never closed: corrupt file",
			},
		},
		{
			name: "a row too long after the quote",
			in:   "id,text\n1,\"x\n2,3,4\n5,6\n",
			want: []string{"id=#5; text=#6"},
			errs: []string{
				"0: line 2: the quoted field that starts at column 3 is never closed: corrupt file",
				"1: line 3: 3 fields, header has 2: corrupt file",
			},
		},
		{
			name: "semicolons",
			in:   "id;text\n1;\"a;b\n2;c\n",
			want: []string{"id=#2; text=c"},
			errs: []string{"0: line 2: the quoted field that starts at column 3 is never closed: corrupt file"},
		},
		{
			name: "stray quote closed lines later",
			in:   "id,text\nq1,\"b\"x,y\nq2,c\nq3,\"multi\nline\"\n",
			want: []string{"id=q2; text=c", "id=q3; text=multi\nline"},
			errs: []string{"0: line 2: the quoted field that starts at column 4 holds a stray quote at line 2, column 6 and runs on over the next lines (a quote inside a quoted field is written twice): corrupt file"},
		},
		{
			name: "stray quote on a later line",
			in:   "id,text\n1,\"a\nb\"c\n2,d\",e\n3,f\n",
			want: []string{"id=#3; text=f"},
			errs: []string{
				"0: line 2: the quoted field that starts at column 3 holds a stray quote at line 3, column 2 and runs on over the next lines (a quote inside a quoted field is written twice): corrupt file",
				"1: line 4: 3 fields, header has 2: corrupt file",
			},
		},
		{
			// Stray quotes that do not carry the field over a line break
			// are read leniently, as before.
			name: "stray quotes within a line",
			in:   "id,text\n1,\"He said \"hi\" to me\"\n2,\"x\ny \"\"z\"\"\"\n",
			want: []string{"id=#1; text=He said \"hi\" to me", "id=#2; text=x\ny \"z\""},
		},
		{
			// Nothing follows the quote's line: nothing was swallowed, and
			// the field is read leniently to the end.
			name: "on the last line",
			in:   "id,text\n1,a\n2,\"b c\n",
			want: []string{"id=#1; text=a", "id=#2; text=b c\n"},
		},
		{
			name: "closed at the end of the input",
			in:   "id,text\n1,\"a\n\"\"b\"\"\"",
			want: []string{"id=#1; text=a\n\"b\""},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, rerrs := recAll(t, FormatCSV, []byte(tt.in), RecordOptions{})
			var got, errs []string
			for _, r := range recs {
				got = append(got, recFlat(r))
			}
			for _, e := range rerrs {
				errs = append(errs, strconv.Itoa(e.Index)+": "+e.Err.Error())
				if !errors.Is(e, ErrCorrupt) {
					t.Errorf("record error %v does not wrap ErrCorrupt", e)
				}
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("records:\n got %q\nwant %q", got, tt.want)
			}
			if !reflect.DeepEqual(errs, tt.errs) {
				t.Errorf("record errors:\n got %q\nwant %q", errs, tt.errs)
			}
		})
	}
	t.Run("in the header", func(t *testing.T) {
		_, _, err := recAllErr(FormatCSV, []byte("id,\"text\n1,a\n"), RecordOptions{})
		if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "line 1: the quoted field that starts at column 4 is never closed") {
			t.Errorf("error %v, want the header's unclosed quote", err)
		}
	})
}
