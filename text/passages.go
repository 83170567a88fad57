package text

import (
	"sort"
	"unicode/utf8"
)

// Passage is a highlighted excerpt of one section.
type Passage struct {
	// Section is the index of the section the passage lies in.
	Section int
	// Start and End are code-point offsets [Start, End) into the section.
	Start, End int
	// Text is the passage text: string([]rune(section)[Start:End]).
	Text string
	// Score is the passage relevance in 0..1 (see Passages).
	Score float64
}

// PassageOptions configures Passages. Zero fields take their defaults.
type PassageOptions struct {
	// MaxPassages is the most passages returned; default 3.
	MaxPassages int
	// MaxRunes is the target passage length in code points; default 200.
	MaxRunes int
}

const (
	defaultMaxPassages = 3
	defaultMaxRunes    = 200

	// Score weights: coverage dominates; proximity and repetition only
	// reorder passages that match the same query terms.
	coverageWeight  = 0.85
	proximityWeight = 0.10
	repeatWeight    = 0.05
)

// Passages returns up to opts.MaxPassages non-overlapping passages of
// sections that best match queryTerms (analyzed term → weight, such as idf),
// best first. Terms are found by analyzing each section with a.
//
// A passage lies inside one section and is a window of whole sentences (see
// Sentences) at most MaxRunes long; a sentence longer than MaxRunes yields a
// word-aligned window of about MaxRunes code points around its densest
// matches, never cut mid-word. A matching section shorter than MaxRunes can
// come back whole.
//
// The score of a passage is coverage × (0.85 + 0.10·proximity +
// 0.05·repetition), where coverage is the weight of the distinct query terms
// it contains over the weight of all query terms, proximity is
// 1/(1+span/MaxRunes) for the span from the first to the last match, and
// repetition is min(1, extra matches of already-seen terms / 3); so it lies
// in 0..1 and reaches 1 only for a tight passage containing every term.
// Among passages of equal score the longer one (more context) wins, then the
// one whose matches sit nearer its middle, then the earlier one.
func Passages(a *Analyzer, queryTerms map[string]float64, sections []string, opts PassageOptions) []Passage {
	if opts.MaxPassages <= 0 {
		opts.MaxPassages = defaultMaxPassages
	}
	if opts.MaxRunes <= 0 {
		opts.MaxRunes = defaultMaxRunes
	}
	p := passageScorer{maxRunes: opts.MaxRunes, termIdx: make(map[string]int, len(queryTerms))}
	p.filter.keep = make([]string, 0, len(queryTerms))
	for t, w := range queryTerms {
		if w > 0 {
			p.termIdx[t] = len(p.weights)
			p.filter.add(t)
			p.weights = append(p.weights, w)
			p.total += w
		}
	}
	if p.total <= 0 || a == nil {
		return nil
	}
	p.seen = make([]int, len(p.weights))
	var cands []passageCand
	for si, sec := range sections {
		cands = p.section(a, si, sec, cands)
	}
	sort.Slice(cands, func(i, j int) bool {
		x, y := &cands[i], &cands[j]
		if x.score != y.score {
			return x.score > y.score
		}
		if x.runeEnd-x.runeStart != y.runeEnd-y.runeStart {
			return x.runeEnd-x.runeStart > y.runeEnd-y.runeStart
		}
		if x.offCenter != y.offCenter {
			return x.offCenter < y.offCenter
		}
		if x.section != y.section {
			return x.section < y.section
		}
		return x.runeStart < y.runeStart
	})
	var out []Passage
	for _, c := range cands {
		if len(out) == opts.MaxPassages {
			break
		}
		overlaps := false
		for _, o := range out {
			if o.Section == c.section && c.runeStart < o.End && o.Start < c.runeEnd {
				overlaps = true
				break
			}
		}
		if overlaps {
			continue
		}
		sub := sections[c.section][c.byteStart:c.byteEnd]
		if !utf8.ValidString(sub) {
			sub = string([]rune(sub))
		}
		out = append(out, Passage{Section: c.section, Start: c.runeStart, End: c.runeEnd, Text: sub, Score: c.score})
	}
	return out
}

type passageCand struct {
	section            int
	byteStart, byteEnd int
	runeStart, runeEnd int
	score              float64
	offCenter          int
}

// passageMatch is one occurrence of a query term in a section.
type passageMatch struct {
	byteStart, byteEnd int
	runeStart, runeEnd int
	term               int
}

type passageScorer struct {
	maxRunes int
	termIdx  map[string]int
	weights  []float64
	total    float64
	filter   termFilter // rules out words that cannot be a term
	seen     []int      // epoch per term for distinct counting
	epoch    int
}

