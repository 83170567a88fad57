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

// cut finds the first rule, in the order given to indexSuffixes, whose
// suffix ends b and leaves at least minStem bytes before it, and returns b
// without that suffix and the rule; false when no rule fits.
func (t *suffixRules) cut(b []byte, minStem int) ([]byte, suffixRule, bool) {
	n := len(b)
	if n == 0 || b[n-1] >= utf8.RuneSelf {
		return nil, suffixRule{}, false
	}
	for _, r := range t[b[n-1]] {
		if n-len(r.suffix) >= minStem && hasSuffix(b, r.suffix) {
			return b[:n-len(r.suffix)], r, true
		}
	}
	return nil, suffixRule{}, false
}
