package summary

import (
	"math"
	"slices"
	"unicode/utf8"

	"github.com/najdi/najdi/text"
)

// sentence is one sentence of a document section with its relevance.
type sentence struct {
	sec   int     // section index
	a, b  int     // byte span in the section content
	score float64 // relevance to the query, >= 0
}

// prepared is a document split into sentences and scored for one query.
type prepared struct {
	rank  int // position in the input
	doc   *Doc
	sents []sentence // reading order
	best  []int      // indices into sents by descending score, ties in reading order
}

// weights holds the query's terms and their IDF-like weights within the
// candidate documents.
type weights struct {
	terms    func(dst []string, s string) []string
	idf      map[string]float64
	maxIDF   float64
	termsBuf []string
}

// newWeights analyzes the query and weighs each distinct query term by
// ln(1 + (N - df + 0.5)/(df + 0.5)) where N is the number of candidate
// documents and df the number of them that contain the term (the BM25 IDF,
// always positive). Rare terms among the candidates decide relevance.
func newWeights(query string, docs []Doc, an *text.Analyzer) *weights {
	w := &weights{terms: appendTerms, idf: map[string]float64{}}
	if an != nil {
		w.terms = an.AppendTerms
	}
	for _, t := range w.terms(nil, query) {
		w.idf[t] = 0
	}
	if len(w.idf) == 0 {
		return w
	}
	df := map[string]int{}
	seen := map[string]bool{}
	for i := range docs {
		clear(seen)
		for _, s := range docs[i].Sections {
			w.termsBuf = w.terms(w.termsBuf[:0], s.Content)
			for _, t := range w.termsBuf {
				if _, ok := w.idf[t]; ok && !seen[t] {
					seen[t] = true
					df[t]++
				}
			}
		}
	}
	n := float64(len(docs))
	for t := range w.idf {
		d := float64(df[t])
		v := math.Log(1 + (n-d+0.5)/(d+0.5))
		w.idf[t] = v
		w.maxIDF = max(w.maxIDF, v)
	}
	return w
}

// termScore returns the summed weight of the distinct query terms in s.
func (w *weights) termScore(s string) float64 {
	if len(w.idf) == 0 {
		return 0
	}
	w.termsBuf = w.terms(w.termsBuf[:0], s)
	slices.Sort(w.termsBuf)
	sc := 0.0
	for i, t := range w.termsBuf {
		if i > 0 && w.termsBuf[i-1] == t {
			continue
		}
		sc += w.idf[t]
	}
	return sc
}

// prepare splits d into sentences and scores each one: the weights of the
// query terms it contains, plus for every evidence passage that overlaps it
// evidenceWeight × (passage score / best passage score of the document) ×
// (overlap / length of the shorter of the two). evidenceWeight is the
// weight of the rarest query term (1 without query terms), so a sentence
// fully covered by the document's best passage counts as much as one that
// holds the rarest query term.
func prepare(rank int, d *Doc, w *weights) *prepared {
	p := &prepared{rank: rank, doc: d}
	maxEv := 0.0
	for _, e := range d.Evidence {
		maxEv = max(maxEv, e.Score)
	}
	evWeight := w.maxIDF
	if evWeight == 0 {
		evWeight = 1
	}
	for si, sec := range d.Sections {
		pos, cp := 0, 0 // byte offset and its code point offset
		for _, sp := range sentences(sec.Content) {
			cp += utf8.RuneCountInString(sec.Content[pos:sp.Start])
			ca := cp
			cp += utf8.RuneCountInString(sec.Content[sp.Start:sp.End])
			cb := cp
			pos = sp.End
			s := sentence{sec: si, a: sp.Start, b: sp.End, score: w.termScore(sec.Content[sp.Start:sp.End])}
			if maxEv > 0 {
				for _, e := range d.Evidence {
					if e.Section != si || e.End <= ca || e.Start >= cb || e.Score <= 0 {
						continue
					}
					ov := min(e.End, cb) - max(e.Start, ca)
					den := min(e.End-e.Start, cb-ca)
					if ov > 0 && den > 0 {
						s.score += evWeight * (e.Score / maxEv) * float64(ov) / float64(den)
					}
				}
			}
			p.sents = append(p.sents, s)
		}
	}
	p.best = make([]int, len(p.sents))
	for i := range p.best {
		p.best[i] = i
	}
	slices.SortStableFunc(p.best, func(a, b int) int {
		sa, sb := p.sents[a].score, p.sents[b].score
		switch {
		case sa > sb:
			return -1
		case sa < sb:
			return 1
		}
		return 0
	})
	return p
}
