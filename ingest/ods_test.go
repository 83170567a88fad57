package ingest

import (
	"archive/zip"
	"bytes"
	"errors"
	"math"
	"reflect"
	"strconv"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

func TestODSColumnar(t *testing.T) {
	recs, rerrs := recAll(t, FormatODS, testutil.ReadDoc(t, "test-columnar.ods"), RecordOptions{})
	if len(rerrs) != 0 {
		t.Fatalf("record errors: %v", rerrs)
	}
	// Rows 0..10 under the header; the 1048563 repeated empty rows after
	// them give nothing.
	if len(recs) != 11 {
		t.Fatalf("got %d records, want 11", len(recs))
	}
	wantNames := []string{"Record Number", "Square of the Record Number", "Description of the Row", "Percent Done", "Percent Increment", "date", "datetime", "time"}
	for i, r := range recs {
		if r.Sheet != "testing" || r.Index != i || !reflect.DeepEqual(recNames(r), wantNames) {
			t.Fatalf("record %d: sheet %q index %d names %q", i, r.Sheet, r.Index, recNames(r))
		}
		n, _ := recProp(r, "Record Number")
		sq, _ := recProp(r, "Square of the Record Number")
		pd, _ := recProp(r, "Percent Done")
		desc, _ := recProp(r, "Description of the Row")
		if n[0].Kind != KindNumber || n[0].Num != float64(i) || sq[0].Num != float64(i*i) {
			t.Errorf("record %d: number %+v square %+v", i, n[0], sq[0])
		}
		if pd[0].Kind != KindNumber || math.Abs(pd[0].Num-float64(i)/10) > 1e-9 || pd[0].Str != strconv.Itoa(i*10)+"%" {
			t.Errorf("record %d: percent done %+v", i, pd[0])
		}
		// text:s runs of spaces are expanded: "row" + 11 spaces + "0 of" + 10 spaces + "10".
		wantDesc := "This is row            " + strconv.Itoa(i) + " of           10"
		if i == 10 {
			wantDesc = "This is row           10 of           10"
		}
		if desc[0].Str != wantDesc {
			t.Errorf("record %d: description %q, want %q", i, desc[0].Str, wantDesc)
		}
	}
	checks := []struct {
		rec        int
		prop, want string
	}{
		{0, "Percent Increment", "<null>"},
		{1, "Percent Increment", "#0.0%"},
		{10, "Percent Increment", "#90.0%"},
		{0, "date", "1960-01-01"},
		{10, "date", "1987-05-19"},
		{0, "datetime", "1960-01-01T00:00:01.00224"},
		{0, "time", "00:00:01.00224"},
		{10, "time", "16:24:09"},
	}
	for _, c := range checks {
		vals, _ := recProp(recs[c.rec], c.prop)
		if got := recFlat(Record{Props: []Property{{Values: vals}}})[1:]; got != c.want {
			t.Errorf("record %d %s = %q, want %q", c.rec, c.prop, got, c.want)
		}
	}
}

// odsBuild zips an ODS file whose office:spreadsheet holds body.
func odsBuild(t testing.TB, body string) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.CreateHeader(&zip.FileHeader{Name: "mimetype", Method: zip.Store})
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("application/vnd.oasis.opendocument.spreadsheet"))
	w, err = zw.Create("content.xml")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(`<?xml version="1.0" encoding="UTF-8"?>
<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:calcext="urn:org:documentfoundation:names:experimental:calc:xmlns:calcext:1.0"><office:body><office:spreadsheet>` + body + `</office:spreadsheet></office:body></office:document-content>`))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func TestODS(t *testing.T) {
	tests := []struct {
		name string
		body string
		want []string // "sheet/index: flat"
	}{
		{
			name: "types, repeats and trailing runs",
			body: `<table:table table:name="Data">
<table:table-row><table:table-cell office:value-type="string"><text:p>name</text:p></table:table-cell><table:table-cell><text:p>price</text:p></table:table-cell><table:table-cell><text:p>ok</text:p></table:table-cell><table:table-cell table:number-columns-repeated="16000"/></table:table-row>
<table:table-row table:number-rows-repeated="2"><table:table-cell office:value-type="string" calcext:value-type="string"><text:p>Čaj</text:p><office:annotation><text:p>note</text:p></office:annotation></table:table-cell><table:table-cell office:value-type="currency" office:currency="CZK" office:value="12.5"><text:p>12,50 Kč</text:p></table:table-cell><table:table-cell office:value-type="boolean" office:boolean-value="true"><text:p>TRUE</text:p></table:table-cell><table:table-cell table:number-columns-repeated="16381"/></table:table-row>
<table:table-row table:number-rows-repeated="1048570"><table:table-cell table:number-columns-repeated="1024"/></table:table-row>
<table:table-row><table:table-cell table:number-columns-repeated="2"/><table:table-cell office:value-type="boolean" office:boolean-value="false"/></table:table-row>
</table:table>`,
			want: []string{
				"Data/0: name=Čaj; price=#12,50 Kč; ok=?TRUE",
				"Data/1: name=Čaj; price=#12,50 Kč; ok=?TRUE",
				"Data/2: name=<null>; price=<null>; ok=?false",
			},
		},
		{
			name: "caption, empty sheet, second sheet",
			body: `<table:table table:name="Empty"><table:table-row table:number-rows-repeated="100"><table:table-cell table:number-columns-repeated="5"/></table:table-row></table:table>
<table:table table:name="Report"><table:table-row><table:table-cell table:number-columns-repeated="2"/><table:table-cell><text:p>Quarterly report</text:p></table:table-cell></table:table-row>
<table:table-row/>
<table:table-header-rows><table:table-row><table:table-cell><text:p>k</text:p></table:table-cell><table:table-cell><text:p>k</text:p></table:table-cell><table:table-cell/><table:table-cell><text:p>v</text:p></table:table-cell></table:table-row></table:table-header-rows>
<table:table-row><table:table-cell office:value-type="float" office:value="3"><text:p>3</text:p></table:table-cell><table:table-cell table:number-columns-repeated="2"><text:p>a<text:tab/>b</text:p><text:p>c<text:line-break/>d</text:p></table:table-cell><table:table-cell/><table:table-cell><text:p>extra</text:p></table:table-cell></table:table-row>
</table:table>`,
			want: []string{
				"Report/0: k=#3; k_2=a\tb\nc\nd; column_3=a\tb\nc\nd; v=<null>; column_5=extra",
			},
		},
		{
			name: "single-cell rows are data when no wider row follows",
			body: `<table:table table:name="L"><table:table-row><table:table-cell><text:p>word</text:p></table:table-cell></table:table-row><table:table-row><table:table-cell><text:p>ahoj</text:p></table:table-cell></table:table-row></table:table>`,
			want: []string{"L/0: word=ahoj"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			recs, rerrs := recAll(t, FormatODS, odsBuild(t, tt.body), RecordOptions{})
			if len(rerrs) != 0 {
				t.Fatalf("record errors: %v", rerrs)
			}
			var got []string
			for _, r := range recs {
				got = append(got, r.Sheet+"/"+strconv.Itoa(r.Index)+": "+recFlat(r))
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("records:\n got %q\nwant %q", got, tt.want)
			}
		})
	}
}

