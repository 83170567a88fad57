// Package phrase finds the phrases of a closed list (and their synonyms) in
// text: longest match, case- and diacritics-insensitive, and for Czech
// inflection-aware, so "v Praze", "do Karlína" and "s Karlínem" find the
// phrases "Praha" and "Karlín".
//
// # Why
//
// Closed-entity models (closed-ner) match user-supplied lists of up to
// hundreds of thousands of phrases. A loop over phrases per request is out of
// the question; the list is compiled once into a token trie and every text
// is scanned in time linear in its length (times the longest phrase).
//
// # How it works inside
//
// Phrases and text are tokenized by text.Tokenize, the tokenizer search uses
// too. Every word token is reduced to a key: folded by text.Fold (lower
// case, no diacritics) and, for Czech, stemmed by text.StemCzech in its
// CzechNames variant: stripping the longest nominal or adjectival case ending
// (keeping at least three letters), dropping a fleeting "e" before a final
// c/k/l/n/r ("Hradec"/"Hradce") and merging final-consonant alternations
// (z→h as in Praha/Praze, c→k as in Amerika/Americe). Keys are interned to
// dense int32 ids and the phrases become paths in a trie whose edges live in
// one flat map keyed by (node, token id). Matching walks the trie from every
// token position and keeps the longest accepted path (leftmost-longest), then
// continues after it. Sentence punctuation is a barrier a phrase cannot span;
// other punctuation ("&", quotes) is ignored on both sides. A match whose
// folded tokens equal the phrase's folded tokens is Exact; a match through
// the stemmer is not (callers give it a lower confidence).
package phrase
