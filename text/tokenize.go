package text

import (
	"unicode"
	"unicode/utf8"
)

// Piece is one token of Tokenize: a word or a single punctuation or symbol
// rune. Start and End are code-point offsets into the tokenized text (End
// exclusive), the unit the NLU analysis API reports; ByteStart and ByteEnd
// are the byte offsets, so Text == text[ByteStart:ByteEnd].
type Piece struct {
	Text      string
	Start     int
	End       int
	ByteStart int
	ByteEnd   int
}

// Word reports whether the piece holds a letter or a number: a word (also
// one that begins with a combining mark left without its base), or a
// number rune that is a piece of its own ("²", "Ⅻ", "½").
func (p Piece) Word() bool {
	for _, r := range p.Text {
		if unicode.IsLetter(r) || unicode.IsNumber(r) {
			return true
		}
	}
	return false
}

// Tokenize splits s into pieces with code-point offsets, in order. Words are
// those of Words, except that a hyphen between two letters stays inside the
// word ("Frýdek-Místek" is one piece, two words): phrase and name matching
// decide themselves whether to split a compound. Every other rune that is
// neither a word rune nor white space is a piece of its own; white space
// separates pieces and is not returned. Invalid UTF-8 bytes count one code
// point each, as in a []rune conversion.
func Tokenize(s string) []Piece {
	out := make([]Piece, 0, len(s)/6+1)
	ri, last := 0, 0 // ri is the code-point offset of byte last
	for i := 0; i < len(s); {
		r, n := decodeRune(s, i)
		end := i + n
		switch {
		case isIdeograph(r):
		case isWordRune(r):
			end = wordEnd(s, i, r, n, true)
		case unicode.IsSpace(r):
			i = end
			continue
		}
		ri += utf8.RuneCountInString(s[last:i])
		start := ri
		ri += utf8.RuneCountInString(s[i:end])
		last = end
		out = append(out, Piece{Text: s[i:end], Start: start, End: ri, ByteStart: i, ByteEnd: end})
		i = end
	}
	return out
}

// IsCapitalized reports whether s starts with an upper-case letter.
func IsCapitalized(s string) bool {
	r, _ := utf8.DecodeRuneInString(s)
	return unicode.IsUpper(r)
}
