package diacritics

import (
	"bytes"
	"compress/gzip"
	_ "embed"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode/utf8"
)

//go:embed data/lexicon.gz
var lexiconGz []byte

// lexicon is the decoded data file: interned word forms, their unigram
// probabilities, candidate lists per folded key and word-pair counts.
type lexicon struct {
	forms []string         // id → form (lowercase)
	ids   map[string]int32 // form → id
	uni   []float64        // id → unigram probability, 0 if unknown
	ctx   []uint32         // id → corpus count as bigram context
	cands map[string][]int32
	pairs map[uint64]uint32 // v<<32|w → count

	// Ending classes: the last suffix runes of a word, or the word itself
	// for the most frequent corpus words (class names "=word").
	suffix    int
	classes   map[string]int32
	wordClass map[string]int32 // word → id of its own class "=word"
	wordIDs   map[int32]bool   // ids of the "=word" classes
	// mark: the second class of a class pair is marked with "~" when the
	// word's folded key has forms that differ in the last letter (see
	// targetClass).
	mark       bool
	classCount []uint32
	classPairs map[uint64]uint32
	classTotal float64
	// classWords counts a word of an ending class followed by a form of an
	// ambiguous key: class<<32|form → count.
	classWords map[uint64]uint32
	// wordClasses counts a form of an ambiguous key followed by a word of
	// an ending class: form<<32|class → count.
	wordClasses map[uint64]uint32

	suffixes map[string]string // folded ending → restored, for unknown words
}

// class returns the ending class id of form, -1 if unknown.
func (l *lexicon) class(form string) int32 {
	if l.suffix <= 0 {
		return -1
	}
	if id, ok := l.wordClass[form]; ok {
		return id
	}
	if id, ok := l.classes[lastRunes(form, l.suffix)]; ok {
		return id
	}
	return -1
}

// targetClass returns the class of form as the word predicted after
// another (the second class of a class pair): its ending class marked with
// "~" when the forms of its folded key differ in the last letter, so that
// "dani"/"daní" or "nové"/"nově" are told apart from endings that carry no
// choice ("zimní", "povolení"). A marked class the corpus never saw falls
// back to the plain one.
func (l *lexicon) targetClass(form string) int32 {
	c := l.class(form)
	// Word classes and unknown endings never take a mark: skip the fold.
	if !l.mark || c < 0 || l.wordIDs[c] || !l.endingAlternates(fold(form)) {
		return c
	}
	return l.markedClass(form, c)
}

// markedClass returns the marked class of form, whose ending class is c.
func (l *lexicon) markedClass(form string, c int32) int32 {
	if !l.mark || c < 0 || l.wordIDs[c] {
		return c
	}
	if id, ok := l.classes[lastRunes(form, l.suffix)+"~"]; ok {
		return id
	}
	return c
}

// endingAlternates reports whether the forms of key k differ in their last
// letter.
func (l *lexicon) endingAlternates(k string) bool {
	ids := l.cands[k]
	return lastLettersDiffer(len(ids), func(i int) string { return l.forms[ids[i]] })
}

// lastLettersDiffer reports whether the n strings form(0) … form(n-1)
// differ in their last letter.
func lastLettersDiffer(n int, form func(int) string) bool {
	if n < 2 {
		return false
	}
	first, _ := utf8.DecodeLastRuneInString(form(0))
	for i := 1; i < n; i++ {
		if r, _ := utf8.DecodeLastRuneInString(form(i)); r != first {
			return true
		}
	}
	return false
}

// cand returns the candidate for form with its classes.
func (l *lexicon) cand(form string, id int32, p float64) candidate {
	c := candidate{form: form, id: id, cls: l.class(form), tcls: l.targetClass(form), p: p}
	c.end, c.tend = c.cls, c.tcls
	if c.cls >= 0 && l.wordIDs[c.cls] {
		// A frequent word: its own class as target too (never marked).
		c.end = l.endingClass(form)
		c.tend = c.end
		if c.end >= 0 && l.endingAlternates(fold(form)) {
			c.tend = l.markedClass(form, c.end)
		}
	}
	return c
}

// endingClass returns the class of the ending of form, never a word's own
// class; -1 if the corpus never saw the ending.
func (l *lexicon) endingClass(form string) int32 {
	if l.suffix <= 0 {
		return -1
	}
	if id, ok := l.classes[lastRunes(form, l.suffix)]; ok {
		return id
	}
	return -1
}

// lastRunes returns the last n runes of s (all of s if shorter).
func lastRunes(s string, n int) string {
	i := len(s)
	for ; n > 0 && i > 0; n-- {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
	}
	return s[i:]
}

func (l *lexicon) classID(c string) int32 {
	if id, ok := l.classes[c]; ok {
		return id
	}
	id := int32(len(l.classCount))
	l.classes[c] = id
	if w, ok := strings.CutPrefix(c, "="); ok && w != "" {
		l.wordClass[w] = id
		l.wordIDs[id] = true
	}
	l.classCount = append(l.classCount, 0)
	return id
}

func (l *lexicon) id(form string) int32 {
	if id, ok := l.ids[form]; ok {
		return id
	}
	id := int32(len(l.forms))
	l.forms = append(l.forms, form)
	l.ids[form] = id
	l.uni = append(l.uni, 0)
	l.ctx = append(l.ctx, 0)
	return id
}

