package ingest

import (
	"archive/zip"
	"bytes"
	"errors"
	"reflect"
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

func TestParseDOCXTikaSample(t *testing.T) {
	doc, err := ParseDOCX(testutil.ReadDoc(t, "testWORD.docx"))
	if err != nil {
		t.Fatal(err)
	}
	docCheckOutput(t, doc)
	// Expected flow read off word/document.xml and word/styles.xml of the
	// file: style "Heading" (no level) is the LibreOffice base heading.
	want := []Section{
		{Type: "title", Content: "Sample Word Document Title"},
		{Type: "subtitle", Content: "And now for a subtitle"},
		{Type: "h1", Content: "Main Heading"},
		{Type: "h1", Content: "Heading Level 1"},
		{Type: "h2", Content: "Heading Level 2"},
		{Type: "h3", Content: "Heading Level 3"},
		{Type: "p", Content: "This is a sample Microsoft Word Document."},
		{Type: "p", Content: "This document includes text that is BOLD and ITALIC."},
		{Type: "table", Content: "This is a table"},
		{Type: "table", Content: "Nested table"},
		{Type: "table", Content: "More of our nested table"},
		{Type: "table", Content: "The table has things in it"},
		{Type: "p", Content: "Apache Tika: http://tika.apache.org/ Tika"},
		{Type: "p", Content: "Apache POI: http://poi.apache.org/ POI"},
		{Type: "p", Content: "This paragraph is in the default text style"},
		{Type: "p", Content: "This one is in a different one, the Signature style"},
		{Type: "p", Content: "This is back to the default again"},
		{Type: "p", Content: "This links to The Main Heading Bookmark and The Level 3 Bookmark. That’s it!"},
	}
	if !reflect.DeepEqual(doc.Sections, want) {
		t.Errorf("Sections =\n%q\nwant\n%q", doc.Sections, want)
	}
	if doc.Title != "Sample Word Document Title" {
		t.Errorf("Title = %q", doc.Title)
	}
}

// docxBuild zips the given parts into a DOCX archive.
func docxBuild(t testing.TB, parts map[string]string) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for name, body := range parts {
		w, err := zw.Create(name)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := w.Write([]byte(body)); err != nil {
			t.Fatal(err)
		}
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

const docxTestHead = `<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main" xmlns:mc="http://schemas.openxmlformats.org/markup-compatibility/2006" xmlns:v="urn:schemas-microsoft-com:vml"><w:body>`

const docxTestStyles = `<?xml version="1.0"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main">
<w:style w:type="paragraph" w:styleId="Nadpis1"><w:name w:val="heading 1"/></w:style>
<w:style w:type="paragraph" w:styleId="Mujnadpis"><w:name w:val="Můj nadpis"/><w:basedOn w:val="Nadpis1"/></w:style>
<w:style w:type="paragraph" w:styleId="Odstavec"><w:name w:val="List Paragraph"/></w:style>
<w:style w:type="paragraph" w:styleId="Osnova"><w:name w:val="Osnova"/><w:pPr><w:outlineLvl w:val="2"/></w:pPr></w:style>
<w:style w:type="paragraph" w:styleId="Loop"><w:name w:val="Loop"/><w:basedOn w:val="Loop"/></w:style>
</w:styles>`

func TestParseDOCX(t *testing.T) {
	tests := []struct {
		name  string
		body  string
		extra map[string]string
		title string
		want  []Section
	}{
		{
			"styles by name and basedOn",
			`<w:p><w:pPr><w:pStyle w:val="Nadpis1"/></w:pPr><w:r><w:t>Úvod</w:t></w:r></w:p>
			<w:p><w:pPr><w:pStyle w:val="Mujnadpis"/></w:pPr><w:r><w:t>Derived</w:t></w:r></w:p>
			<w:p><w:pPr><w:pStyle w:val="Osnova"/></w:pPr><w:r><w:t>Outline</w:t></w:r></w:p>
			<w:p><w:pPr><w:pStyle w:val="Loop"/></w:pPr><w:r><w:t>Cycle</w:t></w:r></w:p>
			<w:p><w:pPr><w:pStyle w:val="Odstavec"/></w:pPr><w:r><w:t>item one</w:t></w:r></w:p>
			<w:p><w:pPr><w:numPr><w:ilvl w:val="0"/><w:numId w:val="3"/></w:numPr></w:pPr><w:r><w:t>item two</w:t></w:r></w:p>
			<w:p><w:pPr><w:numPr><w:numId w:val="0"/></w:numPr></w:pPr><w:r><w:t>not a list</w:t></w:r></w:p>`,
			map[string]string{"word/styles.xml": docxTestStyles},
			"",
			[]Section{{Type: "h1", Content: "Úvod"}, {Type: "h1", Content: "Derived"}, {Type: "h3", Content: "Outline"}, {Type: "p", Content: "Cycle"}, {Type: "li", Content: "item one"}, {Type: "li", Content: "item two"}, {Type: "p", Content: "not a list"}},
		},
		{
			"runs tabs breaks revisions fields",
			`<w:p><w:r><w:t xml:space="preserve">a </w:t></w:r><w:r><w:tab/><w:t>b</w:t><w:br/><w:t>c</w:t></w:r>
			<w:del><w:r><w:delText>gone</w:delText></w:r></w:del><w:ins><w:r><w:t>new</w:t></w:r></w:ins>
			<w:r><w:instrText>HYPERLINK "x"</w:instrText></w:r><w:hyperlink><w:r><w:t>link</w:t></w:r></w:hyperlink></w:p>`,
			nil,
			"",
			[]Section{{Type: "p", Content: "a b cnewlink"}},
		},
		{
			"text box once, after its paragraph",
			`<w:p><w:r><w:t>anchor</w:t></w:r><w:r><mc:AlternateContent><mc:Choice><w:drawing><w:txbxContent><w:p><w:r><w:t>boxed</w:t></w:r></w:p></w:txbxContent></w:drawing></mc:Choice>
			<mc:Fallback><w:pict><v:textbox><w:txbxContent><w:p><w:r><w:t>boxed</w:t></w:r></w:p></w:txbxContent></v:textbox></w:pict></mc:Fallback></mc:AlternateContent></w:r></w:p>`,
			nil,
			"",
			[]Section{{Type: "p", Content: "anchor"}, {Type: "p", Content: "boxed"}},
		},
		{
			"table rows and core title",
			`<w:tbl><w:tr><w:tc><w:p><w:r><w:t>A</w:t></w:r></w:p><w:p><w:r><w:t>A2</w:t></w:r></w:p></w:tc><w:tc><w:p/></w:tc><w:tc><w:p><w:r><w:t>C</w:t></w:r></w:p></w:tc></w:tr></w:tbl><w:p><w:r><w:t>after</w:t></w:r></w:p>`,
			map[string]string{"docProps/core.xml": `<cp:coreProperties xmlns:cp="x" xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:title>Core Title</dc:title></cp:coreProperties>`},
			"Core Title",
			[]Section{{Type: "title", Content: "Core Title"}, {Type: "table", Content: "A A2 | C"}, {Type: "p", Content: "after"}},
		},
		{
			"footnotes at the end",
			`<w:p><w:r><w:t>body</w:t></w:r></w:p>`,
			map[string]string{"word/footnotes.xml": `<w:footnotes xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:footnote w:type="separator" w:id="-1"><w:p><w:r><w:t>---</w:t></w:r></w:p></w:footnote><w:footnote w:id="1"><w:p><w:r><w:t>note one</w:t></w:r></w:p></w:footnote></w:footnotes>`},
			"",
			[]Section{{Type: "p", Content: "body"}, {Type: "footnote", Content: "note one"}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			parts := map[string]string{"word/document.xml": docxTestHead + tt.body + "</w:body></w:document>"}
			for k, v := range tt.extra {
				parts[k] = v
			}
			doc, err := ParseDOCX(docxBuild(t, parts))
			checkSections(t, doc, err, tt.want)
			if doc.Title != tt.title {
				t.Errorf("Title = %q, want %q", doc.Title, tt.title)
			}
		})
	}
}

func TestParseDOCXCorrupt(t *testing.T) {
	const maxPart = 1 << 20
	tests := []struct {
		name string
		data []byte
	}{
		{"not a zip", []byte("PK\x03\x04garbage")},
		{"empty", nil},
		{"no document part", docxBuild(t, map[string]string{"word/styles.xml": "<w:styles/>"})},
		{"truncated xml", docxBuild(t, map[string]string{"word/document.xml": docxTestHead + "<w:p><w:r><w:t>sec"})},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := parseDOCX(tt.data, maxPart); !errors.Is(err, ErrCorrupt) {
				t.Errorf("err = %v, want ErrCorrupt", err)
			}
		})
	}
	// A part over the limit is too large, not corrupt.
	bomb := docxBuild(t, map[string]string{"word/document.xml": docxTestHead + string(bytes.Repeat([]byte(" "), 2<<20))})
	if _, err := parseDOCX(bomb, maxPart); !errors.Is(err, ErrTooLarge) || errors.Is(err, ErrCorrupt) {
		t.Errorf("part over the limit: err = %v, want ErrTooLarge", err)
	}
}

func FuzzParseDOCX(f *testing.F) {
	f.Add(testutil.ReadDoc(f, "testWORD.docx"))
	f.Add(docxBuild(f, map[string]string{
		"word/document.xml": docxTestHead + `<w:tbl><w:tr><w:tc><w:tbl><w:tr><w:tc><w:p><w:r><w:t>x</w:t></w:r></w:p></w:tc></w:tr></w:tbl></w:tc></w:tr></w:tbl></w:body></w:document>`,
		"word/styles.xml":   docxTestStyles,
	}))
	f.Fuzz(func(t *testing.T, data []byte) {
		doc, err := ParseDOCX(data)
		if err != nil {
			return
		}
		docCheckOutput(t, doc)
	})
}
