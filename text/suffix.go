package text

import "unicode/utf8"

// suffixRule replaces a suffix of a word by repl (the stemmers' rules).
type suffixRule struct{ suffix, repl string }

// suffixRules is an ordered list of suffix rules indexed by the last byte of
// their suffixes, so that a word is compared only with the suffixes that
// can end it.
type suffixRules [utf8.RuneSelf][]suffixRule

// indexSuffixes returns rules indexed by last byte, each list in the order
// of rules. Every suffix must be a non-empty ASCII string.
func indexSuffixes(rules []suffixRule) *suffixRules {
	var t suffixRules
	for _, r := range rules {
		c := r.suffix[len(r.suffix)-1]
		t[c] = append(t[c], r)
	}
	return &t
}

// match returns the first rule, in the order given to indexSuffixes, whose
// suffix ends b and leaves at least minStem bytes before it; false when
// none does.
func (t *suffixRules) match(b []byte, minStem int) (suffixRule, bool) {
	n := len(b)
	if n == 0 || b[n-1] >= utf8.RuneSelf {
		return suffixRule{}, false
	}
	for _, r := range t[b[n-1]] {
		if n-len(r.suffix) >= minStem && hasSuffix(b, r.suffix) {
			return r, true
		}
	}
	return suffixRule{}, false
}
