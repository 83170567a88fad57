// Package token is the NLU's name for the text stack: a thin adapter over
// package text, kept so that NLU code reads token.Tokenize and token.Fold.
// There is one tokenizer, one Fold and one Czech stemmer in najdi, all in
// package text; search and NLU agree on what a word is and on its folded
// form. New code should call text directly.
package token

import "github.com/najdi/najdi/text"

// Token is one token of a text (text.Piece): Start and End are code-point
// offsets into the text (End exclusive); ByteStart and ByteEnd are the byte
// offsets.
type Token = text.Piece

// Tokenize splits s into tokens (text.Tokenize): words, with inner
// apostrophes, hyphens between letters and decimal separators between
// digits kept inside, and single punctuation or symbol runes. White space
// separates tokens and is not returned.
func Tokenize(s string) []Token { return text.Tokenize(s) }

// Fold lower-cases s and removes diacritics (text.Fold).
func Fold(s string) string { return text.Fold(s) }

// IsCapitalized reports whether s starts with an upper-case letter.
func IsCapitalized(s string) bool { return text.IsCapitalized(s) }
