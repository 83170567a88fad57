package intent

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"
	"strings"
	"unicode"

	"github.com/najdi/najdi/nlu/token"
)

// ErrNoExamples is returned by Train when fewer than one intent has examples.
var ErrNoExamples = errors.New("intent: no training examples")

// Embedder returns one sentence embedding per text.
type Embedder func(ctx context.Context, texts []string) ([][]float32, error)

// Options configures training. Zero fields take the documented defaults.
type Options struct {
	// Embedder adds sentence embeddings as features (optional).
	Embedder Embedder
	// EmbeddingWeight scales the embedding features. 0 (the default)
	// picks the best of 1, 2 and 3 on the held-out calibration examples.
	EmbeddingWeight float64
	// Epochs of SGD; default 30.
	Epochs int
	// L2 regularization strength; default 1e-5.
	L2 float64
	// LearningRate of AdaGrad; default 0.5.
	LearningRate float64
}

func (o Options) withDefaults() Options {
	if o.Epochs == 0 {
		o.Epochs = 30
	}
	if o.L2 == 0 {
		o.L2 = 1e-5
	}
	if o.LearningRate == 0 {
		o.LearningRate = 0.5
	}
	return o
}

// Scored is one intent with its probability.
type Scored struct {
	Intent      string
	Probability float64
}

// Classifier is a trained intent classifier. It is safe for concurrent use.
type Classifier struct {
	opts        Options
	intents     []string
	vocab       map[string]int32
	idf         []float32
	dim         int       // embedding dimension, 0 without embeddings
	w           []float32 // (features+dim+1) x classes, last row = bias
	temperature float64
}

type feat struct {
	i int32
	v float32
}

// Train fits a classifier on examples (intent → utterances).
func Train(ctx context.Context, examples map[string][]string, opts Options) (*Classifier, error) {
	opts = opts.withDefaults()
	var intents []string
	for k, v := range examples {
		if len(v) > 0 {
			intents = append(intents, k)
		}
	}
	if len(intents) == 0 {
		return nil, ErrNoExamples
	}
	sort.Strings(intents)
	var texts []string
	var labels []int
	var holdout []bool
	for ci, in := range intents {
		utts := examples[in]
		for j, u := range utts {
			texts = append(texts, u)
			labels = append(labels, ci)
			holdout = append(holdout, len(utts) >= 5 && j%5 == 4)
		}
	}
	var emb [][]float32
	if opts.Embedder != nil {
		var err error
		emb, err = opts.Embedder(ctx, texts)
		if err != nil {
			return nil, fmt.Errorf("intent: embed examples: %w", err)
		}
		if len(emb) != len(texts) {
			return nil, fmt.Errorf("intent: embedder returned %d vectors for %d texts", len(emb), len(texts))
		}
	}
	// Calibration run on 80%, then the final fit on everything.
	temp := 1.0
	weights := []float64{opts.EmbeddingWeight}
	if opts.EmbeddingWeight == 0 {
		weights = []float64{1, 2, 3}
		if emb == nil {
			weights = []float64{1}
		}
		opts.EmbeddingWeight = 1
	}
	if len(intents) > 1 {
		var trIdx, hoIdx []int
		for i := range texts {
			if holdout[i] {
				hoIdx = append(hoIdx, i)
			} else {
				trIdx = append(trIdx, i)
			}
		}
		if len(hoIdx) >= 20 && len(trIdx) > 0 {
			best := math.Inf(1)
			for _, w := range weights {
				o := opts
				o.EmbeddingWeight = w
				c := fit(intents, texts, labels, emb, trIdx, o)
				t, nll := c.calibrate(texts, labels, emb, hoIdx)
				if nll < best {
					best, temp, opts.EmbeddingWeight = nll, t, w
				}
			}
		}
	}
	all := make([]int, len(texts))
	for i := range all {
		all[i] = i
	}
	c := fit(intents, texts, labels, emb, all, opts)
	c.temperature = temp
	return c, nil
}

// Intents returns the intent names, sorted.
func (c *Classifier) Intents() []string { return c.intents }

// EmbeddingWeight returns the weight of the embedding features in use.
func (c *Classifier) EmbeddingWeight() float64 { return c.opts.EmbeddingWeight }

// Temperature returns the calibrated softmax temperature.
func (c *Classifier) Temperature() float64 { return c.temperature }

