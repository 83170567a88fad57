package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

// pdfParseShared parses a shared PDF once per test.
func pdfParseShared(t *testing.T, name string) Document {
	t.Helper()
	doc, err := ParsePDF(testutil.ReadDoc(t, name))
	if err != nil {
		t.Fatal(err)
	}
	docCheckOutput(t, doc)
	return doc
}

// pdfFind returns the index of the first section containing s, -1 if none.
func pdfFind(doc Document, s string) int {
	return slices.IndexFunc(doc.Sections, func(sec Section) bool { return strings.Contains(sec.Content, s) })
}

func TestParsePDFTracemonkey(t *testing.T) {
	doc := pdfParseShared(t, "tracemonkey.pdf")
	const title = "Trace-based Just-in-Time Type Specialization for Dynamic Languages"
	if doc.Title != title {
		t.Errorf("Title = %q, want %q", doc.Title, title)
	}
	if len(doc.Sections) == 0 || doc.Sections[0] != (Section{Type: "title", Content: title}) {
		t.Errorf("first section %+v, want the title", doc.Sections[:min(1, len(doc.Sections))])
	}

	t.Run("abstract contiguous", func(t *testing.T) {
		// The abstract (left column of page 1, checked with pdftotext) is
		// one paragraph right after its heading, in order, with the
		// line-end hyphens "com-piled" and "alter-native" joined.
		i := slices.Index(doc.Sections, Section{Type: "h1", Content: "Abstract"})
		if i < 0 || i+1 >= len(doc.Sections) {
			t.Fatalf("no Abstract heading")
		}
		want := "Dynamic languages such as JavaScript are more difficult to compile than statically typed ones. " +
			"Since no concrete type information is available, traditional compilers need to emit generic code that can " +
			"handle all possible type combinations at runtime. We present an alternative compilation technique"
		if got := doc.Sections[i+1]; got.Type != "p" || !strings.HasPrefix(got.Content, want) ||
			!strings.HasSuffix(got.Content, "we have measured speedups of 10x and more for certain benchmark programs.") {
			t.Errorf("abstract = %+v", got)
		}
	})

	t.Run("two columns", func(t *testing.T) {
		// Page 1: the left column ends "...the de facto standard for
		// client-side web programming" above the ACM copyright notice; the
		// sentence goes on at the top of the right column. Read column by
		// column (and the notice set aside as a footnote), it is contiguous.
		want := "JavaScript, for example, is the de facto standard for client-side web programming and is used for the application logic of browser-based productivity applications"
		i := pdfFind(doc, want)
		if i < 0 {
			t.Fatalf("sentence across the column break is not contiguous")
		}
		if doc.Sections[i].Type != "p" || !strings.HasPrefix(doc.Sections[i].Content, "Dynamic languages such as JavaScript, Python, and Ruby") {
			t.Errorf("section %+v", doc.Sections[i])
		}
		// Page 2 starts its right column with "erating" (hyphenated from
		// "op-" at the end of the left column) — another cross-column join.
		if pdfFind(doc, "Permission to make digital or hard copies") < 0 {
			t.Error("copyright notice lost")
		}
		for _, s := range doc.Sections {
			if strings.Contains(s.Content, "web programming Permission") || strings.Contains(s.Content, "Zimbra Col- Dynamic") {
				t.Errorf("columns interleaved: %q", s.Content[:min(len(s.Content), 100)])
			}
		}
	})

	t.Run("headings", func(t *testing.T) {
		var got []Section
		for _, s := range doc.Sections {
			if s.Type == "h1" || s.Type == "h2" || s.Type == "h3" {
				got = append(got, s)
			}
		}
		// The paper's section structure (from the PDF as printed).
		want := []Section{
			{Type: "h1", Content: "Abstract"}, {Type: "h1", Content: "1. Introduction"}, {Type: "h1", Content: "2. Overview: Example Tracing Run"},
			{Type: "h1", Content: "3. Trace Trees"}, {Type: "h2", Content: "3.1 Traces"}, {Type: "h2", Content: "3.2 Trace Trees"}, {Type: "h2", Content: "3.3 Blacklisting"},
			{Type: "h1", Content: "4. Nested Trace Tree Formation"}, {Type: "h2", Content: "4.1 Nesting Algorithm"}, {Type: "h2", Content: "4.2 Blacklisting with Nesting"},
			{Type: "h1", Content: "5. Trace Tree Optimization"}, {Type: "h2", Content: "5.1 Optimizations"}, {Type: "h2", Content: "5.2 Register Allocation"},
			{Type: "h1", Content: "6. Implementation"}, {Type: "h2", Content: "6.1 Calling Compiled Traces"}, {Type: "h2", Content: "6.2 Trace Stitching"},
			{Type: "h2", Content: "6.3 Trace Recording"}, {Type: "h2", Content: "6.4 Preemption"}, {Type: "h2", Content: "6.5 Calling External Functions"},
			{Type: "h2", Content: "6.6 Correctness"}, {Type: "h1", Content: "7. Evaluation"}, {Type: "h1", Content: "8. Related Work"}, {Type: "h1", Content: "9. Conclusions"},
			{Type: "h1", Content: "10. Future Work"}, {Type: "h1", Content: "Acknowledgments"}, {Type: "h1", Content: "References"},
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("headings =\n%q\nwant\n%q", got, want)
		}
	})

	t.Run("text quality", func(t *testing.T) {
		var all strings.Builder
		for _, s := range doc.Sections {
			all.WriteString(s.Content)
			all.WriteByte('\n')
		}
		text := all.String()
		for _, want := range []string{
			"In a naïve implementation, inner loops would become hot first", // TeX accent composed
			"TraceMonkey always begins executing a program in the bytecode interpreter.",
			"We solve the nested loop problem by recording nested trace trees.",
		} {
			if !strings.Contains(text, want) {
				t.Errorf("text lacks %q", want)
			}
		}
		// Figures on pages 9-12 use fonts without a usable encoding;
		// pdftotext prints them as "?>9@AJ.D<F@-<>2.@A:0" and similar. They
		// must be dropped, not emitted as mojibake.
		for _, bad := range []string{"?>9@", "@A:0", "%#\""} {
			if strings.Contains(text, bad) {
				t.Errorf("mojibake %q in output", bad)
			}
		}
		if n := len(doc.Sections); n < 250 || n > 600 {
			t.Errorf("%d sections, want 250..600", n)
		}
	})
}

