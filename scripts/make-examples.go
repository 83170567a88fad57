//go:build ignore

// Command make-examples writes the example files of examples/ that the
// README's "five minutes" section ingests, one per kind of upload:
//
//		go run ./scripts/make-examples.go [-data ../shared/data/docs] [-out examples]
//
//	  - countries.csv: seven columns of the 249 countries of
//	    datasets/country-codes (ODC-PDDL 1.0), ids in the id column;
//	  - europe-cs.jsonl: the European countries of mledoze/countries
//	    (ODbL 1.0) with their Czech names, one JSON object a line;
//	  - mozilla.html: the opening sections of the Wikipedia article
//	    "Mozilla" (CC BY-SA 4.0), as clean HTML with its attribution;
//	  - tracing-jit.pdf: a two-page note on trace-based just-in-time
//	    compilation written for najdi, as a PDF 1.4 file (Helvetica);
//	  - praha.docx: a short Czech guide to Prague written for najdi, as a
//	    DOCX file with Title and Heading 1 styles.
//
// The output is deterministic; only the standard library and
// golang.org/x/net/html are used. docs/examples.md states the sources
// and licenses.
package main

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"flag"
	"fmt"
	"html"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	xhtml "golang.org/x/net/html"
)

func main() {
	data := flag.String("data", "../shared/data/docs", "directory of the shared ingestion fixtures")
	out := flag.String("out", "examples", "output directory")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		log.Fatal(err)
	}
	write := func(name string, b []byte) {
		if err := os.WriteFile(filepath.Join(*out, name), b, 0o644); err != nil {
			log.Fatal(err)
		}
		fmt.Printf("%s: %d bytes\n", name, len(b))
	}
	write("countries.csv", countriesCSV(filepath.Join(*data, "country-codes.csv")))
	write("europe-cs.jsonl", europeJSONL(filepath.Join(*data, "countries.json")))
	write("mozilla.html", mozillaHTML(filepath.Join(*data, "wikipedia-mozilla.html")))
	write("tracing-jit.pdf", tracingPDF())
	write("praha.docx", prahaDOCX())
}

func countriesCSV(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	pick := []struct{ from, to string }{
		{"ISO3166-1-Alpha-2", "id"}, {"CLDR display name", "name"}, {"official_name_en", "official_name"},
		{"Capital", "capital"}, {"Continent", "continent"}, {"Region Name", "region"}, {"Sub-region Name", "subregion"},
	}
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	var head []string
	for _, p := range pick {
		if _, ok := col[p.from]; !ok {
			log.Fatalf("%s: no column %q", path, p.from)
		}
		head = append(head, p.to)
	}
	w.Write(head)
	for _, r := range rows[1:] {
		if r[col["ISO3166-1-Alpha-2"]] == "" || r[col["CLDR display name"]] == "" {
			continue
		}
		var out []string
		for _, p := range pick {
			out = append(out, r[col[p.from]])
		}
		w.Write(out)
	}
	w.Flush()
	return buf.Bytes()
}

