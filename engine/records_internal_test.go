package engine

import "testing"

func TestMeaningfulRecordValue(t *testing.T) {
	for _, c := range []struct {
		v    string
		n    int // model tokens
		want bool
	}{
		{"Kabul", 2, true},
		{"Southern Asia", 2, true},
		{"la República Islámica del Afganistán", 12, true},
		{"AFG", 2, false},                // code: no 4-letter run
		{"fa-AF,ps,uz-AF,tk", 12, false}, // language codes
		{"Q889", 3, false},
		{"2024-03-01", 10, false},
		{"12345.67", 5, false},
		{"Yes", 1, false},
		{"x", 1, false},
		{"Исламская Республика Афганистан", 31, false}, // letter by letter
		{"Исламская Республика Афганистан", 8, true},   // a model that knows Cyrillic
		{"阿富汗伊斯兰共和国", 9, false},
		{"阿富汗伊斯兰共和国", 4, true},
	} {
		if got := meaningful(c.v, c.n); got != c.want {
			t.Errorf("meaningful(%q, %d) = %v, want %v", c.v, c.n, got, c.want)
		}
	}
}
