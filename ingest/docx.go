package ingest

import (
	"archive/zip"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// docxMaxPartSize bounds the uncompressed size of one XML part read from a
// DOCX archive (the document text is held in memory), within the limits
// of archive.go.
const docxMaxPartSize int64 = 256 << 20

// The WordprocessingML namespaces (transitional and strict) and the
// markup-compatibility namespace.
const (
	docxNS       = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
	docxNSStrict = "http://purl.oclc.org/ooxml/wordprocessingml/main"
	docxNSMC     = "http://schemas.openxmlformats.org/markup-compatibility/2006"
)

// ParseDOCX parses a Word (OOXML) document into a Document.
//
// word/document.xml is read in order. A paragraph's type comes from its
// style, resolved through word/styles.xml (style id → name, following
// basedOn): "Title" → title, "Subtitle" → subtitle, "heading N" or an
// outline level → hN (capped at h6), "Heading" → h1, "caption" → caption,
// quote styles → quote, list styles or numbering (w:numPr) → li, anything
// else → p. A table yields one table section per row with its non-empty
// cells joined with " | "; rows of a nested table follow the row holding
// it. Text boxes become sections after the paragraph that anchors them
// (the VML fallback copy of a text box is skipped). Tabs and breaks become
// spaces, deleted revisions and field instructions are skipped. Footnotes
// and endnotes follow the body as footnote sections; headers and footers
// are left out as page chrome.
//
// Document.Title is the first Title paragraph, else the dc:title of
// docProps/core.xml, which is then also prepended as a title section.
// Archives without word/document.xml or with malformed XML return an error
// wrapping ErrCorrupt; archives over the limits of archive.go, one wrapping
// ErrTooLarge, even when the part is one whose errors are otherwise
// ignored.
func ParseDOCX(data []byte) (Document, error) { return parseDOCX(data, docxMaxPartSize) }

// parseDOCX is ParseDOCX with maxPart bounding the size of one XML part.
func parseDOCX(data []byte, maxPart int64) (Document, error) {
	z, err := openZip("docx", data)
	if err != nil {
		return Document{}, fmt.Errorf("parse %w", err)
	}
	z.lim.entry = maxPart
	files := make(map[string]*zip.File, len(z.files))
	for _, f := range z.files {
		files[strings.TrimPrefix(f.Name, "/")] = f
	}
	main := files["word/document.xml"]
	if main == nil {
		return Document{}, fmt.Errorf("parse docx: %w: no word/document.xml", ErrCorrupt)
	}
	var parts []*zip.File
	for _, name := range []string{"word/document.xml", "word/styles.xml", "word/footnotes.xml", "word/endnotes.xml", "docProps/core.xml"} {
		if f := files[name]; f != nil {
			parts = append(parts, f)
		}
	}
	if err := z.reserve(parts...); err != nil {
		return Document{}, fmt.Errorf("parse %w", err)
	}
	p := docxParser{styles: map[string]docxStyle{}}
	if f := files["word/styles.xml"]; f != nil {
		// Styles only refine section types: a broken styles part is ignored.
		if err := docxReadPart(z, f, p.readStyles); errors.Is(err, ErrTooLarge) {
			return Document{}, fmt.Errorf("parse %w", err)
		}
	}
	if err := docxReadPart(z, main, func(d *xmlReader) error { return p.readBody(d, "") }); err != nil {
		if errors.Is(err, ErrTooLarge) {
			return Document{}, fmt.Errorf("parse %w", err)
		}
		return Document{}, fmt.Errorf("parse docx: document.xml: %w", err)
	}
	for _, name := range []string{"word/footnotes.xml", "word/endnotes.xml"} {
		if f := files[name]; f != nil {
			// Notes are extras: keep the body when a notes part is broken.
			if err := docxReadPart(z, f, func(d *xmlReader) error { return p.readBody(d, "footnote") }); errors.Is(err, ErrTooLarge) {
				return Document{}, fmt.Errorf("parse %w", err)
			}
		}
	}
	doc := p.b.doc
	if doc.Title == "" {
		if f := files["docProps/core.xml"]; f != nil {
			var title string
			_ = docxReadPart(z, f, func(d *xmlReader) error {
				title = docxCoreTitle(d)
				return nil
			})
			if title = docCleanText(title); title != "" {
				doc.Title = title
				doc.Sections = append([]Section{{Type: "title", Content: title}}, doc.Sections...)
			}
		}
	}
	return doc, nil
}

// docxReadPart opens one archive member and hands an XML decoder over it
// to read, under the archive limits.
func docxReadPart(z *zipFile, f *zip.File, read func(*xmlReader) error) error {
	d, err := z.openXML(f)
	if err != nil {
		return err
	}
	defer d.Close()
	d.Strict = false
	if err := read(d); err != nil {
		if errors.Is(err, ErrCorrupt) || errors.Is(err, ErrTooLarge) {
			return err
		}
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return nil
}

// docxStyle is one paragraph style of styles.xml.
type docxStyle struct {
	name    string // lower-cased style name
	basedOn string // parent style id
	outline int    // outline level + 1; 0 when none
	list    bool   // the style carries numbering
}

// docxParser accumulates sections while reading the XML parts.
type docxParser struct {
	b      docBuilder
	styles map[string]docxStyle
	stack  []*docxFrame
}

// docxFrame kinds.
const (
	docxPara = iota
	docxCell
	docxRow
	docxTable
)

// docxFrame is one open paragraph, cell, row or table.
type docxFrame struct {
	kind    int
	text    strings.Builder
	style   string
	list    bool
	outline int // outline level + 1; 0 when none
	cells   []string
	// deferred are sections completed inside this frame (text boxes,
	// nested tables) that follow it once it is emitted.
	deferred []Section
}

// docxIsW reports whether name is in a WordprocessingML namespace.
func docxIsW(name xml.Name) bool {
	return name.Space == docxNS || name.Space == docxNSStrict
}

// docxAttr returns the value of the attribute with the given local name.
func docxAttr(se xml.StartElement, local string) string {
	for _, a := range se.Attr {
		if a.Name.Local == local {
			return a.Value
		}
	}
	return ""
}

// readStyles reads the paragraph styles of styles.xml.
func (p *docxParser) readStyles(d *xmlReader) error {
	var id string
	var cur docxStyle
	in := false
	for {
		tok, err := d.Token()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if !docxIsW(t.Name) {
				continue
			}
			switch t.Name.Local {
			case "style":
				in = true
				id = docxAttr(t, "styleId")
				cur = docxStyle{}
			case "name":
				if in {
					cur.name = strings.ToLower(strings.TrimSpace(docxAttr(t, "val")))
				}
			case "basedOn":
				if in {
					cur.basedOn = docxAttr(t, "val")
				}
			case "outlineLvl":
				if in {
					if n, err := strconv.Atoi(docxAttr(t, "val")); err == nil && n >= 0 && n < 9 {
						cur.outline = n + 1
					}
				}
			case "numPr":
				if in {
					cur.list = true
				}
			}
		case xml.EndElement:
			if docxIsW(t.Name) && t.Name.Local == "style" && in {
				in = false
				if id != "" && len(p.styles) < 1<<16 {
					p.styles[id] = cur
				}
			}
		}
	}
}

// sectionType returns the section type of a paragraph with the given style
// id, numbering and direct outline level.
func (p *docxParser) sectionType(styleID string, numbered bool, outline int) string {
	if outline > 0 && outline <= 9 {
		return "h" + strconv.Itoa(min(outline, 6))
	}
	list := numbered
	id := styleID
	for range 10 { // follow basedOn, bounded against cycles
		if id == "" {
			break
		}
		st, ok := p.styles[id]
		name := st.name
		if !ok {
			name = strings.ToLower(id)
		}
		compact := strings.ReplaceAll(name, " ", "")
		switch {
		case compact == "title":
			return "title"
		case compact == "subtitle":
			return "subtitle"
		case compact == "heading":
			return "h1"
		case strings.HasPrefix(compact, "heading"):
			if n, err := strconv.Atoi(compact[len("heading"):]); err == nil && n >= 1 && n <= 9 {
				return "h" + strconv.Itoa(min(n, 6))
			}
		case compact == "caption":
			return "caption"
		case strings.Contains(compact, "quote"):
			return "quote"
		case strings.HasPrefix(compact, "list") || strings.HasPrefix(compact, "seznam"):
			list = true
		}
		if st.outline > 0 {
			return "h" + strconv.Itoa(min(st.outline, 6))
		}
		if st.list {
			list = true
		}
		if !ok {
			break
		}
		id = st.basedOn
	}
	if list {
		return "li"
	}
	return "p"
}

// top returns the innermost open frame, nil when none.
func (p *docxParser) top() *docxFrame {
	if len(p.stack) == 0 {
		return nil
	}
	return p.stack[len(p.stack)-1]
}

// emit adds a finished section, deferring it while an enclosing frame is
// open.
func (p *docxParser) emit(s Section) {
	if t := p.top(); t != nil {
		t.deferred = append(t.deferred, s)
		return
	}
	p.b.add(s.Type, s.Content)
}

// emitAll emits the deferred sections of a closed frame.
func (p *docxParser) emitAll(secs []Section) {
	for _, s := range secs {
		p.emit(s)
	}
}

// para returns the innermost open paragraph, nil when none.
func (p *docxParser) para() *docxFrame {
	if t := p.top(); t != nil && t.kind == docxPara {
		return t
	}
	return nil
}

// readBody reads the paragraphs and tables of a document, footnotes or
// endnotes part. force, when not "", is the type of every paragraph.
func (p *docxParser) readBody(d *xmlReader, force string) error {
	p.stack = p.stack[:0]
	skip := 0    // depth inside content to ignore (fallbacks, deleted text)
	inT := false // inside w:t
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if skip > 0 {
				skip++
				continue
			}
			if t.Name.Space == docxNSMC && t.Name.Local == "Fallback" {
				skip = 1
				continue
			}
			if !docxIsW(t.Name) {
				continue
			}
			skipped, text := p.start(t)
			if skipped {
				skip = 1
			}
			inT = inT || text
		case xml.EndElement:
			if skip > 0 {
				skip--
				continue
			}
			if !docxIsW(t.Name) {
				continue
			}
			switch t.Name.Local {
			case "t":
				inT = false
			case "p":
				p.endFrame(docxPara, force)
			case "tc":
				p.endFrame(docxCell, force)
			case "tr":
				p.endFrame(docxRow, force)
			case "tbl":
				p.endFrame(docxTable, force)
			}
		case xml.CharData:
			if inT && skip == 0 {
				if f := p.para(); f != nil {
					f.text.Write(t)
				}
			}
		}
	}
	for len(p.stack) > 0 { // unclosed frames of a truncated part
		p.endFrame(p.top().kind, force)
	}
	return nil
}