func europeJSONL(path string) []byte {
	raw, err := os.ReadFile(path)
	if err != nil {
		log.Fatal(err)
	}
	var cs []struct {
		Name struct {
			Common   string `json:"common"`
			Official string `json:"official"`
		} `json:"name"`
		CCA3         string                       `json:"cca3"`
		Capital      []string                     `json:"capital"`
		Region       string                       `json:"region"`
		Subregion    string                       `json:"subregion"`
		Languages    map[string]string            `json:"languages"`
		Translations map[string]map[string]string `json:"translations"`
		Area         float64                      `json:"area"`
		Borders      []string                     `json:"borders"`
	}
	if err := json.Unmarshal(raw, &cs); err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	var buf bytes.Buffer
	for _, c := range cs {
		if c.Region != "Europe" || c.Translations["ces"]["common"] == "" {
			continue
		}
		var langs []string
		for _, l := range c.Languages {
			langs = append(langs, l)
		}
		sort.Strings(langs)
		rec := struct {
			ID         string   `json:"id"`
			NameCS     string   `json:"name_cs"`
			OfficialCS string   `json:"official_name_cs"`
			Name       string   `json:"name"`
			Capital    string   `json:"capital"`
			Subregion  string   `json:"subregion"`
			Languages  []string `json:"languages"`
			AreaKm2    float64  `json:"area_km2"`
			Borders    []string `json:"borders"`
		}{strings.ToLower(c.CCA3), c.Translations["ces"]["common"], c.Translations["ces"]["official"], c.Name.Common,
			strings.Join(c.Capital, ", "), c.Subregion, langs, c.Area, c.Borders}
		if rec.Borders == nil {
			rec.Borders = []string{}
		}
		b, _ := json.Marshal(rec)
		buf.Write(b)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// mozillaHTML keeps the article's title, lead and first sections
// (headings and paragraphs, citations removed) up to about 9 kB of text:
// the content element (elementByID), its paragraphs and headings
// (articleBody), in a page of their own with the attribution.
func mozillaHTML(path string) []byte {
	f, err := os.Open(path)
	if err != nil {
		log.Fatal(err)
	}
	defer f.Close()
	doc, err := xhtml.Parse(f)
	if err != nil {
		log.Fatalf("%s: %v", path, err)
	}
	content := elementByID(doc, "mw-content-text")
	if content == nil {
		log.Fatalf("%s: no mw-content-text", path)
	}
	var out bytes.Buffer
	out.WriteString("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>Mozilla</title>\n</head>\n<body>\n<h1>Mozilla</h1>\n")
	out.WriteString(articleBody(content, 9000))
	out.WriteString("<footer><p>From the Wikipedia article \"Mozilla\" (https://en.wikipedia.org/wiki/Mozilla), CC BY-SA 4.0; shortened.</p></footer>\n</body>\n</html>\n")
	return out.Bytes()
}

// elementByID returns the first node below n (n included, depth first)
// whose id is id, or nil.
func elementByID(n *xhtml.Node, id string) *xhtml.Node {
	for _, a := range n.Attr {
		if a.Key == "id" && a.Val == id {
			return n
		}
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		if found := elementByID(c, id); found != nil {
			return found
		}
	}
	return nil
}

// classHas reports whether n's class attribute contains one of parts.
func classHas(n *xhtml.Node, parts ...string) bool {
	for _, a := range n.Attr {
		if a.Key != "class" {
			continue
		}
		for _, p := range parts {
			if strings.Contains(a.Val, p) {
				return true
			}
		}
	}
	return false
}

// articleText appends the text below n to sb, without citations and
// edit links.
func articleText(n *xhtml.Node, sb *strings.Builder) {
	if n.Type == xhtml.ElementNode && classHas(n, "reference", "mw-editsection") {
		return
	}
	if n.Type == xhtml.TextNode {
		sb.WriteString(n.Data)
	}
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		articleText(c, sb)
	}
}

// articleBody returns the paragraphs and h2/h3 headings below content, in
// order, as clean HTML with their white space folded, skipping infoboxes,
// the table of contents, navigation boxes and thumbnails, and stopping
// once more than limit bytes of text are out.
func articleBody(content *xhtml.Node, limit int) string {
	var body strings.Builder
	size := 0
	var walk func(n *xhtml.Node)
	walk = func(n *xhtml.Node) {
		if size > limit {
			return
		}
		if n.Type == xhtml.ElementNode {
			switch n.Data {
			case "table", "div":
				if classHas(n, "infobox", "toc", "navbox", "thumb") {
					return
				}
			case "p", "h2", "h3":
				var sb strings.Builder
				articleText(n, &sb)
				s := strings.Join(strings.Fields(sb.String()), " ")
				if s == "" || s == "Contents" {
					return
				}
				fmt.Fprintf(&body, "<%s>%s</%s>\n", n.Data, html.EscapeString(s), n.Data)
				size += len(s)
				return
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			walk(c)
		}
	}
	walk(content)
	return body.String()
}

var tracingText = []struct{ kind, text string }{
	{"title", "Trace Compilation of Hot Loops"},
	{"h", "What a tracing JIT does"},
	{"p", "A tracing just-in-time compiler watches an interpreter run a program. When a loop becomes hot, meaning its backward branch has been taken many times, the compiler starts recording a trace: the exact sequence of operations executed during one iteration of the loop, together with the types of the values they touched."},
	{"p", "The recorded trace is a straight line of code without branches. Wherever the program could have gone another way, the recorder inserts a guard that checks the assumption made on this iteration, for example that a variable still holds an integer. The trace is then optimized and compiled to machine code."},
	{"h", "Why loops"},
	{"p", "Programs spend most of their time in loops, so compiling only the hot loops gives most of the speed of a full compiler at a fraction of its cost. Code that runs once stays in the interpreter, where it is cheap to start."},
	{"h", "Guards and side exits"},
	{"p", "When a guard fails, execution leaves the compiled trace through a side exit and returns to the interpreter. If the same side exit is taken often, the compiler records a new trace that starts there and attaches it to the first one, building a tree of traces that covers the common paths through the loop."},
	{"h", "TraceMonkey"},
	{"p", "TraceMonkey, the JavaScript engine of Firefox 3.5, used this technique: it recorded traces of hot loops, specialized them to the types observed at run time, and compiled them to native code. Nested loops were handled by trace trees, with an inner loop's tree called from the trace of the outer loop."},
	{"h", "Limits"},
	{"p", "Tracing works best for loops with stable types and few paths. Code with many unpredictable branches produces many short traces and frequent side exits, and later JavaScript engines replaced tracing with method-based compilers that handle such code better."},
	{"p", "This note was written for the najdi examples."},
}

// tracingPDF lays the note out on US Letter pages in Helvetica.
func tracingPDF() []byte {
	type line struct {
		size float64
		font string
		text string
	}
	var lines []line
	for _, b := range tracingText {
		switch b.kind {
		case "title":
			lines = append(lines, line{20, "F2", b.text}, line{11, "F1", ""})
		case "h":
			lines = append(lines, line{11, "F1", ""}, line{14, "F2", b.text})
		case "p":
			for _, l := range wrap(b.text, 88) {
				lines = append(lines, line{11, "F1", l})
			}
		}
	}
	var pages [][]line
	y, cur := 0.0, []line(nil)
	for _, l := range lines {
		if y+l.size*1.5 > 640 {
			pages, cur, y = append(pages, cur), nil, 0
		}
		cur = append(cur, l)
		y += l.size * 1.5
	}
	pages = append(pages, cur)
	var buf bytes.Buffer
	var offsets []int
	obj := func(body string) {
		offsets = append(offsets, buf.Len())
		fmt.Fprintf(&buf, "%d 0 obj\n%s\nendobj\n", len(offsets), body)
	}
	buf.WriteString("%PDF-1.4\n%\xe2\xe3\xcf\xd3\n")
	obj("<< /Type /Catalog /Pages 2 0 R >>")
	kids := []string{}
	for i := range pages {
		kids = append(kids, fmt.Sprintf("%d 0 R", 6+2*i))
	}
	obj(fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(pages)))
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	obj("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>")
	obj("<< /Title (Trace Compilation of Hot Loops) /Author (najdi examples) /Producer (scripts/make-examples.go) >>")
	for _, pg := range pages {
		var cs bytes.Buffer
		y := 740.0
		for _, l := range pg {
			y -= l.size * 1.5
			if l.text == "" {
				continue
			}
			fmt.Fprintf(&cs, "BT /%s %.0f Tf 72 %.1f Td (%s) Tj ET\n", l.font, l.size, y, pdfEscape(l.text))
		}
		obj(fmt.Sprintf("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R /F2 4 0 R >> >> /Contents %d 0 R >>", len(offsets)+2))
		obj(fmt.Sprintf("<< /Length %d >>\nstream\n%sendstream", cs.Len(), cs.String()))
	}
	xref := buf.Len()
	fmt.Fprintf(&buf, "xref\n0 %d\n0000000000 65535 f \n", len(offsets)+1)
	for _, o := range offsets {
		fmt.Fprintf(&buf, "%010d 00000 n \n", o)
	}
	fmt.Fprintf(&buf, "trailer\n<< /Size %d /Root 1 0 R /Info 5 0 R >>\nstartxref\n%d\n%%%%EOF\n", len(offsets)+1, xref)
	return buf.Bytes()
}

func pdfEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}

