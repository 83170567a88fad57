// Package diacritics restores Czech diacritics in text typed without them,
// so that a query such as "jizdni rad nadrazi" can be shown, spell-checked
// or matched as "jízdní řád nádraží".
//
// # Why
//
// Czech users often type without diacritics. The text package already
// makes search insensitive to them (terms are folded), but exact phrases,
// snippets, suggestions and NLU work better on the restored query, and
// folded matching conflates words that differ only in diacritics (byt
// "flat" / být "to be").
//
// # How it works
//
// The built-in lexicon (data/lexicon.gz, embedded, built by
// scripts/build-cs-lexicon.sh from registry packages only, see
// data/LICENSE.md) holds:
//
//   - word forms with their frequencies (PyPI wordfreq, large Czech list),
//     for every folded key that has a form with diacritics: "byt" → byt,
//     být, byť;
//   - word-pair counts from about 1.2 million words of Czech running text
//     (Debian libreoffice-help-cs, gimp-help-cs, fortunes-cs), kept for
//     pairs with an ambiguous word (forms 100× rarer than the best form of
//     their key are pruned to keep the file under 3 MB);
//   - pair counts of word classes, which generalise agreement such as
//     adjective-noun endings to unseen pairs: the 1000 most frequent corpus
//     words (prepositions, pronouns, auxiliaries, which govern case) are
//     classes of their own, any other word's class is its last two letters;
//     as the second word of a pair, a word whose folded key has forms that
//     differ in the last letter (dani/daní, nové/nově, výsledku/výsledků)
//     gets that class marked ("ni~", "ní~"), so the endings that decide a
//     case are not counted with the same endings of words that have no
//     such choice (zimní, povolení);
//   - counts of a word class followed by a form of an ambiguous key and
//     of such a form followed by a word class ("s … prací" but "při
//     práci", "řada výsledků"), denser than word pairs;
//   - ending rules for words missing from the lexicon ("-cnich" → "-čních"),
//     with guard entries for plain words the rules would wrongly change;
//     keys whose only form the rules give anyway have no entry of their own.
//
// The Czech Hunspell dictionary (Debian's hunspell-cs, GPL-2, installed by
// `make dictionaries`; see DictionaryDir) is read at run time, never
// embedded, and knows the word forms wordfreq lacks ("zúrodňovacích"). It
// serves words missing from the lexicon: the ending-rule form when the
// dictionary knows it, else the word as typed when the dictionary knows
// that and no rule applies ("svaz", not "svaž"), else the dictionary forms
// sharing the longest ending with the rule form, left to the context.
// Without the dictionary such words get the ending-rule form.
//
// Restore splits the query into words (text.Words). A word made of ASCII
// letters gets the lexicon forms of its lowercase key as candidates (or the
// forms above if it is unknown); other words (accented, numbers, other
// scripts) stay as typed but still serve as context. A Viterbi search picks
// the sequence maximising
//
//	Σ log P(wᵢ | wᵢ₋₁) + 0.7 · max(-3, PMI(class(wᵢ₋₁), class~(wᵢ)))
//	  + log share(wᵢ₋₁ | class(wᵢ))
//
// where P(w|v) = (c(v,w) + μ·P'(w)) / (c(v) + μ) with μ = 200 (Dirichlet
// smoothing). P'(w) is the wordfreq frequency P(w) reweighted by the class
// of the previous word: P(k) times the form's share of its key k after
// words of that class, (c(class(v), w) + ν·P(w)/P(k)) / (c(class(v), k) + ν)
// with ν = 5; share(v | class) is the same share of the previous form given
// the class of the next word, divided by its unigram share. The class PMI
// is smoothed like P(w|v) (prior 100). The 1000 word classes are sparse:
// where a word's own class was never seen with the class or key in
// question, its ending class stands in (a Katz-style backoff), so a
// frequent form is weighed against its rarer alternatives by the same kind
// of class ("jejich" and "jejích" both by the ending "ch", not a sparse
// "=jejich" against a dense "ch"). Sentence punctuation between words cuts
// the context. The letter case of the typed word is copied onto the
// chosen form character by character ("CESKY" → "ČESKÝ", "Praha" stays).
//
// # Letter case
//
// A query typed entirely in lowercase gets the capitals of proper names
// back. A word typed in lowercase ASCII takes the dictionary's spelling when
// the dictionary knows its restored form only with capitals ("praze" →
// "Praze", "cssr" → "ČSSR"; "most" stays, the dictionary also knows the
// common noun). WithNames adds multiword names ("Český Krumlov", "Ústí nad
// Labem"; the engine passes the Czech place names of nlu/ner): a run of such
// words that spells a name takes the name's words, or only their capitals
// when the words are another grammatical case of them ("v ceskem
// krumlove" → "v Českém Krumlově"). A query with any capital keeps its case
// as typed, so sentences and deliberately cased queries are never recased.
// On UD Czech-CAC lowercased (`najdi-bench diacritics`, last line), 49% of
// the capitalized words after the first of a sentence get their capital
// back (37% with cs_restaurant, whose restaurant names no dictionary
// knows), and 97.5% of the capitals given are right.
//
// WithVocabulary overlays a collection's own word forms: for keys it
// touches, a form's probability becomes half its lexicon probability plus
// half its share of the collection, so collection names and terms win.
//
// # Quality
//
// On UD Czech-CAC dev+test (1231 sentences, 18715 words, never used to
// build the lexicon; μ, ν, the class weights and the class floor were
// picked on dev only), `najdi-bench diacritics`: word accuracy 97.02% with
// the dictionary (dev 97.12%, test 96.93%), 95.6% on words that carry
// diacritics; 96.6% with the lexicon alone (-no-dictionary); the do-nothing
// baseline is 43.4%. On the modern conversational Czech of cs_restaurant
// (6858 words, never used for tuning) it is 98.6%. Most remaining errors
// are case endings that need more context than the neighbours (do
// plánu/plánů, práci/prací), everyday pairs missing from the technical pair
// corpus ("zdá se"), acronyms (VÚM, MZVŽ), names and the 1970s spelling of
// the corpus (progresívní, kritérium).
//
// # Cost
//
// The lexicon is decoded once, on the first Default call (about 0.3 s of
// CPU and 130 MB allocated, 2.7 MB embedded), the dictionary loaded beside
// it (about 0.2 s, 34 MB kept); Restore then takes microseconds (about
// 50 µs for an average UD sentence of 15 words; a lowercase query of 11
// words takes about 33 µs, of which 24 µs are the dictionary lookups of
// letter case).
package diacritics
