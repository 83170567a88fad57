// Package token splits text into word tokens with exact code-point offsets
// and folds them (lower case, diacritics removed) for matching.
//
// Every NLU component (phrase matching, intent features, built-in entities,
// NER) needs the same two things: tokens whose offsets point back into the
// original text in code points (the unit the analysis API reports), and a
// folded form that makes "Praze", "praze" and "PRAZE" one key. Tokenize
// walks the string once, counting runes; a token is a run of letters and
// digits (with inner apostrophes, hyphens between letters, and decimal
// separators between digits kept inside), or a single other non-space rune.
package token

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Token is one token of a text. Start and End are code-point offsets into
// the text (End exclusive); ByteStart and ByteEnd are the byte offsets.
type Token struct {
	Text      string
	Start     int
	End       int
	ByteStart int
	ByteEnd   int
}

// Word reports whether the token starts with a letter or a digit.
func (t Token) Word() bool {
	r, _ := utf8.DecodeRuneInString(t.Text)
	return unicode.IsLetter(r) || unicode.IsDigit(r)
}

func isWordRune(r rune) bool {
	if r < 0x80 {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// Tokenize splits s into tokens. Whitespace separates tokens and is not
// returned; punctuation and symbols are single-rune tokens.
func Tokenize(s string) []Token {
	out := make([]Token, 0, len(s)/6+1)
	b, ri := 0, 0 // byte and code-point offset
	for b < len(s) {
		r, n := utf8.DecodeRuneInString(s[b:])
		if !isWordRune(r) {
			if !unicode.IsSpace(r) {
				out = append(out, Token{Text: s[b : b+n], Start: ri, End: ri + 1, ByteStart: b, ByteEnd: b + n})
			}
			b += n
			ri++
			continue
		}
		start, startRi, prev := b, ri, r
		b += n
		ri++
		for b < len(s) {
			c, cn := utf8.DecodeRuneInString(s[b:])
			if isWordRune(c) {
				prev = c
				b += cn
				ri++
				continue
			}
			// Keep inner joiners: "don't", "Frýdek-Místek", "3.5", "1,5".
			if b+cn < len(s) {
				next, nn := utf8.DecodeRuneInString(s[b+cn:])
				if isWordRune(next) &&
					((c == '\'' || c == '’' || c == '-') && unicode.IsLetter(prev) && unicode.IsLetter(next) ||
						(c == '.' || c == ',') && unicode.IsDigit(prev) && unicode.IsDigit(next)) {
					prev = next
					b += cn + nn
					ri += 2
					continue
				}
			}
			break
		}
		out = append(out, Token{Text: s[start:b], Start: startRi, End: ri, ByteStart: start, ByteEnd: b})
	}
	return out
}

// foldTable maps the Latin letters with diacritics used by Czech, Slovak,
// German and the Latin-1 languages to their base letters.
var foldTable = map[rune]rune{
	'á': 'a', 'ä': 'a', 'à': 'a', 'â': 'a', 'ã': 'a', 'å': 'a', 'ą': 'a',
	'č': 'c', 'ć': 'c', 'ç': 'c',
	'ď': 'd', 'đ': 'd',
	'é': 'e', 'ě': 'e', 'ë': 'e', 'è': 'e', 'ê': 'e', 'ę': 'e',
	'í': 'i', 'ï': 'i', 'ì': 'i', 'î': 'i',
	'ľ': 'l', 'ĺ': 'l', 'ł': 'l',
	'ň': 'n', 'ñ': 'n', 'ń': 'n',
	'ó': 'o', 'ö': 'o', 'ò': 'o', 'ô': 'o', 'õ': 'o', 'ő': 'o', 'ø': 'o',
	'ř': 'r', 'ŕ': 'r',
	'š': 's', 'ś': 's', 'ß': 's',
	'ť': 't',
	'ú': 'u', 'ů': 'u', 'ü': 'u', 'ù': 'u', 'û': 'u', 'ű': 'u',
	'ý': 'y', 'ÿ': 'y',
	'ž': 'z', 'ź': 'z', 'ż': 'z',
	'’': '\'',
}

// FoldRune lower-cases r and removes its diacritics.
func FoldRune(r rune) rune {
	r = unicode.ToLower(r)
	if f, ok := foldTable[r]; ok {
		return f
	}
	return r
}

// Fold lower-cases s and removes diacritics. It maps rune to rune (combining
// marks are dropped), so folded words are never longer in runes.
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 0x80 || ('A' <= c && c <= 'Z') {
			ascii = false
			break
		}
	}
	if ascii {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		if unicode.Is(unicode.Mn, r) {
			continue
		}
		b.WriteRune(FoldRune(r))
	}
	return b.String()
}

// Lower lower-cases s without removing diacritics.
func Lower(s string) string { return strings.ToLower(s) }

// IsCapitalized reports whether s starts with an upper-case letter.
func IsCapitalized(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}
