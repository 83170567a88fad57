package summary

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// span is a byte range [start, end) of a string.
type span struct{ start, end int }

// abbreviations end with a period that does not end a sentence (lower-case,
// without the period).
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "al": true, "fig": true, "figs": true, "eq": true,
	"vs": true, "etc": true, "dr": true, "mr": true, "mrs": true, "ms": true,
	"prof": true, "no": true, "approx": true, "ca": true, "cf": true, "resp": true,
	"tab": true, "vol": true, "st": true, "jr": true, "sr": true, "inc": true,
	"např": true, "tzv": true, "tj": true, "atd": true, "apod": true, "resp.": true,
}

// sentences splits s into sentence spans trimmed of surrounding space.
// A sentence ends at a line break, or after '.', '!', '?' or '…' (and any
// closing quotes or brackets) followed by space and then an upper-case
// letter, a digit or an opening quote or bracket — unless the word before a
// period is a known abbreviation or a single letter (an initial).
func sentences(s string) []span {
	var out []span
	start := 0
	emit := func(end int) {
		a, b := trimSpan(s, start, end)
		if a < b {
			out = append(out, span{a, b})
		}
	}
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == '\n' || r == '\r' || r == '\u2029':
			emit(i)
			start = i + n
		case r == '.' || r == '!' || r == '?' || r == '…':
			j := i + n
			for j < len(s) && strings.IndexByte(`"')]»”’`, s[j]) >= 0 {
				j++
			}
			for j < len(s) {
				c, m := utf8.DecodeRuneInString(s[j:])
				if c != '”' && c != '’' && c != '»' {
					break
				}
				j += m
			}
			if j >= len(s) {
				break
			}
			c, m := utf8.DecodeRuneInString(s[j:])
			if c != ' ' && c != '\t' && c != '\u00a0' {
				break
			}
			k := j + m
			for k < len(s) && (s[k] == ' ' || s[k] == '\t') {
				k++
			}
			if k >= len(s) {
				break
			}
			next, _ := utf8.DecodeRuneInString(s[k:])
			if !(unicode.IsUpper(next) || unicode.IsDigit(next) || strings.ContainsRune(`"'(["„“«`, next)) {
				break
			}
			if r == '.' && isAbbreviation(s[start:i]) {
				break
			}
			emit(j)
			start = j
			n = j - i
		}
		i += n
	}
	emit(len(s))
	return out
}

// isAbbreviation reports whether the text before a period ends with an
// abbreviation or a single-letter initial.
func isAbbreviation(before string) bool {
	w := before[strings.LastIndexAny(before, " \t(\"'")+1:]
	if w == "" {
		return false
	}
	if utf8.RuneCountInString(w) == 1 {
		r, _ := utf8.DecodeRuneInString(w)
		return unicode.IsLetter(r)
	}
	return abbreviations[strings.ToLower(w)]
}

// trimSpan shrinks [a, b) of s past leading and trailing white space.
func trimSpan(s string, a, b int) (int, int) {
	for a < b {
		r, n := utf8.DecodeRuneInString(s[a:])
		if !unicode.IsSpace(r) {
			break
		}
		a += n
	}
	for b > a {
		r, n := utf8.DecodeLastRuneInString(s[a:b])
		if !unicode.IsSpace(r) {
			break
		}
		b -= n
	}
	return a, b
}

// words splits s[a:b] into white-space separated word spans (byte offsets
// into s). Cutting text only between these spans never cuts a word.
func words(s string, a, b int, dst []span) []span {
	in := false
	ws := 0
	for i := a; i < b; {
		r, n := utf8.DecodeRuneInString(s[i:])
		sp := unicode.IsSpace(r)
		if !sp && !in {
			in, ws = true, i
		} else if sp && in {
			in = false
			dst = append(dst, span{ws, i})
		}
		i += n
	}
	if in {
		dst = append(dst, span{ws, b})
	}
	return dst
}

// stemLen is the number of runes a term keeps: truncation is a crude,
// language-independent stemmer that conflates inflections ("proteins",
// "protein"; "léčba", "léčby").
const stemLen = 6

// stopwords are frequent English and Czech function words ignored in
// relevance scoring (already folded).
var stopwords = map[string]bool{
	"a": true, "an": true, "in": true, "of": true, "to": true, "is": true, "on": true,
	"at": true, "by": true, "as": true, "or": true, "be": true, "it": true, "we": true,
	"do": true, "if": true, "so": true, "up": true, "us": true, "vs": true, "no": true,
	"v": true, "na": true, "se": true, "je": true, "ze": true, "po": true, "od": true,
	"za": true, "si": true, "co": true, "ten": true, "ta": true,
	"about": true, "after": true, "before": true, "between": true, "both": true,
	"each": true, "during": true, "only": true, "over": true, "under": true,
	"would": true, "should": true, "could": true, "being": true, "because": true,
	"while": true, "within": true, "without": true, "through": true, "whether": true,
	"the": true, "and": true, "for": true, "are": true, "was": true, "were": true,
	"with": true, "that": true, "this": true, "from": true, "has": true, "have": true,
	"had": true, "not": true, "but": true, "its": true, "into": true, "than": true,
	"which": true, "what": true, "who": true, "how": true, "why": true, "when": true,
	"where": true, "does": true, "did": true, "can": true, "will": true, "been": true,
	"their": true, "there": true, "these": true, "those": true, "they": true,
	"also": true, "such": true, "more": true, "most": true, "other": true, "some": true,
	"any": true, "all": true, "our": true, "you": true, "your": true, "his": true,
	"her": true, "she": true, "him": true, "them": true, "then": true, "may": true,
	"jak": true, "jaky": true, "jake": true, "kde": true, "kdy": true, "proc": true,
	"ktery": true, "ktera": true, "ktere": true, "jsou": true, "byl": true, "byla": true,
	"bylo": true, "pro": true, "pri": true, "nebo": true, "ale": true, "jako": true,
	"tak": true, "take": true, "jeho": true, "jeji": true, "podle": true, "pod": true,
	"nad": true, "pred": true, "mezi": true, "aby": true, "jen": true, "uz": true,
}

// appendTerms appends the analyzed terms of s to dst: runs of letters and
// digits, lower-cased, stripped of diacritics, truncated to stemLen runes;
// terms shorter than two runes (except digits) and stop words are dropped.
func appendTerms(dst []string, s string) []string {
	var b strings.Builder
	flush := func() {
		if b.Len() == 0 {
			return
		}
		t := b.String()
		b.Reset()
		if stopwords[t] {
			return
		}
		if utf8.RuneCountInString(t) < 2 {
			r, _ := utf8.DecodeRuneInString(t)
			if !unicode.IsDigit(r) {
				return
			}
		}
		if k := runeOffset(t, stemLen); k < len(t) {
			t = t[:k]
		}
		dst = append(dst, t)
	}
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			b.WriteString(fold(r))
		} else if !unicode.Is(unicode.Mn, r) {
			flush()
		}
	}
	flush()
	return dst
}

// fold lower-cases r and strips its diacritics.
func fold(r rune) string {
	r = unicode.ToLower(r)
	if r < utf8.RuneSelf {
		return string(r)
	}
	d := norm.NFD.String(string(r))
	var b strings.Builder
	for _, c := range d {
		if !unicode.Is(unicode.Mn, c) {
			b.WriteRune(c)
		}
	}
	return b.String()
}

// runeOffset returns the byte offset of the n-th rune of s (len(s) if s is
// shorter).
func runeOffset(s string, n int) int {
	for i := range s {
		if n == 0 {
			return i
		}
		n--
	}
	return len(s)
}
