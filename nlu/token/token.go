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
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.Is(unicode.Mn, r)
}

// Tokenize splits s into tokens. Whitespace separates tokens and is not
// returned; punctuation and symbols are single-rune tokens.
func Tokenize(s string) []Token {
	var out []Token
	type rr struct {
		r    rune
		b, n int
	}
	runes := make([]rr, 0, len(s))
	for b, r := range s {
		runes = append(runes, rr{r, b, utf8.RuneLen(r)})
	}
	i := 0
	for i < len(runes) {
		r := runes[i].r
		if unicode.IsSpace(r) {
			i++
			continue
		}
		if !isWordRune(r) {
			out = append(out, Token{Text: s[runes[i].b : runes[i].b+runes[i].n], Start: i, End: i + 1, ByteStart: runes[i].b, ByteEnd: runes[i].b + runes[i].n})
			i++
			continue
		}
		j := i + 1
		for j < len(runes) {
			c := runes[j].r
			if isWordRune(c) {
				j++
				continue
			}
			// Keep inner joiners: "don't", "Frýdek-Místek", "3.5", "1,5".
			if j+1 < len(runes) && isWordRune(runes[j+1].r) {
				prev, next := runes[j-1].r, runes[j+1].r
				if (c == '\'' || c == '’' || c == '-') && unicode.IsLetter(prev) && unicode.IsLetter(next) {
					j += 2
					continue
				}
				if (c == '.' || c == ',') && unicode.IsDigit(prev) && unicode.IsDigit(next) {
					j += 2
					continue
				}
			}
			break
		}
		bs := runes[i].b
		be := runes[j-1].b + runes[j-1].n
		out = append(out, Token{Text: s[bs:be], Start: i, End: j, ByteStart: bs, ByteEnd: be})
		i = j
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
