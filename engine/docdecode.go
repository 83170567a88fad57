package engine

import (
	"encoding/json"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
	"unsafe"

	"github.com/najdi/najdi/ingest"
)

// bodyParts says which parts of a stored body a response uses: a search
// returning no content or only some section types need not copy the rest
// of each document out of its body (loadHits).
type bodyParts struct {
	// sections, when not nil, names the section types whose content is
	// used; the others keep their type and an empty content, so that
	// section indexes do not move. nil means every section.
	sections map[string]bool
	// noFields leaves the fields out.
	noFields bool
}

// decodeStoredDoc decodes a stored body (a storedDoc in JSON, as
// json.Marshal wrote it) with the parts bp asks for, the others left
// empty. Bodies of the form json.Marshal writes are read without
// reflection; anything else goes through encoding/json, with the same
// result (TestDecodeStoredDoc). The result owns raw: strings without
// escapes point into it instead of being copied, so the caller hands over
// a buffer of its own (a freshly decompressed body) and never changes it.
func decodeStoredDoc(raw []byte, bp bodyParts) (storedDoc, error) {
	d := docScanner{b: raw}
	sd, ok := d.storedDoc(bp)
	if ok {
		return sd, nil
	}
	sd = storedDoc{}
	if err := json.Unmarshal(raw, &sd); err != nil {
		return storedDoc{}, err
	}
	for i := range sd.Sections {
		if bp.sections != nil && !bp.sections[sd.Sections[i].Type] {
			sd.Sections[i].Content = ""
		}
	}
	if bp.noFields {
		sd.Fields = nil
	}
	return sd, nil
}

// docScanner reads the JSON of a storedDoc. Its methods report false on
// anything unexpected, and the caller falls back to encoding/json.
type docScanner struct {
	b []byte
	i int
}

func (d *docScanner) space() {
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ' ', '\t', '\n', '\r':
			d.i++
		default:
			return
		}
	}
}

// byte consumes c, after white space.
func (d *docScanner) byte(c byte) bool {
	d.space()
	if d.i < len(d.b) && d.b[d.i] == c {
		d.i++
		return true
	}
	return false
}

// peek reports whether the next byte, after white space, is c.
func (d *docScanner) peek(c byte) bool {
	d.space()
	return d.i < len(d.b) && d.b[d.i] == c
}

