package nlu

import "testing"

// TestBlank: white space is that of the OpenAPI document's \S patterns
// (ECMA-262's \s, as schemathesis's validator reads it): control and
// format characters are not blank (U+001F, U+0085), U+FEFF is.
func TestBlank(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"", true},
		{" \t\n", true},
		{"\u00a0\u3000\u2028", true},
		{"\x1f", false},
		{" \x1c ", false},
		{"a", false},
		{"\x01", false},
		{"\ufeff", true},
		{"\u0085", false},
		{" \u0085 ", false},
		{" x ", false},
	} {
		if got := blank(tt.s); got != tt.want {
			t.Errorf("blank(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}
