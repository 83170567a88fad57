package summary

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/najdi/najdi/text"
)

// sentences returns the sentence spans of s (see text.Sentences), with every
// line break ending a sentence too: in a section, a line without a final
// period is a title, a list item or a table row.
func sentences(s string) []text.Span {
	var out []text.Span
	for lo := 0; lo < len(s); {
		hi, next := len(s), len(s)
		if k := strings.IndexAny(s[lo:], "\n\r\u2029"); k >= 0 {
			_, n := utf8.DecodeRuneInString(s[lo+k:])
			hi, next = lo+k, lo+k+n
		}
		for _, sp := range text.Sentences(s[lo:hi]) {
			out = append(out, text.Span{Start: lo + sp.Start, End: lo + sp.End})
		}
		lo = next
	}
	return out
}

// words returns the white-space separated pieces of s[a:b] (byte offsets
// into s): each begins with a word (see text.Words) that follows white space
// and keeps the punctuation around it ("(COVID-19)," is one piece). Cutting
// text only between these pieces never cuts a word.
func words(s string, a, b int) []text.Span {
	var out []text.Span
	lo, prevEnd := a, -1
	for _, w := range text.Words(s[a:b]) {
		start := a + w.Start
		if prevEnd >= 0 {
			if k := strings.LastIndexFunc(s[prevEnd:start], unicode.IsSpace); k >= 0 {
				_, n := utf8.DecodeRuneInString(s[prevEnd+k:])
				out = appendTrimmed(out, s, lo, prevEnd+k+n)
				lo = prevEnd + k + n
			}
		}
		prevEnd = a + w.End
	}
	return appendTrimmed(out, s, lo, b)
}

// appendTrimmed appends the span of s[lo:hi] trimmed of white space to out
// unless it is blank.
func appendTrimmed(out []text.Span, s string, lo, hi int) []text.Span {
	t := strings.TrimLeftFunc(s[lo:hi], unicode.IsSpace)
	lo = hi - len(t)
	if t = strings.TrimRightFunc(t, unicode.IsSpace); t == "" {
		return out
	}
	return append(out, text.Span{Start: lo, End: lo + len(t)})
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

// appendTerms appends the language-neutral terms of s to dst, used when
// Config.Analyzer is nil: words (see text.Words) folded (see text.Fold) and
// truncated to stemLen runes; single-rune terms other than digits and stop
// words are dropped.
func appendTerms(dst []string, s string) []string {
	for _, w := range text.Words(s) {
		t := text.Fold(s[w.Start:w.End])
		if stopwords[t] {
			continue
		}
		r, n := utf8.DecodeRuneInString(t)
		if n == len(t) && !unicode.IsDigit(r) {
			continue
		}
		k := 0
		for i := 0; i < stemLen && k < len(t); i++ {
			_, n := utf8.DecodeRuneInString(t[k:])
			k += n
		}
		dst = append(dst, t[:k])
	}
	return dst
}
