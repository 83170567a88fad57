package text

import (
	"reflect"
	"testing"
)

func spansText(s string, sp []Span) []string {
	var out []string
	for _, x := range sp {
		out = append(out, s[x.Start:x.End])
	}
	return out
}

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"Hello, world!", []string{"Hello", "world"}},
		{"don't O’Brien 'quoted'", []string{"don't", "O’Brien", "quoted"}},
		{"pi=3.14; 1,5 l; 1.000.000 Kč; konec 15. března", []string{"pi", "3.14", "1,5", "l", "1.000.000", "Kč", "konec", "15", "března"}},
		{"state-of-the-art snake_case a/b", []string{"state", "of", "the", "art", "snake", "case", "a", "b"}},
		{"日本語テキスト", []string{"日", "本", "語", "テ", "キ", "ス", "ト"}},
		{"abc日本", []string{"abc", "日", "本"}},
		{"Příliš žluťoučký kůň", []string{"Příliš", "žluťoučký", "kůň"}},
		{"e\u0301te 😀 x", []string{"e\u0301te", "x"}},
		{"end.", []string{"end"}},
		{"", nil},
	}
	for _, tc := range tests {
		if got := spansText(tc.in, Words(tc.in)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"One. Two! Three? Four…", []string{"One.", "Two!", "Three?", "Four…"}},
		{"Dne 15. března 2025 jsme jeli. Pak ne.", []string{"Dne 15. března 2025 jsme jeli.", "Pak ne."}},
		{"Mluvil o tom, tj. o všem. A dost.", []string{"Mluvil o tom, tj. o všem.", "A dost."}},
		{"Např. Praha je velká. Ing. Novák přišel.", []string{"Např. Praha je velká.", "Ing. Novák přišel."}},
		{"J. R. R. Tolkien wrote it. Dr. Smith agreed.", []string{"J. R. R. Tolkien wrote it.", "Dr. Smith agreed."}},
		{"Use tools, e.g. hammers. Then stop.", []string{"Use tools, e.g. hammers.", "Then stop."}},
		{"He said \"Stop!\" Then left.", []string{"He said \"Stop!\"", "Then left."}},
		{"Wait... What?! Yes.", []string{"Wait...", "What?!", "Yes."}},
		{"Value 3.14 is pi. Done", []string{"Value 3.14 is pi.", "Done"}},
		{"Title line\n\nParagraph one. Two", []string{"Title line", "Paragraph one.", "Two"}},
		{"line one\nline two", []string{"line one\nline two"}},
		{"In 2015. Next year", []string{"In 2015.", "Next year"}},
		{"p = 0.016 was found. 1.8 microm2/ms is high.", []string{"p = 0.016 was found.", "1.8 microm2/ms is high."}},
		{"Levels of GTP. 2,3-DPG rose.", []string{"Levels of GTP.", "2,3-DPG rose."}},
		{"As in Eq. 3 and Fig. 2 (ref. 4). Next.", []string{"As in Eq. 3 and Fig. 2 (ref. 4).", "Next."}},
		{"J Biol. 161:793. Done", []string{"J Biol. 161:793.", "Done"}},
		{"Podle čl. 5 odst. 2 zákona. Dále ČL. Úkol", []string{"Podle čl. 5 odst. 2 zákona.", "Dále ČL.", "Úkol"}},
		{"Dne 1. 1. 2020 pršelo. Pak ne.", []string{"Dne 1. 1. 2020 pršelo.", "Pak ne."}},
		{"Smith et al. found it. See Fig. 2 for e.g. details.", []string{"Smith et al. found it.", "See Fig. 2 for e.g. details."}},
		{"The value was 5 mg. in total. Next.", []string{"The value was 5 mg. in total.", "Next."}},
		{"Ends (like this.) Next one.", []string{"Ends (like this.)", "Next one."}},
		{"  \n ", nil},
		{"No terminator", []string{"No terminator"}},
		// Embedding chunks are cut at these sentences (embed.ChunkText).
		{"", nil},
		{"First one. Second one! Third? Fourth…", []string{"First one.", "Second one!", "Third?", "Fourth…"}},
		{"He said \"stop.\" Then left.", []string{"He said \"stop.\"", "Then left."}},
		{"See e.g. the results. Dr. Smith agreed.", []string{"See e.g. the results.", "Dr. Smith agreed."}},
		{"J. R. R. Tolkien wrote it. It sold well.", []string{"J. R. R. Tolkien wrote it.", "It sold well."}},
		{"Version 3.5 is out. Download v2.0.1 now.", []string{"Version 3.5 is out.", "Download v2.0.1 now."}},
		{"Heading without period\n\nBody text here.", []string{"Heading without period", "Body text here."}},
		{"Praha je město. Např. Brno je jiné. Tj. tak.", []string{"Praha je město.", "Např. Brno je jiné.", "Tj. tak."}},
		{"Wow!! Really?! Yes.", []string{"Wow!!", "Really?!", "Yes."}},
	}
	for _, tc := range tests {
		if got := spansText(tc.in, Sentences(tc.in)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("Sentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestRuneOffset(t *testing.T) {
	s := "žluť😀x"
	tests := []struct{ off, want int }{{0, 0}, {2, 1}, {3, 2}, {6, 4}, {10, 5}, {11, 6}, {12, 6}, {100, 6}, {-1, 0}}
	for _, tc := range tests {
		if got := RuneOffset(s, tc.off); got != tc.want {
			t.Errorf("RuneOffset(%d) = %d, want %d", tc.off, got, tc.want)
		}
	}
	if RuneCount(s) != 6 {
		t.Errorf("RuneCount = %d", RuneCount(s))
	}
}
