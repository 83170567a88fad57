package diacritics

import (
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/najdi/najdi/text"
)

// Smoothing constants of the word-pair model (see the package doc).
const (
	// pairPrior is μ in P(w|v) = (c(v,w) + μ·P(w)) / (c(v) + μ): how many
	// corpus observations of v it takes before pair counts outweigh the
	// unigram frequency.
	pairPrior = 200.0
	// classWeight scales the ending-class PMI added to each transition;
	// classPrior smooths the class pair probabilities like pairPrior and
	// classFloor bounds the penalty of class pairs never seen together.
	classWeight = 0.7
	classPrior  = 100.0
	classFloor  = -3.0
	// classWordPrior is ν, the prior weight of a form's unigram share of
	// its key against its share after (or before) words of an ending
	// class (see classPrior and nextClassShare).
	classWordPrior = 5.0
	// nextClassWeight scales the log share of a form given the ending
	// class of the next word.
	nextClassWeight = 1.0
	// vocabularyShare is the weight of a collection's own vocabulary
	// against the built-in lexicon in a word's unigram probability.
	vocabularyShare = 0.5
)

// Restorer restores Czech diacritics in text typed without them. It is
// immutable and safe for concurrent use.
type Restorer struct {
	lex *lexicon
	// vocab overrides the candidate lists of keys found in a collection's
	// vocabulary (see WithVocabulary); nil for the built-in lexicon alone.
	vocab map[string][]candidate
	// dict knows word forms missing from the lexicon, and the letter case
	// of proper names; nil if none.
	dict FormLookup
	// names are multiword proper names (WithNames); nil if none.
	names *names
}

// candidate is one possible form of a folded word.
type candidate struct {
	form string
	id   int32   // lexicon id, -1 when the form comes only from a vocabulary
	cls  int32   // ending class id, -1 if unknown
	tcls int32   // class as the predicted word of a pair (lexicon.targetClass)
	end  int32   // cls, or the ending class of a word with its own class
	tend int32   // tcls, likewise: the backoff for class pairs never seen
	p    float64 // unigram probability
}

var (
	defaultOnce     sync.Once
	defaultRestorer *Restorer
	defaultErr      error
)

// Default returns the restorer backed by the built-in lexicon (embedded in
// the binary, decoded on first use: about 0.5 s of CPU, 150 MB allocated).
func Default() (*Restorer, error) {
	defaultOnce.Do(func() {
		lex, err := parseLexicon(lexiconGz)
		if err != nil {
			defaultErr = err
			return
		}
		r := &Restorer{lex: lex}
		if dir := DictionaryDir(); dir != "" {
			d, err := OpenDictionary(dir)
			if err != nil {
				defaultErr = err
				return
			}
			r.dict = d
		}
		defaultRestorer = r
	})
	return defaultRestorer, defaultErr
}

// WithVocabulary returns a restorer that also knows a collection's own word
// forms (form → count, any case). Forms are lowercased; a form's
// probability mixes its share of the collection with its lexicon
// probability, so names and terms frequent in the collection win there.
// r is not modified.
func (r *Restorer) WithVocabulary(words map[string]int) *Restorer {
	var total float64
	counts := make(map[string]int, len(words))
	for w, n := range words {
		if n <= 0 || !isCzechWord(w) {
			continue
		}
		w = strings.ToLower(w)
		counts[w] += n
		total += float64(n)
	}
	nr := &Restorer{lex: r.lex, vocab: make(map[string][]candidate), dict: r.dict, names: r.names}
	for k, cs := range r.vocab {
		nr.vocab[k] = cs
	}
	if total == 0 {
		return nr
	}
	byKey := make(map[string][]string)
	for w := range counts {
		k := fold(w)
		byKey[k] = append(byKey[k], w)
	}
	for k, ws := range byKey {
		old := nr.candidates(k)
		if len(old) == 0 && len(ws) == 1 && ws[0] == k {
			continue // plain word without alternatives: nothing to restore
		}
		merged := make([]candidate, 0, len(old)+len(ws))
		seen := make(map[string]int, len(old))
		for _, c := range old {
			seen[c.form] = len(merged)
			c.p *= 1 - vocabularyShare
			merged = append(merged, c)
		}
		for _, w := range ws {
			p := vocabularyShare * float64(counts[w]) / total
			if i, ok := seen[w]; ok {
				merged[i].p += p
				continue
			}
			merged = append(merged, nr.lex.cand(w, -1, p))
		}
		nr.vocab[k] = merged
	}
	return nr
}

// candidates returns the forms of the folded key k.
func (r *Restorer) candidates(k string) []candidate {
	if cs, ok := r.vocab[k]; ok {
		return cs
	}
	ids := r.lex.cands[k]
	if len(ids) == 0 {
		return nil
	}
	cs := make([]candidate, len(ids))
	for i, id := range ids {
		f := r.lex.forms[id]
		cs[i] = r.lex.cand(f, id, r.lex.uni[id])
	}
	return cs
}

