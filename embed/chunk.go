package embed

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/najdi/najdi/text"
)

// Chunk is a passage of a section's text, as byte offsets: the passage is
// text[Start:End].
type Chunk struct{ Start, End int }

// ChunkText cuts s into passages of at most maxTokens tokens as counter
// counts them (special tokens and prefixes excluded), packing whole sentences
// greedily. Sentences come from text.Sentences. A sentence longer than
// maxTokens is cut where white space separates words, a piece without white
// space longer than maxTokens between its words (text.Words), and a word
// longer than maxTokens at character boundaries. Chunks are trimmed of
// surrounding white space, in order, and never empty; a blank s has no
// chunks. A nil counter counts words; maxTokens <= 0 means no limit.
func ChunkText(s string, counter TokenCounter, maxTokens int) []Chunk {
	if counter == nil {
		counter = wordCounter{}
	}
	if maxTokens <= 0 {
		return appendTrimmed(nil, s, 0, len(s))
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
		for _, f := range wordSpans(s, sent, false) {
			if n := counter.CountTokens(s[f.Start:f.End]); n <= maxTokens {
				add(f, n, false)
				continue
			}
			for _, w := range wordSpans(s, f, true) {
				// Counts need not add up across a cut without white
				// space, so the joint text is counted.
				if cur.Start >= 0 {
					if n := counter.CountTokens(s[cur.Start:w.End]); n <= maxTokens {
						cur.End, curN = w.End, n
						continue
					}
				}
				if n := counter.CountTokens(s[w.Start:w.End]); n <= maxTokens {
					flush()
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

// sentenceSpans returns the sentences of s (see text.Sentences) as chunks.
func sentenceSpans(s string) []Chunk {
	sents := text.Sentences(s)
	out := make([]Chunk, len(sents))
	for i, sp := range sents {
		out[i] = Chunk{sp.Start, sp.End}
	}
	return out
}

// wordSpans cuts s[span.Start:span.End] into pieces that each begin with a
// word (see text.Words) and run to the next piece, trimmed of white space,
// so that they cover every non-space byte of span. Pieces begin at words
// that follow white space ("state-of-the-art," is one piece) or, with
// inner, at every word (so that a long run without white space, such as a
// URL, can be cut between its words); punctuation between two words stays
// with the first unless white space follows it.
func wordSpans(s string, span Chunk, inner bool) []Chunk {
	var out []Chunk
	lo, prevEnd := span.Start, -1
	for _, w := range text.Words(s[span.Start:span.End]) {
		start, end := span.Start+w.Start, span.Start+w.End
		if prevEnd >= 0 {
			cut := start
			if k := strings.LastIndexFunc(s[prevEnd:start], unicode.IsSpace); k >= 0 {
				_, n := utf8.DecodeRuneInString(s[prevEnd+k:])
				cut = prevEnd + k + n
			} else if !inner {
				cut = -1
			}
			if cut >= 0 {
				out = appendTrimmed(out, s, lo, cut)
				lo = cut
			}
		}
		prevEnd = end
	}
	return appendTrimmed(out, s, lo, span.End)
}

// appendTrimmed appends s[lo:hi] trimmed of white space to out unless it is
// blank.
func appendTrimmed(out []Chunk, s string, lo, hi int) []Chunk {
	t := strings.TrimLeftFunc(s[lo:hi], unicode.IsSpace)
	lo = hi - len(t)
	t = strings.TrimRightFunc(t, unicode.IsSpace)
	if t == "" {
		return out
	}
	return append(out, Chunk{lo, lo + len(t)})
}

// wordCounter counts white-space separated words.
type wordCounter struct{}

func (wordCounter) CountTokens(s string) int { return len(strings.Fields(s)) }
