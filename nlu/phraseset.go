package nlu

import (
	"encoding/json"
	"fmt"

	"github.com/najdi/najdi/nlu/phrase"
	"github.com/najdi/najdi/text"
)

// PhraseSet is a closed list of phrases that closed-ner models find in text.
// Language "cs" turns on Czech inflection-aware matching; matching is always
// diacritics-insensitive and, unless CaseSensitive, case-insensitive.
type PhraseSet struct {
	PhraseSetID   string   `json:"phrase_set_id"`
	Owner         string   `json:"owner"`
	Name          string   `json:"name"`
	Description   string   `json:"description,omitempty"`
	Language      string   `json:"language,omitempty"`
	Phrases       []Phrase `json:"phrases"`
	CaseSensitive bool     `json:"case_sensitive"`
}

// Phrase is one phrase of a set. Value (any JSON; the phrase text when
// absent) is the normalized value reported for a match of Text or any of
// its Synonyms.
type Phrase struct {
	Text     string          `json:"text"`
	Value    json.RawMessage `json:"value,omitempty"`
	Synonyms []string        `json:"synonyms,omitempty"`
}

type phraseSetRequest struct {
	PhraseSetID   *string  `json:"phrase_set_id"`
	Owner         *string  `json:"owner"`
	Name          string   `json:"name"`
	Description   string   `json:"description"`
	Language      string   `json:"language"`
	Phrases       []Phrase `json:"phrases"`
	CaseSensitive bool     `json:"case_sensitive"`
}

// compiledSet is a phrase set with its matcher and decoded values.
type compiledSet struct {
	ps      PhraseSet
	matcher *phrase.Matcher
	values  []any
}

func parsePhraseSet(body []byte, create bool, id, owner string) (PhraseSet, error) {
	var req phraseSetRequest
	if err := decodeStrict(body, &req); err != nil {
		return PhraseSet{}, err
	}
	if req.PhraseSetID != nil && (create || *req.PhraseSetID != id) {
		return PhraseSet{}, fmt.Errorf("%w: phrase_set_id: assigned by the service, do not send it", ErrInvalid)
	}
	if req.Owner != nil && (create || *req.Owner != owner) {
		return PhraseSet{}, fmt.Errorf("%w: owner: assigned by the service, do not send it", ErrInvalid)
	}
	ps := PhraseSet{Name: req.Name, Description: req.Description, Language: req.Language, Phrases: req.Phrases, CaseSensitive: req.CaseSensitive}
	if blank(ps.Name) {
		return ps, fmt.Errorf("%w: name: required (it names the entities found)", ErrInvalid)
	}
	switch ps.Language {
	case "", "cs", "en":
	default:
		return ps, fmt.Errorf("%w: language: %q is not supported (want \"cs\" or \"en\")", ErrInvalid, ps.Language)
	}
	if len(ps.Phrases) == 0 {
		return ps, fmt.Errorf("%w: phrases: required, at least one phrase", ErrInvalid)
	}
	for i, p := range ps.Phrases {
		if blank(p.Text) {
			return ps, fmt.Errorf("%w: phrases[%d].text: required", ErrInvalid, i)
		}
		if !hasWord(p.Text) {
			return ps, fmt.Errorf("%w: phrases[%d].text: %q has no word to match (a letter or a number)", ErrInvalid, i, p.Text)
		}
		for j, syn := range p.Synonyms {
			if blank(syn) {
				return ps, fmt.Errorf("%w: phrases[%d].synonyms[%d]: must be a non-blank string", ErrInvalid, i, j)
			}
			if !hasWord(syn) {
				return ps, fmt.Errorf("%w: phrases[%d].synonyms[%d]: %q has no word to match (a letter or a number)", ErrInvalid, i, j, syn)
			}
		}
		if len(p.Value) > 0 && !json.Valid(p.Value) {
			return ps, fmt.Errorf("%w: phrases[%d].value: invalid JSON", ErrInvalid, i)
		}
	}
	return ps, nil
}

func compilePhraseSet(ps PhraseSet) (*compiledSet, error) {
	entries := make([]phrase.Entry, 0, len(ps.Phrases))
	values := make([]any, len(ps.Phrases))
	for i, p := range ps.Phrases {
		entries = append(entries, phrase.Entry{Text: p.Text, Ref: i})
		for _, s := range p.Synonyms {
			entries = append(entries, phrase.Entry{Text: s, Ref: i})
		}
		values[i] = p.Text
		if len(p.Value) > 0 {
			var v any
			if err := json.Unmarshal(p.Value, &v); err != nil {
				return nil, fmt.Errorf("%w: phrases[%d].value: %v", ErrInvalid, i, err)
			}
			values[i] = v
		}
	}
	m, err := phrase.Compile(entries, phrase.Options{Language: ps.Language, CaseSensitive: ps.CaseSensitive})
	if err != nil {
		return nil, fmt.Errorf("%w: phrases: no phrase has a word to match", ErrInvalid)
	}
	return &compiledSet{ps: ps, matcher: m, values: values}, nil
}

// hasWord reports whether a phrase text holds a token the matcher can
// match: a word (holding a letter or a number) or "&" (matched as
// "and"). Punctuation alone compiles to nothing, or to a pattern that
// never matches.
func hasWord(s string) bool {
	for _, t := range text.Tokenize(s) {
		if t.Word() || t.Text == "&" {
			return true
		}
	}
	return false
}
