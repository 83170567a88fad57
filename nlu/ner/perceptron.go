package ner

import (
	"cmp"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrFormat is returned for malformed training data or model files.
var ErrFormat = errors.New("ner: bad format")

// Tagger is a greedy left-to-right averaged-perceptron sequence tagger over
// IOB2 tags. It is safe for concurrent use once trained or loaded.
type Tagger struct {
	tags  []string
	types []string // tag index → entity type ("" for O)
	begin []bool   // tag index → is B-
	index map[uint64]int32
	w     []float32 // rows × len(tags)
	gaz   *gazetteer
	ext   *extGazetteer   // external names (package gazetteer), never nil once trained or loaded
	lower map[string]bool // words seen lower-cased in training text
	dense *denseLayer     // contextual word-vector weights; nil for a lexical-only tagger
}

// TrainOptions configures Train.
type TrainOptions struct {
	// Epochs over the training sentences; default 10.
	Epochs int
	// Seed for the shuffling; fixed by default so training is deterministic.
	Seed uint64
	// Folds for cross-fold gazetteer features; default 2.
	Folds int
	// Vectors, when set, holds one contextual vector per word of each
	// sentence (Vectors[i][j] for sents[i].Words[j], all of one length):
	// the tagger then learns a linear layer over them beside the lexical
	// features, and tags with TagVectors.
	Vectors [][][]float32
	// Model names the embedding model of Vectors; stored in the tagger.
	Model string
	// DenseScale multiplies the standardized vectors; default 0.1 (chosen
	// on CoNLL-2003 valid.txt: 0.903 at 0.03, 0.910 at 0.05, 0.914 at 0.1,
	// 0.912 at 0.17, 0.908 at 0.3, 0.896 at 1).
	DenseScale float32
	// DenseWindow is how many neighbours on each side of a word add their
	// vectors to its own; default 0.
	DenseWindow int
}

// Train fits a Tagger on sentences. Gazetteer features during training come
// from the other folds' entities (so the tagger does not learn to trust a
// gazetteer that always contains the answer); the tagger keeps a gazetteer
// of all training entities for tagging. Training is the averaged
// perceptron (perceptronTrainer) over opts.Epochs shuffled passes.
func Train(sents []Sentence, opts TrainOptions) (*Tagger, error) {
	opts.Epochs = cmp.Or(opts.Epochs, 10)
	opts.Folds = cmp.Or(opts.Folds, 2)
	if len(sents) == 0 {
		return nil, ErrFormat
	}
	t, err := untrainedTagger(sents, opts)
	if err != nil {
		return nil, err
	}
	foldGaz := foldGazetteers(sents, opts.Folds)
	p := newPerceptronTrainer(t)
	order := make([]int, len(sents))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(opts.Seed, 7))
	for ep := 0; ep < opts.Epochs; ep++ {
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, si := range order {
			s := sents[si]
			var vecs [][]float32
			if t.dense != nil {
				vecs = opts.Vectors[si]
				if len(vecs) != len(s.Words) {
					return nil, fmt.Errorf("ner: train: sentence %d has %d words and %d vectors: %w", si, len(s.Words), len(vecs), ErrFormat)
				}
			}
			p.sentence(s, t.newContext(s.Words, foldGaz[s.Doc%opts.Folds]), vecs)
		}
	}
	p.average()
	return t, nil
}

// untrainedTagger returns a tagger with zero weights: the tag set of
// sents, the words they hold lower-cased, the gazetteers (external and of
// all training entities), and, with opts.Vectors, a dense layer.
func untrainedTagger(sents []Sentence, opts TrainOptions) (*Tagger, error) {
	ext, err := englishGazetteer()
	if err != nil {
		return nil, err
	}
	t := &Tagger{index: map[uint64]int32{}, ext: ext}
	tagSet := map[string]bool{"O": true}
	for _, s := range sents {
		for _, g := range s.Tags {
			tagSet[g] = true
		}
	}
	t.setTags(sortedKeys(tagSet))
	t.lower = lowerWords(sents)
	t.gaz = buildGazetteer(sents)
	if opts.Vectors != nil {
		if len(opts.Vectors) != len(sents) {
			return nil, fmt.Errorf("ner: train: %d vector sentences for %d sentences: %w", len(opts.Vectors), len(sents), ErrFormat)
		}
		d, err := newDenseLayer(opts.Vectors, len(t.tags), opts.DenseWindow, cmp.Or(opts.DenseScale, 0.1), opts.Model)
		if err != nil {
			return nil, err
		}
		t.dense = d
	}
	return t, nil
}

