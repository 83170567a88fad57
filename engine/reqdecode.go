package engine

import "unicode/utf8"

// parseSearchFast decodes the common search request bodies without
// reflection: one JSON object whose members, each at most once, are among
// query, result_format and retrievers (strings without escapes; the
// value is validated later, as the strict decoder's is), max_results and
// offset (integers of at most 9 digits), highlight and restore_diacritics
// (true or false), include_fields and include_content (arrays of such
// strings). It reports false for anything else — other members, null,
// escapes, other number forms, malformed JSON — which ParseSearchRequest
// then decodes strictly (and words its errors) as before;
// TestParseSearchFast checks that both give the same request.
func parseSearchFast(b []byte) (SearchRequest, bool) {
	var r SearchRequest
	d := reqScanner{docScanner{b: b}}
	if !d.byte('{') {
		return r, false
	}
	if d.byte('}') {
		return r, d.end()
	}
	var seen uint16
	for {
		key, ok := d.str()
		if !ok || !d.byte(':') {
			return r, false
		}
		var bit uint16
		switch key {
		case "query":
			bit = 1 << 0
			r.Query, ok = d.str()
		case "result_format":
			bit = 1 << 1
			r.ResultFormat, ok = d.str()
		case "max_results":
			bit = 1 << 2
			var n int
			n, ok = d.int()
			r.MaxResults = &n
		case "offset":
			bit = 1 << 3
			var n int
			n, ok = d.int()
			r.Offset = &n
		case "highlight":
			bit = 1 << 4
			var v bool
			v, ok = d.bool()
			r.Highlight = &v
		case "restore_diacritics":
			bit = 1 << 5
			var v bool
			v, ok = d.bool()
			r.RestoreDiacritics = &v
		case "include_fields":
			bit = 1 << 6
			r.IncludeFields, ok = d.strs()
		case "include_content":
			bit = 1 << 7
			r.IncludeContent, ok = d.strs()
		case "retrievers":
			bit = 1 << 8
			r.Retrievers, ok = d.str()
		default:
			return r, false
		}
		if !ok || seen&bit != 0 {
			return r, false
		}
		seen |= bit
		if d.byte('}') {
			return r, d.end()
		}
		if !d.byte(',') {
			return r, false
		}
	}
}

// reqScanner reads the JSON of parseSearchFast: white space, bytes and
// the end of input as a docScanner does, strings, numbers and literals
// by its own stricter rules.
type reqScanner struct{ docScanner }

// str reads a string without escapes or control characters, of valid
// UTF-8.
func (d *reqScanner) str() (string, bool) {
	if !d.byte('"') {
		return "", false
	}
	start, ascii := d.i, true
	for ; d.i < len(d.b); d.i++ {
		switch c := d.b[d.i]; {
		case c == '"':
			s := d.b[start:d.i]
			d.i++
			if !ascii && !utf8.Valid(s) {
				return "", false
			}
			return string(s), true
		case c == '\\' || c < 0x20:
			return "", false
		case c >= utf8.RuneSelf:
			ascii = false
		}
	}
	return "", false
}

// int reads a non-negative integer of at most 9 digits, without leading
// zeros, followed by a delimiter.
func (d *reqScanner) int() (int, bool) {
	d.space()
	n, start := 0, d.i
	for d.i < len(d.b) && d.b[d.i] >= '0' && d.b[d.i] <= '9' {
		n = n*10 + int(d.b[d.i]-'0')
		d.i++
	}
	digits := d.i - start
	if digits == 0 || digits > 9 || (digits > 1 && d.b[start] == '0') || !d.delimiter() {
		return 0, false
	}
	return n, true
}

// bool reads true or false followed by a delimiter.
func (d *reqScanner) bool() (bool, bool) {
	d.space()
	rest := d.b[d.i:]
	switch {
	case len(rest) >= 4 && string(rest[:4]) == "true":
		d.i += 4
		return true, d.delimiter()
	case len(rest) >= 5 && string(rest[:5]) == "false":
		d.i += 5
		return false, d.delimiter()
	}
	return false, false
}

// delimiter reports whether a literal ends here: at white space, ',', '}'
// or ']' (truex, 12a and 1.5 are not read).
func (d *reqScanner) delimiter() bool {
	if d.i == len(d.b) {
		return true
	}
	switch d.b[d.i] {
	case ' ', '\t', '\n', '\r', ',', '}', ']':
		return true
	}
	return false
}

// strs reads an array of strings (an empty one is not nil, as
// encoding/json decodes it).
func (d *reqScanner) strs() ([]string, bool) {
	if !d.byte('[') {
		return nil, false
	}
	out := make([]string, 0, 2)
	if d.byte(']') {
		return out, true
	}
	for {
		s, ok := d.str()
		if !ok {
			return nil, false
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
