package diacritics

import (
	"bytes"
	"compress/gzip"
	"testing"

	"github.com/najdi/najdi/text"
)

func restorer(t testing.TB) *Restorer {
	t.Helper()
	r, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	return r
}

func TestRestore(t *testing.T) {
	r := restorer(t)
	tests := []struct{ in, want string }{
		{"cesky krumlov", "český krumlov"},
		{"cesky Krumlov", "český Krumlov"},
		{"CESKY KRUMLOV", "ČESKÝ KRUMLOV"},
		{"chci byt v praze", "chci být v praze"},
		{"chci byt doma", "chci být doma"},
		{"pronajem bytu", "pronájem bytu"},
		{"rekl ze prijde", "řekl že přijde"}, // ze/že by context
		{"ze dne", "ze dne"},
		{"zluty kun a zena", "žlutý kůň a žena"},
		{"namesti miru", "náměstí míru"},
		{"PRAHA", "PRAHA"},
		{"český krumlov", "český krumlov"},             // already accented: kept
		{"  nadrazi ,  praha!", "  nádraží ,  praha!"}, // spacing and punctuation kept
		{"rok 2025, cislo 3.14", "rok 2025, číslo 3.14"},
		{"the best hotel", "the best hotel"},
		{"", ""},
	}
	for _, tc := range tests {
		got, changed := r.Restore(tc.in)
		if got != tc.want {
			t.Errorf("Restore(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if changed != (got != tc.in) {
			t.Errorf("Restore(%q): changed = %v for %q", tc.in, changed, got)
		}
	}
}

// TestRestoreAccuracy strips the diacritics of UD Czech-CAC sentences (an
// evaluation set: never used to build the lexicon) and checks word accuracy
// against a floor a little under the measured value.
func TestRestoreAccuracy(t *testing.T) {
	r := restorer(t)
	sents := cacSentences(t)
	if len(sents) > 400 {
		sents = sents[:400]
	}
	words, correct, baseline := 0, 0, 0
	for _, o := range sents {
		s := strip(o)
		g, _ := r.Restore(s)
		ow, sw, gw := text.Words(o), text.Words(s), text.Words(g)
		if len(ow) != len(gw) || len(ow) != len(sw) {
			t.Fatalf("segmentation changed: %q → %q", s, g)
		}
		for i := range ow {
			words++
			o, s, g := o[ow[i].Start:ow[i].End], s[sw[i].Start:sw[i].End], g[gw[i].Start:gw[i].End]
			if o == g {
				correct++
			}
			if o == s {
				baseline++
			}
		}
	}
	acc := float64(correct) / float64(words)
	t.Logf("%d sentences, %d words: accuracy %.4f, do-nothing baseline %.4f", len(sents), words, acc, float64(baseline)/float64(words))
	if acc < 0.964 {
		t.Errorf("word accuracy %.4f below floor 0.964", acc)
	}
}

func TestWithVocabulary(t *testing.T) {
	r := restorer(t)
	v := r.WithVocabulary(map[string]int{"Žlutoprsk": 7, "šroubovák": 3, "123": 5})
	tests := []struct {
		r        *Restorer
		in, want string
	}{
		{v, "zlutoprsk a sroubovak", "žlutoprsk a šroubovák"},
		{v, "Zlutoprsk", "Žlutoprsk"},
		{r, "zlutoprsk", "zlutoprsk"}, // the base restorer is unchanged
		{v, "cesky krumlov", "český krumlov"},
	}
	for _, tc := range tests {
		if got, _ := tc.r.Restore(tc.in); got != tc.want {
			t.Errorf("Restore(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func FuzzRestore(f *testing.F) {
	for _, s := range []string{"cesky krumlov", "PRAHA nadrazi", "chci byt v praze", "a\u0301", "\xff zlutoucky", "3.14 kun"} {
		f.Add(s)
	}
	r, err := Default()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, changed := r.Restore(s)
		if !changed && got != s {
			t.Fatalf("unchanged but %q != %q", got, s)
		}
		if changed && text.Fold(got) != text.Fold(s) {
			t.Fatalf("Restore(%q) = %q changes more than diacritics", s, got)
		}
		if len(text.Words(got)) != len(text.Words(s)) {
			t.Fatalf("Restore(%q) = %q changes words", s, got)
		}
	})
}

func BenchmarkRestore(b *testing.B) {
	r := restorer(b)
	q := "jizdni rad vlaku z prahy do ceskeho krumlova pres ceske budejovice"
	b.ReportAllocs()
	b.SetBytes(int64(len(q)))
	for b.Loop() {
		r.Restore(q)
	}
}

func BenchmarkLoadLexicon(b *testing.B) {
	b.ReportAllocs()
	b.SetBytes(int64(len(lexiconGz)))
	for b.Loop() {
		if _, err := parseLexicon(lexiconGz); err != nil {
			b.Fatal(err)
		}
	}
}

func TestParseLexiconErrors(t *testing.T) {
	for _, in := range [][]byte{nil, []byte("not gzip")} {
		if _, err := parseLexicon(in); err == nil {
			t.Errorf("parseLexicon(%q) succeeded", in)
		}
	}
}

// TestClassWordCounts checks on a tiny lexicon that the counts of a word
// class followed by a form (L records) pick the form: "s" governs the
// instrumental "prací", "k" the dative "práci", whose unigram frequencies
// are equal; and that whole-word classes ("=s") take precedence over
// ending classes.
func TestClassWordCounts(t *testing.T) {
	src := "H\tsuffix\t2\nU\tprací\t300\nU\tpráci\t300\n" +
		"K\t=s\t100\nK\t=k\t100\nK\tcí\t50\nK\tci\t50\nK\tas\t50\n" +
		"L\t=s\tprací\t20\nL\t=k\tpráci\t20\nR\tpráci\tas\t5\n"
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	if _, err := zw.Write([]byte(src)); err != nil {
		t.Fatal(err)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	lex, err := parseLexicon(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	if lex.class("s") != lex.classes["=s"] || lex.class("klas") != lex.classes["as"] {
		t.Fatalf("class(s) = %d, class(klas) = %d", lex.class("s"), lex.class("klas"))
	}
	r := &Restorer{lex: lex}
	tests := []struct{ in, want string }{
		{"s praci", "s prací"},
		{"k praci", "k práci"},
		{"praci klas", "práci klas"}, // R record: práci before a word ending in -as
	}
	for _, tc := range tests {
		if got, _ := r.Restore(tc.in); got != tc.want {
			t.Errorf("Restore(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