// start handles the start of the WordprocessingML element t: it opens
// paragraph, table, row and cell frames, records paragraph properties and
// writes tabs, breaks and hyphens. skipped reports an element whose content
// is left out (deleted text, field instructions, revisions, note
// separators, frames nested too deeply); text reports w:t.
func (p *docxParser) start(t xml.StartElement) (skipped, text bool) {
	switch t.Name.Local {
	case "delText", "instrText", "pPrChange", "rPrChange", "del":
		skipped = true
	case "footnote", "endnote":
		if typ := docxAttr(t, "type"); typ == "separator" || typ == "continuationSeparator" || typ == "continuationNotice" {
			skipped = true
		}
	case "p":
		if len(p.stack) < 256 {
			p.stack = append(p.stack, &docxFrame{kind: docxPara})
		} else {
			skipped = true
		}
	case "tbl":
		if len(p.stack) < 256 {
			p.stack = append(p.stack, &docxFrame{kind: docxTable})
		} else {
			skipped = true
		}
	case "tr":
		p.stack = append(p.stack, &docxFrame{kind: docxRow})
	case "tc":
		p.stack = append(p.stack, &docxFrame{kind: docxCell})
	case "pStyle":
		if f := p.para(); f != nil {
			f.style = docxAttr(t, "val")
		}
	case "numId":
		if f := p.para(); f != nil && docxAttr(t, "val") != "0" {
			f.list = true
		}
	case "outlineLvl":
		if f := p.para(); f != nil {
			if n, err := strconv.Atoi(docxAttr(t, "val")); err == nil && n >= 0 && n < 9 {
				f.outline = n + 1
			}
		}
	case "t":
		text = true
	case "tab", "br", "cr", "ptab":
		if f := p.para(); f != nil {
			f.text.WriteByte(' ')
		}
	case "noBreakHyphen":
		if f := p.para(); f != nil {
			f.text.WriteByte('-')
		}
	}
	return skipped, text
}

