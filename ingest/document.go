package ingest

import (
	"fmt"
	"mime"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ParseDocument parses data as the document format f.
//
// contentType is the upload's Content-Type header ("" when unknown); its
// charset parameter is honoured by the text and HTML parsers and ignored by
// the others. Record-oriented and unknown formats return an error wrapping
// ErrUnsupportedFormat; undecodable files return an error wrapping
// ErrCorrupt. The returned Document does not reference data.
func ParseDocument(f Format, data []byte, contentType string) (Document, error) {
	charset := docContentTypeCharset(contentType)
	switch f {
	case FormatText:
		return ParseText(data, charset)
	case FormatHTML:
		return ParseHTML(data, charset)
	case FormatDOCX:
		return ParseDOCX(data)
	case FormatPDF:
		return ParsePDF(data)
	}
	return Document{}, fmt.Errorf("parse document: %w: %q is not a document format", ErrUnsupportedFormat, f)
}

// docContentTypeCharset returns the charset parameter of a Content-Type
// value, "" when there is none or the value does not parse.
func docContentTypeCharset(contentType string) string {
	if contentType == "" {
		return ""
	}
	_, params, err := mime.ParseMediaType(contentType)
	if err != nil {
		// Be lenient with sloppy headers: look for charset= directly.
		i := strings.Index(strings.ToLower(contentType), "charset=")
		if i < 0 {
			return ""
		}
		v := contentType[i+len("charset="):]
		if j := strings.IndexAny(v, "; "); j >= 0 {
			v = v[:j]
		}
		return strings.Trim(v, `"'`)
	}
	return params["charset"]
}

// docMaxSections caps the sections of one document so that hostile input
// cannot make a parser allocate without bound.
const docMaxSections = 1 << 20

// docBuilder collects the sections of a document, normalizing their text
// and dropping empty ones.
type docBuilder struct {
	doc Document
}

// add appends a section of type typ whose text is normalized first.
func (b *docBuilder) add(typ, text string) {
	text = docCleanText(text)
	if text == "" || len(b.doc.Sections) >= docMaxSections {
		return
	}
	b.doc.Sections = append(b.doc.Sections, Section{Type: typ, Content: text})
}

// docCleanText makes text valid UTF-8, drops control, format and
// private-use characters and collapses every run of white space to a
// single space, trimming both ends.
func docCleanText(s string) string {
	clean := true
	prevSpace := true
	for i, r := range s {
		switch {
		case r == ' ':
			if prevSpace {
				clean = false
			}
			prevSpace = true
			continue
		case r == utf8.RuneError:
			if _, n := utf8.DecodeRuneInString(s[i:]); n == 1 {
				clean = false
			}
		case r < 0x80:
			if r < 0x20 || r == 0x7F {
				clean = false
			}
		default:
			if docDropRune(r) || unicode.IsSpace(r) {
				clean = false
			}
		}
		prevSpace = false
		if !clean {
			break
		}
	}
	if clean && !prevSpace {
		return s
	}
	var sb strings.Builder
	sb.Grow(len(s))
	space := false
	for _, r := range s {
		if unicode.IsSpace(r) || r < 0x20 || r == 0x7F {
			space = true
			continue
		}
		if docDropRune(r) {
			continue
		}
		if space && sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		space = false
		sb.WriteRune(r)
	}
	return sb.String()
}

// docDropRune reports whether r carries no text: C1 controls, format
// characters (soft hyphen, zero-width marks, BOM), private-use code points,
// noncharacters and the replacement character. Zero-width joiners survive
// because emoji and some scripts need them.
func docDropRune(r rune) bool {
	switch {
	case r < 0x80:
		return false
	case r < 0xA0:
		return true
	case r == 0x200D:
		return false
	case r == utf8.RuneError:
		return true
	case unicode.Is(unicode.Cf, r), unicode.Is(unicode.Co, r), unicode.Is(unicode.Cs, r):
		return true
	case r&0xFFFE == 0xFFFE, r >= 0xFDD0 && r <= 0xFDEF:
		return true
	}
	return false
}