// Restore returns query with Czech diacritics restored and whether anything
// changed. Words that already carry diacritics, numbers and words without a
// known accented form are left as typed; the letter case of each character,
// punctuation and spacing are preserved, except that a query typed entirely
// in lowercase gets the capitals of proper names (see the package doc,
// "Letter case"). Each word's form is chosen by a Viterbi search over the
// query maximising unigram × smoothed word-pair probabilities; a comma
// between words is a word of the model, and sentence punctuation such as
// '.', ';' or ':' cuts the context.
func (r *Restorer) Restore(query string) (restored string, changed bool) {
	if r == nil || r.lex == nil {
		return query, false
	}
	spans := text.Words(query)
	if len(spans) == 0 {
		return query, false
	}
	slots := r.lattice(query, spans)
	choice := r.viterbi(slots)
	out := r.restoredWords(query, spans, slots, choice)
	r.names.apply(query, spans, out, r.lowerWords(query, spans))
	return splice(query, spans, out)
}

// slot is one position of the Viterbi lattice: a word of the query, or a
// comma between two words.
type slot struct {
	cands []candidate
	// score and back are Viterbi tables per candidate.
	score []float64
	back  []int
	cut   bool // context is cut before this word
	free  bool // the word may change
	span  int  // index into spans, -1 for a comma
}

// lattice builds the slots of the query's words (spans): the candidate
// forms of each word that may change (lowercase ASCII words the lexicon or
// the dictionary can restore), the word itself otherwise, a comma slot
// between words a comma separates, and a cut where sentence punctuation
// breaks the context.
func (r *Restorer) lattice(query string, spans []text.Span) []slot {
	slots := make([]slot, 0, len(spans)+2)
	comma := r.lex.cand(",", -1, 1)
	if id, ok := r.lex.ids[","]; ok {
		comma.id = id
	}
	for i, sp := range spans {
		w := query[sp.Start:sp.End]
		cut := false
		if i > 0 {
			gap := query[spans[i-1].End:sp.Start]
			cut = strings.ContainsAny(gap, ".!?;:()[]\"„“”…")
			if !cut && strings.Contains(gap, ",") {
				// Commas are words of the model (", že" vs "ze dne").
				slots = append(slots, slot{cands: []candidate{comma}, span: -1, score: make([]float64, 1), back: make([]int, 1)})
			}
		}
		s := slot{cut: cut, span: i}
		lw := strings.ToLower(w)
		if isASCIILetters(w) {
			if cs := r.candidates(lw); len(cs) > 0 {
				s.cands, s.free = cs, true
			} else if _, known := r.lex.ids[lw]; !known {
				if cs := r.unknownCandidates(lw); len(cs) > 0 {
					s.cands, s.free = cs, true
				}
			}
		}
		if s.cands == nil {
			id := int32(-1)
			if v, ok := r.lex.ids[lw]; ok {
				id = v
			}
			s.cands = []candidate{r.lex.cand(lw, id, 1)}
		}
		s.score = make([]float64, len(s.cands))
		s.back = make([]int, len(s.cands))
		slots = append(slots, s)
	}
	return slots
}

// viterbi fills the slots' tables and returns the best candidate of each
// slot: unigram × smoothed word-pair probabilities, with the class priors.
func (r *Restorer) viterbi(slots []slot) []int {
	for i := range slots {
		s := &slots[i]
		for j, c := range s.cands {
			if i == 0 {
				s.score[j] = math.Log(c.p)
				continue
			}
			prev := &slots[i-1]
			best, arg := math.Inf(-1), 0
			for k, pv := range prev.cands {
				v := prev.score[k] + r.logTrans(pv, c, r.classPrior(pv, s.cands, j), s.cut)
				if !s.cut {
					v += r.nextClassShare(prev.cands, k, c)
				}
				if v > best {
					best, arg = v, k
				}
			}
			s.score[j], s.back[j] = best, arg
		}
	}
	last := &slots[len(slots)-1]
	arg := 0
	for j := range last.score {
		if last.score[j] > last.score[arg] {
			arg = j
		}
	}
	choice := make([]int, len(slots))
	for i := len(slots) - 1; i >= 0; i-- {
		choice[i] = arg
		arg = slots[i].back[arg]
	}
	return choice
}

