package ingest

import (
	"errors"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
	"golang.org/x/text/encoding/unicode"
)

func TestDetectFormatRealFiles(t *testing.T) {
	files := []struct {
		name string
		want Format
	}{
		{"country-codes.csv", FormatCSV},
		{"countries.json", FormatJSON},
		{"gsm8k-test.jsonl", FormatJSONL},
		{"testEXCEL.xlsx", FormatXLSX},
		{"kyc-file-structure.xlsx", FormatXLSX},
		{"test-columnar.ods", FormatODS},
		{"testWORD.docx", FormatDOCX},
		{"tracemonkey.pdf", FormatPDF},
		{"testPDFVarious.pdf", FormatPDF},
		{"wikipedia-mozilla.html", FormatHTML},
		{"czech-cac-excerpt-cp1250.txt", FormatText},
	}
	for _, f := range files {
		data := testutil.ReadDoc(t, f.name)
		heads := map[string][]byte{"whole": data}
		if len(data) > DetectSniffSize {
			heads["head"] = data[:DetectSniffSize]
		}
		for kind, head := range heads {
			// Content alone, then with a generic type and the real name.
			if got, err := DetectFormat("", "", head); err != nil || got != f.want {
				t.Errorf("%s (%s): sniffed %q, %v; want %q", f.name, kind, got, err, f.want)
			}
			if got, err := DetectFormat("application/octet-stream", f.name, head); err != nil || got != f.want {
				t.Errorf("%s (%s) by name: %q, %v; want %q", f.name, kind, got, err, f.want)
			}
		}
	}
}

func TestDetectFormat(t *testing.T) {
	utf16CSV, _ := unicode.UTF16(unicode.LittleEndian, unicode.UseBOM).NewEncoder().Bytes([]byte("a;b\n1;2\n3;4\n"))
	tests := []struct {
		name, ct, file string
		head           []byte
		want           Format
		err            error
	}{
		{"csv type", "text/csv; charset=windows-1250", "", []byte("{}"), FormatCSV, nil},
		{"tsv type", "text/tab-separated-values", "", nil, FormatCSV, nil},
		{"json type", "application/json", "x.csv", nil, FormatJSON, nil},
		{"json suffix type", "application/ld+json", "", nil, FormatJSON, nil},
		{"ndjson type", "application/x-ndjson", "", nil, FormatJSONL, nil},
		{"jsonl type", "application/jsonl", "", nil, FormatJSONL, nil},
		{"html type", "TEXT/HTML; charset=utf-8", "", nil, FormatHTML, nil},
		{"plain type", "text/plain", "", []byte("a,b\n1,2\n3,4\n"), FormatText, nil},
		{"pdf type", "application/pdf", "", nil, FormatPDF, nil},
		{"docx type", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", "", nil, FormatDOCX, nil},
		{"xlsx type", "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", "", nil, FormatXLSX, nil},
		{"ods type", "application/vnd.oasis.opendocument.spreadsheet", "", nil, FormatODS, nil},
		{"octet-stream falls to name", "application/octet-stream", "data.NDJSON", nil, FormatJSONL, nil},
		{"excel type for csv falls to name", "application/vnd.ms-excel", "export.csv", nil, FormatCSV, nil},
		{"windows path", "", `C:\Users\eva\Doc.DOCX`, nil, FormatDOCX, nil},
		{"unknown ext sniffs", "", "data.bin", []byte(`[{"a":1}]`), FormatJSON, nil},
		{"json array prefix", "", "", []byte("[\n  {\n    \"a\": "), FormatJSON, nil},
		{"json object prefix", "", "", []byte("{\n \"a\": [1,"), FormatJSON, nil},
		{"single json line", "", "", []byte("{\"a\": 1}\n"), FormatJSON, nil},
		{"jsonl", "", "", []byte("{\"a\": 1}\n{\"a\": 2}\n"), FormatJSONL, nil},
		{"jsonl cut in second line", "", "", []byte("{\"a\": 1}\n{\"a\": "), FormatJSONL, nil},
		{"html fragment", "", "", []byte("<div><p>Ahoj</p></div>"), FormatHTML, nil},
		{"doctype", "", "", []byte("\n<!DOCTYPE html><title>x</title>"), FormatHTML, nil},
		{"semicolon csv", "", "", []byte("a;b;c\n1;2;3\n4;5;6\n"), FormatCSV, nil},
		{"utf-16 csv", "", "", utf16CSV, FormatCSV, nil},
		{"prose with commas", "", "", []byte("Hello, world.\nThis is text.\nAnother line, here, now.\n"), FormatText, nil},
		{"two-line csv is text", "", "", []byte("a,b\n1,2\n"), FormatText, nil},
		{"empty", "", "", nil, FormatText, nil},
		{"pdf magic", "", "", []byte("%PDF-1.7\n%\xe2\xe3"), FormatPDF, nil},
		{"binary", "", "", []byte("\x00\x01\x02\x03binary\x00\x00"), "", ErrUnsupportedFormat},
		{"png", "image/png", "", []byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), "", ErrUnsupportedFormat},
		{"plain zip", "", "", []byte("PK\x03\x04\x14\x00\x00\x00\x08\x00foo.txt"), "", ErrUnsupportedFormat},
	}
	for _, tt := range tests {
		got, err := DetectFormat(tt.ct, tt.file, tt.head)
		if got != tt.want || !errors.Is(err, tt.err) || (tt.err == nil && err != nil) {
			t.Errorf("%s: DetectFormat(%q, %q) = %q, %v; want %q, %v", tt.name, tt.ct, tt.file, got, err, tt.want, tt.err)
		}
	}
}

// TestDetectThenRead sniffs each record-oriented real file and reads it
// with the detected format, as an upload without a name or type is.
func TestDetectThenRead(t *testing.T) {
	for name, want := range map[string]int{
		"country-codes.csv": 249, "countries.json": 250, "gsm8k-test.jsonl": 1319,
		"testEXCEL.xlsx": 16, "test-columnar.ods": 11,
	} {
		data := testutil.ReadDoc(t, name)
		f, err := DetectFormat("", "", data[:min(len(data), DetectSniffSize)])
		if err != nil || !f.RecordOriented() {
			t.Errorf("%s: detected %q, %v", name, f, err)
			continue
		}
		recs, rerrs := recAll(t, f, data, RecordOptions{})
		if len(recs) != want || len(rerrs) != 0 {
			t.Errorf("%s as %s: %d records, %d errors; want %d, 0", name, f, len(recs), len(rerrs), want)
		}
	}
}