// section appends the candidate windows of one section to cands.
func (p *passageScorer) section(a *Analyzer, si int, sec string, cands []passageCand) []passageCand {
	var matches []passageMatch
	rc := runeCounter{s: sec}
	ts := a.matchTerms(sec, &p.filter)
	for term, ok := ts.next(); ok; term, ok = ts.next() {
		if k, ok := p.termIdx[string(term)]; ok {
			rs := rc.at(ts.start)
			matches = append(matches, passageMatch{ts.start, ts.end, rs, rc.at(ts.end), k})
		}
	}
	if len(matches) == 0 {
		return cands
	}
	sents := Sentences(sec)
	rc = runeCounter{s: sec}
	sr := make([][2]int, len(sents)) // rune start/end per sentence
	for k, sp := range sents {
		sr[k] = [2]int{rc.at(sp.Start), rc.at(sp.End)}
	}
	// first[k] is the index of the first match at or after sentence k.
	m := 0
	for i := range sents {
		for m < len(matches) && matches[m].byteStart < sents[i].Start {
			m++
		}
		first := m
		if sr[i][1]-sr[i][0] > p.maxRunes {
			end := first
			for end < len(matches) && matches[end].byteEnd <= sents[i].End {
				end++
			}
			if end > first {
				cands = p.longSentence(si, sec, sents[i], matches[first:end], cands)
			}
			continue
		}
		for j := i; j < len(sents) && sr[j][1]-sr[i][0] <= p.maxRunes; j++ {
			end := first
			for end < len(matches) && matches[end].byteEnd <= sents[j].End {
				end++
			}
			if end == first {
				continue
			}
			c := p.score(matches[first:end], sr[i][0], sr[j][1])
			c.section, c.byteStart, c.byteEnd = si, sents[i].Start, sents[j].End
			cands = append(cands, c)
		}
	}
	return cands
}

// longSentence appends a word-aligned window of about maxRunes around the
// densest matches of a sentence longer than maxRunes.
func (p *passageScorer) longSentence(si int, sec string, sent Span, ms []passageMatch, cands []passageCand) []passageCand {
	type word struct{ bs, be, rs, re int }
	var words []word
	rc := runeCounter{s: sec}
	for i := sent.Start; i < sent.End; {
		s, e := nextWord(sec[:sent.End], i)
		if s < 0 {
			break
		}
		i = e
		words = append(words, word{s, e, rc.at(s), rc.at(e)})
	}
	if len(words) == 0 {
		return cands
	}
	wordAt := func(byteOff int) int {
		return sort.Search(len(words), func(k int) bool { return words[k].be > byteOff })
	}
	var best passageCand
	bestLo, bestHi := -1, -1
	for a := range ms {
		lo := wordAt(ms[a].byteStart)
		hi := lo
		for hi+1 < len(words) && words[hi+1].re-words[lo].rs <= p.maxRunes {
			hi++
		}
		b := a
		for b < len(ms) && ms[b].byteEnd <= words[hi].be {
			b++
		}
		c := p.score(ms[a:b], words[lo].rs, words[hi].re)
		if bestLo < 0 || c.score > best.score {
			best, bestLo, bestHi = c, lo, hi
		}
	}
	// Re-centre: start from the words holding the first and last match of
	// the best window and grow one word at a time on alternate sides.
	lo, hi := -1, -1
	for _, m := range ms {
		if m.byteStart >= words[bestLo].bs && m.byteEnd <= words[bestHi].be {
			w := wordAt(m.byteStart)
			if lo < 0 {
				lo = w
			}
			hi = w
		}
	}
	for left := true; ; left = !left {
		canL := lo > 0 && words[hi].re-words[lo-1].rs <= p.maxRunes
		canR := hi+1 < len(words) && words[hi+1].re-words[lo].rs <= p.maxRunes
		if !canL && !canR {
			break
		}
		if canL && (left || !canR) {
			lo--
		} else {
			hi++
		}
	}
	c := p.score(ms, words[lo].rs, words[hi].re)
	c.section, c.byteStart, c.byteEnd = si, words[lo].bs, words[hi].be
	return append(cands, c)
}

// score scores the matches ms of a window [runeStart, runeEnd); matches
// outside the window are ignored.
func (p *passageScorer) score(ms []passageMatch, runeStart, runeEnd int) passageCand {
	p.epoch++
	var cover float64
	n, distinct := 0, 0
	lo, hi := -1, -1
	for _, m := range ms {
		if m.runeStart < runeStart || m.runeEnd > runeEnd {
			continue
		}
		if lo < 0 {
			lo = m.runeStart
		}
		hi = m.runeEnd
		n++
		if p.seen[m.term] != p.epoch {
			p.seen[m.term] = p.epoch
			cover += p.weights[m.term]
			distinct++
		}
	}
	c := passageCand{runeStart: runeStart, runeEnd: runeEnd}
	if distinct == 0 {
		return c
	}
	cover /= p.total
	if cover > 1 {
		cover = 1
	}
	prox := 1 / (1 + float64(hi-lo)/float64(p.maxRunes))
	rep := float64(n-distinct) / 3
	if rep > 1 {
		rep = 1
	}
	c.score = cover * (coverageWeight + proximityWeight*prox + repeatWeight*rep)
	mid := (lo + hi) / 2
	c.offCenter = abs(mid - (runeStart+runeEnd)/2)
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// runeCounter converts increasing byte offsets of s to code-point offsets
// in amortised O(1); a smaller offset than the last restarts from zero.
type runeCounter struct {
	s    string
	b, r int
}

func (c *runeCounter) at(byteOff int) int {
	if byteOff < c.b {
		c.b, c.r = 0, 0
	}
	c.r += utf8.RuneCountInString(c.s[c.b:byteOff])
	c.b = byteOff
	return c.r
}
