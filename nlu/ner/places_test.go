package ner

import (
	"slices"
	"strings"
	"testing"
)

// TestCzechPlaceNames checks the place names handed to diacritics
// restoration: places as written, with diacritics and capitals, and none of
// the gazetteer's first names or comment lines.
func TestCzechPlaceNames(t *testing.T) {
	names := CzechPlaceNames()
	if len(names) < 2000 {
		t.Fatalf("%d place names, want the whole gazetteer (over 2000)", len(names))
	}
	for _, want := range []string{"Český Krumlov", "Ústí nad Labem", "Hradec Králové", "Praha"} {
		if !slices.Contains(names, want) {
			t.Errorf("%q missing", want)
		}
	}
	for _, n := range names {
		if n == "" || strings.HasPrefix(n, "#") || strings.ContainsAny(n, "\t\n") {
			t.Fatalf("bad place name %q", n)
		}
	}
	if slices.Contains(names, "Jan") {
		t.Error("first name Jan among the places")
	}
}