// restoredWords returns each word of the query as restored (choice per
// slot), in the letter case typed; when the whole query is typed in
// lowercase, lowercase ASCII words also get the capitals of proper names.
func (r *Restorer) restoredWords(query string, spans []text.Span, slots []slot, choice []int) []string {
	out := make([]string, len(spans))
	caseless := !hasUpper(query)
	for i, sl := range slots {
		if sl.span < 0 {
			continue
		}
		sp := spans[sl.span]
		w := query[sp.Start:sp.End]
		out[sl.span] = w
		if sl.free {
			out[sl.span] = applyCase(sl.cands[choice[i]].form, w)
		}
		if caseless && isASCIILetters(w) {
			if pc, ok := r.properCase(out[sl.span]); ok {
				out[sl.span] = pc
			}
		}
	}
	return out
}

// lowerWords marks the words typed in lowercase ASCII in a query typed
// entirely in lowercase: restoration may set their letter case (a query
// with capitals keeps its letter case as typed).
func (r *Restorer) lowerWords(query string, spans []text.Span) []bool {
	lower := make([]bool, len(spans))
	if hasUpper(query) {
		return lower
	}
	for i, sp := range spans {
		lower[i] = isASCIILetters(query[sp.Start:sp.End])
	}
	return lower
}

// splice returns query with each word (spans) replaced by out, keeping
// everything between words, and whether any word changed.
func splice(query string, spans []text.Span, out []string) (string, bool) {
	var sb strings.Builder
	prevEnd, changed := 0, false
	for i, sp := range spans {
		w := query[sp.Start:sp.End]
		if out[i] == w {
			continue
		}
		sb.WriteString(query[prevEnd:sp.Start])
		sb.WriteString(out[i])
		prevEnd = sp.End
		changed = true
	}
	if !changed {
		return query, false
	}
	sb.WriteString(query[prevEnd:])
	return sb.String(), true
}

// unknownCandidates returns the forms of a lowercase ASCII word missing
// from the lexicon, or nil when nothing knows one. With no dictionary, or
// when the dictionary does not know the word, that is the ending-rule form
// (words of five letters or more). Otherwise the dictionary's forms, of
// which the ending-rule form wins when it is one, else the word as typed
// when it is one and no rule applies; left to the context are the forms
// that share the longest ending with the rule form (all of them without
// one): "vymachani" → vymáchání rather than vymáchaní for the rule ending
// "-ání".
func (r *Restorer) unknownCandidates(lw string) []candidate {
	var fx string
	if len(lw) >= 5 {
		fx = restoreUnknown(r.lex.suffixes, lw)
	}
	one := func(f string) []candidate {
		return []candidate{r.lex.cand(f, -1, 1)}
	}
	fs := r.dictForms(lw)
	if len(fs) == 0 {
		if fx == "" {
			return nil
		}
		return one(fx)
	}
	if fx == "" {
		if _, ok := slices.BinarySearch(fs, lw); ok {
			return one(lw)
		}
	} else if _, ok := slices.BinarySearch(fs, fx); ok {
		return one(fx)
	} else if len(fs) > 1 {
		fs = closestEndings(fs, fx)
	}
	alternate := lastLettersDiffer(len(fs), func(i int) string { return fs[i] })
	cs := make([]candidate, len(fs))
	for i, f := range fs {
		cs[i] = r.lex.cand(f, -1, 1)
		if alternate {
			cs[i].tcls = r.lex.markedClass(f, cs[i].cls)
			cs[i].tend = cs[i].tcls
		}
	}
	return cs
}

// logTrans scores c after prev: log P(c | prev), the smoothed pair
// probability when both are lexicon words and the context is not cut (the
// unigram probability otherwise), plus the weighted ending-class PMI. A
// frequent word whose own class never followed prev's class is scored by
// its ending class instead, like the forms of its key that have no class
// of their own ("jejich" is weighed against "jejích" by the endings, not
// by a sparse "=jejich" class against a dense "ch").
func (r *Restorer) logTrans(prev, c candidate, pc float64, cut bool) float64 {
	if cut {
		return math.Log(c.p)
	}
	lp := math.Log(pc)
	if prev.id >= 0 && c.id >= 0 {
		n := float64(r.lex.pairs[pairKey(prev.id, c.id)])
		ctx := float64(r.lex.ctx[prev.id])
		lp = math.Log((n + pairPrior*pc) / (ctx + pairPrior))
	}
	if prev.cls >= 0 && c.tcls >= 0 {
		l := r.lex
		t := c.tcls
		n := float64(l.classPairs[pairKey(prev.cls, t)])
		if n == 0 && c.tend >= 0 && c.tend != t {
			// Never seen after this class: back off to the ending.
			t = c.tend
			n = float64(l.classPairs[pairKey(prev.cls, t)])
		}
		pb := (float64(l.classCount[t]) + 1) / (l.classTotal + float64(len(l.classCount)))
		ctx := float64(l.classCount[prev.cls])
		lp += classWeight * max(classFloor, math.Log((n+classPrior*pb)/(ctx+classPrior)/pb))
	}
	return lp
}

