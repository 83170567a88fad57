package text

// This file implements the Snowball English (Porter2) stemmer, written from
// the algorithm description at snowballstem.org/algorithms/english.

// stemEnglish stems a lowercase ASCII word in place and returns the stem (a
// reslice of b, possibly with its bytes rewritten). 'Y' is used internally
// for consonant y and turned back into 'y' at the end.
func stemEnglish(b []byte) []byte {
	if len(b) <= 2 {
		return b
	}
	if len(b) <= englishExceptionsLen {
		if e, ok := englishExceptions1[string(b)]; ok {
			return append(b[:0], e...)
		}
	}
	if b[0] == '\'' {
		b = b[1:]
	}
	for i := range b {
		if b[i] == 'y' && (i == 0 || isVowelEN(b[i-1])) {
			b[i] = 'Y'
		}
	}
	r1, r2 := englishRegions(b)

	b = step0(b)
	b = step1a(b)
	if len(b) <= englishExceptionsLen {
		if _, ok := englishExceptions2[string(b)]; ok {
			return restoreY(b)
		}
	}
	b = step1b(b, r1)
	b = step1c(b)
	b = step2(b, r1)
	b = step3(b, r1, r2)
	b = step4(b, r2)
	b = step5(b, r1, r2)
	return restoreY(b)
}

func restoreY(b []byte) []byte {
	for i := range b {
		if b[i] == 'Y' {
			b[i] = 'y'
		}
	}
	return b
}

var englishExceptions1 = map[string]string{
	"skis": "ski", "skies": "sky", "dying": "die", "lying": "lie", "tying": "tie",
	"idly": "idl", "gently": "gentl", "ugly": "ugli", "early": "earli", "only": "onli",
	"singly": "singl", "sky": "sky", "news": "news", "howe": "howe", "atlas": "atlas",
	"cosmos": "cosmos", "bias": "bias", "andes": "andes",
}

var englishExceptions2 = map[string]struct{}{
	"inning": {}, "outing": {}, "canning": {}, "herring": {}, "earring": {},
	"proceed": {}, "exceed": {}, "succeed": {},
}

// englishExceptionsLen is the length of the longest word in the exception
// lists; longer words skip the lookups.
var englishExceptionsLen = max(longestKey(englishExceptions1), longestKey(englishExceptions2))

// longestKey returns the length of the longest key of m.
func longestKey[V any](m map[string]V) int {
	n := 0
	for k := range m {
		n = max(n, len(k))
	}
	return n
}

func isVowelEN(c byte) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u', 'y':
		return true
	}
	return false
}

// englishRegions returns the starts of R1 and R2.
func englishRegions(b []byte) (r1, r2 int) {
	switch {
	case hasPrefix(b, "gener"), hasPrefix(b, "arsen"):
		r1 = 5
	case hasPrefix(b, "commun"):
		r1 = 6
	default:
		r1 = regionAfter(b, 0)
	}
	r2 = regionAfter(b, r1)
	return r1, r2
}

// regionAfter returns the position after the first non-vowel following a
// vowel at or after from, or len(b).
func regionAfter(b []byte, from int) int {
	for i := from + 1; i < len(b); i++ {
		if !isVowelEN(b[i]) && isVowelEN(b[i-1]) {
			return i + 1
		}
	}
	return len(b)
}

func hasPrefix(b []byte, p string) bool { return len(b) >= len(p) && string(b[:len(p)]) == p }
func hasSuffix(b []byte, s string) bool {
	n := len(b)
	return n >= len(s) && (s == "" || b[n-1] == s[len(s)-1]) && string(b[n-len(s):]) == s
}

// endsShortSyllable reports whether b ends in a short syllable.
func endsShortSyllable(b []byte) bool {
	n := len(b)
	if n == 2 {
		return isVowelEN(b[0]) && !isVowelEN(b[1])
	}
	if n >= 3 {
		c := b[n-1]
		return !isVowelEN(b[n-3]) && isVowelEN(b[n-2]) && !isVowelEN(c) && c != 'w' && c != 'x' && c != 'Y'
	}
	return false
}

func isShortWord(b []byte, r1 int) bool { return r1 >= len(b) && endsShortSyllable(b) }

func containsVowel(b []byte) bool {
	for _, c := range b {
		if isVowelEN(c) {
			return true
		}
	}
	return false
}

func step0(b []byte) []byte {
	for _, s := range [...]string{"'s'", "'s", "'"} {
		if hasSuffix(b, s) {
			return b[:len(b)-len(s)]
		}
	}
	return b
}

func step1a(b []byte) []byte {
	switch {
	case hasSuffix(b, "sses"):
		return b[:len(b)-2]
	case hasSuffix(b, "ied"), hasSuffix(b, "ies"):
		if len(b) > 4 {
			return b[:len(b)-2]
		}
		return b[:len(b)-1]
	case hasSuffix(b, "us"), hasSuffix(b, "ss"):
		return b
	case hasSuffix(b, "s"):
		if len(b) >= 3 && containsVowel(b[:len(b)-2]) {
			return b[:len(b)-1]
		}
	}
	return b
}

