package diacritics

import "errors"

// ErrBadLexicon is returned when the embedded lexicon cannot be decoded.
var ErrBadLexicon = errors.New("diacritics: bad lexicon")
