package diacritics

import (
	"strings"
	"testing"
	"unicode"

	"github.com/najdi/najdi/internal/testutil"

	"golang.org/x/text/unicode/norm"
)

// cacSentences returns the sentences of UD Czech-CAC dev and test.
func cacSentences(t testing.TB) []string { return testutil.CzechSentences(t) }

// strip removes diacritics keeping case.
func strip(s string) string {
	var sb strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}
