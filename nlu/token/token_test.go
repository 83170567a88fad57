package token

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
	}
	for _, tt := range tests {
		var got []string
		for _, tok := range Tokenize(tt.in) {
			if tt.in[tok.ByteStart:tok.ByteEnd] != tok.Text {
				t.Errorf("%q: byte offsets of %q are wrong", tt.in, tok.Text)
			}
			got = append(got, fmt.Sprintf("%s@%d-%d", tok.Text, tok.Start, tok.End))
		}
		if g := strings.Join(got, " "); g != tt.want {
			t.Errorf("Tokenize(%q) = %q, want %q", tt.in, g, tt.want)
		}
	}
}

func TestFold(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Příliš žluťoučký kůň úpěl ďábelské ódy", "prilis zlutoucky kun upel dabelske ody"},
		{"ŘEDITEL", "reditel"},
		{"Straße", "strasse"}, // text.Fold: ß→ss (the old NLU table said ß→s)
		{"Æsir", "aesir"},
		{"e\u0301", "e"}, // combining acute dropped
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