func TestODSCellBudget(t *testing.T) {
	defer func(old limitSet) { limits = old }(limits)
	limits.cells = 10000
	body := `<table:table table:name="bomb"><table:table-row><table:table-cell><text:p>a</text:p></table:table-cell><table:table-cell><text:p>b</text:p></table:table-cell></table:table-row>` +
		`<table:table-row table:number-rows-repeated="1000000"><table:table-cell table:number-columns-repeated="100000"><text:p>x</text:p></table:table-cell></table:table-row></table:table>`
	recs, _, err := recAllErr(FormatODS, odsBuild(t, body), RecordOptions{})
	if !errors.Is(err, ErrTooLarge) {
		t.Fatalf("error = %v, want ErrTooLarge", err)
	}
	// A repeated row is charged whole before its first copy: the header
	// (2 cells) fits, the repeated run does not.
	if len(recs) > 0 {
		t.Errorf("read %d records past the budget", len(recs))
	}
}

func TestODSTimeOfDay(t *testing.T) {
	tests := []struct{ in, want string }{
		{"PT05H28M03S", "05:28:03"},
		{"PT00H00M01.00224S", "00:00:01.00224"},
		{"PT1H2M3S", "01:02:03"},
		{"PT12H30M", "12:30:00"},
		{"P1DT2H", "P1DT2H"},
		{"PTxHM3S", "PTxHM3S"},
		{"", ""},
	}
	for _, tt := range tests {
		if got := odsTimeOfDay(tt.in); got != tt.want {
			t.Errorf("odsTimeOfDay(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestODSCorrupt(t *testing.T) {
	good := testutil.ReadDoc(t, "test-columnar.ods")
	for name, in := range map[string][]byte{
		"not a zip":      []byte("hello"),
		"truncated":      good[:len(good)*2/3],
		"no content.xml": odsZipWithout(t),
		"xlsx":           testutil.ReadDoc(t, "testEXCEL.xlsx"),
		"unclosed table": odsBuild(t, `<table:table table:name="x"><table:table-row><table:table-cell><text:p>a</text:p></table:table-cell></table:table-row>`),
	} {
		if _, _, err := recAllErr(FormatODS, in, RecordOptions{}); !errors.Is(err, ErrCorrupt) {
			t.Errorf("%s: error = %v, want ErrCorrupt", name, err)
		}
	}
}

// odsZipWithout returns a zip holding only an ODS mimetype entry.
func odsZipWithout(t *testing.T) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	w, err := zw.Create("mimetype")
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte("application/vnd.oasis.opendocument.spreadsheet"))
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func BenchmarkODS(b *testing.B) {
	b.Run("columnar", func(b *testing.B) { recBench(b, FormatODS, testutil.ReadDoc(b, "test-columnar.ods")) })
}
