package ingest

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

// recFuzzMaxRecords bounds how many records a fuzz input is read for; ODS
// row repeats can legitimately expand a small input a lot.
const recFuzzMaxRecords = 1 << 16

// recFuzzSeed adds the real files named to f, skipping ones over max bytes
// (cut to max instead when cut is set): large seeds make the fuzzer spend
// its time minimizing instead of executing.
func recFuzzSeed(f *testing.F, max int, cut bool, names ...string) {
	for _, n := range names {
		data := testutil.ReadDoc(f, n)
		if len(data) > max {
			if !cut {
				continue
			}
			data = data[:max]
		}
		f.Add(data)
	}
}

// recFuzzRead reads data as format and checks the reader's contract: no
// panic, record errors carry the index of the record they replace, records
// have non-empty property names, and a fatal error ends the stream.
func recFuzzRead(t *testing.T, format Format, data []byte) {
	rr, err := NewRecordReader(format, bytes.NewReader(data), RecordOptions{})
	if err != nil {
		return
	}
	for n := 0; n < recFuzzMaxRecords; n++ {
		rec, err := rr.Next()
		if err == io.EOF {
			if _, err := rr.Next(); err != io.EOF {
				t.Fatalf("Next after io.EOF = %v", err)
			}
			return
		}
		var re *RecordError
		if errors.As(err, &re) {
			if re.Err == nil || re.Index < 0 {
				t.Fatalf("bad record error %+v", re)
			}
			continue
		}
		if err != nil {
			return
		}
		if rec.Index < 0 {
			t.Fatalf("record index %d", rec.Index)
		}
		for _, p := range rec.Props {
			if p.Name == "" && format != FormatJSON && format != FormatJSONL {
				t.Fatalf("record %d has a property without a name", rec.Index)
			}
			for _, v := range p.Values {
				if v.Kind > KindBool {
					t.Fatalf("value kind %d", v.Kind)
				}
				if v.Kind == KindNull && v.Str != "" {
					t.Fatalf("null value with text %q", v.Str)
				}
			}
		}
	}
}

func FuzzCSV(f *testing.F) {
	recFuzzSeed(f, 8<<10, true, "country-codes.csv")
	for _, s := range []string{"a,b\n1,2\n", "a;b\n\"x;\"\"y\";2\n", "a\tb\n1\t2\t3\n", "\"unterminated\n", "a\n\"b\"x\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { recFuzzRead(t, FormatCSV, data) })
}

func FuzzJSON(f *testing.F) {
	recFuzzSeed(f, 8<<10, true, "countries.json")
	for _, s := range []string{`[{"a":1},2]`, `{"k":{"a":1}}`, `{"data":[{"a":[{"b":1}]}]}`, `{"a":1}`, `[`, `{"a":[[[]]]}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { recFuzzRead(t, FormatJSON, data) })
}

func FuzzJSONL(f *testing.F) {
	recFuzzSeed(f, 8<<10, true, "gsm8k-test.jsonl")
	for _, s := range []string{"{\"a\":1}\n\n{\"b\":2}", "{\n", "[1]\n{}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) { recFuzzRead(t, FormatJSONL, data) })
}

func FuzzXLSX(f *testing.F) {
	recFuzzSeed(f, 64<<10, false, "testEXCEL.xlsx", "kyc-file-structure.xlsx")
	f.Fuzz(func(t *testing.T, data []byte) { recFuzzRead(t, FormatXLSX, data) })
}

func FuzzODS(f *testing.F) {
	recFuzzSeed(f, 64<<10, false, "test-columnar.ods")
	f.Add(odsBuild(f, `<table:table table:name="a"><table:table-row table:number-rows-repeated="3"><table:table-cell office:value-type="float" office:value="1" table:number-columns-repeated="2"><text:p>1</text:p></table:table-cell></table:table-row></table:table>`))
	// Raw content.xml seeds let the fuzzer mutate the XML itself; they are
	// zipped before parsing.
	f.Add(recFuzzODSContent(f, testutil.ReadDoc(f, "test-columnar.ods")))
	f.Fuzz(func(t *testing.T, data []byte) {
		if !bytes.HasPrefix(data, []byte("PK")) {
			data = recFuzzZipContent(data)
		}
		recFuzzRead(t, FormatODS, data)
	})
}

// recFuzzODSContent returns the content.xml of an ODS file.
func recFuzzODSContent(tb testing.TB, ods []byte) []byte {
	zr, err := zip.NewReader(bytes.NewReader(ods), int64(len(ods)))
	if err != nil {
		tb.Fatal(err)
	}
	rc, err := zr.Open("content.xml")
	if err != nil {
		tb.Fatal(err)
	}
	defer rc.Close()
	b, err := io.ReadAll(rc)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

// recFuzzZipContent zips content as the content.xml of an ODS file.
func recFuzzZipContent(content []byte) []byte {
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	if w, err := zw.Create("content.xml"); err == nil {
		w.Write(content)
	}
	zw.Close()
	return b.Bytes()
}

func FuzzDetectFormat(f *testing.F) {
	for _, n := range []string{"country-codes.csv", "countries.json", "gsm8k-test.jsonl", "testEXCEL.xlsx", "test-columnar.ods", "testWORD.docx", "tracemonkey.pdf", "wikipedia-mozilla.html", "czech-cac-excerpt-cp1250.txt"} {
		data := testutil.ReadDoc(f, n)
		f.Add("", n, data[:min(len(data), 4096)])
	}
	f.Add("text/csv; charset=utf-8", "", []byte("a,b"))
	f.Add("multipart/form-data; boundary=\"", "x.", []byte{0xff, 0xfe, 0})
	f.Fuzz(func(t *testing.T, ct, name string, head []byte) {
		got, err := DetectFormat(ct, name, head)
		if err != nil {
			if !errors.Is(err, ErrUnsupportedFormat) || got != "" {
				t.Fatalf("DetectFormat = %q, %v", got, err)
			}
			return
		}
		if _, err := ParseFormat(string(got)); err != nil {
			t.Fatalf("DetectFormat returned unknown format %q", got)
		}
	})
}
