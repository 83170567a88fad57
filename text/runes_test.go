package text

import "testing"

func TestTruncateRunes(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"", 3, ""},
		{"abc", 0, ""},
		{"abc", 2, "ab"},
		{"abc", 3, "abc"},
		{"abc", 9, "abc"},
		{"příliš", 3, "pří"},
		{"日本語テキスト", 2, "日本"},
		{"a😀b", 2, "a😀"},
	} {
		if got := TruncateRunes(tc.s, tc.n); got != tc.want {
			t.Errorf("TruncateRunes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
