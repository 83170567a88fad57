package text

import (
	"unicode"
	"unicode/utf8"
)

// Span is a half-open byte range [Start, End) into a string.
type Span struct{ Start, End int }

// Words returns the word spans of s in order. A word is a maximal run of
// letters, digits and combining marks of any script, with these joins:
//   - an apostrophe (' or ’) between two letters stays inside the word
//     ("don't", "O’Brien");
//   - a '.' or ',' between two digits stays inside the word, so numbers such
//     as "3.14", "1,5" and "1.000.000" are one word;
//   - hyphens, underscores, slashes and every other symbol split words
//     ("state-of-the-art" is four words).
//
// Han ideographs, Hiragana and Katakana have no spaces between words; each
// such character is returned as a word of its own.
func Words(s string) []Span {
	var out []Span
	for i := 0; i < len(s); {
		start, end := nextWord(s, i)
		if start < 0 {
			break
		}
		out = append(out, Span{start, end})
		i = end
	}
	return out
}

// nextWord returns the next word of s at or after byte i, or (-1, -1) when
// there is none. It does not allocate.
func nextWord(s string, i int) (start, end int) {
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf {
			if asciiClass[c] == 0 {
				i++
				continue
			}
			return i, wordEnd(s, i, rune(c), 1, false)
		}
		r, n := decodeRune(s, i)
		if isIdeograph(r) {
			return i, i + n
		}
		if isWordRune(r) {
			return i, wordEnd(s, i, r, n, false)
		}
		i += n
	}
	return -1, -1
}

// wordEnd returns the end of the word that starts at byte start with rune r
// of n bytes. An apostrophe between two letters and '.' or ',' between two
// digits stay inside the word; so does a hyphen between two letters when
// hyphens is set (Tokenize's compounds, "Frýdek-Místek").
func wordEnd(s string, start int, r rune, n int, hyphens bool) int {
	i := start + n
	prevLetter := unicode.IsLetter(r)
	prevDigit := isDigit(r)
	for i < len(s) {
		if c := s[i]; c < utf8.RuneSelf && asciiClass[c] != 0 {
			prevLetter, prevDigit = asciiClass[c] == asciiLetter, asciiClass[c] == asciiDigit
			i++
			continue
		}
		r, n = decodeRune(s, i)
		if isIdeograph(r) {
			return i
		}
		if isWordRune(r) {
			prevLetter = unicode.IsLetter(r)
			prevDigit = isDigit(r)
			i += n
			continue
		}
		if i+n < len(s) {
			next, nn := decodeRune(s, i+n)
			if prevLetter && (r == '\'' || r == '\u2019' || hyphens && r == '-') && unicode.IsLetter(next) && !isIdeograph(next) {
				i += n + nn
				prevLetter, prevDigit = true, false
				continue
			}
			if prevDigit && (r == '.' || r == ',') && isDigit(next) {
				i += n + nn
				prevLetter, prevDigit = false, true
				continue
			}
		}
		break
	}
	return i
}

// Classes of ASCII bytes in asciiClass.
const (
	asciiOther = iota
	asciiLetter
	asciiDigit
)

// asciiClass classifies the ASCII bytes for the fast paths of nextWord and
// wordEnd: letters and digits are word runes (isWordRune), the rest not.
var asciiClass = func() (t [utf8.RuneSelf]uint8) {
	for c := range utf8.RuneSelf {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z':
			t[c] = asciiLetter
		case '0' <= c && c <= '9':
			t[c] = asciiDigit
		}
	}
	return t
}()

func decodeRune(s string, i int) (rune, int) {
	if c := s[i]; c < utf8.RuneSelf {
		return rune(c), 1
	}
	return utf8.DecodeRuneInString(s[i:])
}

func isDigit(r rune) bool {
	if r < utf8.RuneSelf {
		return '0' <= r && r <= '9'
	}
	return unicode.IsDigit(r)
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r) || unicode.Is(unicode.Mc, r)
}

// isIdeograph reports whether r is written without spaces between words
// (Han, Hiragana, Katakana) and is therefore a word on its own.
func isIdeograph(r rune) bool {
	if r < 0x2E80 {
		return false
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r)
}

// RuneCount returns the number of Unicode code points in s; each invalid
// UTF-8 byte counts as one, as in a []rune conversion.
func RuneCount(s string) int { return utf8.RuneCountInString(s) }

// RuneOffset converts the byte offset byteOff of s into a code-point offset.
// Offsets past the end are clamped to len(s); an offset inside a multi-byte
// sequence counts the partial rune as started.
func RuneOffset(s string, byteOff int) int {
	if byteOff <= 0 {
		return 0
	}
	if byteOff > len(s) {
		byteOff = len(s)
	}
	return utf8.RuneCountInString(s[:byteOff])
}