// foldGazetteers returns, for each of folds folds of sents (by document),
// the gazetteer of the other folds' entities.
func foldGazetteers(sents []Sentence, folds int) []*gazetteer {
	foldGaz := make([]*gazetteer, folds)
	for f := range foldGaz {
		var other []Sentence
		for _, s := range sents {
			if s.Doc%folds != f {
				other = append(other, s)
			}
		}
		foldGaz[f] = buildGazetteer(other)
	}
	return foldGaz
}

// perceptronTrainer trains a tagger's weights by the averaged perceptron:
// beside the weights it accumulates each update times the step at which
// it was made (u for the lexical rows, du for the dense layer), so that
// average can turn the final weights into the average over all steps.
type perceptronTrainer struct {
	t      *Tagger
	tagIdx map[string]int
	u, du  []float32
	c      float32 // the step, from 1
	feats  []uint64
	scores []float32
	xbuf   []float32
}

// newPerceptronTrainer returns a trainer of t's weights.
func newPerceptronTrainer(t *Tagger) *perceptronTrainer {
	p := &perceptronTrainer{t: t, tagIdx: map[string]int{}, c: 1,
		feats: make([]uint64, 0, 64), scores: make([]float32, len(t.tags))}
	for i, g := range t.tags {
		p.tagIdx[g] = i
	}
	if t.dense != nil {
		p.du = make([]float32, len(t.dense.w))
		p.xbuf = make([]float32, t.dense.width())
	}
	return p
}

// sentence tags s left to right in ctx (vecs are its words' vectors, nil
// without a dense layer) and, at each word tagged wrongly, moves the
// weights of its features towards the gold tag and away from the
// predicted one.
func (p *perceptronTrainer) sentence(s Sentence, ctx *sentence, vecs [][]float32) {
	t := p.t
	T := len(t.tags)
	c := p.c
	for i := range s.Words {
		p.feats = ctx.features(i, p.feats[:0])
		var x []float32
		if vecs != nil {
			x = t.dense.input(p.xbuf, vecs, i)
		}
		pred := t.best(p.feats, x, p.scores, ctx.prevTag(i))
		gold := p.tagIdx[s.Tags[i]]
		if pred != gold && x != nil {
			D := t.dense.width()
			wg, wp := t.dense.w[gold*D:(gold+1)*D], t.dense.w[pred*D:(pred+1)*D]
			ug, up := p.du[gold*D:(gold+1)*D], p.du[pred*D:(pred+1)*D]
			for k, v := range x {
				wg[k] += v
				wp[k] -= v
				ug[k] += c * v
				up[k] -= c * v
			}
		}
		if pred != gold {
			for _, f := range p.feats {
				row, ok := t.index[f]
				if !ok {
					row = int32(len(t.index))
					t.index[f] = row
					t.w = append(t.w, make([]float32, T)...)
					p.u = append(p.u, make([]float32, T)...)
				}
				o := int(row) * T
				t.w[o+gold]++
				t.w[o+pred]--
				p.u[o+gold] += c
				p.u[o+pred] -= c
			}
		}
		ctx.tags[i] = pred
		c++
	}
	p.c = c
}

// average replaces the weights by their average over all steps.
func (p *perceptronTrainer) average() {
	t := p.t
	for i := range t.w {
		t.w[i] -= p.u[i] / p.c
	}
	for i := range p.du {
		t.dense.w[i] -= p.du[i] / p.c
	}
}

// setTags sets the tag set and, per tag, its entity type and whether it
// begins a name.
func (t *Tagger) setTags(tags []string) {
	t.tags = tags
	t.types = make([]string, len(tags))
	t.begin = make([]bool, len(tags))
	for i, g := range tags {
		if len(g) > 2 {
			t.types[i] = g[2:]
			t.begin[i] = g[0] == 'B'
		}
	}
}

// best returns the highest-scoring tag allowed after prev (I-X only after
// B-X or I-X).
func (t *Tagger) best(feats []uint64, x, scores []float32, prev int) int {
	T := len(t.tags)
	for j := range scores {
		scores[j] = 0
	}
	if x != nil {
		D := len(x)
		for j := range scores {
			scores[j] = dot(t.dense.w[j*D:(j+1)*D], x)
		}
	}
	for _, f := range feats {
		if row, ok := t.index[f]; ok {
			w := t.w[int(row)*T : int(row)*T+T]
			for j := range scores {
				scores[j] += w[j]
			}
		}
	}
	best, bestScore := -1, float32(0)
	for j, sc := range scores {
		if t.types[j] != "" && !t.begin[j] && (prev < 0 || t.types[prev] != t.types[j]) {
			continue
		}
		if best < 0 || sc > bestScore {
			best, bestScore = j, sc
		}
	}
	return best
}