func fit(intents, texts []string, labels []int, emb [][]float32, idx []int, opts Options) *Classifier {
	c := &Classifier{opts: opts, intents: intents, vocab: map[string]int32{}, temperature: 1}
	df := map[int32]int{}
	grams := make([][]string, len(texts))
	for _, i := range idx {
		grams[i] = ngrams(texts[i])
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
	n := float64(len(idx))
	for id := range c.idf {
		c.idf[id] = float32(math.Log((1+n)/(1+float64(df[int32(id)]))) + 1)
	}
	if emb != nil {
		c.dim = len(emb[idx[0]])
	}
	k := len(intents)
	rows := len(c.vocab) + c.dim + 1
	c.w = make([]float32, rows*k)
	g2 := make([]float32, rows*k)
	xs := make([][]feat, len(texts))
	for _, i := range idx {
		var e []float32
		if emb != nil {
			e = emb[i]
		}
		xs[i] = c.features(grams[i], e)
	}
	order := append([]int(nil), idx...)
	rng := rand.New(rand.NewPCG(1, 2))
	p := make([]float64, k)
	lr, l2 := float32(opts.LearningRate), float32(opts.L2)
	for ep := 0; ep < opts.Epochs; ep++ {
		rng.Shuffle(len(order), func(a, b int) { order[a], order[b] = order[b], order[a] })
		for _, i := range order {
			c.logits(xs[i], p, 1)
			softmax(p)
			for j := range k {
				grad := float32(p[j])
				if j == labels[i] {
					grad--
				}
				for _, f := range xs[i] {
					o := int(f.i)*k + j
					gg := grad*f.v + l2*c.w[o]
					g2[o] += gg * gg
					c.w[o] -= lr * gg / float32(math.Sqrt(float64(g2[o]))+1e-8)
				}
			}
		}
	}
	return c
}

// calibrate returns the temperature that minimizes the negative log
// likelihood of the examples idx, and that likelihood.
func (c *Classifier) calibrate(texts []string, labels []int, emb [][]float32, idx []int) (float64, float64) {
	xs := make([][]feat, len(idx))
	for n, i := range idx {
		var e []float32
		if emb != nil {
			e = emb[i]
		}
		xs[n] = c.features(ngrams(texts[i]), e)
	}
	p := make([]float64, len(c.intents))
	best, bestT := math.Inf(1), 1.0
	for t := 0.5; t <= 5; t *= 1.1 {
		nll := 0.0
		for n, i := range idx {
			c.logits(xs[n], p, t)
			softmax(p)
			nll -= math.Log(math.Max(p[labels[i]], 1e-12))
		}
		if nll < best {
			best, bestT = nll, t
		}
	}
	return bestT, best
}

// Classify returns the intents with their calibrated probabilities, most
// probable first.
func (c *Classifier) Classify(ctx context.Context, text string) ([]Scored, error) {
	var e []float32
	if c.dim > 0 && c.opts.Embedder != nil {
		es, err := c.opts.Embedder(ctx, []string{text})
		if err != nil {
			return nil, fmt.Errorf("intent: embed text: %w", err)
		}
		if len(es) != 1 || len(es[0]) != c.dim {
			return nil, fmt.Errorf("intent: embedder returned a bad vector")
		}
		e = es[0]
	}
	x := c.features(ngrams(text), e)
	p := make([]float64, len(c.intents))
	c.logits(x, p, c.temperature)
	softmax(p)
	out := make([]Scored, len(p))
	for i := range p {
		out[i] = Scored{Intent: c.intents[i], Probability: p[i]}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Probability > out[b].Probability })
	return out, nil
}

func (c *Classifier) logits(x []feat, p []float64, temp float64) {
	k := len(c.intents)
	bias := (len(c.vocab) + c.dim) * k
	for j := range p {
		p[j] = float64(c.w[bias+j])
	}
	for _, f := range x {
		row := c.w[int(f.i)*k : int(f.i)*k+k]
		for j := range row {
			p[j] += float64(row[j] * f.v)
		}
	}
	for j := range p {
		p[j] /= temp
	}
}

func softmax(p []float64) {
	m := math.Inf(-1)
	for _, v := range p {
		m = math.Max(m, v)
	}
	s := 0.0
	for i, v := range p {
		p[i] = math.Exp(v - m)
		s += p[i]
	}
	for i := range p {
		p[i] /= s
	}
}

// features builds the normalized sparse vector; the bias feature is last.
func (c *Classifier) features(grams []string, emb []float32) []feat {
	tf := map[int32]float32{}
	for _, g := range grams {
		if id, ok := c.vocab[g]; ok {
			tf[id]++
		}
	}
	x := make([]feat, 0, len(tf)+len(emb)+1)
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
	if len(emb) > 0 && len(emb) == c.dim {
		en := float32(0)
		for _, v := range emb {
			en += v * v
		}
		if en > 0 {
			s := float32(c.opts.EmbeddingWeight) / float32(math.Sqrt(float64(en)))
			base := int32(len(c.vocab))
			for d, v := range emb {
				x = append(x, feat{base + int32(d), v * s})
			}
		}
	}
	x = append(x, feat{int32(len(c.vocab) + c.dim), 1})
	return x
}

// ngrams returns the word 1-2 grams and character 2-5 grams of text.
func ngrams(text string) []string {
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