func wrap(s string, width int) []string {
	var out []string
	var cur string
	for _, w := range strings.Fields(s) {
		if cur != "" && len(cur)+1+len(w) > width {
			out = append(out, cur)
			cur = ""
		}
		if cur != "" {
			cur += " "
		}
		cur += w
	}
	return append(out, cur)
}

var prahaText = []struct{ style, text string }{
	{"Title", "Praha: krátký průvodce"},
	{"", "Praha je hlavní město České republiky a leží na řece Vltavě. Žije v ní přes milion obyvatel a každý rok ji navštíví miliony turistů."},
	{"Heading1", "Historické centrum"},
	{"", "Staré Město, Malá Strana a Hradčany tvoří historické jádro, které je zapsáno na seznamu světového dědictví UNESCO. Karlův most spojuje Staré Město s Malou Stranou od čtrnáctého století."},
	{"", "Pražský hrad je největší hradní komplex na světě a sídlo prezidenta republiky. Uvnitř stojí katedrála svatého Víta."},
	{"Heading1", "Doprava"},
	{"", "Městská hromadná doprava zahrnuje tři linky metra, tramvaje a autobusy. Jízdní řád tramvají platí i v noci, kdy jezdí noční linky. Jízdenku je třeba označit při vstupu do vozu."},
	{"Heading1", "Jídlo"},
	{"", "K tradičním jídlům patří svíčková na smetaně, guláš s knedlíkem a smažený sýr. Ke kávě se podává koláč nebo trdelník, i když trdelník tradičním pražským pečivem není."},
	{"", "Tento text byl napsán pro příklady projektu najdi."},
}