// Tag returns one IOB2 tag per word. A tagger with a contextual layer
// (Contextual reports its model) tags without it here, less accurately:
// use TagVectors.
func (t *Tagger) Tag(words []string) []string {
	return t.TagVectors(words, nil)
}

// TagVectors returns one IOB2 tag per word, using vecs (one contextual
// vector per word from the embedding model Contextual names) when the
// tagger has a contextual layer and vecs has one vector of its length per
// word; otherwise the lexical features alone.
func (t *Tagger) TagVectors(words []string, vecs [][]float32) []string {
	if t.dense == nil || len(vecs) != len(words) {
		vecs = nil
	}
	for _, v := range vecs {
		if len(v) != t.dense.dim {
			vecs = nil // vectors of another model: the lexical features alone
			break
		}
	}
	ctx := t.newContext(words, t.gaz)
	feats := make([]uint64, 0, 64)
	scores := make([]float32, len(t.tags))
	out := make([]string, len(words))
	var xbuf []float32
	if vecs != nil {
		xbuf = make([]float32, t.dense.width())
	}
	for i := range words {
		feats = ctx.features(i, feats[:0])
		var x []float32
		if vecs != nil {
			x = t.dense.input(xbuf, vecs, i)
		}
		p := t.best(feats, x, scores, ctx.prevTag(i))
		ctx.tags[i] = p
		out[i] = t.tags[p]
	}
	return out
}

// Tags returns the tag set.
func (t *Tagger) Tags() []string { return t.tags }

// sentence holds per-sentence precomputed word forms.
type sentence struct {
	t      *Tagger
	words  []string
	lower  []string
	shapes []string
	gazB   []string // per word: gazetteer span tag ("B-PER", "I-LOC", "")
	extB   []string // per word: external gazetteer span ("B:city|first", "")
	extW   []string // per word: classes of the word alone ("first", "")
	tags   []int
}

func (t *Tagger) newContext(words []string, gaz *gazetteer) *sentence {
	c := &sentence{t: t, words: words, lower: make([]string, len(words)), shapes: make([]string, len(words)), tags: make([]int, len(words))}
	for i, w := range words {
		c.lower[i] = strings.ToLower(w)
		c.shapes[i] = shape(w)
		c.tags[i] = -1
	}
	c.gazB = gaz.tag(words)
	c.extB, c.extW = t.ext.tag(words)
	return c
}

func (c *sentence) prevTag(i int) int {
	if i == 0 {
		return -1
	}
	return c.tags[i-1]
}

func (c *sentence) word(i int) string {
	if i < 0 {
		return "<s>"
	}
	if i >= len(c.words) {
		return "</s>"
	}
	return c.lower[i]
}

func (c *sentence) shapeAt(i int) string {
	if i < 0 || i >= len(c.words) {
		return "<b>"
	}
	return c.shapes[i]
}

func (c *sentence) tagName(i int) string {
	if i < 0 || c.tags[i] < 0 {
		return "<s>"
	}
	return c.t.tags[c.tags[i]]
}

// features appends the feature hashes of word i to dst.
func (c *sentence) features(i int, dst []uint64) []uint64 {
	w, l, s := c.words[i], c.lower[i], c.shapes[i]
	dst = append(dst, hash(0, ""), hash(1, l), hash(2, w), hash(3, s), hash(4, shortShape(s)))
	r := []rune(l)
	for k := 1; k <= 4 && k <= len(r); k++ {
		dst = append(dst, hash(5+byte(k), string(r[:k])), hash(10+byte(k), string(r[len(r)-k:])))
	}
	p1, p2 := c.tagName(i-1), c.tagName(i-2)
	dst = append(dst,
		hash(20, c.word(i-1)), hash(21, c.word(i+1)), hash(22, c.word(i-2)), hash(23, c.word(i+2)),
		hash(24, c.shapeAt(i-1)), hash(25, c.shapeAt(i+1)),
		hash(26, p1), hash2(27, p1, p2), hash2(28, p1, l),
		hash2(29, c.word(i-1), l), hash2(30, l, c.word(i+1)),
		hash2(31, c.shapeAt(i-1), s), hash2(32, s, c.shapeAt(i+1)),
		hash2(40, c.gazB[i], s), hash(41, c.gazB[i]), hash2(42, c.gazB[i], p1),
	)
	e := c.extB[i]
	dst = append(dst, hash(45, e), hash2(46, e, shortShape(s)), hash2(47, e, p1), hash(48, c.extW[i]))
	if i > 0 {
		dst = append(dst, hash(49, c.extB[i-1]), hash2(50, c.extW[i-1], c.extW[i]))
	} else {
		dst = append(dst, hash(51, e))
	}
	if i+1 < len(c.words) {
		dst = append(dst, hash(52, c.extB[i+1]), hash2(53, c.extW[i], c.extW[i+1]))
	}
	if i > 0 {
		dst = append(dst, hash(43, c.gazAt(i-1)))
	}
	if i+1 < len(c.words) {
		dst = append(dst, hash(44, c.gazAt(i+1)))
	}
	if i == 0 {
		dst = append(dst, hash(33, s))
	}
	if isCap(w) && c.t.lower[l] {
		dst = append(dst, hash2(34, "lc", shortShape(s)))
	}
	if strings.ContainsRune(w, '-') {
		dst = append(dst, hash(35, "hyphen"))
	}
	return dst
}