// endFrame closes the innermost frame if it has the given kind; a stray end
// tag is ignored.
func (p *docxParser) endFrame(kind int, force string) {
	f := p.top()
	if f == nil || f.kind != kind {
		return
	}
	p.stack = p.stack[:len(p.stack)-1]
	parent := p.top()
	switch kind {
	case docxPara:
		if parent != nil && parent.kind == docxCell {
			parent.text.WriteByte(' ')
			parent.text.WriteString(f.text.String())
			parent.deferred = append(parent.deferred, f.deferred...)
			return
		}
		typ := force
		if typ == "" {
			typ = p.sectionType(f.style, f.list, f.outline)
		}
		text := docCleanText(f.text.String())
		if typ == "title" && p.b.doc.Title == "" && text != "" {
			p.b.doc.Title = text
		}
		if text != "" {
			p.emit(Section{Type: typ, Content: text})
		}
	case docxCell:
		if parent != nil && parent.kind == docxRow {
			parent.cells = append(parent.cells, docCleanText(f.text.String()))
			parent.deferred = append(parent.deferred, f.deferred...)
			return
		}
		if text := docCleanText(f.text.String()); text != "" {
			p.emit(Section{Type: "table", Content: text})
		}
	case docxRow:
		if cells := htmlNonEmpty(f.cells); len(cells) > 0 {
			p.emit(Section{Type: "table", Content: strings.Join(cells, " | ")})
		}
	}
	p.emitAll(f.deferred)
}

// docxCoreTitle returns dc:title of docProps/core.xml.
func docxCoreTitle(d *xmlReader) string {
	in := false
	var sb strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			return sb.String()
		}
		switch t := tok.(type) {
		case xml.StartElement:
			in = t.Name.Local == "title"
		case xml.EndElement:
			if in {
				return sb.String()
			}
		case xml.CharData:
			if in && sb.Len() < 1<<12 {
				sb.Write(t)
			}
		}
	}
}
