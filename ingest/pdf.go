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
// A file whose cross-reference data is broken or missing, whose stream
// lengths are wrong or that is cut short is read from the objects it
// holds, as pdfminer, pypdf and PDFBox do (see pdf_repair.go): truncated
// files give the pages whose objects survive. Files that still cannot be
// opened (no header, no objects, no pages, encrypted with a password)
// return an error wrapping ErrCorrupt; a page that fails to parse is
// skipped. Panics inside the PDF library are recovered.
func ParsePDF(data []byte) (doc Document, err error) {
	r, err := pdfOpen(data)
	if err != nil {
		return Document{}, fmt.Errorf("parse pdf: %w: %w", ErrCorrupt, err)
	}
	pages, err := pdfPages(r)
	if err == nil && len(pages) == 0 {
		err = errors.New("malformed PDF: no pages")
	}
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
// the library would refuse. When the library cannot open the file, or its
// cross-reference data is stale or a stream's /Length wrong, the file is
// read again from its objects (see pdf_repair.go).
func pdfOpen(data []byte) (r *pdf.Reader, err error) {
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
	trimmed := data
	if i := bytes.LastIndex(data, []byte("%%EOF")); i >= 0 && len(data)-i > 64 {
		trimmed = data[:i+len("%%EOF")]
	}
	r, err = pdfOpenLibrary(trimmed)
	rec, rerr := pdfScanBroken(data, r)
	if rec == nil && rerr == nil {
		return r, nil // the library's reading is sound
	}
	if rerr == nil {
		// The trailer's /Info, /ID and /Encrypt are copied as they are;
		// if the library cannot read them, they are left out.
		for _, extras := range []bool{true, false} {
			var repaired []byte
			if repaired, rerr = pdfRepair(rec, extras); rerr != nil {
				break
			}
			var r2 *pdf.Reader
			if r2, rerr = pdfOpenLibrary(repaired); rerr == nil {
				return r2, nil
			}
		}
	}
	if r != nil && !pdfIsBug(rerr) {
		return r, nil // recovery failed: keep what the library read
	}
	if err == nil {
		return nil, rerr
	}
	return nil, fmt.Errorf("%w; recovery: %w", err, rerr)
}

// errPDFRecoveryBug reports a panic inside the recovery code: a bug, made
// an error so that no file can crash the process, and kept visible.
var errPDFRecoveryBug = errors.New("BUG: pdf recovery panicked")

func pdfIsBug(err error) bool { return errors.Is(err, errPDFRecoveryBug) }

// pdfScanBroken scans data and returns what it found when r, the
// library's reading (nil if it failed), needs recovery; nil and no error
// when it does not.
func pdfScanBroken(data []byte, r *pdf.Reader) (rec *pdfRecovery, err error) {
	defer func() {
		if p := recover(); p != nil {
			rec, err = nil, fmt.Errorf("%w: %v", errPDFRecoveryBug, p)
		}
	}()
	rec = pdfScan(data)
	if r != nil && !rec.broken(r) {
		return nil, nil
	}
	return rec, nil
}

// pdfRepair returns the repaired form of the file rec scanned; extras
// false leaves out the trailer entries other than /Root.
func pdfRepair(rec *pdfRecovery, extras bool) (repaired []byte, err error) {
	defer func() {
		if p := recover(); p != nil {
			repaired, err = nil, fmt.Errorf("%w: %v", errPDFRecoveryBug, p)
		}
	}()
	return rec.repair(extras)
}

// pdfOpenLibrary opens data with the PDF library, recovering its panics
// and guarding against its endless loops and unbounded recursion.
func pdfOpenLibrary(data []byte) (r *pdf.Reader, err error) {
	defer func() {
		if p := recover(); p != nil {
			r, err = nil, fmt.Errorf("open: %v", p)
		}
	}()
	data = pdfBreakXrefCycles(data)
	if err := pdfCheckXrefSizes(data); err != nil {
		return nil, err
	}
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

// pdfCheckXrefSizes follows the cross-reference sections from startxref
// as the library will and refuses object numbers of pdfMaxObjects or more
// (a subsection start, an xref stream's /Size or /Index): the library
// allocates its table by object number, so one such entry in a tiny file
// would exhaust memory and kill the process.
func pdfCheckXrefSizes(data []byte) error {
	i := bytes.LastIndex(data, []byte("startxref"))
	if i < 0 {
		return nil
	}
	lx := pdfObjLexer{data: data, end: len(data)}
	v, _ := lx.value(i+len("startxref"), 0)
	seen := map[int64]bool{}
	tooLarge := errors.New("malformed PDF: cross-reference table too large")
	for off := v.num; v.kind == pdfValInt && off > 0 && off < int64(len(data)) && !seen[off] && len(seen) < pdfMaxXrefSections; off = v.num {
		seen[off] = true
		var prev pdfVal
		j, isTable := lx.keyword(int(off), "xref")
		if isTable {
			for {
				start, ok1 := lx.value(j, 0)
				if !ok1 || start.kind != pdfValInt {
					break // "trailer" or the end of a broken table
				}
				n, ok2 := lx.value(start.end, 0)
				if !ok2 || n.kind != pdfValInt || start.num < 0 || n.num < 0 {
					break
				}
				if start.num+n.num > pdfMaxObjects {
					return tooLarge
				}
				j = n.end
				for k := int64(0); k < 3*n.num; k++ {
					e, ok := lx.value(j, 0)
					if !ok {
						break
					}
					j = e.end
				}
			}
			if j, ok := lx.keyword(j, "trailer"); ok {
				if k := lx.skip(j); k+1 < len(data) && data[k] == '<' && data[k+1] == '<' {
					lx.dict(k, 0, func(key string, _ int, e pdfVal) {
						if key == "Prev" {
							prev = e
						}
					})
				}
			}
		} else {
			id, _ := lx.value(int(off), 0)
			gen, _ := lx.value(id.end, 0)
			j, ok := lx.keyword(gen.end, "obj")
			if k := lx.skip(j); !ok || k+1 >= len(data) || data[k] != '<' || data[k+1] != '<' {
				return nil
			}
			var err error
			lx.dict(lx.skip(j), 0, func(key string, _ int, e pdfVal) {
				switch key {
				case "Size":
					if e.kind == pdfValInt && e.num > pdfMaxObjects {
						err = tooLarge
					}
				case "Index":
					if pdfIndexTooLarge(data, e) {
						err = tooLarge
					}
				case "Prev":
					prev = e
				}
			})
			if err != nil {
				return err
			}
		}
		v = prev
	}
	return nil
}

// pdfIndexTooLarge reports whether the /Index array v of an xref stream
// names an object number of pdfMaxObjects or more.
func pdfIndexTooLarge(data []byte, v pdfVal) bool {
	if v.kind != pdfValArray {
		return false
	}
	lx := pdfObjLexer{data: data, end: v.end - 1}
	for j := v.start + 1; ; {
		start, ok1 := lx.value(j, 0)
		n, ok2 := lx.value(start.end, 0)
		if !ok1 || !ok2 {
			return false
		}
		if start.kind == pdfValInt && n.kind == pdfValInt && (start.num < 0 || n.num < 0 || start.num+n.num > pdfMaxObjects) {
			return true
		}
		j = n.end
	}
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
