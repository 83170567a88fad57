package text

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentences returns the sentence spans of s in order, each trimmed of
// surrounding white space; empty sentences are skipped.
//
// A sentence ends after '.', '!', '?', '…' (runs such as "?!" or "..." count
// once, closing quotes and brackets stay with the sentence) when white space
// or the end of text follows, and always at a blank line (paragraph break).
// A '.' does not end a sentence when the next word starts with a lowercase
// letter or a digit, or when the word before it is a known abbreviation
// ("e.g.", "Dr.", "tj.", "např.", "Ing."), a single letter (an initial, "J.
// R. R. Tolkien") or a number followed by something other than an uppercase
// letter (Czech ordinals: "15. března 2025"), or when a number follows a
// capitalised word or a lowercase word of at most three letters ("Eq. 3",
// "J Biol. 161", "čl. 5"). A number after a longer lowercase word or an
// acronym starts a new sentence ("were found. 12 patients").
func Sentences(s string) []Span {
	var out []Span
	start := 0
	emit := func(end int) {
		sp := trimSpan(s, start, end)
		if sp.Start < sp.End {
			out = append(out, sp)
		}
		start = end
	}
	for i := 0; i < len(s); {
		r, n := decodeRune(s, i)
		switch {
		case r == '\n':
			// A blank line ends the paragraph.
			j := i + n
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
				j++
			}
			if j < len(s) && s[j] == '\n' {
				emit(i)
			}
			i += n
		case r == '.' || r == '!' || r == '?' || r == '…':
			j := i + n
			for j < len(s) {
				r2, n2 := decodeRune(s, j)
				if r2 == '.' || r2 == '!' || r2 == '?' || r2 == '…' {
					j += n2
					continue
				}
				break
			}
			for j < len(s) {
				r2, n2 := decodeRune(s, j)
				if isCloser(r2) {
					j += n2
					continue
				}
				break
			}
			if j < len(s) {
				r2, _ := decodeRune(s, j)
				if !unicode.IsSpace(r2) {
					i = j
					continue
				}
			}
			if r == '.' && j-i == n && !endsSentenceAfterDot(s, i, j) {
				i = j
				continue
			}
			emit(j)
			i = j
		default:
			i += n
		}
	}
	emit(len(s))
	return out
}

func isCloser(r rune) bool {
	switch r {
	case '"', '\'', ')', ']', '}', '»', '«', '“', '”', '’', '‘', '„':
		return true
	}
	return false
}

// endsSentenceAfterDot decides a single '.' at s[dot] followed by white
// space at s[after].
func endsSentenceAfterDot(s string, dot, after int) bool {
	// Next visible rune.
	k := after
	for k < len(s) {
		r, n := decodeRune(s, k)
		if r == '\n' {
			// A line break after a dot ends the sentence.
			return true
		}
		if !unicode.IsSpace(r) && !isOpener(r) {
			break
		}
		k += n
	}
	if k >= len(s) {
		return true
	}
	next, _ := decodeRune(s, k)
	if unicode.IsLower(next) {
		return false
	}
	// The word before the dot, with inner dots ("e.g", "s.r.o").
	b := dot
	for b > 0 {
		r, n := utf8.DecodeLastRuneInString(s[:b])
		if isWordRune(r) || r == '.' {
			b -= n
			continue
		}
		break
	}
	prev := s[b:dot]
	if prev == "" {
		return true
	}
	if utf8.RuneCountInString(prev) == 1 {
		r, _ := utf8.DecodeRuneInString(prev)
		if unicode.IsLetter(r) {
			return false // an initial
		}
	}
	if allDigits(prev) {
		return unicode.IsUpper(next)
	}
	if _, ok := abbreviations[strings.ToLower(prev)]; ok {
		return false
	}
	if isDigit(next) {
		// A capitalised word or a short lowercase one before a number is
		// a reference or a citation ("Eq. 3", "J Biol. 161", "čl. 5",
		// "sec. 2"); after a longer lowercase word or an acronym a number
		// starts a sentence ("were found. 12 patients", "of GTP. 2,3-DPG").
		first, _ := utf8.DecodeRuneInString(prev)
		short := unicode.IsLower(first) && utf8.RuneCountInString(prev) <= 3
		return !isTitleCase(prev) && !short
	}
	return true
}

// isTitleCase reports whether w starts with an uppercase letter followed by
// at least one lowercase letter.
func isTitleCase(w string) bool {
	r, n := utf8.DecodeRuneInString(w)
	if !unicode.IsUpper(r) {
		return false
	}
	for _, r := range w[n:] {
		if unicode.IsLower(r) {
			return true
		}
	}
	return false
}

func isOpener(r rune) bool {
	switch r {
	case '"', '\'', '(', '[', '{', '»', '«', '“', '„', '‘':
		return true
	}
	return false
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// abbreviations are words that are usually followed by a dot inside a
// sentence (titles and Latin/Czech shorthand), lowercased, inner dots kept.
var abbreviations = wordSet(`mr mrs ms dr prof st jr sr vs etc e.g i.e cf fig no vol
approx dept inc ltd co corp jan feb mar apr jun jul aug sep sept oct nov dec
al ing mgr bc doc mudr judr phdr rndr paeddr mvdr thdr pharmdr csc drsc
např tj tzv resp apod mj popř př čj č str sv ul nám tel p pí sl odst písm
kč hod min obr tab kap viz srov cca tř roč ref refs pp eq eqs figs sect chap
eds spp`)

// trimSpan trims white space from both ends of s[start:end].
func trimSpan(s string, start, end int) Span {
	for start < end {
		r, n := decodeRune(s, start)
		if !unicode.IsSpace(r) {
			break
		}
		start += n
	}
	for end > start {
		r, n := utf8.DecodeLastRuneInString(s[start:end])
		if !unicode.IsSpace(r) {
			break
		}
		end -= n
	}
	return Span{start, end}
}
