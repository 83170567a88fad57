package ner

import (
	"bufio"
	"fmt"
	"io"
	"strings"
)

// Sentence is a tokenized sentence with one IOB2 tag per word ("B-PER",
// "I-ORG", "O"). Doc numbers the document the sentence came from.
type Sentence struct {
	Words []string
	Tags  []string
	Doc   int
}

// ReadCoNLL reads the CoNLL-2003 format: one "TOKEN POS CHUNK NER" line per
// token, blank lines between sentences, "-DOCSTART-" lines between
// documents. Only the first and last columns are used.
func ReadCoNLL(r io.Reader) ([]Sentence, error) {
	var out []Sentence
	var cur Sentence
	doc := 0
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	line := 0
	flush := func() {
		if len(cur.Words) > 0 {
			cur.Doc = doc
			out = append(out, cur)
		}
		cur = Sentence{}
	}
	for sc.Scan() {
		line++
		s := strings.TrimSpace(sc.Text())
		if s == "" {
			flush()
			continue
		}
		f := strings.Fields(s)
		if f[0] == "-DOCSTART-" {
			flush()
			doc++
			continue
		}
		if len(f) < 2 {
			return nil, fmt.Errorf("ner: conll line %d: want at least 2 columns, got %q: %w", line, s, ErrFormat)
		}
		cur.Words = append(cur.Words, f[0])
		cur.Tags = append(cur.Tags, f[len(f)-1])
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ner: read conll: %w", err)
	}
	flush()
	return out, nil
}

// Span is an entity span over words [Start, End) of class Type ("PER").
type Span struct {
	Start, End int
	Type       string
}

// Spans decodes IOB2 (or IOB1) tags into spans, conlleval-style: an I-X
// after O or after another type starts a new entity.
func Spans(tags []string) []Span {
	var out []Span
	cur := -1
	curType := ""
	for i, t := range tags {
		typ := ""
		bio := byte('O')
		if len(t) > 2 && (t[0] == 'B' || t[0] == 'I') && t[1] == '-' {
			bio, typ = t[0], t[2:]
		}
		if cur >= 0 && (bio != 'I' || typ != curType) {
			out = append(out, Span{cur, i, curType})
			cur, curType = -1, ""
		}
		if bio == 'B' || (bio == 'I' && cur < 0) {
			cur, curType = i, typ
		}
	}
	if cur >= 0 {
		out = append(out, Span{cur, len(tags), curType})
	}
	return out
}

// Score holds entity-level counts for one class.
type Score struct {
	TP, FP, FN int
}

// P returns the precision.
func (s Score) P() float64 { return ratio(s.TP, s.TP+s.FP) }

// R returns the recall.
func (s Score) R() float64 { return ratio(s.TP, s.TP+s.FN) }

// F1 returns the harmonic mean of P and R.
func (s Score) F1() float64 {
	p, r := s.P(), s.R()
	if p+r == 0 {
		return 0
	}
	return 2 * p * r / (p + r)
}

func ratio(a, b int) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Evaluate compares predicted with gold tag sequences at the entity level
// (exact span and type), counting only the given types; the "" key holds
// the micro-average over them.
func Evaluate(gold, pred [][]string, types []string) map[string]Score {
	want := map[string]bool{}
	for _, t := range types {
		want[t] = true
	}
	out := map[string]Score{}
	for k := range gold {
		g := map[Span]bool{}
		for _, s := range Spans(gold[k]) {
			if want[s.Type] {
				g[s] = true
			}
		}
		for _, s := range Spans(pred[k]) {
			if !want[s.Type] {
				continue
			}
			sc, all := out[s.Type], out[""]
			if g[s] {
				sc.TP++
				all.TP++
				delete(g, s)
			} else {
				sc.FP++
				all.FP++
			}
			out[s.Type], out[""] = sc, all
		}
		for s := range g {
			sc, all := out[s.Type], out[""]
			sc.FN++
			all.FN++
			out[s.Type], out[""] = sc, all
		}
	}
	return out
}
