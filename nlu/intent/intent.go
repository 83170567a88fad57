package intent

import (
	"context"
	"errors"
	"fmt"
	"math"
	"sort"
	"strings"
	"sync"
	"unicode"

	"github.com/najdi/najdi/nlu/token"
	"github.com/viterin/vek/vek32"
)

// ErrNoExamples is returned by Train when fewer than one intent has examples.
var ErrNoExamples = errors.New("intent: no training examples")

// Embedder returns one sentence embedding per text.
type Embedder func(ctx context.Context, texts []string) ([][]float32, error)

// Defaults of Options.
const (
	// DefaultLambda is the ridge regularization of the kernel head.
	DefaultLambda = 0.3
	// DefaultNgramWeight is the weight of the character n-gram kernel
	// when sentence embeddings are used (their kernel has weight 1).
	DefaultNgramWeight = 0.5
	// DefaultMaxFit bounds the examples the kernel head is fitted on (and
	// embedded): the fit costs O(n³), measured 2.4 s of CPU at 1500 and
	// 10.2 s at 2500 (scratch run, 2-core machine under load).
	DefaultMaxFit = 2500
	// DefaultOutOfScopeQuantile is the share of held-out in-scope
	// examples whose nearest-centroid similarity falls below the
	// out-of-scope point (where the in-scope factor is 0.5).
	DefaultOutOfScopeQuantile = 0.005
	// DefaultOutOfScopePrior is the weight of the pseudo out-of-scope
	// examples against the in-scope ones when the confidence is
	// calibrated (see the package documentation). Chosen on SNIPS
	// training draws and CoNLL-2003 valid sentences (docs/nlu.md): 0.25
	// let more out-of-scope text through on 7 intents, 1 and more
	// rejected in-scope text of many similar intents.
	DefaultOutOfScopePrior = 0.5
)

// Known-word evidence (knownShare): the share of a text's words that occur
// in the examples (folded; a word of more than stemRunes letters also by
// its first stemRunes) moves the confidence's log-odds by up to knownGain
// × (share − ½) (fitKnownGain), and a text with a share under knownShare
// has its confidence multiplied by unknownFloor (no known word) up to 1
// (share knownShare), linearly. Chosen on SNIPS training utterances held
// out from seeded training draws (5 to 100 per intent) and CoNLL-2003
// valid sentences (docs/nlu.md).
const (
	knownGain    = 2.0
	unknownFloor = 0.6
	knownShare   = 0.25
	stemRunes    = 4
)

// Options configures training. Zero fields take the documented defaults.
type Options struct {
	// Embedder adds sentence embeddings (optional; without it only the
	// n-gram kernel is used).
	Embedder Embedder
	// Lambda is the ridge regularization; default DefaultLambda.
	Lambda float64
	// NgramWeight weights the n-gram kernel against the embedding kernel;
	// default DefaultNgramWeight. Ignored without an Embedder.
	NgramWeight float64
	// MaxFit bounds the examples of the kernel system (an even share per
	// intent is kept when there are more); default DefaultMaxFit.
	MaxFit int
	// OutOfScopePrior weights pseudo out-of-scope examples in the
	// calibration; default DefaultOutOfScopePrior.
	OutOfScopePrior float64
	// OutOfScopeQuantile places the out-of-scope point; default
	// DefaultOutOfScopeQuantile.
	OutOfScopeQuantile float64
}

func (o Options) withDefaults() Options {
	if o.Lambda == 0 {
		o.Lambda = DefaultLambda
	}
	if o.NgramWeight == 0 {
		o.NgramWeight = DefaultNgramWeight
	}
	if o.MaxFit == 0 {
		o.MaxFit = DefaultMaxFit
	}
	if o.OutOfScopeQuantile == 0 {
		o.OutOfScopeQuantile = DefaultOutOfScopeQuantile
	}
	if o.OutOfScopePrior == 0 {
		o.OutOfScopePrior = DefaultOutOfScopePrior
	}
	return o
}

// maxConfidence caps every confidence.
const maxConfidence = 0.999

// Scored is one intent with its probability.
type Scored struct {
	Intent      string
	Probability float64
}

