package strictjson

import (
	"regexp"
	"testing"
	"unicode"
)

// TestIsSpaceMatchesECMA: IsSpace is ECMA-262's \s, as jsonschema-rs
// (schemathesis's validator) reads the OpenAPI document's \S patterns:
// U+0085 is not white space there, U+FEFF is. Every other code point of
// the Basic Multilingual Plane agrees with Go's \s plus the Zs category.
func TestIsSpaceMatchesECMA(t *testing.T) {
	for _, tt := range []struct {
		r    rune
		want bool
	}{
		{' ', true}, {'\t', true}, {'\v', true}, {'\u00a0', true}, {'\u2000', true}, {'\u200a', true},
		{'\u3000', true}, {'\u2028', true}, {'\ufeff', true}, {'\u1680', true},
		{'\u0085', false}, {'\x1f', false}, {'\x1c', false}, {'\u180e', false}, {'\u200b', false}, {'a', false},
	} {
		if got := IsSpace(tt.r); got != tt.want {
			t.Errorf("IsSpace(%U) = %v, want %v", tt.r, got, tt.want)
		}
	}
	goSpace := regexp.MustCompile(`^\s$`)
	for r := rune(0); r < 0x10000; r++ {
		want := goSpace.MatchString(string(r)) || unicode.Is(unicode.Zs, r) || r == '\v' || r == '\u2028' || r == '\u2029' || r == '\ufeff'
		if got := IsSpace(r); got != want {
			t.Errorf("IsSpace(%U) = %v, want %v", r, got, want)
		}
	}
	for _, tt := range []struct {
		s     string
		blank bool
	}{{"", true}, {" \ufeff\u3000", true}, {"\u0085", false}, {" x ", false}} {
		if got := Blank(tt.s); got != tt.blank {
			t.Errorf("Blank(%q) = %v, want %v", tt.s, got, tt.blank)
		}
	}
	if got := TrimSpace("\ufeff a\u0085 "); got != "a\u0085" {
		t.Errorf("TrimSpace = %q", got)
	}
}
