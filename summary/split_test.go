package summary

import (
	"slices"
	"testing"
)

func TestSentences(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  \n ", nil},
		{"One sentence", []string{"One sentence"}},
		{"First one. Second one! Third? Yes.", []string{"First one.", "Second one!", "Third?", "Yes."}},
		{"Smith et al. found it. See Fig. 2 for e.g. details.", []string{"Smith et al. found it.", "See Fig. 2 for e.g. details."}},
		{"J. R. R. Tolkien wrote it. Done.", []string{"J. R. R. Tolkien wrote it.", "Done."}},
		{"p = 0.016 was found. 1.8 microm2/ms is high.", []string{"p = 0.016 was found.", "1.8 microm2/ms is high."}},
		{"He said \"stop.\" Then left.", []string{"He said \"stop.\"", "Then left."}},
		{"lower case after. period stays", []string{"lower case after. period stays"}},
		{"Title line\nBody text. More…  Next", []string{"Title line", "Body text.", "More…", "Next"}},
		{"Praha je město. Žije tam milion lidí.", []string{"Praha je město.", "Žije tam milion lidí."}},
	}
	for _, tc := range tests {
		var got []string
		for _, sp := range sentences(tc.in) {
			got = append(got, tc.in[sp.Start:sp.End])
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("sentences(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestAppendTerms(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"The proteins of a cell", []string{"protei", "cell"}},
		{"Příliš žluťoučký kůň", []string{"prilis", "zlutou", "kun"}},
		{"COVID-19 in 2020: 5 cases", []string{"covid", "19", "2020", "5", "cases"}},
		{"Pi is 3.14, don't", []string{"pi", "3.14", "don't"}},
		{"Straße", []string{"strass"}},
		{"", nil},
	}
	for _, tc := range tests {
		if got := appendTerms(nil, tc.in); !slices.Equal(got, tc.want) {
			t.Errorf("appendTerms(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestWords(t *testing.T) {
	tests := []struct {
		in   string
		want []string
	}{
		{"  alpha  beta\tgamma\n", []string{"alpha", "beta", "gamma"}},
		{"(COVID-19), — the end.", []string{"(COVID-19), —", "the", "end."}},
		{"\"Hi,\" she said", []string{"\"Hi,\"", "she", "said"}},
		{" … ", []string{"…"}},
		{"", nil},
	}
	for _, tc := range tests {
		var got []string
		for _, w := range words(tc.in, 0, len(tc.in)) {
			got = append(got, tc.in[w.Start:w.End])
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("words(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
