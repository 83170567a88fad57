package ner

import (
	"fmt"
	"math"
)

// denseLayer is the tagger's linear layer over contextual word vectors
// (the embedding model's last hidden states, averaged over a word's
// pieces): each vector is standardized per dimension with the training
// mean and deviation and multiplied by scale before the dot product with
// the tag's weights.
type denseLayer struct {
	model string    // embedding model name, e.g. "bge-small-en-v1.5"
	dim   int       // vector length
	win   int       // neighbours on each side whose vectors are also read
	mean  []float32 // per dimension
	inv   []float32 // per dimension: scale / deviation
	w     []float32 // tags × (2*win+1)*dim
}

// width is the length of the layer's input: the vectors of the word and
// its win neighbours on each side.
func (d *denseLayer) width() int { return (2*d.win + 1) * d.dim }

func newDenseLayer(vecs [][][]float32, tags, win int, scale float32, model string) (*denseLayer, error) {
	dim := 0
	for _, s := range vecs {
		if len(s) > 0 {
			dim = len(s[0])
			break
		}
	}
	if dim == 0 {
		return nil, fmt.Errorf("ner: train: no word vectors: %w", ErrFormat)
	}
	sum := make([]float64, dim)
	sq := make([]float64, dim)
	n := 0
	for _, s := range vecs {
		for _, v := range s {
			if len(v) != dim {
				return nil, fmt.Errorf("ner: train: word vector of %d floats, want %d: %w", len(v), dim, ErrFormat)
			}
			for k, x := range v {
				sum[k] += float64(x)
				sq[k] += float64(x) * float64(x)
			}
			n++
		}
	}
	d := &denseLayer{model: model, dim: dim, win: win, mean: make([]float32, dim), inv: make([]float32, dim)}
	d.w = make([]float32, tags*d.width())
	for k := range sum {
		m := sum[k] / float64(n)
		sd := math.Sqrt(max(sq[k]/float64(n)-m*m, 1e-12))
		d.mean[k] = float32(m)
		d.inv[k] = scale / float32(sd)
	}
	return d, nil
}

// input writes the layer's input for word i of vecs into dst (width
// floats: the scaled, standardized vectors of words i-win … i+win, zero
// past the sentence) and returns it.
func (d *denseLayer) input(dst []float32, vecs [][]float32, i int) []float32 {
	for o := -d.win; o <= d.win; o++ {
		seg := dst[(o+d.win)*d.dim : (o+d.win+1)*d.dim]
		if j := i + o; j >= 0 && j < len(vecs) {
			for k, x := range vecs[j] {
				seg[k] = (x - d.mean[k]) * d.inv[k]
			}
		} else {
			clear(seg)
		}
	}
	return dst
}

// Contextual returns the name of the embedding model whose word vectors
// the tagger's contextual layer reads, and its vector length; "" and 0 for
// a lexical-only tagger.
func (t *Tagger) Contextual() (model string, dims int) {
	if t.dense == nil {
		return "", 0
	}
	return t.dense.model, t.dense.dim
}

func dot(a, b []float32) float32 {
	var s0, s1, s2, s3 float32
	n := len(b)
	a = a[:n]
	k := 0
	for ; k+4 <= n; k += 4 {
		s0 += a[k] * b[k]
		s1 += a[k+1] * b[k+1]
		s2 += a[k+2] * b[k+2]
		s3 += a[k+3] * b[k+3]
	}
	for ; k < n; k++ {
		s0 += a[k] * b[k]
	}
	return s0 + s1 + s2 + s3
}
