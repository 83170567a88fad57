package token

import (
	"slices"
	"testing"

	"github.com/najdi/najdi/text"
)

// TestAdapter checks that the adapter is package text: the same pieces, the
// same fold (text.Fold's ß→ss, not the old NLU table's ß→s).
func TestAdapter(t *testing.T) {
	for _, s := range []string{"Frýdek-Místek, 3,5 km.", "Straße Æsir", "  a@b.cz "} {
		if got, want := Tokenize(s), text.Tokenize(s); !slices.Equal(got, want) {
			t.Errorf("Tokenize(%q) = %v, want %v", s, got, want)
		}
	}
	tests := []struct{ in, want string }{
		{"Příliš žluťoučký kůň úpěl ďábelské ódy", "prilis zlutoucky kun upel dabelske ody"},
		{"Straße", "strasse"},
		{"Æsir", "aesir"},
		{"e\u0301", "e"},
	}
	for _, tt := range tests {
		if got := Fold(tt.in); got != tt.want {
			t.Errorf("Fold(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
	if !IsCapitalized("Řeka") || IsCapitalized("řeka") {
		t.Error("IsCapitalized")
	}
}