// prahaDOCX builds a minimal WordprocessingML package.
func prahaDOCX() []byte {
	var body strings.Builder
	for _, p := range prahaText {
		body.WriteString("<w:p>")
		if p.style != "" {
			fmt.Fprintf(&body, `<w:pPr><w:pStyle w:val="%s"/></w:pPr>`, p.style)
		}
		fmt.Fprintf(&body, `<w:r><w:t xml:space="preserve">%s</w:t></w:r></w:p>`, html.EscapeString(p.text))
	}
	const ns = `xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"`
	files := []struct{ name, body string }{
		{"[Content_Types].xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/><Override PartName="/word/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.styles+xml"/><Override PartName="/docProps/core.xml" ContentType="application/vnd.openxmlformats-package.core-properties+xml"/></Types>`},
		{"_rels/.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/package/2006/relationships/metadata/core-properties" Target="docProps/core.xml"/></Relationships>`},
		{"word/_rels/document.xml.rels", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/styles" Target="styles.xml"/></Relationships>`},
		{"word/styles.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:styles ` + ns + `><w:style w:type="paragraph" w:default="1" w:styleId="Normal"><w:name w:val="Normal"/></w:style><w:style w:type="paragraph" w:styleId="Title"><w:name w:val="Title"/><w:basedOn w:val="Normal"/><w:rPr><w:sz w:val="56"/></w:rPr></w:style><w:style w:type="paragraph" w:styleId="Heading1"><w:name w:val="heading 1"/><w:basedOn w:val="Normal"/><w:pPr><w:outlineLvl w:val="0"/></w:pPr><w:rPr><w:b/><w:sz w:val="32"/></w:rPr></w:style></w:styles>`},
		{"word/document.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<w:document ` + ns + `><w:body>` + body.String() + `<w:sectPr><w:pgSz w:w="11906" w:h="16838"/></w:sectPr></w:body></w:document>`},
		{"docProps/core.xml", `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>
<cp:coreProperties xmlns:cp="http://schemas.openxmlformats.org/package/2006/metadata/core-properties" xmlns:dc="http://purl.org/dc/elements/1.1/" xmlns:dcterms="http://purl.org/dc/terms/" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"><dc:title>Praha: krátký průvodce</dc:title><dc:language>cs-CZ</dc:language><dc:creator>najdi examples</dc:creator></cp:coreProperties>`},
	}
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	mod := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, f := range files {
		w, err := zw.CreateHeader(&zip.FileHeader{Name: f.name, Method: zip.Deflate, Modified: mod})
		if err != nil {
			log.Fatal(err)
		}
		w.Write([]byte(f.body))
	}
	if err := zw.Close(); err != nil {
		log.Fatal(err)
	}
	return buf.Bytes()
}
