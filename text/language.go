package text

import (
	"fmt"
	"strings"
)

// Language identifies the language an Analyzer is built for. Values are
// ISO 639-1 codes.
type Language string

const (
	// English is the English language ("en").
	English Language = "en"
	// Czech is the Czech language ("cs").
	Czech Language = "cs"
)

// ParseLanguage parses an ISO 639-1 code ("en", "cs", case-insensitive,
// surrounding space ignored). It returns ErrUnknownLanguage for anything else.
func ParseLanguage(s string) (Language, error) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "en", "eng", "english":
		return English, nil
	case "cs", "cz", "ces", "cze", "czech":
		return Czech, nil
	}
	return "", fmt.Errorf("parse language %q: %w", s, ErrUnknownLanguage)
}