// Classifier is a trained intent classifier. It is safe for concurrent use.
type Classifier struct {
	opts    Options
	intents []string

	// n-gram space
	vocab    map[string]int32
	idf      []float32
	postings [][]posting // by feature id: training examples having it

	// embedding space (dim 0 without embeddings)
	dim  int
	mean []float32 // training mean, subtracted before normalizing
	wEmb []float32 // dim x k: E^T A, the embedding part in primal form

	n     int       // fitted examples
	alpha []float32 // n x k dual coefficients (for the n-gram kernel)
	wNg   float32   // n-gram kernel weight

	// calibration: confidence = sigmoid(calA*score + calC)
	calA, calC float64

	// out of scope: nearest-centroid cosine in the raw embedding space
	// (the n-gram space without embeddings); the in-scope factor is
	// sigmoid((s - oosT) / oosW)
	centroids  [][]float32 // k, L2-normalized (embedding space)
	ngCentroid [][]posting // by feature id: (intent, value) of the normalized n-gram centroids
	oosT, oosW float64

	// gain weighs the known-word share in the confidence (fitKnownGain)
	gain float64
	// stems holds the first stemRunes runes of the examples' words of
	// more than stemRunes runes (the whole words are in vocab as "w:")
	stems map[string]struct{}
}

type posting struct {
	doc int32
	v   float32
}

type feat struct {
	i int32
	v float32
}

// Train fits a classifier on examples (intent → utterances).
func Train(ctx context.Context, examples map[string][]string, opts Options) (*Classifier, error) {
	opts = opts.withDefaults()
	intents, texts, labels := pickExamples(examples, opts.MaxFit)
	if len(intents) == 0 {
		return nil, ErrNoExamples
	}
	c := &Classifier{opts: opts, intents: intents, n: len(texts), vocab: map[string]int32{}}
	k := len(intents)
	emb, err := c.embedExamples(ctx, texts, labels, k)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	xs := c.buildNgrams(texts)
	c.fitKnownWords()
	if emb == nil {
		c.fitNgramCentroids(xs, labels, k)
	}
	loo, err := c.fitKernel(ctx, xs, emb, labels, k)
	if err != nil {
		return nil, err
	}
	c.calibrate(loo, labels, k)
	c.fitKnownGain(loo, labels, k)
	return c, nil
}

// pickExamples returns the sorted intents that have examples and the
// examples to fit with their intent indexes: all of them, or an even
// share per intent (spread over each intent's list) when there are more
// than maxFit.
func pickExamples(examples map[string][]string, maxFit int) (intents, texts []string, labels []int) {
	for k, v := range examples {
		if len(v) > 0 {
			intents = append(intents, k)
		}
	}
	sort.Strings(intents)
	total := 0
	for _, in := range intents {
		total += len(examples[in])
	}
	share := math.MaxInt
	if total > maxFit {
		share = max(1, maxFit/len(intents))
	}
	for ci, in := range intents {
		utts := examples[in]
		if len(utts) > share {
			step := float64(len(utts)) / float64(share)
			picked := make([]string, share)
			for j := range picked {
				picked[j] = utts[int(float64(j)*step)]
			}
			utts = picked
		}
		for _, u := range utts {
			texts = append(texts, u)
			labels = append(labels, ci)
		}
	}
	return intents, texts, labels
}

// embedExamples embeds the examples once, fits the embedding centroids
// and the out-of-scope point (fitCentroids) and returns the examples'
// centered embeddings (nil without an Embedder).
func (c *Classifier) embedExamples(ctx context.Context, texts []string, labels []int, k int) ([][]float32, error) {
	if c.opts.Embedder == nil {
		c.wNg = 1
		return nil, nil
	}
	emb, err := c.opts.Embedder(ctx, texts)
	if err != nil {
		return nil, fmt.Errorf("intent: embed examples: %w", err)
	}
	if len(emb) != len(texts) {
		return nil, fmt.Errorf("intent: embedder returned %d vectors for %d texts", len(emb), len(texts))
	}
	c.dim = len(emb[0])
	for i := range emb {
		if len(emb[i]) != c.dim || c.dim == 0 {
			return nil, fmt.Errorf("intent: embedder returned vectors of different or zero dimension")
		}
	}
	raw := make([][]float32, len(emb))
	for i, e := range emb {
		raw[i] = normalized(e)
	}
	c.fitCentroids(raw, labels, k)
	c.mean = make([]float32, c.dim)
	for _, e := range emb {
		for d, v := range e {
			c.mean[d] += v / float32(len(emb))
		}
	}
	centered := make([][]float32, len(emb))
	for i, e := range emb {
		centered[i] = c.center(e)
	}
	c.wNg = float32(c.opts.NgramWeight)
	return centered, nil
}

