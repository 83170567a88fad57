package text

import (
	"math/rand"
	"strings"
	"testing"
)

func queryTerms(a *Analyzer, q string) map[string]float64 {
	m := map[string]float64{}
	for _, t := range a.AppendTerms(nil, q) {
		m[t] = 1
	}
	return m
}

// checkPassages checks the invariants every Passages result must hold.
func checkPassages(t *testing.T, ps []Passage, sections []string, opts PassageOptions) {
	t.Helper()
	maxP := opts.MaxPassages
	if maxP <= 0 {
		maxP = defaultMaxPassages
	}
	if len(ps) > maxP {
		t.Fatalf("%d passages, max %d", len(ps), maxP)
	}
	for i, p := range ps {
		if p.Section < 0 || p.Section >= len(sections) {
			t.Fatalf("passage %d: bad section %d", i, p.Section)
		}
		rs := []rune(sections[p.Section])
		if p.Start < 0 || p.End > len(rs) || p.Start >= p.End {
			t.Fatalf("passage %d: bad range [%d,%d) of %d runes", i, p.Start, p.End, len(rs))
		}
		if p.Text != string(rs[p.Start:p.End]) {
			t.Fatalf("passage %d: Text %q != slice %q", i, p.Text, string(rs[p.Start:p.End]))
		}
		if p.Score <= 0 || p.Score > 1 {
			t.Fatalf("passage %d: score %v outside (0,1]", i, p.Score)
		}
		if i > 0 && p.Score > ps[i-1].Score {
			t.Fatalf("passages not sorted by score")
		}
		for _, q := range ps[:i] {
			if q.Section == p.Section && p.Start < q.End && q.Start < p.End {
				t.Fatalf("passages %+v and %+v overlap", q, p)
			}
		}
	}
}

func TestPassages(t *testing.T) {
	en := NewAnalyzer(English)
	doc := "Cats are small. Dogs are loyal animals. The weather is nice today. " +
		"Loyal dogs guard the house. Nothing else here."
	ps := Passages(en, queryTerms(en, "loyal dogs"), []string{"Title about birds", doc}, PassageOptions{MaxPassages: 2, MaxRunes: 40})
	checkPassages(t, ps, []string{"Title about birds", doc}, PassageOptions{MaxPassages: 2})
	if len(ps) != 2 {
		t.Fatalf("got %d passages: %+v", len(ps), ps)
	}
	for _, p := range ps {
		if p.Section != 1 || !strings.Contains(strings.ToLower(p.Text), "loyal") || !strings.Contains(strings.ToLower(p.Text), "dog") {
			t.Errorf("passage %+v does not hold both terms", p)
		}
	}

	// A short matching section comes back whole.
	ps = Passages(en, queryTerms(en, "weather"), []string{"Nice weather. Sunny."}, PassageOptions{})
	if len(ps) != 1 || ps[0].Text != "Nice weather. Sunny." {
		t.Errorf("short section: %+v", ps)
	}

	// No match, no passage.
	if ps := Passages(en, queryTerms(en, "zebra"), []string{doc}, PassageOptions{}); len(ps) != 0 {
		t.Errorf("no-match: %+v", ps)
	}

	// Czech without diacritics finds the accented text.
	cs := NewAnalyzer(Czech)
	sec := "Vlak přijel na nádraží v Praze. Pak jel dál."
	ps = Passages(cs, queryTerms(cs, "nadrazi praha"), []string{sec}, PassageOptions{MaxRunes: 35})
	if len(ps) != 1 || ps[0].Text != "Vlak přijel na nádraží v Praze." || ps[0].Score < 0.85 {
		t.Errorf("czech: %+v", ps)
	}
}

func TestPassagesLongSentence(t *testing.T) {
	en := NewAnalyzer(English)
	long := strings.Repeat("filler words go here and there ", 30) + "the zebra crossing is near the old mill " + strings.Repeat("more filler text follows now ", 30)
	ps := Passages(en, queryTerms(en, "zebra mill"), []string{long}, PassageOptions{MaxRunes: 80})
	checkPassages(t, ps, []string{long}, PassageOptions{})
	if len(ps) == 0 {
		t.Fatal("no passage")
	}
	p := ps[0]
	if !strings.Contains(p.Text, "zebra") || !strings.Contains(p.Text, "mill") || RuneCount(p.Text) > 80 {
		t.Errorf("long sentence passage %q", p.Text)
	}
	// Word-aligned: neither end cuts a word.
	rs := []rune(long)
	if p.Start > 0 && isWordRune(rs[p.Start-1]) && isWordRune(rs[p.Start]) || p.End < len(rs) && isWordRune(rs[p.End-1]) && isWordRune(rs[p.End]) {
		t.Errorf("passage cuts a word: %q", p.Text)
	}
}

func TestPassagesRandom(t *testing.T) {
	r := rand.New(rand.NewSource(7))
	en, cs := NewAnalyzer(English), NewAnalyzer(Czech)
	for i := range 300 {
		secs := make([]string, 1+r.Intn(3))
		for k := range secs {
			secs[k] = randomText(r, r.Intn(200))
		}
		a := en
		if i%2 == 1 {
			a = cs
		}
		opts := PassageOptions{MaxPassages: r.Intn(5), MaxRunes: r.Intn(120)}
		ps := Passages(a, queryTerms(a, "praha dogs žena 3.14 日"), secs, opts)
		checkPassages(t, ps, secs, opts)
	}
}

func FuzzPassages(f *testing.F) {
	f.Add("Dogs are loyal. Loyal dogs guard.", "loyal dogs", 20)
	f.Add("Vlak přijel na nádraží v Praze 😀. 日本語", "nadrazi 日", 5)
	f.Add("\xff\xfe dogs \xff", "dogs", 1)
	a := NewAnalyzer(English)
	f.Fuzz(func(t *testing.T, sec, q string, maxRunes int) {
		opts := PassageOptions{MaxRunes: maxRunes % 500}
		secs := []string{sec, sec + " " + q}
		checkPassages(t, Passages(a, queryTerms(a, q), secs, opts), secs, opts)
	})
}

func BenchmarkPassages(b *testing.B) {
	a := NewAnalyzer(English)
	secs := []string{benchText(English), benchText(English)}
	q := queryTerms(a, "cerebral development disabilities")
	b.ReportAllocs()
	b.SetBytes(int64(2 * len(secs[0])))
	for b.Loop() {
		Passages(a, q, secs, PassageOptions{})
	}
}