// classPrior returns the unigram probability of cs[j] reweighted by the
// ending class of the previous word v: the key's probability P(k) (the sum
// over cs) times the form's share of the key after words of that class,
// (c(class(v), w) + ν·P(w)/P(k)) / (c(class(v), k) + ν). When v is a
// frequent word with its own class and no form of the key was ever seen
// after it, v's ending class stands in.
func (r *Restorer) classPrior(v candidate, cs []candidate, j int) float64 {
	c := cs[j]
	if len(cs) < 2 || v.cls < 0 || c.id < 0 {
		return c.p
	}
	cls, nk, pk := r.keyClass(r.lex.classWords, cs, v, false)
	n := float64(r.lex.classWords[pairKey(cls, c.id)])
	return pk * (n + classWordPrior*c.p/pk) / (nk + classWordPrior)
}

// nextClassShare returns the log of how much more often form vs[k] is
// followed by a word of the ending class of c than its share of the key
// predicts: log((c(v, class) + ν·s) / (c(k, class) + ν) / s) with s the
// unigram share of v among the forms vs of its key. A next word with its
// own class that never followed any form of the key is replaced by its
// ending class.
func (r *Restorer) nextClassShare(vs []candidate, k int, c candidate) float64 {
	v := vs[k]
	if len(vs) < 2 || c.cls < 0 || v.id < 0 {
		return 0
	}
	cls, nk, pk := r.keyClass(r.lex.wordClasses, vs, c, true)
	share := v.p / pk
	n := float64(r.lex.wordClasses[pairKey(v.id, cls)])
	return nextClassWeight * math.Log((n+classWordPrior*share)/(nk+classWordPrior)/share)
}

// keyClass returns the class of the neighbouring word nb that the forms
// cs of one key are counted with in table (see classKeyCount): nb's own
// class, or its ending class when no form of the key met the own one;
// the key's count with that class, and the key's probability (the sum
// over cs).
func (r *Restorer) keyClass(table map[uint64]uint32, cs []candidate, nb candidate, formFirst bool) (cls int32, nk, pk float64) {
	cls = nb.cls
	nk = r.classKeyCount(table, cs, cls, formFirst)
	if nk == 0 && nb.end >= 0 && nb.end != cls {
		cls = nb.end
		nk = r.classKeyCount(table, cs, cls, formFirst)
	}
	for _, o := range cs {
		pk += o.p
	}
	return cls, nk, pk
}

// classKeyCount sums the counts in table of the forms cs of one key with
// class cls: table[cls<<32|form], or table[form<<32|cls] when formFirst.
func (r *Restorer) classKeyCount(table map[uint64]uint32, cs []candidate, cls int32, formFirst bool) float64 {
	var n float64
	for _, o := range cs {
		if o.id < 0 {
			continue
		}
		if formFirst {
			n += float64(table[pairKey(o.id, cls)])
		} else {
			n += float64(table[pairKey(cls, o.id)])
		}
	}
	return n
}

// applyCase copies the letter case of typed onto form rune by rune (both
// have the same number of runes: form folds to typed).
func applyCase(form, typed string) string {
	if utf8.RuneCountInString(form) != utf8.RuneCountInString(typed) {
		return typed
	}
	var sb strings.Builder
	sb.Grow(len(form))
	i := 0
	for _, t := range typed {
		f, n := utf8.DecodeRuneInString(form[i:])
		i += n
		if unicode.IsUpper(t) {
			f = unicode.ToUpper(f)
		}
		sb.WriteRune(f)
	}
	return sb.String()
}

func isASCIILetters(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i] | 0x20
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return s != ""
}

// isCzechWord reports whether w is made of letters of the Czech alphabet.
func isCzechWord(w string) bool {
	for _, r := range strings.ToLower(w) {
		if !('a' <= r && r <= 'z') && !strings.ContainsRune("áčďéěíňóřšťúůýž", r) {
			return false
		}
	}
	return w != ""
}

// fold is the lexicon key of a lowercase form.
func fold(s string) string { return text.Fold(s) }

// centibels converts a wordfreq centibel value to a probability.
func centibels(cb int) float64 { return math.Pow(10, -float64(cb)/100) }

// closestEndings returns the forms of fs that share the longest ending
// with ref (counted in runes from the end).
func closestEndings(fs []string, ref string) []string {
	best, out := -1, fs[:0:0]
	for _, f := range fs {
		n := commonSuffixRunes(f, ref)
		switch {
		case n > best:
			best, out = n, append(out[:0], f)
		case n == best:
			out = append(out, f)
		}
	}
	return out
}

func commonSuffixRunes(a, b string) int {
	n := 0
	for a != "" && b != "" {
		ra, sa := utf8.DecodeLastRuneInString(a)
		rb, sb := utf8.DecodeLastRuneInString(b)
		if ra != rb {
			break
		}
		a, b = a[:len(a)-sa], b[:len(b)-sb]
		n++
	}
	return n
}