func (c *sentence) gazAt(i int) string { return c.gazB[i] }

func isCap(w string) bool {
	r, _ := utf8.DecodeRuneInString(w)
	return unicode.IsUpper(r)
}

func shape(w string) string {
	var b strings.Builder
	n := 0
	for _, r := range w {
		n++
		if n > 12 {
			break
		}
		switch {
		case unicode.IsUpper(r):
			b.WriteByte('X')
		case unicode.IsLower(r):
			b.WriteByte('x')
		case unicode.IsDigit(r):
			b.WriteByte('d')
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func shortShape(s string) string {
	var b strings.Builder
	var last rune = -1
	for _, r := range s {
		if r != last {
			b.WriteRune(r)
			last = r
		}
	}
	return b.String()
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func hash(tpl byte, s string) uint64 {
	h := uint64(fnvOffset)
	h = (h ^ uint64(tpl)) * fnvPrime
	for i := 0; i < len(s); i++ {
		h = (h ^ uint64(s[i])) * fnvPrime
	}
	return h
}

func hash2(tpl byte, a, b string) uint64 {
	h := hash(tpl, a)
	h = (h ^ 0xff) * fnvPrime
	for i := 0; i < len(b); i++ {
		h = (h ^ uint64(b[i])) * fnvPrime
	}
	return h
}

func lowerWords(sents []Sentence) map[string]bool {
	m := map[string]bool{}
	for _, s := range sents {
		for i, w := range s.Words {
			if i > 0 && w != "" && !isCap(w) {
				m[w] = true
			}
		}
	}
	return m
}

// gazetteer maps entity phrases (space-joined words) to their most frequent
// type.
type gazetteer struct {
	phrases map[string]string
	maxLen  int
}

func buildGazetteer(sents []Sentence) *gazetteer {
	counts := map[string]map[string]int{}
	g := &gazetteer{phrases: map[string]string{}}
	for _, s := range sents {
		for _, sp := range Spans(s.Tags) {
			p := strings.Join(s.Words[sp.Start:sp.End], " ")
			if counts[p] == nil {
				counts[p] = map[string]int{}
			}
			counts[p][sp.Type]++
			g.maxLen = max(g.maxLen, sp.End-sp.Start)
		}
	}
	for p, c := range counts {
		best, bn := "", 0
		for _, typ := range sortedKeys(c) {
			if c[typ] > bn {
				best, bn = typ, c[typ]
			}
		}
		g.phrases[p] = best
	}
	return g
}

// tag marks the leftmost-longest gazetteer phrases in words.
func (g *gazetteer) tag(words []string) []string {
	out := make([]string, len(words))
	markLongest(words, g.maxLen, g.phrases, "B-", "I-", out)
	return out
}

// markLongest marks in out the leftmost-longest phrases of words (up to
// maxLen words) found in phrases: the first word of each begin+class, the
// others inside+class.
func markLongest(words []string, maxLen int, phrases map[string]string, begin, inside string, out []string) {
	for i := 0; i < len(words); {
		found := 0
		for n := min(maxLen, len(words)-i); n >= 1; n-- {
			if cls, ok := phrases[strings.Join(words[i:i+n], " ")]; ok {
				out[i] = begin + cls
				for k := i + 1; k < i+n; k++ {
					out[k] = inside + cls
				}
				found = n
				break
			}
		}
		i += max(found, 1)
	}
}

func sortedKeys[V any](m map[string]V) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}
