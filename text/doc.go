// Package text is najdi's text analysis: word and sentence segmentation,
// case and diacritics folding, stopwords, English and Czech stemming,
// language detection and query-dependent passages for highlighting.
//
// It is the one text stack of najdi: search (the analyzer, passages,
// summaries, diacritics restoration) and NLU (phrase matching, intents,
// built-in entities, names; nlu/token is a thin adapter) share its word
// scanner, its Fold and its Czech stemmer, so they agree on what a word is.
//
// # Why
//
// Search quality for Czech hinges on two things English analysis never
// meets: rich inflection (Praha, Praze, Prahou...) and users who type
// without diacritics ("nadrazi" for "nádraží"). Both are solved here, at
// analysis time, so that the index and the query meet in one term.
//
// # Analysis pipeline
//
// Analyzer.Analyze runs, for every word found by Words:
//
//	word → Fold (lowercase, NFD, drop nonspacing marks, ß→ss...) →
//	stopword check → stem (ASCII-letter words only) → term
//
// Folding comes before stemming in both languages. For Czech this is the
// crucial design decision: the stemmer (Dolamic & Savoy's light stemmer, as
// in Lucene's CzechStemmer) is rewritten for folded, diacritics-free Czech,
// so "městech" and "mestech" both become "mesk", and "Praha", "Praze",
// "Prahou", "praze" all become "prah". The alternative, restoring diacritics
// before stemming, needs a model and guesses; folding loses a little
// precision (být/byt, ů/u) but is exact and free. Measured on the (form,
// lemma) pairs of UD Czech-CAC dev: 95.1% of tokens share the majority
// term of their lemma, and 94.8% of tokens carry a term whose majority
// lemma is theirs. The stopword lists are folded too, and "být" is not a
// stopword because its folded form is "byt" (flat).
//
// English uses the Snowball English (Porter2) stemmer, written from the
// algorithm description, and Lucene's 33-word stop set.
//
// # Segmentation
//
// Words treats letters, digits and combining marks of every script as word
// characters; apostrophes between letters and '.'/',' between digits join
// (don't, 3.14, 1,5); hyphens split. Han and Kana characters are words of
// one character each (unigrams: no dictionary is needed and recall is
// high). Words longer than MaxTokenBytes are dropped by the analyzer.
//
// Tokenize, for NLU, runs the same scanner and returns pieces with
// code-point offsets (the unit of the analysis API) and byte offsets; it
// keeps a hyphen between letters inside the piece ("Frýdek-Místek", so
// name and phrase matching decide themselves how to split a compound) and
// returns every punctuation or symbol rune as a piece of its own.
//
// Where the two stacks that preceded this one differed, the choices were:
// Fold is the NFD fold (ß→ss, æ→ae, every decomposable letter of every
// script) rather than NLU's 53-letter table (ß→s, æ kept); NLU took the
// search scanner's word rules (Han and Kana one character per word, spacing
// combining marks inside words). Every quality figure measured the same
// before and after the merge (2-core AMD EPYC under load, 2026-11-24,
// `najdi-bench keyword -bleve=false`, `najdi-bench diacritics`, `najdi-bench
// nlu -runs 10 -phrases 1000`): SciFact keyword nDCG@10 0.6926, recall@100
// 0.9216; diacritics word accuracy 0.9702, accented 0.9560; SNIPS top-1
// 0.9814, few-shot 0.9586; CoNLL-2003 micro F1 0.8860; Czech names micro
// F1 0.701; Czech closed entities P 0.9995 R 0.9912.
//
// # Czech stemmer
//
// StemCzech has two named variants over one algorithm and two tables:
// CzechIndex for index terms (below) and CzechNames for phrase and name
// matching (more adjectival and -ov endings, a restricted mobile e, words
// of letters only). testdata/czech_stems.txt pins both to the stemmers they
// replaced.
//
// Sentences splits on . ! ? … and blank lines with the usual guards
// (abbreviations, initials, Czech ordinal dates "15. března", lowercase
// continuation).
//
// # Passages
//
// Passages scores windows of whole sentences (or, inside an over-long
// sentence, word-aligned windows) by the weight of distinct query terms
// they contain, with small proximity and repetition bonuses, and picks the
// best non-overlapping ones. Offsets are code points so that clients in any
// language can slice the section.
//
// # Allocation
//
// Analyze allocates only when a term is not a prefix of the original word
// (capitalised or accented words, stems such as happily → happili); a
// Term never aliases internal buffers, so callers may keep it.
package text
