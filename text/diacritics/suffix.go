package diacritics

import "unicode/utf8"

// Ending rules cover words missing from the lexicon: Czech diacritics sit
// mostly in endings (-ních, -ých, -ého, -ání), so an unknown word gets the
// restoration that most wordfreq word types give to its longest known
// folded ending (2 to 6 letters). The rules are computed by
// scripts/build-cs-lexicon.py over the whole wordfreq vocabulary, plain
// words included, so endings that usually stay plain ("-luce") stay plain.

// restoreUnknown applies the longest ending rule to a lowercase ASCII word
// that is not in the lexicon; it returns "" when no rule applies.
func restoreUnknown(rules map[string]string, w string) string {
	for n := min(maxRuleLen, len(w)-2); n >= 2; n-- {
		if r, ok := rules[w[len(w)-n:]]; ok {
			if utf8.RuneCountInString(r) != n {
				return ""
			}
			return w[:len(w)-n] + r
		}
	}
	return ""
}

const maxRuleLen = 6
