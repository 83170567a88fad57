package bench

import (
	"slices"
	"testing"
)

// TestCountryQuestions checks the generated questions and their known
// answers for Czechia in both languages: in Czech the by-name questions
// use the Czech name and every question is Czech, while the answers stay
// the records' values.
func TestCountryQuestions(t *testing.T) {
	dst := t.TempDir()
	if err := WriteCountriesSubset("../../shared/data/docs", dst, 1000, "CZ"); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		czech bool
		want  []AnswerQuestion
	}{
		{false, []AnswerQuestion{
			{"capital", "What is the capital of Czechia?", []string{"Prague"}},
			{"currency", "Which currency is used in Czechia?", []string{"Czech koruna"}},
			{"calling code", "What is the calling code of Czechia?", []string{"420"}},
			{"capital by code", "What is the capital of the country with code CZ?", []string{"Prague"}},
			{"currency by code", "Which currency is used in the country with code CZ?", []string{"Czech Koruna"}},
		}},
		{true, []AnswerQuestion{
			{"capital", "Jaké je hlavní město země Česko?", []string{"Prague"}},
			{"currency", "Jaká měna se používá v zemi Česko?", []string{"Czech koruna"}},
			{"calling code", "Jaká je telefonní předvolba země Česko?", []string{"420"}},
			{"capital by code", "Jaké je hlavní město země s kódem CZ?", []string{"Prague"}},
			{"currency by code", "Jaká měna se používá v zemi s kódem CZ?", []string{"Czech Koruna"}},
		}},
	} {
		qs, err := CountryQuestions(dst, 1, tc.czech)
		if err != nil {
			t.Fatal(err)
		}
		var cz []AnswerQuestion
		for _, q := range qs {
			for _, w := range tc.want {
				if q.Question == w.Question {
					cz = append(cz, q)
				}
			}
		}
		if !slices.EqualFunc(cz, tc.want, func(a, b AnswerQuestion) bool {
			return a.Kind == b.Kind && a.Question == b.Question && slices.Equal(a.Answers, b.Answers)
		}) {
			t.Errorf("czech %v: questions about Czechia %q, want %q", tc.czech, cz, tc.want)
		}
	}
}
