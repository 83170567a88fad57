package text

import (
	"fmt"
	"strings"
	"testing"
)

func TestTokenize(t *testing.T) {
	tests := []struct {
		in, want string // want: text@start-end ...
	}{
		{"v Praze", "v@0-1 Praze@2-7"},
		{"Žluťoučký kůň, 3,5 km.", "Žluťoučký@0-9 kůň@10-13 ,@13-14 3,5@15-18 km@19-21 .@21-22"},
		{"don't Frýdek-Místek", "don't@0-5 Frýdek-Místek@6-19"},
		{"  a@b.cz ", "a@2-3 @@3-4 b@4-5 .@5-6 cz@6-8"},
		{"", ""},
		{"20:30", "20@0-2 :@2-3 30@3-5"},
		{"a-1 -x x-", "a@0-1 -@1-2 1@2-3 -@4-5 x@5-6 x@7-8 -@8-9"},
		{"東京タワー", "東@0-1 京@1-2 タ@2-3 ワ@3-4 ー@4-5"},
		{"O’Brien\t1.000.000", "O’Brien@0-7 1.000.000@8-17"},
		{"a\xffb", "a@0-1 \xff@1-2 b@2-3"},
	}
	for _, tt := range tests {
		var got []string
		for _, p := range Tokenize(tt.in) {
			if tt.in[p.ByteStart:p.ByteEnd] != p.Text {
				t.Errorf("%q: byte offsets of %q are wrong", tt.in, p.Text)
			}
			if want := []rune(tt.in[:p.ByteStart]); len(want) != p.Start {
				t.Errorf("%q: %q starts at code point %d, want %d", tt.in, p.Text, p.Start, len(want))
			}
			got = append(got, fmt.Sprintf("%s@%d-%d", p.Text, p.Start, p.End))
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, g, tt.want)
		}
	}
}

// TestTokenizeWords checks that Tokenize and Words agree on what a word is:
// the word pieces of Tokenize, split at their inner hyphens, are Words.
func TestTokenizeWords(t *testing.T) {
	for _, s := range []string{
		"Praha-Smíchov, 3.5 km; don't stop—now! 東京 e\u0301t\u00e9 state-of-the-art -x- a--b",
		"Žluťoučký kůň úpěl ďábelské ódy. O’Neil 1,5",
	} {
		var fromTok []string
		for _, p := range Tokenize(s) {
			if !isWordRune([]rune(p.Text)[0]) && !isIdeograph([]rune(p.Text)[0]) {
				continue
			}
			for _, w := range Words(p.Text) {
				fromTok = append(fromTok, p.Text[w.Start:w.End])
			}
		}
		var words []string
		for _, w := range Words(s) {
			words = append(words, s[w.Start:w.End])
		}
		if a, b := strings.Join(fromTok, "|"), strings.Join(words, "|"); a != b {
			t.Errorf("%q:\nTokenize %s\nWords    %s", s, a, b)
		}
	}
}