// parseLexicon reads the gzip'd record format written by
// scripts/build-cs-lexicon.py.
func parseLexicon(gz []byte) (*lexicon, error) {
	zr, err := gzip.NewReader(bytes.NewReader(gz))
	if err != nil {
		return nil, fmt.Errorf("open lexicon: %w: %w", ErrBadLexicon, err)
	}
	defer zr.Close()
	raw, err := io.ReadAll(zr)
	if err != nil {
		return nil, fmt.Errorf("read lexicon: %w: %w", ErrBadLexicon, err)
	}
	ld := lexLoader{l: newLexicon(), all: make([]int32, 0, 400_000)}
	// Forms are substrings of one string: no allocation per record.
	rest := string(raw)
	var f [4]string
	for line := 1; rest != ""; line++ {
		var s string
		s, rest, _ = strings.Cut(rest, "\n")
		n := splitTabs(s, f[:])
		if n > len(f) || !ld.record(f[:n]) {
			return nil, fmt.Errorf("lexicon line %d %q: %w", line, s, ErrBadLexicon)
		}
	}
	return ld.l, nil
}

// newLexicon returns an empty lexicon with its maps sized for the built-in
// lexicon.
func newLexicon() *lexicon {
	return &lexicon{
		ids:         make(map[string]int32, 400_000),
		cands:       make(map[string][]int32, 330_000),
		pairs:       make(map[uint64]uint32, 80_000),
		classes:     make(map[string]int32, 8_000),
		wordClass:   make(map[string]int32, 1_000),
		wordIDs:     make(map[int32]bool, 1_000),
		classPairs:  make(map[uint64]uint32, 100_000),
		classWords:  make(map[uint64]uint32, 50_000),
		wordClasses: make(map[uint64]uint32, 50_000),
	}
}

// lexLoader adds the records of a lexicon file to l.
type lexLoader struct {
	l        *lexicon
	all      []int32 // the candidate ids of every key, keys adjacent
	curKey   string  // the key of the records being read
	curStart int     // where curKey's ids start in all
}

// record adds one record (its tab-separated fields f) and reports whether
// it is well formed.
func (ld *lexLoader) record(f []string) bool {
	l := ld.l
	if len(f) == 4 {
		n, err := strconv.ParseUint(f[3], 10, 32)
		if err != nil {
			return false
		}
		switch f[0] {
		case "B":
			l.pairs[pairKey(l.id(f[1]), l.id(f[2]))] = uint32(n)
		case "P":
			l.classPairs[pairKey(l.classID(f[1]), l.classID(f[2]))] = uint32(n)
		case "L":
			l.classWords[pairKey(l.classID(f[1]), l.id(f[2]))] = uint32(n)
		case "R":
			l.wordClasses[pairKey(l.id(f[1]), l.classID(f[2]))] = uint32(n)
		default:
			return false
		}
		return true
	}
	switch {
	case len(f) == 3 && f[0] == "U":
		cb, err := strconv.Atoi(f[2])
		if err != nil {
			return false
		}
		id := l.id(f[1])
		l.uni[id] = centibels(cb)
		// Records of one key are adjacent: their ids share one backing
		// array, sliced per key.
		if k := fold(f[1]); k != ld.curKey || len(l.cands[k]) == 0 {
			if _, dup := l.cands[k]; dup && k != ld.curKey {
				return false // key records not grouped
			}
			ld.curKey, ld.curStart = k, len(ld.all)
		}
		ld.all = append(ld.all, id)
		l.cands[ld.curKey] = ld.all[ld.curStart:len(ld.all):len(ld.all)]
	case len(f) == 3 && f[0] == "C":
		n, err := strconv.ParseUint(f[2], 10, 32)
		if err != nil {
			return false
		}
		l.ctx[l.id(f[1])] = uint32(n)
	case len(f) == 3 && f[0] == "H" && f[1] == "suffix":
		n, err := strconv.Atoi(f[2])
		if err != nil || n < 0 {
			return false
		}
		l.suffix = n
	case len(f) == 3 && f[0] == "H" && f[1] == "mark":
		l.mark = f[2] == "1"
	case len(f) == 3 && f[0] == "K":
		n, err := strconv.ParseUint(f[2], 10, 32)
		if err != nil {
			return false
		}
		l.classCount[l.classID(f[1])] = uint32(n)
		l.classTotal += float64(n)
	case len(f) == 3 && f[0] == "X":
		if l.suffixes == nil {
			l.suffixes = make(map[string]string, 100_000)
		}
		l.suffixes[f[1]] = f[2]
	case len(f) == 1 && f[0] == "":
	default:
		return false
	}
	return true
}

// splitTabs splits s at tabs into f and returns the number of fields, or
// len(f)+1 when there are more fields than f holds.
func splitTabs(s string, f []string) int {
	n := 0
	for {
		i := strings.IndexByte(s, '\t')
		if n == len(f) {
			return n + 1
		}
		if i < 0 {
			f[n] = s
			return n + 1
		}
		f[n], s = s[:i], s[i+1:]
		n++
	}
}

func pairKey(v, w int32) uint64 { return uint64(uint32(v))<<32 | uint64(uint32(w)) }
