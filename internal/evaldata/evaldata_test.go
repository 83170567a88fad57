package evaldata

import (
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/najdi/najdi/internal/testutil"
	"github.com/najdi/najdi/nlu/phrase"
)

func TestReadSnips(t *testing.T) {
	dir := testutil.SharedData(t)
	for _, tc := range []struct {
		intent, file string
		limit, want  int
		atLeast      bool
	}{
		{"GetWeather", SnipsValid("GetWeather"), 0, 100, false},
		{"GetWeather", SnipsValid("GetWeather"), 7, 7, false},
		{"PlayMusic", SnipsTrain("PlayMusic"), 0, 1900, true}, // not UTF-8
	} {
		us, err := ReadSnips(SnipsPath(dir, tc.intent, tc.file), tc.intent, tc.limit)
		if err != nil {
			t.Fatal(err)
		}
		if len(us) < tc.want || !tc.atLeast && len(us) != tc.want {
			t.Errorf("%s: %d utterances, want %d", tc.file, len(us), tc.want)
		}
		for _, u := range us {
			if u.Text == "" || !utf8.ValidString(u.Text) {
				t.Fatalf("%s: bad text %q", tc.file, u.Text)
			}
		}
	}
	us, err := ReadSnips(SnipsPath(dir, "GetWeather", SnipsValid("GetWeather")), "GetWeather", 1)
	if err != nil {
		t.Fatal(err)
	}
	// {"text": "What will the weather be "}, {"text": "faraway", "entity":
	// "spatial_relation"}, {"text": " from "}, {"text": "here", "entity":
	// "current_location"}, {"text": "?"}
	if got := us[0]; got.Text != "What will the weather be faraway from here?" || !slices.Equal(got.Slots, []string{"spatial_relation", "current_location"}) {
		t.Errorf("first utterance %+v", got)
	}
	if _, err := ReadSnips(SnipsPath(dir, "GetWeather", "missing.json"), "GetWeather", 0); err == nil {
		t.Error("no error for a missing file")
	}
}

func TestSurfaceForms(t *testing.T) {
	sets, err := ReadSurfaceForms(testutil.SharedData(t))
	if err != nil {
		t.Fatal(err)
	}
	if len(sets) < 3 {
		t.Fatalf("%d slots", len(sets))
	}
	for _, s := range sets {
		if s.Slot == "price" || s.Slot == "postcode" {
			t.Errorf("placeholder slot %s kept", s.Slot)
		}
		if len(s.Lemmas) != len(s.Values) || len(s.Forms) != len(s.Values) {
			t.Fatalf("%s: %d values, %d lemma lists, %d form lists", s.Slot, len(s.Values), len(s.Lemmas), len(s.Forms))
		}
		for i, v := range s.Values {
			if s.Lemmas[i][0] != v {
				t.Errorf("%s: lemmas of %q start with %q", s.Slot, v, s.Lemmas[i][0])
			}
		}
		n := 0
		for _, fs := range s.Forms {
			n += len(fs)
		}
		m, err := s.Matcher()
		if err != nil {
			t.Fatal(err)
		}
		if tp, _, fn := s.FormCounts(m); tp+fn != n || tp < n/2 {
			t.Errorf("%s: tp %d fn %d of %d forms", s.Slot, tp, fn, n)
		}
		// A matcher of one unrelated phrase finds nothing.
		other, err := phrase.Compile([]phrase.Entry{{Text: "zzz qqq", Ref: 0}}, phrase.Options{Language: "cs"})
		if err != nil {
			t.Fatal(err)
		}
		if tp, fp, fn := s.FormCounts(other); tp != 0 || fp != 0 || fn != n {
			t.Errorf("%s: unrelated matcher tp %d fp %d fn %d", s.Slot, tp, fp, fn)
		}
	}
}

// TestGibberish pins the gibberish set: the typed texts first, then the
// same random strings for every caller asking for as many or more.
func TestGibberish(t *testing.T) {
	a, b := Gibberish(20), Gibberish(40)
	if len(a) != len(gibberishTyped)+20 || len(b) != len(gibberishTyped)+40 {
		t.Fatalf("lengths %d, %d", len(a), len(b))
	}
	for i, s := range a {
		if b[i] != s {
			t.Fatalf("text %d: %q with 20, %q with 40", i, s, b[i])
		}
		if s == "" || strings.TrimSpace(s) != s {
			t.Errorf("text %d is %q", i, s)
		}
	}
	if b[len(gibberishTyped)] == b[len(gibberishTyped)+1] {
		t.Error("random texts repeat")
	}
}