func TestParsePDFTikaVarious(t *testing.T) {
	doc := pdfParseShared(t, "testPDFVarious.pdf")
	// Expected content read off the rendered file (pdftotext -layout):
	// header/footer on both pages are dropped as running chrome; the
	// bullets are images, so those items stay paragraphs.
	want := []Section{
		{Type: "p", Content: "Footnote appears here1"},
		{Type: "p", Content: "Bold italic underline superscript subscript"},
		{Type: "p", Content: "Here is a list:"},
		{Type: "p", Content: "Here is a text box"},
		{Type: "p", Content: "Bullet 1"},
		{Type: "p", Content: "Bullet 2"},
		{Type: "p", Content: "Bullet 3"},
		{Type: "p", Content: "Here is a numbered list:"},
		{Type: "li", Content: "Number bullet 1"},
		{Type: "li", Content: "Number bullet 2"},
		{Type: "li", Content: "Number bullet 3"},
		{Type: "p", Content: "Keyword1 Keyword2"},
		{Type: "p", Content: "This is a hyperlink"},
		{Type: "p", Content: "Subject is here"},
		{Type: "table", Content: "Row 1 Col 1 | Row 1 Col 2 | Row 1 Col 3"},
		{Type: "table", Content: "Row 2 Col 1 | Row 2 Col 2 | Row 2 Col 3"},
		{Type: "p", Content: "Suddenly some Japanese text:"},
		{Type: "p", Content: "ゾルゲと尾崎、淡々と最期"},
		{Type: "p", Content: "（ＧＨＱ）"},
		{Type: "p", Content: "And then some Gothic text:"}, // the Gothic glyphs have no Unicode mapping: dropped
		{Type: "footnote", Content: "1 This is a footnote."},
		{Type: "p", Content: "Here is a citation:"},
		{Type: "p", Content: "(Kramer)"},
		{Type: "p", Content: "Figure 1 This is a caption for Figure 1"},
		{Type: "table", Content: "Row 1 column 1 | Row 1 column 2"},
		{Type: "table", Content: "Row 2 column 1 | Row 2 column 2"},
	}
	if !reflect.DeepEqual(doc.Sections, want) {
		t.Errorf("Sections =\n%q\nwant\n%q", doc.Sections, want)
	}
}

