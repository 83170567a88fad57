package nlu

import "testing"

// TestBlank: white space is Unicode's (strings.TrimSpace); control and
// format characters are not blank (schemathesis, generating from the
// OpenAPI document's \S pattern, counts U+001F as a non-space character).
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
		{"\ufeff", false},
		{" x ", false},
	} {
		if got := blank(tt.s); got != tt.want {
			t.Errorf("blank(%q) = %v, want %v", tt.s, got, tt.want)
		}
	}
}
