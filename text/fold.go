package text

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Fold returns s lowercased with diacritics removed: every rune is
// lowercased, decomposed (NFD) and its nonspacing marks (Mn) dropped, and
// letters that do not decompose are mapped by hand (ß→ss, ø→o, ł→l, đ→d,
// æ→ae, œ→oe, þ→th, ı→i). The typographic apostrophe ’ becomes '. Runes of
// other scripts are only lowercased.
func Fold(s string) string {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || 'A' <= c && c <= 'Z' {
			return string(appendFold(make([]byte, 0, len(s)), s))
		}
	}
	return s
}

// appendFold appends the folded form of s to dst.
func appendFold(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, n := utf8.DecodeRuneInString(s[i:])
		i += n
		if r < rune(len(foldLatin)) {
			dst = append(dst, foldLatin[r]...)
			continue
		}
		dst = appendFoldRune(dst, r)
	}
	return dst
}

// foldLatin is appendFoldRune of every rune below U+0370 (the Latin blocks
// with their accented letters, IPA and the combining diacritical marks),
// computed once so that folding Latin text skips the map and normalization
// lookups.
var foldLatin = func() (t [0x370]string) {
	for r := range rune(len(t)) {
		t[r] = string(appendFoldRune(nil, r))
	}
	return t
}()

// foldSpecial maps letters that NFD does not decompose.
var foldSpecial = map[rune]string{
	'ß': "ss", 'ẞ': "ss", 'ø': "o", 'Ø': "o", 'ł': "l", 'Ł': "l",
	'đ': "d", 'Đ': "d", 'ð': "d", 'Ð': "d", 'æ': "ae", 'Æ': "ae",
	'œ': "oe", 'Œ': "oe", 'þ': "th", 'Þ': "th", 'ı': "i", 'ħ': "h",
	'Ħ': "h", 'ŧ': "t", 'Ŧ': "t", 'ŀ': "l", 'Ŀ': "l", '\u2019': "'",
}

func appendFoldRune(dst []byte, r rune) []byte {
	if r == utf8.RuneError {
		return utf8.AppendRune(dst, r)
	}
	if m, ok := foldSpecial[r]; ok {
		return append(dst, m...)
	}
	r = unicode.ToLower(r)
	var buf [utf8.UTFMax]byte
	n := utf8.EncodeRune(buf[:], r)
	d := norm.NFD.Properties(buf[:n]).Decomposition()
	if d == nil {
		if unicode.Is(unicode.Mn, r) {
			return dst
		}
		return append(dst, buf[:n]...)
	}
	for j := 0; j < len(d); {
		dr, dn := utf8.DecodeRune(d[j:])
		j += dn
		if !unicode.Is(unicode.Mn, dr) {
			dst = utf8.AppendRune(dst, unicode.ToLower(dr))
		}
	}
	return dst
}