// pdfBuild writes a minimal single-page PDF with the given content stream
// and font dictionary.
func pdfBuild(content, font string) []byte {
	return pdfBuildPages([]string{content}, font, "")
}

// pdfBuildPages writes a PDF with one page per content stream, all using
// font as /F1; cmap, when not "", is the font's ToUnicode stream, object
// 3 (the font refers to it as "3 0 R").
func pdfBuildPages(contents []string, font, cmap string) []byte {
	objs := []string{"<< /Type /Catalog /Pages 2 0 R >>", "", ""}
	if cmap != "" {
		objs[2] = fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(cmap), cmap)
	} else {
		objs[2] = "null"
	}
	objs = append(objs, font) // object 4
	var kids []string
	for _, c := range contents {
		page := len(objs) + 1
		kids = append(kids, fmt.Sprintf("%d 0 R", page))
		objs = append(objs,
			fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 4 0 R >> >> /Contents %d 0 R >>", page+1),
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(c), c))
	}
	objs[1] = fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(contents))
	var b bytes.Buffer
	b.WriteString("%PDF-1.4\n")
	offs := make([]int, len(objs))
	for i, o := range objs {
		offs[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(objs)+1)
	for _, o := range offs {
		fmt.Fprintf(&b, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(objs)+1, xref)
	return b.Bytes()
}

const pdfTestCMap = "/CIDInit /ProcSet findresource begin 12 dict begin begincmap\n" +
	"1 begincodespacerange <0000> <FFFF> endcodespacerange\n" +
	"2 beginbfchar <0001> <017D> <0002> <006C> endbfchar\n" +
	"1 beginbfrange <0003> <0004> [<0075> <0165>] endbfrange\n" +
	"endcmap CMapName currentdict /CMap defineresource pop end end"

const pdfHelvetica = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"

func TestParsePDFSynthetic(t *testing.T) {
	tests := []struct {
		name    string
		content string
		font    string
		want    []Section
	}{
		{
			"words from gaps and TJ kerning",
			"BT /F1 12 Tf 72 700 Td [(Hello)-300(world)] TJ ET",
			pdfHelvetica,
			[]Section{{Type: "p", Content: "Hello world"}},
		},
		{
			"hyphenation and paragraphs",
			"BT /F1 10 Tf 12 TL 72 700 Td (A sentence that con-) Tj T* (tinues here.) Tj 0 -40 Td (Second paragraph.) Tj ET",
			pdfHelvetica,
			[]Section{{Type: "p", Content: "A sentence that continues here."}, {Type: "p", Content: "Second paragraph."}},
		},
		{
			"heading by size",
			"BT /F1 20 Tf 72 700 Td (Big Heading) Tj /F1 10 Tf 0 -30 Td (Body text line one is long enough to be body.) Tj 0 -12 Td (More body text follows here.) Tj ET",
			pdfHelvetica,
			[]Section{{Type: "title", Content: "Big Heading"}, {Type: "p", Content: "Body text line one is long enough to be body. More body text follows here."}},
		},
		{
			"composite font without ToUnicode is dropped",
			"BT /F1 12 Tf 72 700 Td <00410042> Tj ET",
			"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X >>] >>",
			nil,
		},
		{
			"unknown glyph names are dropped",
			"BT /F1 12 Tf 72 700 Td (\x01\x02\x03\x04) Tj ET",
			"<< /Type /Font /Subtype /Type1 /BaseFont /X /Encoding << /Differences [1 /g17 /g18 /g19 /g20] >> >>",
			nil,
		},
		{
			"ToUnicode CMap",
			"BT /F1 12 Tf 72 700 Td <0001000200030004> Tj ET",
			"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [<< /Type /Font /Subtype /CIDFontType2 /BaseFont /X /DW 500 >>] /ToUnicode 3 0 R >>",
			[]Section{{Type: "p", Content: "Žluť"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cmap := ""
			if strings.Contains(tt.font, "3 0 R") {
				cmap = pdfTestCMap
			}
			doc, err := ParsePDF(pdfBuildPages([]string{tt.content}, tt.font, cmap))
			checkSections(t, doc, err, tt.want)
		})
	}
}

func TestParsePDFRunningHeaders(t *testing.T) {
	var pages []string
	for i := 1; i <= 3; i++ {
		pages = append(pages, fmt.Sprintf("BT /F1 10 Tf 72 760 Td (ACME Quarterly Report) Tj ET "+
			"BT /F1 10 Tf 72 600 Td (Body of page %d.) Tj ET BT /F1 10 Tf 300 30 Td (%d) Tj ET", i, i))
	}
	doc, err := ParsePDF(pdfBuildPages(pages, pdfHelvetica, ""))
	if err != nil {
		t.Fatal(err)
	}
	want := []Section{{Type: "p", Content: "Body of page 1."}, {Type: "p", Content: "Body of page 2."}, {Type: "p", Content: "Body of page 3."}}
	if !reflect.DeepEqual(doc.Sections, want) {
		t.Errorf("Sections = %q\nwant %q", doc.Sections, want)
	}
}

func TestParsePDFHostile(t *testing.T) {
	hello := pdfBuild("BT /F1 12 Tf 72 700 Td (Hi) Tj ET", pdfHelvetica)
	i := bytes.LastIndex(hello, []byte("startxref\n"))
	off, _ := pdfLeadingInt(hello[i+len("startxref"):])
	// The trailer's /Prev points back at its own xref section: the PDF
	// library alone would loop forever.
	cycle := bytes.Replace(hello, []byte("/Root 1 0 R >>"), []byte(fmt.Sprintf("/Root 1 0 R /Prev %d >>", off)), 1)

	tests := []struct {
		name string
		data []byte
		want string
	}{
		{"xref prev cycle", cycle, "Hi"},
		{"pdf 2.0 header", append([]byte("%PDF-2.0"), hello[len("%PDF-1.4"):]...), "Hi"},
		{"junk before header and after eof", append(append([]byte("junk\n"), hello...), bytes.Repeat([]byte("x"), 200)...), "Hi"},
		// Object numbers in the billions: the library would allocate its
		// table by them and exhaust memory; the file is recovered instead.
		{"xref subsection past the limit", bytes.Replace(hello, []byte("xref\n0 "), []byte("xref\n4000000000 "), 1), "Hi"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := ParsePDF(tt.data)
			if err != nil {
				t.Fatal(err)
			}
			if len(doc.Sections) != 1 || doc.Sections[0].Content != tt.want {
				t.Errorf("sections %q, want %q", doc.Sections, tt.want)
			}
		})
	}
}

func TestParsePDFCorrupt(t *testing.T) {
	good := testutil.ReadDoc(t, "testPDFVarious.pdf")
	tests := []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"not a pdf", []byte("hello world")},
		{"header only", []byte("%PDF-1.4\n%%EOF\n")},
		{"truncated before the first page", good[:300]}, // half the file is recovered: TestParsePDFBrokenShared
		{"garbage xref", append([]byte("%PDF-1.4\nstartxref\n999999999\n%%EOF\n"), 0)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := ParsePDF(tt.data); !errors.Is(err, ErrCorrupt) {
				t.Errorf("err = %v, want ErrCorrupt", err)
			}
		})
	}
}

