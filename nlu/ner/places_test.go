package ner

import (
	"slices"
	"strings"
	"testing"

	"github.com/najdi/najdi/nlu/token"
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

// TestCzechTaggerCases checks names whose stems or spellings once fooled
// the Czech tagger: first names ending like a case ending (Vojtěch,
// Oldřich) in other cases, a first name that starts like an organization
// head word (Vladimír / vláda), country abbreviations (places, not
// organizations), initials before a surname and a role word opening a
// sentence.
func TestCzechTaggerCases(t *testing.T) {
	c := CzechTagger()
	for _, tc := range []struct{ text, want string }{
		{"Kresba národního umělce Vojtěcha Sedláčka visí v síni.", "person:Vojtěcha Sedláčka"},
		{"Hovořili jsme s Oldřichem Novákem o všem.", "person:Oldřichem Novákem"},
		{"Verše mají rádi jako Vladimír Pazourek a jiní.", "person:Vladimír Pazourek"},
		{"Spolupráce se SSSR a NDR pokračuje.", "location:SSSR location:NDR"},
		{"Zasedání vlády ČSSR bylo v pondělí.", "location:ČSSR"},
		{"Návrh projednalo ministerstvo a ÚV KSČ.", "organization:ÚV organization:KSČ"},
		{"Dopis napsal J. Novák z Brna.", "person:J. Novák location:Brna"},
		{"Trilogii napsal J. R. R. Tolkien v Oxfordu.", "person:J. R. R. Tolkien"},
		{"Ministr Kalousek odmítl návrh.", "person:Kalousek"},
		{"Ministerstvo návrh odmítlo.", ""},
		// issue 14: a state in the genitive is no person; known companies.
		{"Prezident České republiky navštívil Brno.", "location:České republiky location:Brno"},
		{"Jednali se Slovenskou republikou.", "location:Slovenskou republikou"},
		{"Vláda České republiky jednala.", "organization:Vláda České republiky"},
		{"Pracuje ve společnosti Škoda Auto v Mladé Boleslavi.", "organization:Škoda Auto location:Mladé Boleslavi"},
		{"Škodě Auto se daří.", "organization:Škodě Auto"},
		{"Investovala do ní PPF Group.", "organization:PPF Group"},
		{"Škoda, že nepřišel.", ""},
		{"Situace se zlepšila, uvedl Dvořák.", "person:Dvořák"},
		{"Podle Kučery je to chyba, řekl včera.", "person:Kučery"},
		{"Podle Prahy je to chyba.", "location:Prahy"},
		{"Stanovisko vydalo Ministerstvo zahraničních věcí včera.", "organization:Ministerstvo zahraničních věcí"},
		{"Dopis přišel z Úřadu vlády ČR.", "organization:Úřadu vlády ČR"},
		{"Návrh podpořila Česká národní banka.", "organization:Česká národní banka"},
		{"Pracovníci Výzkumného ústavu meliorací se zavázali.", "organization:Výzkumného ústavu meliorací"},
		{"V Československu může SSM pomoci.", "location:Československu organization:SSM"},
	} {
		toks := token.Tokenize(tc.text)
		var got []string
		for _, sp := range c.Tag(tc.text, toks) {
			got = append(got, sp.Class+":"+tc.text[toks[sp.Start].ByteStart:toks[sp.End-1].ByteEnd])
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%q: %q, want %q", tc.text, g, tc.want)
		}
	}
}
