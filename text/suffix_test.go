package text

import "testing"

// TestSuffixRulesCut checks that cut finds the first fitting rule in the
// order the rules were given, not the order of any index: a longer suffix
// listed first wins over a shorter one with the same last byte, a later
// rule wins only when the earlier ones do not end the word, and minStem
// skips rules that would leave too short a stem.
func TestSuffixRulesCut(t *testing.T) {
	rules := indexSuffixes([]suffixRule{
		{"ement", "1"}, {"ance", "2"}, {"ment", "3"}, {"nt", "4"}, {"s", "5"},
	})
	for _, tc := range []struct {
		word    string
		minStem int
		stem    string
		repl    string // "" when no rule fits
	}{
		{"agreement", 0, "agre", "1"},
		{"agreement", 5, "agree", "3"},
		{"agreement", 6, "agreeme", "4"},
		{"agreement", 8, "", ""},
		{"torment", 0, "tor", "3"},
		{"ant", 0, "a", "4"},
		{"balance", 0, "bal", "2"},
		{"cats", 0, "cat", "5"},
		{"cat", 0, "", ""},
		{"", 0, "", ""},
		{"caf\xc3\xa9", 0, "", ""}, // a last byte outside ASCII
	} {
		stem, r, ok := rules.cut([]byte(tc.word), tc.minStem)
		if ok != (tc.repl != "") || string(stem) != tc.stem || r.repl != tc.repl {
			t.Errorf("cut(%q, %d) = %q, %+v, %v; want %q, rule %q", tc.word, tc.minStem, stem, r, ok, tc.stem, tc.repl)
		}
	}
}