func FuzzParsePDF(f *testing.F) {
	f.Add(testutil.ReadDoc(f, "testPDFVarious.pdf"))
	f.Add(pdfBuild("BT /F1 12 Tf 72 700 Td [(Hello)-300(world)] TJ ET", pdfHelvetica))
	f.Add(pdfBuildPages([]string{"BT /F1 12 Tf 72 700 Td <0001000200030004> Tj ET", "q 2 0 0 2 0 0 cm BT /F1 9 Tf 1 0 0 1 40 50 Tm (x) ' ET Q"},
		"<< /Type /Font /Subtype /Type0 /BaseFont /X /Encoding /Identity-H /DescendantFonts [<< /Subtype /CIDFontType2 /W [1 [500 600] 3 4 700] >>] /ToUnicode 3 0 R >>", pdfTestCMap))
	// The broken files of scripts/make-broken-pdfs.go steer the fuzzer
	// into cross-reference recovery.
	broken, err := filepath.Glob(filepath.Join(pdfBrokenDir, "*.pdf"))
	if err != nil || len(broken) == 0 {
		f.Fatalf("no fixtures in %s: %v", pdfBrokenDir, err)
	}
	for _, name := range broken {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := ParsePDF(data)
		if errors.Is(err, errPDFRecoveryBug) {
			t.Fatal(err)
		}
		if err != nil {
			if !errors.Is(err, ErrCorrupt) {
				t.Fatalf("error %v does not wrap ErrCorrupt", err)
			}
			return
		}
		docCheckOutput(t, doc)
	})
}
