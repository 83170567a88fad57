package diacritics

import (
	"strings"
	"unicode"

	"golang.org/x/text/unicode/norm"
)

// Strip removes the diacritics of s, keeping letter case: the text as typed
// without them ("Příliš" → "Prilis"), which Restorer.Restore undoes. It
// drops every combining mark of the canonical decomposition (NFD).
func Strip(s string) string {
	var sb strings.Builder
	for _, r := range norm.NFD.String(s) {
		if !unicode.Is(unicode.Mn, r) {
			sb.WriteRune(r)
		}
	}
	return sb.String()
}
