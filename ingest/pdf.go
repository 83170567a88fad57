package ingest

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"

	"github.com/ledongthuc/pdf"
)

// Limits of ParsePDF.
const (
	pdfMaxPages     = 5000   // pages read from one file
	pdfMaxTreeNodes = 200000 // page tree nodes visited
)

// pdfBadFontRatio is the share of glyphs without usable text above which a
// font's text on a page is dropped instead of emitting mojibake.
const pdfBadFontRatio = 0.3

// ParsePDF parses a PDF file into a Document.
//
// Text is read with a content-stream interpreter of its own (operators,
// text matrices, form XObjects, fonts) over github.com/ledongthuc/pdf's
// object reader, so each glyph has a position, size and advance width.
// Glyphs become words (a space where the gap exceeds a fraction of the
// font size), words become lines, lines are put in reading order, and
// lines become paragraphs; see the package documentation for the layout
// rules (columns, headings, hyphenation, headers and footers).
//
// Text of fonts without a usable Unicode mapping is dropped rather than
// emitted as mojibake: codes a font cannot map are skipped, and a font
// whose glyphs are mostly unmappable on a page loses all its text there.
// Files that cannot be opened (bad header, broken cross-reference table,
// encrypted) return an error wrapping ErrCorrupt; a page that fails to
// parse is skipped. Panics inside the PDF library are recovered.
func ParsePDF(data []byte) (doc Document, err error) {
	r, err := pdfOpen(data)
	if err != nil {
		return Document{}, fmt.Errorf("parse pdf: %w: %w", ErrCorrupt, err)
	}
	pages, err := pdfPages(r)
	if err != nil {
		return Document{}, fmt.Errorf("parse pdf: %w: %w", ErrCorrupt, err)
	}
	in := &pdfInterp{fontCache: map[string]int32{}}
	var laid []pdfPageLines
	for _, p := range pages {
		lines, ok := pdfPageText(in, p)
		if !ok {
			break // work budget exhausted: keep the pages read so far
		}
		laid = append(laid, lines)
	}
	doc = pdfAssemble(laid)
	if doc.Title == "" {
		if t := pdfInfoTitle(r); t != "" {
			doc.Title = t
			doc.Sections = append([]Section{{Type: "title", Content: t}}, doc.Sections...)
		}
	}
	return doc, nil
}

// pdfOpen opens data with the PDF library, recovering its panics. It
// accepts PDF 2.0 headers and trailing bytes after the last %%EOF, which
// the library would refuse.
func pdfOpen(data []byte) (r *pdf.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("open: %v", p)
		}
	}()
	if !bytes.HasPrefix(data, []byte("%PDF-")) {
		if i := bytes.Index(data[:min(len(data), 1024)], []byte("%PDF-")); i > 0 {
			data = data[i:]
		} else {
			return nil, errors.New("no %PDF header")
		}
	}
	if bytes.HasPrefix(data, []byte("%PDF-2.")) {
		data = append([]byte("%PDF-1.7"), data[len("%PDF-2.0"):]...)
	}
	if i := bytes.LastIndex(data, []byte("%%EOF")); i >= 0 && len(data)-i > 64 {
		data = data[:i+len("%%EOF")]
	}
	data = pdfBreakXrefCycles(data)
	if bytes.Contains(data, []byte("/Extends")) {
		// Object stream chains can loop forever in the library; they are
		// rare enough to be ignored.
		data = bytes.ReplaceAll(data, []byte("/Extends"), []byte("/Xxtends"))
	}
	r, err = pdf.NewReader(bytes.NewReader(data), int64(len(data)))
	if err != nil {
		return nil, err
	}
	if err := pdfCheckObjectStreams(r); err != nil {
		return nil, err
	}
	return r, nil
}

// pdfMaxXrefSections bounds the /Prev chain of cross-reference sections.
const pdfMaxXrefSections = 256

// pdfBreakXrefCycles follows the /Prev chain of cross-reference sections
// from startxref and, when it loops or runs too long, renames the /Prev key
// that closes it, because the library would follow it forever. data is
// copied before any change.
func pdfBreakXrefCycles(data []byte) []byte {
	i := bytes.LastIndex(data, []byte("startxref"))
	if i < 0 {
		return data
	}
	off, ok := pdfLeadingInt(data[i+len("startxref"):])
	seen := map[int]bool{}
	keyPos := -1 // position of the /Prev key that led to off
	for steps := 0; ok; steps++ {
		if off <= 0 || off >= len(data) {
			return data
		}
		if seen[off] || steps >= pdfMaxXrefSections {
			if keyPos < 0 {
				return data
			}
			out := bytes.Clone(data)
			copy(out[keyPos:], "/Xrev")
			return out
		}
		seen[off] = true
		start := off
		if bytes.HasPrefix(bytes.TrimLeft(data[off:min(len(data), off+64)], " \r\n\t"), []byte("xref")) {
			t := bytes.Index(data[off:], []byte("trailer"))
			if t < 0 {
				return data
			}
			start = off + t
		}
		end := min(len(data), start+64<<10)
		for _, stop := range []string{"stream", "startxref"} {
			if k := bytes.Index(data[start:end], []byte(stop)); k >= 0 {
				end = start + k
			}
		}
		k := bytes.Index(data[start:end], []byte("/Prev"))
		if k < 0 {
			return data
		}
		keyPos = start + k
		off, ok = pdfLeadingInt(data[keyPos+len("/Prev") : end])
	}
	return data
}

// pdfLeadingInt parses the decimal integer after leading white space.
func pdfLeadingInt(b []byte) (int, bool) {
	b = bytes.TrimLeft(b, " \r\n\t\f")
	n, digits := 0, 0
	for _, c := range b {
		if c < '0' || c > '9' || digits > 12 {
			break
		}
		n = n*10 + int(c-'0')
		digits++
	}
	return n, digits > 0
}

