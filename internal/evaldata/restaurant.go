package evaldata

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/najdi/najdi/nlu/phrase"
)

// SlotForms is one closed slot of cs_restaurant as a phrase set: its
// values (sorted), each value's lemmas (the value first, then the other
// lemma spellings of its forms) and each value's inflected surface forms.
type SlotForms struct {
	Slot   string
	Values []string
	Lemmas [][]string // per value
	Forms  [][]string // per value
}

// ReadSurfaceForms reads cs_restaurant's surface_forms.json under dataDir
// (shared/data), slots sorted by name. The price and postcode slots are
// left out: their forms are "_ Kč"-style placeholders.
func ReadSurfaceForms(dataDir string) ([]SlotForms, error) {
	path := filepath.Join(dataDir, "entities", "cs_restaurant", "surface_forms.json")
	raw, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("surface forms: %w", err)
	}
	var sf map[string]map[string][]string
	if err := json.Unmarshal(raw, &sf); err != nil {
		return nil, fmt.Errorf("surface forms: %s: %w", path, err)
	}
	var out []SlotForms
	for _, slot := range sortedKeys(sf) {
		if slot == "price" || slot == "postcode" {
			continue
		}
		s := SlotForms{Slot: slot, Values: sortedKeys(sf[slot])}
		for _, v := range s.Values {
			lemmas := []string{v}
			var forms []string
			for _, line := range sf[slot][v] {
				lemma, form, ok := strings.Cut(line, "\t")
				if !ok {
					continue
				}
				form, _, _ = strings.Cut(form, "\t")
				forms = append(forms, form)
				if !slices.Contains(lemmas, lemma) {
					lemmas = append(lemmas, lemma)
				}
			}
			s.Lemmas = append(s.Lemmas, lemmas)
			s.Forms = append(s.Forms, forms)
		}
		out = append(out, s)
	}
	return out, nil
}

// Matcher compiles the phrase matcher of s: every lemma of every value,
// referring to the value's index.
func (s SlotForms) Matcher() (*phrase.Matcher, error) {
	var es []phrase.Entry
	for i, lemmas := range s.Lemmas {
		for _, l := range lemmas {
			es = append(es, phrase.Entry{Text: l, Ref: i})
		}
	}
	m, err := phrase.Compile(es, phrase.Options{Language: "cs"})
	if err != nil {
		return nil, fmt.Errorf("slot %s: %w", s.Slot, err)
	}
	return m, nil
}

// FormCounts scores m on the surface forms of s: a form counts as found
// (true positive) when a match covers the whole form with its own value,
// every other match is a false positive, and a form without such a match
// a false negative.
func (s SlotForms) FormCounts(m *phrase.Matcher) (tp, fp, fn int) {
	for i, forms := range s.Forms {
		for _, f := range forms {
			ok := false
			n := utf8.RuneCountInString(f)
			for _, mm := range m.Match(f) {
				if mm.Ref == i && mm.Start == 0 && mm.End == n {
					ok = true
				} else {
					fp++
				}
			}
			if ok {
				tp++
			} else {
				fn++
			}
		}
	}
	return tp, fp, fn
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
