// Package hunspell reads Hunspell dictionaries (.aff + .dic) and answers one
// question: which word forms of the dictionary have a given key.
//
// The key is whatever Options.Key makes of a form; najdi uses "lowercase
// with diacritics removed" to restore the diacritics of Czech words typed
// without them ("zurodnovacich" → "zúrodňovacích").
//
// # How
//
// A Czech dictionary expands to millions of forms, so forms are never
// enumerated. Parse indexes stems by Key(stem) and affix rules by Key(add).
// Lookup splits the key into every possible head and tail that are the key
// of some prefix and suffix, rebuilds the key of the candidate stem
// (swapping the added text for the key of the stripped text), fetches the
// stems with that key and checks flags, strip text and condition on the
// real stem before building the form. Every form is verified by
// Key(form) == key before it is returned.
//
// This assumes that Key works piecewise: Key(a+b) == Key(a)+Key(b) for the
// stem, strip and add texts involved. Per-rune mappings (lowercasing,
// diacritics folding) satisfy it, and byte lengths may change freely
// (folding "č" to "c" shortens the UTF-8). A Key that looks at context
// across a stem/affix boundary may miss forms, but never returns wrong ones.
//
// # Supported subset
//
// In the .aff file: SET (UTF-8, ISO8859-1 and ISO8859-2; ISO8859-1 is the
// default, as in Hunspell), FLAG (single character — the default, also
// spelled UTF-8 —, long and num), AF flag aliases, FORBIDDENWORD,
// NEEDAFFIX (and its old name PSEUDOROOT), FULLSTRIP, and PFX/SFX blocks
// with Hunspell conditions (".", literal characters, "[abc]", "[^abc]").
// Every other directive (TRY, KEY, REP, MAP, ICONV, compounding...) is
// ignored.
//
// The forms of a stem are the stem itself (unless it has the NEEDAFFIX
// flag), stem + each applicable suffix, each applicable prefix + stem, and
// prefix + stem + suffix when both rules allow cross products (Y). As in
// Hunspell, the prefix of a cross product is applied to the suffixed word.
// Stems with the FORBIDDENWORD flag are not indexed, and a form spelled
// exactly like a forbidden entry is never returned.
//
// # Continuation flags
//
// Affix rules may carry continuation flags ("SFX P 0 ův/Y [^eě]k"; AF
// alias numbers when the .aff has an AF table). They are honoured as
// Hunspell does for twofold suffixes:
//
//   - A suffix SFX2 whose flag is among the continuation flags of a suffix
//     SFX1 applies to stem + SFX1: its strip, add and condition work on
//     the suffixed word (Masaryk → Masarykův → Masarykova). SFX2 needs no
//     flag on the stem, and a stem's own flags never stand in for SFX1's
//     continuation flags. There is no third suffix.
//   - A prefix applies to stem + SFX1 + SFX2 when the prefix and SFX2 are
//     cross products and either SFX2's continuation flags name the prefix,
//     or SFX1 is a cross product too and the stem or SFX1's continuation
//     flags have the prefix flag.
//   - In a prefix + suffix cross product, the suffix's continuation flags
//     may supply the prefix flag ("SFX y ý ejší/E" with "PFX E 0 nej":
//     nejafilozofičtější although the stem lacks E), and a prefix's
//     continuation flags may supply the suffix flag (both must be cross
//     products); the same holds for SFX1 with a prefix.
//
// Lookup stays a reverse search: it also splits the key into intermediate
// key + Key(SFX2 add), rebuilds the key of stem + SFX1 and then searches
// SFX1 and stems as above.
//
// Not supported: NEEDAFFIX, FORBIDDENWORD or other special flags inside
// continuation flags (they are ignored there: an affixed word whose rule
// names NEEDAFFIX is still returned on its own), twofold prefixes
// (Hunspell allows them only with COMPLEXPREFIXES, which is ignored), and
// continuation flags on SFX2 (a third level).
//
// A Dictionary is immutable after Parse and safe for concurrent use.
package hunspell
