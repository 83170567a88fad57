package ner

import (
	"bufio"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/najdi/najdi/nlu/token"
)

// UDSentence is a sentence of a Universal Dependencies CoNLL-U file with
// the code-point range and name class of every word: "person" (NameType
// Giv or Sur), "location" (Geo), "organization" (Com) or "".
type UDSentence struct {
	Text  string
	Words []UDWord
}

// UDWord is one word of a UDSentence.
type UDWord struct {
	Start, End int
	Class      string
}

// ReadUDNames reads a CoNLL-U file and aligns each word form with the
// sentence's "# text" line.
func ReadUDNames(r io.Reader) ([]UDSentence, error) {
	var out []UDSentence
	var cur UDSentence
	pos := 0 // byte offset of the alignment in cur.Text
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "# text = "):
			cur = UDSentence{Text: strings.TrimPrefix(line, "# text = ")}
			pos = 0
		case line == "":
			if cur.Text != "" {
				out = append(out, cur)
			}
			cur = UDSentence{}
		case line[0] == '#':
		default:
			f := strings.Split(line, "\t")
			if len(f) < 6 || strings.ContainsAny(f[0], "-.") {
				continue
			}
			k := strings.Index(cur.Text[pos:], f[1])
			if k < 0 {
				continue
			}
			b := pos + k
			start := utf8.RuneCountInString(cur.Text[:b])
			w := UDWord{Start: start, End: start + utf8.RuneCountInString(f[1])}
			pos = b + len(f[1])
			for _, feat := range strings.Split(f[5], "|") {
				if v, ok := strings.CutPrefix(feat, "NameType="); ok {
					switch {
					case strings.HasPrefix(v, "Geo"):
						w.Class = "location"
					case v == "Giv" || v == "Sur" || v == "Giv,Sur":
						w.Class = "person"
					case v == "Com":
						w.Class = "organization"
					}
				}
			}
			cur.Words = append(cur.Words, w)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("ner: read conllu: %w", err)
	}
	if cur.Text != "" {
		out = append(out, cur)
	}
	return out, nil
}

// EvaluateCzechWords tags every sentence with the Czech tagger and scores
// it word by word against the UD name classes (a word is predicted as the
// class of the span covering its first character). The "" key holds the
// micro-average.
func EvaluateCzechWords(sents []UDSentence) map[string]Score {
	c := CzechTagger()
	out := map[string]Score{}
	for _, s := range sents {
		toks := token.Tokenize(s.Text)
		pred := map[int]string{} // rune offset → class
		for _, sp := range c.Tag(s.Text, toks) {
			for r := toks[sp.Start].Start; r < toks[sp.End-1].End; r++ {
				pred[r] = sp.Class
			}
		}
		for _, w := range s.Words {
			p := pred[w.Start]
			if p == w.Class {
				if p != "" {
					inc(out, p, func(s *Score) { s.TP++ })
				}
				continue
			}
			if p != "" {
				inc(out, p, func(s *Score) { s.FP++ })
			}
			if w.Class != "" {
				inc(out, w.Class, func(s *Score) { s.FN++ })
			}
		}
	}
	return out
}

func inc(m map[string]Score, k string, f func(*Score)) {
	s, all := m[k], m[""]
	f(&s)
	f(&all)
	m[k], m[""] = s, all
}
