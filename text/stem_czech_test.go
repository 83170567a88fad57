package text

import (
	"os"
	"strings"
	"testing"
)

func TestStemCzech(t *testing.T) {
	// Expected stems follow the light stemmer's rules on folded forms.
	tests := []struct{ word, want string }{
		{"hrad", "hrad"}, {"hradu", "hrad"}, {"hradem", "hrad"}, {"hrady", "hrad"}, {"hradech", "hrad"},
		{"praha", "prah"}, {"praze", "prah"}, {"prahou", "prah"}, {"prahy", "prah"},
		{"zena", "zn"}, {"zeny", "zn"}, {"zene", "zn"}, {"zenou", "zn"}, {"zenach", "zn"},
		{"mesto", "mesk"}, {"mesta", "mesk"}, {"mestech", "mesk"}, {"mestem", "mesk"},
		{"nadrazi", "nadrah"}, {"nadrazim", "nadrah"},
		{"ruka", "ruk"}, {"ruce", "ruk"}, {"rukou", "ruk"},
		{"kniha", "knih"}, {"knize", "knih"}, {"knihou", "knih"},
		{"dum", "dum"}, {"domu", "dom"}, {"domem", "dom"},
		{"pes", "ps"}, {"psa", "psa"}, {"den", "dn"}, {"dne", "dne"}, {"a", "a"}, {"ok", "ok"},
		{"bratruv", "bratr"}, {"bratra", "bratr"}, {"matcin", "matk"},
		{"ceskeho", "cesk"}, {"ceskemu", "cesk"}, {"ceskych", "cesk"}, {"cesky", "cesk"},
		{"kuratech", "kur"}, {"kuratum", "kur"}, {"kure", "kur"},
	}
	for _, tc := range tests {
		if got := StemCzech(tc.word, CzechIndex); got != tc.want {
			t.Errorf("StemCzech(%q, CzechIndex) = %q, want %q", tc.word, got, tc.want)
		}
	}
}

// TestCzechStemmerConflation measures the folded light stemmer on the
// (form, lemma) pairs of UD Czech-CAC dev: how often two forms of one lemma
// share a term (recall) and how often a term stands for one lemma only
// (purity). Floors sit a little under the measured values.
func TestCzechStemmerConflation(t *testing.T) {
	a := NewAnalyzer(Czech)
	pairs := czechFormLemmas(t)
	lemmaTerms := map[string]map[string]int{}
	termLemmas := map[string]map[string]int{}
	for _, p := range pairs {
		terms := a.AppendTerms(nil, p[0])
		if len(terms) != 1 {
			continue // stopword or multi-word token
		}
		lemma := strings.ToLower(p[1])
		inc(lemmaTerms, lemma, terms[0])
		inc(termLemmas, terms[0], lemma)
	}
	recall := majorityShare(lemmaTerms)
	purity := majorityShare(termLemmas)
	t.Logf("tokens=%d lemmas=%d terms=%d recall=%.3f purity=%.3f", len(pairs), len(lemmaTerms), len(termLemmas), recall, purity)
	if recall < 0.80 || purity < 0.85 {
		t.Errorf("recall %.3f (floor 0.80), purity %.3f (floor 0.85)", recall, purity)
	}
}

func inc(m map[string]map[string]int, k, v string) {
	if m[k] == nil {
		m[k] = map[string]int{}
	}
	m[k][v]++
}

// majorityShare is the share of tokens whose key maps to the key's most
// frequent value.
func majorityShare(m map[string]map[string]int) float64 {
	var best, total int
	for _, vs := range m {
		mx := 0
		for _, n := range vs {
			total += n
			mx = max(mx, n)
		}
		best += mx
	}
	return float64(best) / float64(max(total, 1))
}

// TestStemCzechGolden pins both variants to the stems of the two stemmers
// they replaced (text's light stemmer and nlu/phrase.CzechStem), generated
// before the merge over every third folded word form of UD Czech-CAC dev.
func TestStemCzechGolden(t *testing.T) {
	raw, err := os.ReadFile("testdata/czech_stems.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, line := range strings.Split(string(raw), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || strings.HasPrefix(line, "#") {
			continue
		}
		n++
		if got := StemCzech(f[0], CzechIndex); got != f[1] {
			t.Errorf("StemCzech(%q, CzechIndex) = %q, want %q", f[0], got, f[1])
		}
		if got := StemCzech(f[0], CzechNames); got != f[2] {
			t.Errorf("StemCzech(%q, CzechNames) = %q, want %q", f[0], got, f[2])
		}
	}
	if n < 1000 {
		t.Fatalf("golden file has %d words, want at least 1000", n)
	}
}
