package strictjson

import "strings"

// IsSpace reports whether r is white space as a JSON Schema pattern's \s
// reads it (ECMA-262: WhiteSpace and LineTerminator): tab, line feed,
// vertical tab, form feed, carriage return, the space separators (Zs),
// U+2028, U+2029 and U+FEFF. It differs from unicode.IsSpace, which also
// counts U+0085 and not U+FEFF; the API's "not blank" rules follow the
// OpenAPI document's \S patterns, so they use this one.
func IsSpace(r rune) bool {
	switch r {
	case '\t', '\n', '\v', '\f', '\r', ' ', '\u00a0', '\u1680', '\u2028', '\u2029', '\u202f', '\u205f', '\u3000', '\ufeff':
		return true
	}
	return r >= '\u2000' && r <= '\u200a'
}

// Blank reports whether s holds only white space (IsSpace): whether it
// fails the pattern \S.
func Blank(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !IsSpace(r) }) < 0
}

// TrimSpace returns s without leading and trailing white space (IsSpace).
func TrimSpace(s string) string { return strings.TrimFunc(s, IsSpace) }