// fitKernel solves the kernel ridge system over the n-gram vectors xs and
// the centered embeddings emb (nil without embeddings), keeps the dual
// coefficients (and the embedding part in primal form) and returns the
// leave-one-out scores, n×k.
func (c *Classifier) fitKernel(ctx context.Context, xs [][]feat, emb [][]float32, labels []int, k int) ([]float64, error) {
	n := len(xs)
	// Gram matrix of the combined kernel, plus lambda on the diagonal.
	g := make([]float64, n*n)
	c.ngramGram(xs, g)
	if emb != nil {
		parallelRows(n, func(i int) {
			for j := 0; j <= i; j++ {
				g[i*n+j] += float64(dot32(emb[i], emb[j]))
			}
		})
	}
	for i := range n {
		g[i*n+i] += c.opts.Lambda
		for j := 0; j < i; j++ {
			g[j*n+i] = g[i*n+j]
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := cholesky(g, n); err != nil {
		return nil, fmt.Errorf("intent: fit: %w", err)
	}
	// A = (K + lambda I)^-1 Y, Y one-hot.
	y := make([]float64, n*k)
	for i, l := range labels {
		y[i*k+l] = 1
	}
	alpha := append([]float64(nil), y...)
	cholSolve(g, n, alpha, k)
	// diag of (K + lambda I)^-1 for the leave-one-out scores.
	ginv := cholInverseDiag(g, n)
	c.alpha = make([]float32, n*k)
	for i, v := range alpha {
		c.alpha[i] = float32(v)
	}
	if emb != nil {
		c.wEmb = make([]float32, c.dim*k)
		for i, e := range emb {
			for d, v := range e {
				row := c.wEmb[d*k : d*k+k]
				for j := range row {
					row[j] += v * c.alpha[i*k+j]
				}
			}
		}
	}
	// Leave-one-out scores: y_i - A_i / G_ii.
	loo := make([]float64, n*k)
	for i := range n {
		for j := range k {
			loo[i*k+j] = y[i*k+j] - alpha[i*k+j]/ginv[i]
		}
	}
	return loo, nil
}

// fitCentroids keeps the normalized class centroids of the L2-normalized
// embeddings raw and places the out-of-scope point from every example's
// leave-one-out nearest-centroid similarity.
func (c *Classifier) fitCentroids(raw [][]float32, labels []int, k int) {
	dim := len(raw[0])
	sums := make([][]float64, k)
	for j := range sums {
		sums[j] = make([]float64, dim)
	}
	for i, e := range raw {
		for d, v := range e {
			sums[labels[i]][d] += float64(v)
		}
	}
	c.centroids = make([][]float32, k)
	norms := make([]float64, k)
	for j, s := range sums {
		n := 0.0
		for _, v := range s {
			n += v * v
		}
		norms[j] = math.Sqrt(n)
		c.centroids[j] = make([]float32, dim)
		for d, v := range s {
			c.centroids[j][d] = float32(v / norms[j])
		}
	}
	sims := make([]float64, len(raw))
	parallelRows(len(raw), func(i int) {
		e := raw[i]
		best := -1.0
		for j := range k {
			var s float64
			if j == labels[i] {
				dot := 0.0
				for d, v := range e {
					dot += float64(v) * sums[j][d]
				}
				// |S - e|² = |S|² - 2 e·S + 1
				n2 := norms[j]*norms[j] - 2*dot + 1
				if n2 < 1e-9 { // the intent's only example
					continue
				}
				s = (dot - 1) / math.Sqrt(n2)
			} else {
				s = float64(dot32(e, c.centroids[j]))
			}
			best = math.Max(best, s)
		}
		sims[i] = best
	})
	c.placeOutOfScope(sims)
}

// fitNgramCentroids is fitCentroids in the n-gram space, used without
// embeddings.
func (c *Classifier) fitNgramCentroids(xs [][]feat, labels []int, k int) {
	sums := make([]map[int32]float64, k)
	for j := range sums {
		sums[j] = map[int32]float64{}
	}
	for i, x := range xs {
		for _, f := range x {
			sums[labels[i]][f.i] += float64(f.v)
		}
	}
	norms := make([]float64, k)
	c.ngCentroid = make([][]posting, len(c.vocab))
	for j, s := range sums {
		n := 0.0
		for _, v := range s {
			n += v * v
		}
		norms[j] = math.Sqrt(n)
		for id, v := range s {
			c.ngCentroid[id] = append(c.ngCentroid[id], posting{int32(j), float32(v / norms[j])})
		}
	}
	sims := make([]float64, len(xs))
	dots := make([]float64, k)
	for i, x := range xs {
		clear(dots)
		self := 0.0
		for _, f := range x {
			self += float64(f.v) * float64(f.v)
			for _, p := range c.ngCentroid[f.i] {
				dots[p.doc] += float64(f.v * p.v)
			}
		}
		best := -1.0
		for j := range k {
			s := dots[j]
			if j == labels[i] {
				// The own centroid without this example: from the
				// unnormalized sum S, (x·S - |x|²) / |S - x|.
				dot := s * norms[j]
				n2 := norms[j]*norms[j] - 2*dot + self
				if n2 < 1e-9 {
					continue
				}
				s = (dot - self) / math.Sqrt(n2)
			}
			best = math.Max(best, s)
		}
		sims[i] = best
	}
	c.placeOutOfScope(sims)
}

// placeOutOfScope sets the out-of-scope point at the OutOfScopeQuantile
// of the held-out in-scope similarities, and the width of the transition
// from the spread between that point and their median.
func (c *Classifier) placeOutOfScope(sims []float64) {
	sort.Float64s(sims)
	if len(sims) == 0 {
		c.oosT, c.oosW = -1, 0.01
		return
	}
	q := func(f float64) float64 { return sims[min(len(sims)-1, int(f*float64(len(sims))))] }
	c.oosT = q(c.opts.OutOfScopeQuantile)
	c.oosW = math.Max(0.01, (q(0.5)-c.oosT)/4)
}

// inScope returns the in-scope factor of a text from its nearest-centroid
// similarity: 0.5 at the out-of-scope point, towards 1 above it.
func (c *Classifier) inScope(sim float64) float64 {
	return sigmoid((sim - c.oosT) / c.oosW)
}

func normalized(e []float32) []float32 {
	out := make([]float32, len(e))
	var n float32
	for _, v := range e {
		n += v * v
	}
	if n > 0 {
		inv := 1 / float32(math.Sqrt(float64(n)))
		for d, v := range e {
			out[d] = v * inv
		}
	}
	return out
}

// calibrate fits the confidence of an intent as a logistic curve over its
// score, on two kinds of leave-one-out evidence: the in-scope examples'
// best scores (positive, whether their left-out prediction is right or
// not: the text is in scope either way) and the same examples seen as out
// of scope — their best score among the other intents, as if their own
// intent did not exist (negative), weighted by OutOfScopePrior.
func (c *Classifier) calibrate(loo []float64, labels []int, k int) {
	type sample struct{ s, y, w float64 }
	var data []sample
	for i, l := range labels {
		row := loo[i*k : i*k+k]
		best := argmax(row, -1)
		data = append(data, sample{row[best], 1, 1})
		if k > 1 {
			other := argmax(row, l)
			data = append(data, sample{row[other], 0, c.opts.OutOfScopePrior})
		}
	}
	// Newton's method on the weighted logistic loss with a ridge towards
	// the curve sigmoid(10 s - 5) (0.5 at score 0.5), halving steps that do
	// not lower the loss. The ridge keeps the curve finite and sensible on
	// separable evidence (few examples, all left-out predictions right).
	const reg, a0, b0 = 0.05, 10.0, -5.0
	loss := func(a, b float64) float64 {
		l := reg / 2 * ((a-a0)*(a-a0) + (b-b0)*(b-b0))
		for _, d := range data {
			z := a*d.s + b
			// log(1+e^z) - y z, computed stably
			l += d.w * (math.Max(z, 0) + math.Log1p(math.Exp(-math.Abs(z))) - d.y*z)
		}
		return l
	}
	a, b := a0, b0
	cur := loss(a, b)
	for range 100 {
		gA, gB := reg*(a-a0), reg*(b-b0)
		hAA, hAB, hBB := reg, 0.0, reg
		for _, d := range data {
			p := sigmoid(a*d.s + b)
			r := d.w * (p - d.y)
			gA += r * d.s
			gB += r
			ww := d.w * p * (1 - p)
			hAA += ww * d.s * d.s
			hAB += ww * d.s
			hBB += ww
		}
		det := hAA*hBB - hAB*hAB
		if !(det > 1e-12) {
			break
		}
		dA := (hBB*gA - hAB*gB) / det
		dB := (hAA*gB - hAB*gA) / det
		step := 1.0
		for ; step > 1e-6; step /= 2 {
			if l := loss(a-step*dA, b-step*dB); l < cur {
				a, b, cur = a-step*dA, b-step*dB, l
				break
			}
		}
		if step <= 1e-6 || step*(math.Abs(dA)+math.Abs(dB)) < 1e-9 {
			break
		}
	}
	if !(a > 0) { // degenerate data (one intent, one example): monotone default
		a, b = 8, -4
	}
	c.calA, c.calC = a, b
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// logit is the inverse of sigmoid, finite at 0 and 1.
func logit(p float64) float64 {
	p = math.Min(math.Max(p, 1e-12), 1-1e-12)
	return math.Log(p / (1 - p))
}

// fitKnownWords keeps the stems of the examples' words (the words
// themselves are in the n-gram vocabulary).
func (c *Classifier) fitKnownWords() {
	c.stems = map[string]struct{}{}
	for g := range c.vocab {
		if w, ok := strings.CutPrefix(g, "w:"); ok {
			if r := []rune(w); len(r) > stemRunes {
				c.stems[string(r[:stemRunes])] = struct{}{}
			}
		}
	}
}

// fitKnownGain sets the weight of the known-word share: knownGain times
// 2·acc − 1 (at least 0), acc the examples' leave-one-out accuracy. A
// request in the examples' words is evidence of being in scope as far as
// the intents are told apart: on near-duplicate intents (leave-one-out
// accuracy about 0.4) the full gain let out-of-scope text in (recall 0.96
// → 0.83 on the many-intent proxy of najdi-bench nlu) and accepted no
// more right answers.
func (c *Classifier) fitKnownGain(loo []float64, labels []int, k int) {
	right := 0
	for i, l := range labels {
		if argmax(loo[i*k:i*k+k], -1) == l {
			right++
		}
	}
	acc := float64(right) / float64(len(labels))
	c.gain = knownGain * math.Max(0, 2*acc-1)
}

// knownShare returns the share of the words of text the examples use
// (see knownGain): text made of words the examples never use — keyboard
// mashing, lorem ipsum, news — needs stronger semantic evidence to count
// as in scope, a request in the examples' words weaker.
func (c *Classifier) knownShare(text string) float64 {
	words := textWords(text)
	if len(words) == 0 {
		return 0
	}
	known := 0
	for _, w := range words {
		if _, ok := c.vocab["w:"+w]; ok {
			known++
			continue
		}
		if r := []rune(w); len(r) > stemRunes {
			if _, ok := c.stems[string(r[:stemRunes])]; ok {
				known++
			}
		}
	}
	return float64(known) / float64(len(words))
}

// argmax returns the index of the largest value, skipping skip.
func argmax(row []float64, skip int) int {
	best := -1
	for j, v := range row {
		if j != skip && (best < 0 || v > row[best]) {
			best = j
		}
	}
	return best
}

// Intents returns the intent names, sorted.
func (c *Classifier) Intents() []string { return c.intents }

// Calibration returns the coefficients of the confidence before the
// out-of-scope factor, sigmoid(a*score + b).
func (c *Classifier) Calibration() (a, b float64) { return c.calA, c.calC }

// Scores returns the raw kernel-ridge score of every intent (in the order
// of Intents), about 1 for a typical example of the intent and about 0 for
// unrelated text.
func (c *Classifier) Scores(ctx context.Context, text string) ([]float64, error) {
	s, _, err := c.scores(ctx, text)
	return s, err
}

// scores returns the kernel-ridge scores and the nearest-centroid
// similarity of text.
func (c *Classifier) scores(ctx context.Context, text string) ([]float64, float64, error) {
	k := len(c.intents)
	out := make([]float64, k)
	sim := -1.0
	if c.dim > 0 {
		es, err := c.opts.Embedder(ctx, []string{text})
		if err != nil {
			return nil, 0, fmt.Errorf("intent: embed text: %w", err)
		}
		if len(es) != 1 || len(es[0]) != c.dim {
			return nil, 0, fmt.Errorf("intent: embedder returned a bad vector")
		}
		rawE := normalized(es[0])
		for _, ce := range c.centroids {
			sim = math.Max(sim, float64(dot32(rawE, ce)))
		}
		e := c.center(es[0])
		for d, v := range e {
			if v == 0 {
				continue
			}
			row := c.wEmb[d*k : d*k+k]
			for j := range row {
				out[j] += float64(v * row[j])
			}
		}
	}
	x := c.vector(ngrams(text))
	if c.ngCentroid != nil {
		dots := make([]float64, k)
		for _, f := range x {
			for _, p := range c.ngCentroid[f.i] {
				dots[p.doc] += float64(f.v * p.v)
			}
		}
		for _, d := range dots {
			sim = math.Max(sim, d)
		}
	}
	if len(x) > 0 {
		dsim := make([]float32, c.n)
		for _, f := range x {
			for _, p := range c.postings[f.i] {
				dsim[p.doc] += f.v * p.v
			}
		}
		for doc, s := range dsim {
			if s == 0 {
				continue
			}
			s *= c.wNg
			row := c.alpha[doc*k : doc*k+k]
			for j := range row {
				out[j] += float64(s * row[j])
			}
		}
	}
	return out, sim, nil
}

// Classify returns the intents with their calibrated confidences, highest
// score first. An intent's confidence estimates the probability that a
// text scoring so for it is in scope at all (under both calibrations of
// the package documentation); it does not say the intent beats similar
// ones — the order does. Confidences are computed one intent at a time,
// need not sum to 1 and are at most 0.999.
func (c *Classifier) Classify(ctx context.Context, text string) ([]Scored, error) {
	s, sim, err := c.scores(ctx, text)
	if err != nil {
		return nil, err
	}
	in := c.inScope(sim)
	share := c.knownShare(text)
	gain := c.gain * (share - 0.5)
	floor := unknownFloor + (1-unknownFloor)*math.Min(1, share/knownShare)
	// Rank by score: confidences saturate and cap, and ties among them
	// must not decide the order.
	order := make([]int, len(s))
	for j := range order {
		order[j] = j
	}
	sort.SliceStable(order, func(a, b int) bool { return s[order[a]] > s[order[b]] })
	out := make([]Scored, len(s))
	for r, j := range order {
		// Never certain: a confidence of exactly 1 would pass every
		// threshold, even 1.
		p := math.Min(maxConfidence, floor*sigmoid(logit(in*sigmoid(c.calA*s[j]+c.calC))+gain))
		out[r] = Scored{Intent: c.intents[j], Probability: p}
	}
	return out, nil
}

func (c *Classifier) center(e []float32) []float32 {
	out := make([]float32, len(e))
	var norm float32
	for d, v := range e {
		out[d] = v - c.mean[d]
		norm += out[d] * out[d]
	}
	if norm > 0 {
		inv := 1 / float32(math.Sqrt(float64(norm)))
		for d := range out {
			out[d] *= inv
		}
	}
	return out
}

// buildNgrams fixes the vocabulary and idf from texts and fills postings;
// it returns the examples' vectors.
func (c *Classifier) buildNgrams(texts []string) [][]feat {
	grams := make([][]string, len(texts))
	df := map[int32]int{}
	for i, t := range texts {
		grams[i] = ngrams(t)
		seen := map[int32]bool{}
		for _, g := range grams[i] {
			id, ok := c.vocab[g]
			if !ok {
				id = int32(len(c.vocab))
				c.vocab[g] = id
			}
			if !seen[id] {
				seen[id] = true
				df[id]++
			}
		}
	}
	c.idf = make([]float32, len(c.vocab))
	n := float64(len(texts))
	for id := range c.idf {
		c.idf[id] = float32(math.Log((1+n)/(1+float64(df[int32(id)]))) + 1)
	}
	c.postings = make([][]posting, len(c.vocab))
	xs := make([][]feat, len(texts))
	for i := range texts {
		xs[i] = c.vector(grams[i])
		for _, f := range xs[i] {
			c.postings[f.i] = append(c.postings[f.i], posting{int32(i), f.v})
		}
	}
	return xs
}

// ngramGram adds wNg times the n-gram cosine of every pair (lower
// triangle) to g.
func (c *Classifier) ngramGram(xs [][]feat, g []float64) {
	n := len(xs)
	w := float64(c.wNg)
	parallelRows(n, func(i int) {
		acc := make([]float32, i+1)
		for _, f := range xs[i] {
			for _, p := range c.postings[f.i] {
				if int(p.doc) <= i {
					acc[p.doc] += f.v * p.v
				}
			}
		}
		for j, v := range acc {
			g[i*n+j] += w * float64(v)
		}
	})
}

// vector builds the L2-normalized sublinear TF-IDF vector of grams.
func (c *Classifier) vector(grams []string) []feat {
	tf := map[int32]float32{}
	for _, g := range grams {
		if id, ok := c.vocab[g]; ok {
			tf[id]++
		}
	}
	x := make([]feat, 0, len(tf))
	norm := float32(0)
	for id, n := range tf {
		v := (1 + float32(math.Log(float64(n)))) * c.idf[id]
		x = append(x, feat{id, v})
		norm += v * v
	}
	if norm > 0 {
		inv := 1 / float32(math.Sqrt(float64(norm)))
		for i := range x {
			x[i].v *= inv
		}
	}
	sort.Slice(x, func(a, b int) bool { return x[a].i < x[b].i })
	return x
}

// rowWorkers is the number of goroutines of parallelRows.
const rowWorkers = 2

// parallelRows runs f(i) for i in [0, n) on rowWorkers goroutines,
// interleaving rows so the triangular work is balanced.
func parallelRows(n int, f func(i int)) {
	parallelRowsOf(n, func(_, i int) { f(i) })
}

// parallelRowsOf is parallelRows telling f which worker (0 ≤ w <
// rowWorkers) runs row i: a worker runs its rows one after the other.
func parallelRowsOf(n int, f func(w, i int)) {
	var wg sync.WaitGroup
	for w := range rowWorkers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := w; i < n; i += rowWorkers {
				f(w, i)
			}
		}()
	}
	wg.Wait()
}

// dot32 returns the dot product of a and b (vek's AVX2 kernel where the
// CPU has it).
func dot32(a, b []float32) float32 {
	if len(a) == 0 {
		return 0
	}
	return vek32.Dot(a, b[:len(a)])
}

// textWords returns the folded words of text, every number as "0".
func textWords(text string) []string {
	var words []string
	for _, t := range token.Tokenize(text) {
		if !t.Word() {
			continue
		}
		w := token.Fold(t.Text)
		if isNumber(w) {
			w = "0"
		}
		words = append(words, w)
	}
	return words
}

// ngrams returns the word 1-2 grams and character 2-5 grams of text.
func ngrams(text string) []string {
	words := textWords(text)
	out := make([]string, 0, len(words)*12)
	prev := "^"
	for _, w := range words {
		out = append(out, "w:"+w, "b:"+prev+" "+w)
		prev = w
		r := []rune("<" + w + ">")
		for n := 2; n <= 5; n++ {
			for i := 0; i+n <= len(r); i++ {
				out = append(out, "c:"+string(r[i:i+n]))
			}
		}
	}
	if len(words) > 0 {
		out = append(out, "b:"+prev+" $")
	}
	return out
}

func isNumber(s string) bool {
	return strings.IndexFunc(s, func(r rune) bool { return !unicode.IsDigit(r) && r != '.' && r != ',' }) < 0
}