// pdfCheckObjectStreams rejects cross-reference tables in which an object
// stream is itself stored in an object stream: the library resolves such
// chains by unbounded recursion, which would crash the process.
func pdfCheckObjectStreams(r *pdf.Reader) error {
	xref := reflect.ValueOf(r).Elem().FieldByName("xref")
	if !xref.IsValid() || xref.Kind() != reflect.Slice {
		return nil // library layout changed: nothing to check
	}
	n := xref.Len()
	for i := range n {
		e := xref.Index(i)
		in := e.FieldByName("inStream")
		st := e.FieldByName("stream")
		if !in.IsValid() || !st.IsValid() || !in.Bool() {
			continue
		}
		id := st.FieldByName("id")
		if !id.IsValid() {
			return nil
		}
		sid := int(id.Uint())
		if sid >= n || sid == i || xref.Index(sid).FieldByName("inStream").Bool() {
			return errors.New("object stream stored in an object stream")
		}
	}
	return nil
}

// pdfPages walks the page tree in order, bounded against cycles.
func pdfPages(r *pdf.Reader) (pages []pdf.Page, err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("page tree: %v", p)
		}
	}()
	root := r.Trailer().Key("Root").Key("Pages")
	if root.Kind() != pdf.Dict {
		return nil, errors.New("no page tree")
	}
	visits := 0
	var walk func(n pdf.Value, depth int)
	walk = func(n pdf.Value, depth int) {
		visits++
		if depth > 64 || visits > pdfMaxTreeNodes || len(pages) >= pdfMaxPages {
			return
		}
		kids := n.Key("Kids")
		if kids.Kind() != pdf.Array {
			if n.Key("Type").Name() == "Page" || n.Key("Contents").Kind() != pdf.Null {
				pages = append(pages, pdf.Page{V: n})
			}
			return
		}
		for i := range kids.Len() {
			walk(kids.Index(i), depth+1)
		}
	}
	walk(root, 0)
	return pages, nil
}

// pdfPageText interprets one page and lays out its lines. ok is false when
// the document's work budget ran out.
func pdfPageText(in *pdfInterp, p pdf.Page) (lines pdfPageLines, ok bool) {
	in.glyphs = in.glyphs[:0]
	for i := range in.glyphCount {
		in.glyphCount[i], in.badCount[i] = 0, 0
	}
	ok = true
	func() {
		defer func() {
			if e := recover(); e != nil {
				if e == errPDFBudget {
					ok = false
				}
				// Any other panic: a broken page. Keep the glyphs read so
				// far; they were decoded through the same checks.
			}
		}()
		contents := p.V.Key("Contents")
		if contents.Kind() == pdf.Null {
			return
		}
		in.run(contents, pdfInherited(p, "Resources"), pdfIdentity, 0)
	}()
	box := pdfPageBox(p)
	glyphs := in.glyphs[:0:0]
	for _, g := range in.glyphs {
		if g.font >= 0 && in.glyphCount[g.font] > 0 &&
			float64(in.badCount[g.font]) > pdfBadFontRatio*float64(in.glyphCount[g.font]) {
			continue // broken font: drop all its text on this page
		}
		if g.text == "" && !g.space {
			continue
		}
		if !pdfSane(g.x) || !pdfSane(g.y) || !pdfSane(g.w) || !(g.size > 0 && g.size < pdfMaxCoord) {
			continue // off any real page: hostile or broken matrices
		}
		glyphs = append(glyphs, g)
	}
	return pdfLayoutPage(glyphs, box), ok
}

// pdfMaxCoord bounds glyph coordinates and sizes, in points; real pages
// are at most 14,400 points (200 inches) wide.
const pdfMaxCoord = 1e5

// pdfSane reports whether v is a finite coordinate within pdfMaxCoord.
func pdfSane(v float64) bool {
	return v > -pdfMaxCoord && v < pdfMaxCoord
}

// pdfPageBox returns the page's MediaBox as [x0 y0 x1 y1], US Letter when
// missing.
func pdfPageBox(p pdf.Page) (box [4]float64) {
	box = [4]float64{0, 0, 612, 792}
	defer func() { _ = recover() }()
	mb := pdfInherited(p, "MediaBox")
	if mb.Len() == 4 {
		var b [4]float64
		for i := range 4 {
			b[i] = mb.Index(i).Float64()
		}
		if b[2] > b[0] && b[3] > b[1] {
			box = b
		}
	}
	return box
}

// pdfInfoTitle returns the Title of the document information dictionary.
func pdfInfoTitle(r *pdf.Reader) (title string) {
	defer func() {
		if recover() != nil {
			title = ""
		}
	}()
	t := r.Trailer().Key("Info").Key("Title")
	if t.Kind() != pdf.String {
		return ""
	}
	title = docCleanText(t.Text())
	// Producers often fill in the file name instead of a title.
	title = strings.TrimPrefix(title, "Microsoft Word - ")
	for _, ext := range []string{".docx", ".doc", ".pdf", ".odt", ".rtf", ".txt"} {
		title = strings.TrimSuffix(title, ext)
	}
	switch strings.ToLower(title) {
	case "untitled", "title", "document", "unknown":
		return ""
	}
	return title
}

// pdfInherited returns the page attribute key, looking up the page tree
// through a bounded number of Parent links.
func pdfInherited(p pdf.Page, key string) pdf.Value {
	v := p.V
	for range 32 {
		if v.IsNull() {
			break
		}
		if r := v.Key(key); !r.IsNull() {
			return r
		}
		v = v.Key("Parent")
	}
	return pdf.Value{}
}
