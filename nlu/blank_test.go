package nlu

import "testing"

// TestBlank: white space is Unicode's plus U+001C..U+001F (the OpenAPI
// document's \S pattern, as Python reads it, counts those as white space
// too); other control characters and format characters are not blank.
func TestBlank(t *testing.T) {
	for _, tt := range []struct {
		s    string
		want bool
	}{
		{"", true},
		{" \t\n", true},
		{"\u00a0\u3000\u2028", true},
		{"\x1c\x1d\x1e\x1f", true},
		{" \x1f ", true},
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
