package text

import (
	"testing"

	"github.com/najdi/najdi/internal/testutil"
)

// englishSentences returns up to n sentences from BEIR SciFact abstracts.
func englishSentences(t testing.TB, n int) []string {
	t.Helper()
	var out []string
	for _, doc := range testutil.SciFactDocs(t, n) { // at least a sentence each
		for _, sp := range Sentences(doc.Text) {
			if len(out) < n {
				out = append(out, doc.Text[sp.Start:sp.End])
			}
		}
	}
	return out
}

func TestDetectLanguage(t *testing.T) {
	const n = 200
	cs := czechSentences(t)
	if len(cs) > n {
		cs = cs[:n]
	}
	en := englishSentences(t, n)
	check := func(name string, sents []string, want Language, fold bool) {
		ok := 0
		for _, s := range sents {
			if fold {
				s = Fold(s)
			}
			if DetectLanguage(s) == want {
				ok++
			}
		}
		acc := float64(ok) / float64(len(sents))
		t.Logf("%s: %d/%d = %.3f", name, ok, len(sents), acc)
		if acc < 0.95 {
			t.Errorf("%s accuracy %.3f below floor 0.95", name, acc)
		}
	}
	check("czech", cs, Czech, false)
	check("czech folded", cs, Czech, true)
	check("english", en, English, false)
	for s, want := range map[string]Language{"": English, "kde je nadrazi": Czech, "where is the station": English, "Příliš žluťoučký kůň": Czech} {
		if got := DetectLanguage(s); got != want {
			t.Errorf("DetectLanguage(%q) = %s, want %s", s, got, want)
		}
	}
}