// str reads a string; with keep false it only skips it. Strings with
// escapes or bytes that are not valid UTF-8 go through encoding/json, which
// replaces invalid bytes as it would in a whole decode.
func (d *docScanner) str(keep bool) (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start := d.i
	plain, ascii := true, true
	for d.i < len(d.b) {
		for d.i < len(d.b) && plainByte[d.b[d.i]] {
			d.i++
		}
		if d.i == len(d.b) {
			break
		}
		c := d.b[d.i]
		switch {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if plain && (ascii || utf8.Valid(s)) {
				if !keep {
					return "", true
				}
				return aliasString(s), true
			}
			return unquote(s, keep)
		case c == '\\':
			plain = false
			d.i += 2
			continue
		case c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
		d.i++
	}
	return "", false
}

// key reads an object key of plain ASCII without escapes, which it
// returns without copying.
func (d *docScanner) key() ([]byte, bool) {
	if !d.byte('"') {
		return nil, false
	}
	start := d.i
	for d.i < len(d.b) {
		c := d.b[d.i]
		switch {
		case c == '"':
			d.i++
			return d.b[start : d.i-1], true
		case c == '\\' || c < 0x20 || c >= utf8.RuneSelf:
			return nil, false
		}
		d.i++
	}
	return nil, false
}

// sectionType reads a section type; the common ones are not copied.
func (d *docScanner) sectionType() (string, bool) {
	at := d.i
	k, ok := d.key()
	if !ok {
		d.i = at
		return d.str(true)
	}
	switch string(k) {
	case "title":
		return "title", true
	case "p":
		return "p", true
	case "h1":
		return "h1", true
	case "h2":
		return "h2", true
	case "h3":
		return "h3", true
	case "text":
		return "text", true
	case "li":
		return "li", true
	case "caption":
		return "caption", true
	}
	return aliasString(k), true
}

// aliasString returns b as a string without copying it (decodeStoredDoc's
// buffer is never changed once decoded).
func aliasString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// plainByte marks the bytes a JSON string holds as they are: printable
// ASCII but '"' and '\\'.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < 0x80; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// storedDoc reads {"s": [sections], "f": [fields]}.
func (d *docScanner) storedDoc(bp bodyParts) (storedDoc, bool) {
	var sd storedDoc
	if !d.byte('{') {
		return sd, false
	}
	if d.byte('}') {
		return sd, d.end()
	}
	for {
		key, ok := d.key()
		if !ok || !d.byte(':') {
			return sd, false
		}
		switch string(key) {
		case "s":
			if sd.Sections, ok = d.sections(bp); !ok {
				return sd, false
			}
		case "f":
			start := d.i
			if !d.skipValue() {
				return sd, false
			}
			if !bp.noFields {
				if err := json.Unmarshal(d.b[start:d.i], &sd.Fields); err != nil {
					return sd, false
				}
			}
		default:
			return sd, false
		}
		if d.byte('}') {
			return sd, d.end()
		}
		if !d.byte(',') {
			return sd, false
		}
	}
}

func (d *docScanner) end() bool {
	d.space()
	return d.i == len(d.b)
}

// sections reads [{"type": ..., "content": ...}, ...] or null.
func (d *docScanner) sections(bp bodyParts) ([]ingest.Section, bool) {
	if d.literal("null") {
		return nil, true
	}
	if !d.byte('[') {
		return nil, false
	}
	out := make([]ingest.Section, 0, 4)
	if d.byte(']') {
		return out, true
	}
	for {
		if !d.byte('{') {
			return nil, false
		}
		var s ingest.Section
		var contentAt int
		hasContent := false
		if !d.peek('}') {
			for {
				key, ok := d.key()
				if !ok || !d.byte(':') {
					return nil, false
				}
				switch string(key) {
				case "type":
					if s.Type, ok = d.sectionType(); !ok {
						return nil, false
					}
				case "content":
					// Decided once the type is known: keys may come in
					// any order.
					d.space()
					contentAt, hasContent = d.i, true
					if _, ok := d.str(false); !ok {
						return nil, false
					}
				default:
					return nil, false
				}
				if !d.byte(',') {
					break
				}
			}
		}
		if !d.byte('}') {
			return nil, false
		}
		if hasContent && (bp.sections == nil || bp.sections[s.Type]) {
			end := d.i
			d.i = contentAt
			c, ok := d.str(true)
			if !ok {
				return nil, false
			}
			s.Content = c
			d.i = end
		}
		out = append(out, s)
		if d.byte(']') {
			return out, true
		}
		if !d.byte(',') {
			return nil, false
		}
	}
}

func (d *docScanner) literal(lit string) bool {
	d.space()
	if len(d.b)-d.i >= len(lit) && string(d.b[d.i:d.i+len(lit)]) == lit {
		d.i += len(lit)
		return true
	}
	return false
}

// skipValue skips one JSON value; strings are checked as str checks them,
// the rest is left to encoding/json when the value is decoded.
func (d *docScanner) skipValue() bool {
	d.space()
	if d.i >= len(d.b) {
		return false
	}
	switch d.b[d.i] {
	case '"':
		_, ok := d.str(false)
		return ok
	case '{', '[':
		depth := 0
		for d.i < len(d.b) {
			switch d.b[d.i] {
			case '"':
				if _, ok := d.str(false); !ok {
					return false
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					d.i++
					return true
				}
			}
			d.i++
		}
		return false
	}
	for d.i < len(d.b) {
		switch d.b[d.i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return true
		}
		d.i++
	}
	return true
}

// unquote decodes the body of a JSON string (without its quotes) that has
// escapes or bytes that are not valid UTF-8, as encoding/json decodes it:
// invalid bytes and unpaired surrogates become U+FFFD. It reports false on
// an invalid escape or a control character. With keep false it only
// checks s.
func unquote(s []byte, keep bool) (string, bool) {
	var b []byte
	if keep {
		b = make([]byte, 0, len(s))
	}
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\\':
			if i+1 >= len(s) {
				return "", false
			}
			var r rune
			switch s[i+1] {
			case '"', '\\', '/':
				r = rune(s[i+1])
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			case 'u':
				u, ok := hex4(s[i+2:])
				if !ok {
					return "", false
				}
				i += 6
				r = u
				if utf16.IsSurrogate(r) {
					r = unicode.ReplacementChar
					if i+1 < len(s) && s[i] == '\\' && s[i+1] == 'u' {
						if u2, ok := hex4(s[i+2:]); ok {
							if dec := utf16.DecodeRune(u, u2); dec != unicode.ReplacementChar {
								r = dec
								i += 6
							}
						}
					}
				}
				if keep {
					b = utf8.AppendRune(b, r)
				}
				continue
			default:
				return "", false
			}
			if keep {
				b = append(b, byte(r))
			}
			i += 2
		case c < 0x20 || c == '"':
			return "", false
		case c < utf8.RuneSelf:
			if keep {
				b = append(b, c)
			}
			i++
		default:
			r, size := utf8.DecodeRune(s[i:])
			if keep {
				if r == utf8.RuneError && size == 1 {
					b = utf8.AppendRune(b, unicode.ReplacementChar)
				} else {
					b = append(b, s[i:i+size]...)
				}
			}
			i += size
		}
	}
	if !keep {
		return "", true
	}
	return string(b), true
}

// hex4 reads the four hexadecimal digits of a \u escape.
func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
