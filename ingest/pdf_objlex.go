package ingest

import "bytes"

// pdfObjLexer reads PDF objects straight from bytes for cross-reference
// recovery: it reports where each value starts and ends and a few facts
// about it, without building the object graph. Every method stops at end,
// so a caller bounds its work by the window it passes; nothing is read
// twice except the few tokens of a lookahead for "N G R". (pdfLexer, for
// CMaps, decodes tokens instead.)
type pdfObjLexer struct {
	data []byte
	end  int // exclusive bound of the window
}

// pdfMaxLexDepth bounds the nesting of arrays and dictionaries that
// recovery parses; deeper values are treated as broken.
const pdfMaxLexDepth = 256

// Kinds of pdfVal.
const (
	pdfValOther byte = iota // real, boolean, null, keyword
	pdfValInt
	pdfValRef
	pdfValName
	pdfValString
	pdfValArray
	pdfValDict
)

// pdfVal is one parsed value: its kind, its byte span and, for integers,
// references and names, its contents.
type pdfVal struct {
	kind       byte
	start, end int
	num        int64 // integer value or object number of a reference
	gen        int64 // generation of a reference
	name       string
}

// pdfRef is an object reference.
type pdfRef struct {
	id  uint32
	gen uint16
}

// ref returns v as a reference; ok is false if it is none or out of range.
func (v pdfVal) ref() (pdfRef, bool) {
	if v.kind != pdfValRef || v.num < 0 || v.num >= 1<<32 || v.gen < 0 || v.gen >= 1<<16 {
		return pdfRef{}, false
	}
	return pdfRef{uint32(v.num), uint16(v.gen)}, true
}

func pdfIsSpace(c byte) bool {
	switch c {
	case 0, '\t', '\n', '\f', '\r', ' ':
		return true
	}
	return false
}

func pdfIsDelim(c byte) bool {
	switch c {
	case '<', '>', '(', ')', '[', ']', '{', '}', '/', '%':
		return true
	}
	return false
}

func pdfIsRegular(c byte) bool { return !pdfIsSpace(c) && !pdfIsDelim(c) }

// skip returns the position of the first byte at or after i that is
// neither white space nor inside a comment.
func (l *pdfObjLexer) skip(i int) int {
	for i < l.end {
		c := l.data[i]
		switch {
		case pdfIsSpace(c):
			i++
		case c == '%':
			for i < l.end && l.data[i] != '\n' && l.data[i] != '\r' {
				i++
			}
		default:
			return i
		}
	}
	return i
}

// regular returns the end of the run of regular characters at i.
func (l *pdfObjLexer) regular(i int) int {
	for i < l.end && pdfIsRegular(l.data[i]) {
		i++
	}
	return i
}

// keyword reports whether the token at i (after white space) is the
// keyword kw, and returns the position after it.
func (l *pdfObjLexer) keyword(i int, kw string) (int, bool) {
	i = l.skip(i)
	j := l.regular(i)
	if string(l.data[i:j]) != kw {
		return i, false
	}
	return j, true
}

// pdfParseInt parses an unsigned decimal integer of at most 18 digits, or
// one with a sign.
func pdfParseInt(b []byte) (int64, bool) {
	neg := false
	if len(b) > 0 && (b[0] == '+' || b[0] == '-') {
		neg = b[0] == '-'
		b = b[1:]
	}
	if len(b) == 0 || len(b) > 18 {
		return 0, false
	}
	var n int64
	for _, c := range b {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int64(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// value parses the value at i (after white space). ok is false when the
// value is malformed or runs past the window.
func (l *pdfObjLexer) value(i, depth int) (v pdfVal, ok bool) {
	i = l.skip(i)
	if i >= l.end || depth > pdfMaxLexDepth {
		return v, false
	}
	v.start = i
	switch c := l.data[i]; {
	case c == '/':
		j := l.regular(i + 1)
		v.kind, v.end, v.name = pdfValName, j, pdfDecodeName(l.data[i+1:j])
		return v, true
	case c == '(':
		v.kind = pdfValString
		v.end, ok = l.literalEnd(i)
		return v, ok
	case c == '<' && i+1 < l.end && l.data[i+1] == '<':
		end, ok := l.dict(i, depth, nil)
		v.kind, v.end = pdfValDict, end
		return v, ok
	case c == '<':
		k := bytes.IndexByte(l.data[i:l.end], '>')
		if k < 0 {
			return v, false
		}
		v.kind, v.end = pdfValString, i+k+1
		return v, true
	case c == '[':
		v.kind = pdfValArray
		j := i + 1
		for {
			j = l.skip(j)
			if j >= l.end {
				return v, false
			}
			if l.data[j] == ']' {
				v.end = j + 1
				return v, true
			}
			e, ok := l.value(j, depth+1)
			if !ok {
				return v, false
			}
			j = e.end
		}
	case pdfIsRegular(c):
		j := l.regular(i)
		v.end = j
		n, isInt := pdfParseInt(l.data[i:j])
		if !isInt {
			return v, true // real, true, false, null or a keyword
		}
		v.kind, v.num = pdfValInt, n
		// "N G R" is a reference.
		k := l.skip(j)
		k2 := l.regular(k)
		if k2 == k || k2-k > 5 {
			return v, true
		}
		gen, isGen := pdfParseInt(l.data[k:k2])
		if !isGen || l.data[k] == '-' || l.data[k] == '+' {
			return v, true
		}
		if r, ok := l.keyword(k2, "R"); ok {
			v.kind, v.gen, v.end = pdfValRef, gen, r
		}
		return v, true
	}
	return v, false // ")", ">", "]", "{", "}" where a value belongs
}

// literalEnd returns the position after the literal string starting at i
// (at its "("): balanced parentheses nest, a backslash escapes the next
// byte. ok is false when the string does not end before l.end.
func (l *pdfObjLexer) literalEnd(i int) (end int, ok bool) {
	nest := 0
	for j := i; j < l.end; j++ {
		switch l.data[j] {
		case '\\':
			j++
		case '(':
			nest++
		case ')':
			nest--
			if nest == 0 {
				return j + 1, true
			}
		}
	}
	return 0, false
}

// dict parses the dictionary at i (at its "<<") and calls fn, when not
// nil, with each top-level key and value. It returns the position after
// the closing ">>".
func (l *pdfObjLexer) dict(i, depth int, fn func(key string, keyStart int, v pdfVal)) (int, bool) {
	if depth > pdfMaxLexDepth {
		return i, false
	}
	j := i + 2
	for {
		j = l.skip(j)
		if j >= l.end {
			return j, false
		}
		if l.data[j] == '>' {
			if j+1 < l.end && l.data[j+1] == '>' {
				return j + 2, true
			}
			return j, false
		}
		if l.data[j] != '/' {
			return j, false
		}
		k := l.regular(j + 1)
		v, ok := l.value(k, depth+1)
		if !ok {
			return j, false
		}
		if fn != nil {
			fn(pdfDecodeName(l.data[j+1:k]), j, v)
		}
		j = v.end
	}
}

// pdfDecodeName decodes the #xx escapes of a name.
func pdfDecodeName(b []byte) string {
	if bytes.IndexByte(b, '#') < 0 {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '#' && i+2 < len(b) {
			if h, ok := pdfUnhex(b[i+1]); ok {
				if lo, ok := pdfUnhex(b[i+2]); ok {
					out = append(out, h<<4|lo)
					i += 2
					continue
				}
			}
		}
		out = append(out, b[i])
	}
	return string(out)
}

func pdfUnhex(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}
