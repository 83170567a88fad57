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

// The analyzers of each language, built once: an Analyzer is immutable, so
// every caller shares them (building the stopword set per request cost a
// lean keyword request 4–8 % of its time).
var (
	englishAnalyzer = &Analyzer{lang: English, stop: wordSet(englishStopwords)}
	czechAnalyzer   = &Analyzer{lang: Czech, stop: wordSet(czechStopwords)}
)

// NewAnalyzer returns the analyzer for lang. Unknown languages get the
// English pipeline. The analyzer is shared (built once per language); it is
// immutable and safe for concurrent use.
func NewAnalyzer(lang Language) *Analyzer {
	switch lang {
	case Czech:
		return czechAnalyzer
	default:
		return englishAnalyzer
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
	ts := termScanner{a: a, s: s}
	for b, ok := ts.next(); ok; b, ok = ts.next() {
		w := s[ts.start:ts.end]
		var term string
		if len(b) <= len(w) && string(b) == w[:len(b)] {
			term = w[:len(b)]
		} else {
			term = string(b)
		}
		fn(Token{Term: term, Start: ts.start, End: ts.end})
	}
}

// termScanner steps through the terms of s (see Analyze). Its next is the
// one analysis loop: Analyze and the passage matcher (with a filter) both
// call it, and neither passes a closure, so the term buffer stays on the
// caller's stack.
type termScanner struct {
	a          *Analyzer
	f          *termFilter // when not nil, rules out words before the stopword lookup and stemming
	s          string
	i          int // where the next word is looked for
	start, end int // the byte range in s of the word of the last term
	buf        [2*MaxTokenBytes + utf8.UTFMax]byte
}

// next moves to the next word of s that yields a term and returns the term
// (in ts.buf, valid until the next call); false at the end of s. A word
// (see Words) is dropped when it or its folded form is longer than
// MaxTokenBytes, when folding leaves nothing, when ts.f rules it out, when
// it is a stopword, or when stemming leaves nothing.
func (ts *termScanner) next() ([]byte, bool) {
	s, i, a, f := ts.s, ts.i, ts.a, ts.f
	for i < len(s) {
		start, end := nextWord(s, i)
		if start < 0 {
			break
		}
		i = end
		if end-start > MaxTokenBytes {
			continue
		}
		b := appendFold(ts.buf[:0], s[start:end])
		if len(b) == 0 || len(b) > MaxTokenBytes {
			continue // only combining marks, or too long
		}
		if f != nil && !f.mayMatch(b) {
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
		ts.i, ts.start, ts.end = i, start, end
		return b, true
	}
	ts.i = len(s)
	return nil, false
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

// matchTerms returns a scanner of the terms of s that Analyze yields,
// except that words f rules out are neither looked up as stopwords nor
// stemmed (so only the terms f can match are certain to be reported); it is
// for callers that look the terms up in a small set. It relies on the
// stemmers changing only the ends of words: a stem of n bytes of a folded
// word of more than two bytes starts with the word's first stemKeep(n)
// bytes (TestStemKeepsFirstByte; English stemming drops a leading
// apostrophe, and Czech stemming changes words of one or two bytes, so such
// words always take the full path).
func (a *Analyzer) matchTerms(s string, f *termFilter) termScanner {
	return termScanner{a: a, f: f, s: s}
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
