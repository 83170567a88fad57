package embed

import (
	"context"
	"slices"
)

// BulkEmbedder is implemented by embedders that embed many short texts
// faster together than one at a time, at the price of vectors that depend
// slightly on the texts run with them.
type BulkEmbedder interface {
	// EmbedQueriesBulk embeds texts like EmbedQueries, possibly several
	// texts per model run.
	EmbedQueriesBulk(ctx context.Context, texts []string) ([][]float32, error)
}

var _ BulkEmbedder = (*Local)(nil)

// bulkBatch is the most texts per run of EmbedQueriesBulk.
const bulkBatch = 16

// EmbedQueriesBulk embeds texts with the model's query prefix, running
// texts of the same token length together, up to 16 per run: no padding,
// so the attention sees only real tokens, but the dynamically quantized
// models pick their int8 scales over the whole run, so a vector differs a
// little from the text's EmbedQueries vector (see the package doc). For
// bulk work that tolerates that, such as embedding the examples of an
// intent classifier: on 1,500 short SNIPS utterances it took about 20 %
// less CPU than one text per run.
func (l *Local) EmbedQueriesBulk(ctx context.Context, texts []string) ([][]float32, error) {
	seqs := make([][]int32, len(texts))
	for i, s := range texts {
		seqs[i] = l.tok.Encode(l.man.QueryPrefix+s, l.man.MaxTokens)
	}
	out := make([][]float32, len(seqs))
	if len(seqs) == 0 {
		return out, nil
	}
	dims := l.man.Dims
	flat := make([]float32, len(seqs)*dims)
	for i := range out {
		out[i] = flat[i*dims : (i+1)*dims : (i+1)*dims]
	}
	order, batches := planBulk(seqs, bulkBatch)
	var in inputBuf
	for _, b := range batches {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if err := l.embedBatch(ctx, l.query, &in, seqs, order, b, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// planBulk orders sequences by length and cuts runs of equal length into
// batches of at most batch sequences.
func planBulk(seqs [][]int32, batch int) (order []int, batches []batchSpan) {
	order = make([]int, len(seqs))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return len(seqs[a]) - len(seqs[b]) })
	for lo := 0; lo < len(order); {
		seqLen := len(seqs[order[lo]])
		hi := lo + 1
		for hi < len(order) && hi-lo < batch && len(seqs[order[hi]]) == seqLen {
			hi++
		}
		batches = append(batches, batchSpan{lo, hi, seqLen})
		lo = hi
	}
	return order, batches
}
