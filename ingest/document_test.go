package ingest

import (
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

// docBenchmark runs parse over the shared file name, reporting MB/s of
// input.
func docBenchmark(b *testing.B, name string, parse func([]byte) (Document, error)) {
	data := testutil.ReadDoc(b, name)
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	var sink int
	for b.Loop() {
		doc, err := parse(data)
		if err != nil {
			b.Fatal(err)
		}
		sink += len(doc.Sections)
	}
	if sink == 0 {
		b.Fatal("no sections")
	}
}

func BenchmarkParseText(b *testing.B) {
	docBenchmark(b, "czech-cac-excerpt-cp1250.txt", func(d []byte) (Document, error) { return ParseText(d, "") })
}

func BenchmarkParseHTML(b *testing.B) {
	docBenchmark(b, "wikipedia-mozilla.html", func(d []byte) (Document, error) { return ParseHTML(d, "") })
}

func BenchmarkParseDOCX(b *testing.B) {
	docBenchmark(b, "testWORD.docx", ParseDOCX)
}

func BenchmarkParsePDF(b *testing.B) {
	b.Run("tracemonkey", func(b *testing.B) { docBenchmark(b, "tracemonkey.pdf", ParsePDF) })
	b.Run("various", func(b *testing.B) { docBenchmark(b, "testPDFVarious.pdf", ParsePDF) })
}

func BenchmarkDecodeBytes(b *testing.B) {
	data := testutil.ReadDoc(b, "czech-cac-excerpt-cp1250.txt")
	b.ReportAllocs()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := DecodeBytes(data, ""); err != nil {
			b.Fatal(err)
		}
	}
}

func TestDocCleanText(t *testing.T) {
	tests := []struct{ in, want string }{
		{"", ""},
		{"plain", "plain"},
		{"  a \t b\n\nc  ", "a b c"},
		{"soft\u00adhyphen zero\u200bwidth", "softhyphen zerowidth"},
		{"bad \xff byte", "bad byte"},
		{"private \ue000 use", "private use"},
		{"nbsp\u00a0and\u2003em", "nbsp and em"},
		{"emoji 👩\u200d💻", "emoji 👩\u200d💻"},
		{"c1 \u0085 control", "c1 control"},
	}
	for _, tt := range tests {
		if got := docCleanText(tt.in); got != tt.want {
			t.Errorf("docCleanText(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
