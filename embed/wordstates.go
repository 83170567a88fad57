package embed

import (
	"context"
	"fmt"
)

// WordStater gives per-word contextual vectors of pre-split words. Local
// implements it; the NLU name tagger uses it for token features.
type WordStater interface {
	// WordStates embeds words as one sequence and returns one vector of
	// Dims floats per word.
	WordStates(ctx context.Context, words []string) ([][]float32, error)
}

var _ WordStater = (*Local)(nil)

// WordStates runs words as one sequence ([CLS] pieces of each word [SEP],
// without the query or passage prefix) in the query session and returns,
// per word, the mean of the last hidden states of its pieces, not
// normalized. Words past the model's input limit, and words with no piece,
// get zero vectors. One sequence per run, so a word's vector depends only
// on its sentence (the int8 models quantize activations per run).
func (l *Local) WordStates(ctx context.Context, words []string) ([][]float32, error) {
	dims := l.man.Dims
	out := make([][]float32, len(words))
	flat := make([]float32, len(words)*dims)
	for i := range out {
		out[i] = flat[i*dims : (i+1)*dims : (i+1)*dims]
	}
	if len(words) == 0 {
		return out, nil
	}
	limit := l.man.MaxTokens
	if limit <= 2 {
		limit = 512
	}
	seq := make([]int32, 0, 2+2*len(words))
	bounds := make([]int, len(words)+1) // word i's pieces are seq[bounds[i]:bounds[i+1]]
	var frame []int32
	for i, w := range words {
		ids := l.tok.Encode(w, 0)
		if len(ids) < 2 {
			return nil, fmt.Errorf("model %s: word states: tokenizer framed %q as %d ids: %w", l.man.Name, w, len(ids), ErrBadModel)
		}
		if i == 0 {
			frame = []int32{ids[0], ids[len(ids)-1]}
			seq = append(seq, frame[0])
		}
		bounds[i] = len(seq)
		seq = append(seq, ids[1:len(ids)-1]...)
	}
	bounds[len(words)] = len(seq)
	if len(seq) > limit-1 {
		seq = seq[:limit-1]
	}
	seq = append(seq, frame[1])
	var in inputBuf
	in.fill([][]int32{seq}, []int{0}, len(seq), l.tok.PadID())
	hidden, err := l.runBatch(ctx, l.query, &in, 1, len(seq))
	if err != nil {
		return nil, fmt.Errorf("word states: %w", err)
	}
	defer l.bufs.Put(hidden)
	h := *hidden
	last := len(seq) - 1 // [SEP]
	for i := range words {
		lo, hi := bounds[i], min(bounds[i+1], last)
		if lo >= hi {
			continue
		}
		dst := out[i]
		for t := lo; t < hi; t++ {
			for k, x := range h[t*dims : (t+1)*dims] {
				dst[k] += x
			}
		}
		inv := 1 / float32(hi-lo)
		for k := range dst {
			dst[k] *= inv
		}
	}
	return out, nil
}
