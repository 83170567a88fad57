package diacritics

import "testing"

func TestStrip(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", ""},
		{"Příliš žluťoučký kůň úpěl ďábelské ódy", "Prilis zlutoucky kun upel dabelske ody"},
		{"ŠŤASTNÝ ŽÁK", "STASTNY ZAK"},
		{"naïve café", "naive cafe"},
		{"ß ø ł", "ß ø ł"}, // no combining mark to drop
	} {
		if got := Strip(tc.in); got != tc.want {
			t.Errorf("Strip(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
