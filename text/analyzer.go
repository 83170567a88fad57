package text

import "unicode/utf8"

// MaxTokenBytes is the longest word, in bytes of its folded form, that
// Analyze emits. Longer words (hashes, base64, run-together garbage) are
// dropped rather than truncated so that they never collide with real terms.
const MaxTokenBytes = 64

// Token is one analyzed word: Term is the normalized index term and
// [Start, End) the byte range of the original word in the analyzed input.
type Token struct {
	Term       string
	Start, End int
}

// Analyzer turns text into index terms for one language. It is immutable and
// safe for concurrent use.
type Analyzer struct {
	lang Language
	stop map[string]struct{}
}

// NewAnalyzer returns the analyzer for lang. Unknown languages get the
// English pipeline.
func NewAnalyzer(lang Language) *Analyzer {
	switch lang {
	case Czech:
		return &Analyzer{lang: Czech, stop: wordSet(czechStopwords)}
	default:
		return &Analyzer{lang: English, stop: wordSet(englishStopwords)}
	}
}

// Language returns the language the analyzer was built for.
func (a *Analyzer) Language() Language { return a.lang }

// IsStopword reports whether word (any case, with or without diacritics) is
// a stopword of the analyzer's language.
func (a *Analyzer) IsStopword(word string) bool {
	var buf [2 * MaxTokenBytes]byte
	if len(word) > MaxTokenBytes {
		return false
	}
	_, ok := a.stop[string(appendFold(buf[:0], word))]
	return ok
}

// Analyze calls fn for every term of s in order: words (see Words) are
// lowercased and folded (diacritics removed, see Fold), stopwords dropped,
// and words of ASCII letters stemmed (Porter2 for English, a Czech light
// stemmer adapted to folded Czech for Czech). Numbers and words of other
// scripts are kept folded but unstemmed; each Han/Kana character is a term.
// Words longer than MaxTokenBytes are dropped.
//
// Folding comes before stemming so that a query typed without diacritics
// ("mestech") meets the document form ("městech"). Term aliases s when it is
// a prefix of the original word, so lowercase text mostly costs no
// allocations; Term is an ordinary string that may be retained.
func (a *Analyzer) Analyze(s string, fn func(Token)) {
	var buf [2*MaxTokenBytes + utf8.UTFMax]byte
	for i := 0; i < len(s); {
		start, end := nextWord(s, i)
		if start < 0 {
			return
		}
		i = end
		w := s[start:end]
		if len(w) > MaxTokenBytes {
			continue
		}
		b := appendFold(buf[:0], w)
		if len(b) == 0 || len(b) > MaxTokenBytes {
			continue // only combining marks, or too long
		}
		if _, ok := a.stop[string(b)]; ok {
			continue
		}
		if isASCIIWord(b) {
			if a.lang == Czech {
				b = stemCzech(b, CzechIndex)
			} else {
				b = stemEnglish(b)
			}
		}
		if len(b) == 0 {
			continue
		}
		var term string
		if len(b) <= len(w) && string(b) == w[:len(b)] {
			term = w[:len(b)]
		} else {
			term = string(b)
		}
		fn(Token{Term: term, Start: start, End: end})
	}
}

// termStarts is a set of first bytes of index terms (see matchTerms).
type termStarts [256]bool

// add records the first byte of term t.
func (f *termStarts) add(t string) {
	if t != "" {
		f[t[0]] = true
	}
}

// matchTerms is Analyze for callers that look the terms up in a small set
// whose first bytes are first: it calls fn(term, start, end) for the terms
// of s that Analyze yields and whose first byte is in first, skipping the
// stopword lookup and stemming of every other word. term aliases a scratch
// buffer valid only during the call. It relies on the stemmers changing
// only the ends of words: the stem of a folded word of more than two bytes
// starts with the word's first byte (TestStemKeepsFirstByte; English
// stemming drops a leading apostrophe, and Czech stemming changes words of
// one or two bytes, so such words always take the full path).
func (a *Analyzer) matchTerms(s string, first *termStarts, fn func(term []byte, start, end int)) {
	var buf [2*MaxTokenBytes + utf8.UTFMax]byte
	for i := 0; i < len(s); {
		start, end := nextWord(s, i)
		if start < 0 {
			return
		}
		i = end
		w := s[start:end]
		if len(w) > MaxTokenBytes {
			continue
		}
		b := appendFold(buf[:0], w)
		if len(b) == 0 || len(b) > MaxTokenBytes || (len(b) > 2 && b[0] != '\'' && !first[b[0]]) {
			continue
		}
		if _, ok := a.stop[string(b)]; ok {
			continue
		}
		if isASCIIWord(b) {
			if a.lang == Czech {
				b = stemCzech(b, CzechIndex)
			} else {
				b = stemEnglish(b)
			}
		}
		if len(b) == 0 {
			continue
		}
		fn(b, start, end)
	}
}

// AppendTerms appends the terms of s (see Analyze) to dst and returns it.
func (a *Analyzer) AppendTerms(dst []string, s string) []string {
	a.Analyze(s, func(t Token) { dst = append(dst, t.Term) })
	return dst
}

// isASCIIWord reports whether b is made of ASCII letters and apostrophes
// with at least one letter, i.e. something a stemmer should see.
func isASCIIWord(b []byte) bool {
	letter := false
	for _, c := range b {
		switch {
		case 'a' <= c && c <= 'z':
			letter = true
		case c == '\'':
		default:
			return false
		}
	}
	return letter
}