func step1b(b []byte, r1 int) []byte {
	for _, s := range [...]string{"eedly", "eed"} {
		if hasSuffix(b, s) {
			if len(b)-len(s) >= r1 {
				return append(b[:len(b)-len(s)], "ee"...)
			}
			return b
		}
	}
	for _, s := range [...]string{"ingly", "edly", "ing", "ed"} {
		if !hasSuffix(b, s) {
			continue
		}
		stem := b[:len(b)-len(s)]
		if !containsVowel(stem) {
			return b
		}
		switch {
		case hasSuffix(stem, "at"), hasSuffix(stem, "bl"), hasSuffix(stem, "iz"):
			return append(stem, 'e')
		case endsDouble(stem):
			return stem[:len(stem)-1]
		case isShortWord(stem, r1):
			return append(stem, 'e')
		}
		return stem
	}
	return b
}

func endsDouble(b []byte) bool {
	n := len(b)
	if n < 2 || b[n-1] != b[n-2] {
		return false
	}
	switch b[n-1] {
	case 'b', 'd', 'f', 'g', 'm', 'n', 'p', 'r', 't':
		return true
	}
	return false
}

func step1c(b []byte) []byte {
	n := len(b)
	if n > 2 && (b[n-1] == 'y' || b[n-1] == 'Y') && !isVowelEN(b[n-2]) {
		b[n-1] = 'i'
	}
	return b
}

// step2Rules are ordered so that the longest matching suffix comes first.
var step2Rules = indexSuffixes([]suffixRule{
	{"ization", "ize"}, {"ational", "ate"}, {"fulness", "ful"}, {"ousness", "ous"},
	{"iveness", "ive"}, {"tional", "tion"}, {"biliti", "ble"}, {"lessli", "less"},
	{"entli", "ent"}, {"ation", "ate"}, {"alism", "al"}, {"aliti", "al"},
	{"ousli", "ous"}, {"iviti", "ive"}, {"fulli", "ful"}, {"enci", "ence"},
	{"anci", "ance"}, {"abli", "able"}, {"izer", "ize"}, {"ator", "ate"},
	{"alli", "al"}, {"bli", "ble"}, {"ogi", "og"}, {"li", ""},
})

func step2(b []byte, r1 int) []byte {
	stem, r, ok := step2Rules.cut(b, 0)
	if !ok || len(stem) < r1 {
		return b
	}
	switch r.suffix {
	case "ogi":
		if !hasSuffix(stem, "l") {
			return b
		}
	case "li":
		if len(stem) == 0 || !isLiEnding(stem[len(stem)-1]) {
			return b
		}
	}
	return append(stem, r.repl...)
}

func isLiEnding(c byte) bool {
	switch c {
	case 'c', 'd', 'e', 'g', 'h', 'k', 'm', 'n', 'r', 't':
		return true
	}
	return false
}

var step3Rules = indexSuffixes([]suffixRule{
	{"ational", "ate"}, {"tional", "tion"}, {"alize", "al"}, {"icate", "ic"},
	{"iciti", "ic"}, {"ative", ""}, {"ical", "ic"}, {"ness", ""}, {"ful", ""},
})

func step3(b []byte, r1, r2 int) []byte {
	stem, r, ok := step3Rules.cut(b, 0)
	if !ok || len(stem) < r1 || r.suffix == "ative" && len(stem) < r2 {
		return b
	}
	return append(stem, r.repl...)
}

// step4Rules are the suffixes step 4 deletes (no replacements).
var step4Rules = indexSuffixes([]suffixRule{
	{"ement", ""}, {"ance", ""}, {"ence", ""}, {"able", ""}, {"ible", ""},
	{"ment", ""}, {"ant", ""}, {"ent", ""}, {"ism", ""}, {"ate", ""},
	{"iti", ""}, {"ous", ""}, {"ive", ""}, {"ize", ""}, {"ion", ""},
	{"al", ""}, {"er", ""}, {"ic", ""},
})

func step4(b []byte, r2 int) []byte {
	stem, r, ok := step4Rules.cut(b, 0)
	if !ok || len(stem) < r2 || r.suffix == "ion" && !hasSuffix(stem, "s") && !hasSuffix(stem, "t") {
		return b
	}
	return stem
}

func step5(b []byte, r1, r2 int) []byte {
	n := len(b)
	switch {
	case n > 0 && b[n-1] == 'e':
		if n-1 >= r2 || n-1 >= r1 && !endsShortSyllable(b[:n-1]) {
			return b[:n-1]
		}
	case n > 1 && b[n-1] == 'l' && b[n-2] == 'l':
		if n-1 >= r2 {
			return b[:n-1]
		}
	}
	return b
}
