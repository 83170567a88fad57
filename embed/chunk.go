package embed

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Chunk is a passage of a section's text, as byte offsets: the passage is
// text[Start:End].
type Chunk struct{ Start, End int }

// ChunkText cuts s into passages of at most maxTokens tokens as counter
// counts them (special tokens and prefixes excluded), packing whole sentences
// greedily. A sentence longer than maxTokens is cut at word boundaries, and a
// word longer than maxTokens at character boundaries. Chunks are trimmed of
// surrounding white space, in order, and never empty; a blank s has no
// chunks. A nil counter counts words; maxTokens <= 0 means no limit.
func ChunkText(s string, counter TokenCounter, maxTokens int) []Chunk {
	if counter == nil {
		counter = wordCounter{}
	}
	if maxTokens <= 0 {
		lo, hi := trimSpan(s, 0, len(s))
		if lo == hi {
			return nil
		}
		return []Chunk{{lo, hi}}
	}
	var (
		chunks []Chunk
		cur    = Chunk{-1, -1}
		curN   int
	)
	flush := func() {
		if cur.Start >= 0 {
			chunks = append(chunks, cur)
		}
		cur, curN = Chunk{-1, -1}, 0
	}
	// add appends a unit of n tokens; alone units never share a chunk.
	add := func(u Chunk, n int, alone bool) {
		if alone || cur.Start < 0 || curN+n > maxTokens {
			flush()
		}
		if cur.Start < 0 {
			cur.Start = u.Start
		}
		cur.End, curN = u.End, curN+n
		if alone {
			flush()
		}
	}
	for _, sent := range sentenceSpans(s) {
		text := s[sent.Start:sent.End]
		if n := counter.CountTokens(text); n <= maxTokens {
			add(sent, n, false)
			continue
		}
		for _, w := range wordSpans(s, sent) {
			word := s[w.Start:w.End]
			if n := counter.CountTokens(word); n <= maxTokens {
				add(w, n, false)
				continue
			}
			for lo := w.Start; lo < w.End; {
				hi, n := longestPrefix(s[lo:w.End], counter, maxTokens)
				add(Chunk{lo, lo + hi}, n, true)
				lo += hi
			}
		}
	}
	flush()
	return chunks
}

// longestPrefix returns the longest prefix of word, in bytes at a rune
// boundary and at least one rune, whose token count is at most maxTokens,
// and that count.
func longestPrefix(word string, counter TokenCounter, maxTokens int) (int, int) {
	var ends []int // ends[k] is the byte length of the first k+1 runes
	for i := range word {
		if i > 0 {
			ends = append(ends, i)
		}
	}
	ends = append(ends, len(word))
	best, bestN := 0, counter.CountTokens(word[:ends[0]])
	for lo, hi := 1, len(ends)-1; lo <= hi; {
		mid := (lo + hi) / 2
		if n := counter.CountTokens(word[:ends[mid]]); n <= maxTokens {
			best, bestN, lo = mid, n, mid+1
		} else {
			hi = mid - 1
		}
	}
	return ends[best], bestN
}

// abbreviations end with a period without ending a sentence (lowercase, no
// period).
var abbreviations = map[string]bool{
	"e.g": true, "i.e": true, "etc": true, "vs": true, "cf": true, "al": true,
	"fig": true, "figs": true, "eq": true, "no": true, "approx": true, "ca": true,
	"dr": true, "mr": true, "mrs": true, "ms": true, "prof": true, "st": true,
	"jr": true, "sr": true, "inc": true, "ltd": true, "co": true, "corp": true,
	"tj": true, "tzv": true, "např": true, "atd": true, "apod": true, "resp": true,
	"mj": true, "příp": true, "str": true, "č": true, "ing": true, "mudr": true,
	"mgr": true, "doc": true, "kč": true, "popř": true,
}

// sentenceSpans splits s into trimmed, non-empty sentence spans. A sentence
// ends at . ! ? or … (with closing quotes or brackets) followed by white
// space, unless the period ends a known abbreviation or an initial, or the
// next word starts lowercase; a blank line always ends a sentence.
func sentenceSpans(s string) []Chunk {
	var spans []Chunk
	emit := func(lo, hi int) {
		lo, hi = trimSpan(s, lo, hi)
		if lo < hi {
			spans = append(spans, Chunk{lo, hi})
		}
	}
	start := 0
	for i := 0; i < len(s); {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == '\n' {
			// Blank line: a newline, optional spaces, another newline.
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\t' || s[j] == '\r') {
				j++
			}
			if j < len(s) && s[j] == '\n' {
				emit(start, i)
				start = j + 1
				i = j + 1
				continue
			}
		}
		if r != '.' && r != '!' && r != '?' && r != '…' {
			i += size
			continue
		}
		end := i + size
		for end < len(s) {
			r2, sz := utf8.DecodeRuneInString(s[end:])
			if !strings.ContainsRune(".!?…\"')]}”’»", r2) {
				break
			}
			end += sz
		}
		if end < len(s) {
			if r2, _ := utf8.DecodeRuneInString(s[end:]); !unicode.IsSpace(r2) {
				i = end
				continue
			}
		}
		if r == '.' && end == i+1 && !sentenceBreakAfterPeriod(s, start, i, end) {
			i = end
			continue
		}
		emit(start, end)
		start = end
		i = end
	}
	emit(start, len(s))
	return spans
}

// sentenceBreakAfterPeriod decides whether the period at s[dot] (followed by
// white space at s[end]) ends a sentence.
func sentenceBreakAfterPeriod(s string, start, dot, end int) bool {
	w := dot
	for w > start {
		r, size := utf8.DecodeLastRuneInString(s[start:w])
		if unicode.IsSpace(r) || r == '(' || r == '"' {
			break
		}
		w -= size
	}
	word := strings.ToLower(s[w:dot])
	if abbreviations[word] {
		return false
	}
	if r, size := utf8.DecodeRuneInString(s[w:dot]); size == dot-w && unicode.IsUpper(r) {
		return false // an initial: "J. Smith"
	}
	next := strings.TrimLeftFunc(s[end:], unicode.IsSpace)
	if r, _ := utf8.DecodeRuneInString(next); unicode.IsLower(r) {
		return false
	}
	return true
}

// wordSpans returns the white-space separated words of s within span.
func wordSpans(s string, span Chunk) []Chunk {
	var words []Chunk
	start := -1
	for i, r := range s[span.Start:span.End] {
		i += span.Start
		if unicode.IsSpace(r) {
			if start >= 0 {
				words = append(words, Chunk{start, i})
				start = -1
			}
		} else if start < 0 {
			start = i
		}
	}
	if start >= 0 {
		words = append(words, Chunk{start, span.End})
	}
	return words
}

// trimSpan shrinks [lo, hi) of s to exclude surrounding white space.
func trimSpan(s string, lo, hi int) (int, int) {
	for lo < hi {
		r, size := utf8.DecodeRuneInString(s[lo:hi])
		if !unicode.IsSpace(r) {
			break
		}
		lo += size
	}
	for hi > lo {
		r, size := utf8.DecodeLastRuneInString(s[lo:hi])
		if !unicode.IsSpace(r) {
			break
		}
		hi -= size
	}
	return lo, hi
}

// wordCounter counts white-space separated words.
type wordCounter struct{}

func (wordCounter) CountTokens(s string) int { return len(strings.Fields(s)) }
