package text

import (
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestAnalyzeEnglish(t *testing.T) {
	a := NewAnalyzer(English)
	tests := []struct {
		in   string
		want []string
	}{
		{"Running dogs", []string{"run", "dog"}},
		{"The cat's toys are in the box.", []string{"cat", "toy", "box"}},
		{"Café naïve RÉSUMÉ", []string{"cafe", "naiv", "resum"}},
		{"pi is 3.14, not 3,15", []string{"pi", "3.14", "3,15"}},
		{"state-of-the-art", []string{"state", "art"}},
		{"don’t don't", []string{"don't", "don't"}},
		{"東京 tower", []string{"東", "京", "tower"}},
		{"Привет мир", []string{"привет", "мир"}},
		{strings.Repeat("x", 65) + " ok", []string{"ok"}},
		{"", nil},
	}
	for _, tc := range tests {
		if got := a.AppendTerms(nil, tc.in); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Analyze(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAnalyzeOffsets(t *testing.T) {
	a := NewAnalyzer(Czech)
	in := "V Praze, na nádraží."
	var got []Token
	a.Analyze(in, func(tk Token) { got = append(got, tk) })
	want := []Token{{"prah", 2, 7}, {"nadrah", 12, 22}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("tokens = %+v, want %+v", got, want)
	}
}

// TestAnalyzeCzechGroups checks that inflected forms, typed with or without
// diacritics, meet in one term.
func TestAnalyzeCzechGroups(t *testing.T) {
	a := NewAnalyzer(Czech)
	groups := [][]string{
		{"Praha", "Praze", "Prahou", "Prahy", "praze", "PRAHA"},
		{"hrad", "hradu", "hradem", "hrady", "hradech"},
		{"žena", "ženy", "ženě", "ženou", "ženách", "zena", "zeny", "zene", "zenou", "zenach"},
		{"městech", "mestech", "město", "mesto", "města"},
		{"nádraží", "nadrazi", "nádražím"},
		{"kniha", "knize", "knihou", "knihy"},
		{"ruka", "ruce", "rukou"},
	}
	for _, g := range groups {
		want := a.AppendTerms(nil, g[0])
		if len(want) != 1 {
			t.Fatalf("%q gave %q", g[0], want)
		}
		for _, w := range g[1:] {
			if got := a.AppendTerms(nil, w); len(got) != 1 || got[0] != want[0] {
				t.Errorf("%q → %q, want %q (as %q)", w, got, want[0], g[0])
			}
		}
	}
}

func TestStopwords(t *testing.T) {
	tests := []struct {
		lang Language
		word string
		want bool
	}{
		{English, "The", true}, {English, "with", true}, {English, "dog", false},
		{Czech, "že", true}, {Czech, "ze", true}, {Czech, "který", true}, {Czech, "ktery", true},
		{Czech, "byt", false}, {Czech, "být", false}, {Czech, "Praha", false},
	}
	for _, tc := range tests {
		if got := NewAnalyzer(tc.lang).IsStopword(tc.word); got != tc.want {
			t.Errorf("%s IsStopword(%q) = %v, want %v", tc.lang, tc.word, got, tc.want)
		}
	}
}

func TestParseLanguage(t *testing.T) {
	for in, want := range map[string]Language{"en": English, "CS": Czech, " cs ": Czech} {
		if got, err := ParseLanguage(in); err != nil || got != want {
			t.Errorf("ParseLanguage(%q) = %q, %v", in, got, err)
		}
	}
	if _, err := ParseLanguage("de"); err == nil {
		t.Error("ParseLanguage(de) succeeded")
	}
}

func TestFold(t *testing.T) {
	tests := map[string]string{
		"Příliš žluťoučký kůň úpěl ďábelské ódy": "prilis zlutoucky kun upel dabelske ody",
		"Straße Øre Łódź Đorđe Æsir œuvre":       "strasse ore lodz dorde aesir oeuvre",
		"ASCII only": "ascii only",
		"日本":         "日本",
		"e\u0301":    "e",
	}
	for in, want := range tests {
		if got := Fold(in); got != want {
			t.Errorf("Fold(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAnalyzeAllocs(t *testing.T) {
	a := NewAnalyzer(English)
	in := "searching for running dogs in the park while the cat sleeps quietly"
	n := testing.AllocsPerRun(100, func() { a.Analyze(in, func(Token) {}) })
	// Only stems that are not prefixes of their word allocate.
	if n > 2 {
		t.Errorf("Analyze allocates %.0f times per call", n)
	}
	if n := testing.AllocsPerRun(100, func() { DetectLanguage("Příliš žluťoučký kůň úpěl ďábelské ódy, the end") }); n != 0 {
		t.Errorf("DetectLanguage allocates %.0f times per call", n)
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"Running dogs", "Příliš žluťoučký kůň", "3.14 1,5", "日本語", "a'b'c", "\xff\xfe", "e\u0301"} {
		f.Add(s)
	}
	ens, css := NewAnalyzer(English), NewAnalyzer(Czech)
	f.Fuzz(func(t *testing.T, s string) {
		for _, a := range []*Analyzer{ens, css} {
			last := 0
			a.Analyze(s, func(tk Token) {
				if tk.Start < last || tk.End <= tk.Start || tk.End > len(s) {
					t.Fatalf("bad offsets %+v (last end %d) in %q", tk, last, s)
				}
				last = tk.End
				if tk.Term == "" || len(tk.Term) > MaxTokenBytes {
					t.Fatalf("bad term %q", tk.Term)
				}
			})
		}
		for _, sp := range Sentences(s) {
			if sp.Start < 0 || sp.End > len(s) || sp.Start >= sp.End {
				t.Fatalf("bad sentence %+v", sp)
			}
		}
	})
}

func benchText(lang Language) string {
	en := "Alterations of the architecture of cerebral white matter in the developing human brain can affect cortical development and result in functional disabilities. "
	cs := "Kolektivní socialistický závazek pracovníků Výzkumného ústavu meliorací v Praze, Zbraslavi k výročí Velké říjnové socialistické revoluce. "
	if lang == Czech {
		return strings.Repeat(cs, 20)
	}
	return strings.Repeat(en, 20)
}

func benchmarkAnalyze(b *testing.B, lang Language) {
	a := NewAnalyzer(lang)
	s := benchText(lang)
	n := 0
	b.ReportAllocs()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		a.Analyze(s, func(Token) { n++ })
	}
	_ = n
}

func BenchmarkAnalyzeEnglish(b *testing.B) { benchmarkAnalyze(b, English) }
func BenchmarkAnalyzeCzech(b *testing.B)   { benchmarkAnalyze(b, Czech) }

// randomText mixes ASCII, Czech, emoji, CJK, punctuation and invalid bytes.
func randomText(r *rand.Rand, n int) string {
	pieces := []string{"a", "Praha", "žena", "ženou", "dog", "dogs", " ", " ", " ", ".", ". ", "? ", "\n\n", ",", "3.14", "15.", "😀", "日本", "e\u0301", "\xff", "Dr.", "ř", "-", "'", "running"}
	var sb strings.Builder
	for range n {
		sb.WriteString(pieces[r.Intn(len(pieces))])
	}
	return sb.String()
}

func TestWordsInvariants(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	for range 500 {
		s := randomText(r, r.Intn(60))
		last := 0
		for _, w := range Words(s) {
			if w.Start < last || w.End <= w.Start || !utf8.ValidString(s[w.Start:w.End]) && !strings.Contains(s[w.Start:w.End], "\xff") {
				t.Fatalf("bad word %+v in %q", w, s)
			}
			last = w.End
		}
	}
}

// TestNewAnalyzerShared checks that NewAnalyzer hands out one shared
// analyzer per language without building anything per call (a request
// path calls it per request).
func TestNewAnalyzerShared(t *testing.T) {
	for _, lang := range []Language{English, Czech} {
		if a, b := NewAnalyzer(lang), NewAnalyzer(lang); a != b {
			t.Errorf("%v: NewAnalyzer returns a new analyzer per call", lang)
		}
		if n := testing.AllocsPerRun(10, func() { NewAnalyzer(lang) }); n != 0 {
			t.Errorf("%v: NewAnalyzer allocates %v times per call, want 0", lang, n)
		}
	}
	if NewAnalyzer(English) == NewAnalyzer(Czech) {
		t.Error("English and Czech share an analyzer")
	}
}
