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
	ws := wordScanner{s: s}
	for b, ok := a.nextTerm(&ws, nil); ok; b, ok = a.nextTerm(&ws, nil) {
		w := ws.word
		var term string
		if len(b) <= len(w) && string(b) == w[:len(b)] {
			term = w[:len(b)]
		} else {
			term = string(b)
		}
		fn(Token{Term: term, Start: ws.start, End: ws.end})
	}
}

// wordScanner steps through the words of s that analysis looks at (see
// next).
type wordScanner struct {
	s          string
	i          int    // where the next word is looked for
	word       string // the last word next returned, s[start:end]
	start, end int
	buf        [2*MaxTokenBytes + utf8.UTFMax]byte // its folded form
}

// next moves to the next word (see Words) of at most MaxTokenBytes whose
// folded form is not empty nor longer than MaxTokenBytes, and returns that
// form (in ws.buf, valid until the next call); false at the end of s.
func (ws *wordScanner) next() ([]byte, bool) {
	for ws.i < len(ws.s) {
		start, end := nextWord(ws.s, ws.i)
		if start < 0 {
			return nil, false
		}
		ws.i = end
		w := ws.s[start:end]
		if len(w) > MaxTokenBytes {
			continue
		}
		b := appendFold(ws.buf[:0], w)
		if len(b) == 0 || len(b) > MaxTokenBytes {
			continue // only combining marks, or too long
		}
		ws.word, ws.start, ws.end = w, start, end
		return b, true
	}
	return nil, false
}

// nextTerm moves ws to the next word that yields a term and returns the
// term (valid until the next call); false at the end. Words that f (when
// not nil) rules out are skipped without a stopword lookup or stemming.
func (a *Analyzer) nextTerm(ws *wordScanner, f *termFilter) ([]byte, bool) {
	for {
		b, ok := ws.next()
		if !ok {
			return nil, false
		}
		if f != nil && !f.mayMatch(b) {
			continue
		}
		if b = a.term(b); len(b) > 0 {
			return b, true
		}
	}
}

// term returns the term of the folded word b: nothing for a stopword,
// else b, stemmed when it is a word of ASCII letters (which may leave
// nothing).
func (a *Analyzer) term(b []byte) []byte {
	if _, ok := a.stop[string(b)]; ok {
		return nil
	}
	if isASCIIWord(b) {
		if a.lang == Czech {
			return stemCzech(b, CzechIndex)
		}
		return stemEnglish(b)
	}
	return b
}

// stemSlack bounds the bytes stemming changes at the end of a word: a stem
// of n bytes starts with the first stemKeep(n) bytes of the folded word
// (TestStemKeepsFirstByte).
const stemSlack = 4

// stemKeep returns how many leading bytes a stem of n bytes shares with its
// folded word: all but stemSlack, and at least the first.
func stemKeep(n int) int { return max(1, n-stemSlack) }

// termFilter rules out words that cannot analyze to any of a few terms
// without stemming them (see matchTerms).
type termFilter struct {
	first [256]bool // first bytes of the terms
	keep  []string  // per term, the leading bytes its words must start with
}

// add records term t.
func (f *termFilter) add(t string) {
	if t != "" {
		f.first[t[0]] = true
		f.keep = append(f.keep, t[:stemKeep(len(t))])
	}
}

// mayMatch reports whether the folded word b can analyze to one of the
// terms: a word of one or two bytes or with a leading apostrophe always
// may (stemming changes those at the front); any other must start with the
// first stemKeep bytes of a term.
func (f *termFilter) mayMatch(b []byte) bool {
	if len(b) <= 2 || b[0] == '\'' {
		return true
	}
	if !f.first[b[0]] {
		return false
	}
	for _, k := range f.keep {
		if len(b) >= len(k) && string(b[:len(k)]) == k {
			return true
		}
	}
	return false
}

// matchTerms is Analyze for callers that look the terms up in a small set,
// given as f: it calls fn(term, start, end) for the terms of s that Analyze
// yields, except that words f rules out are neither looked up as stopwords
// nor stemmed (so only terms f can match are certain to be reported). term
// aliases a scratch buffer valid only during the call. It relies on the
// stemmers changing only the ends of words: a stem of n bytes of a folded
// word of more than two bytes starts with the word's first stemKeep(n)
// bytes (TestStemKeepsFirstByte; English stemming drops a leading
// apostrophe, and Czech stemming changes words of one or two bytes, so such
// words always take the full path).
func (a *Analyzer) matchTerms(s string, f *termFilter, fn func(term []byte, start, end int)) {
	ws := wordScanner{s: s}
	for b, ok := a.nextTerm(&ws, f); ok; b, ok = a.nextTerm(&ws, f) {
		fn(b, ws.start, ws.end)
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
