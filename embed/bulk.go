package embed

import (
	"context"
	"slices"
)

// SymmetricEmbedder is implemented by embedders that embed short texts
// meant to be compared with each other — the examples of an intent
// classifier and the utterances it classifies — rather than queries with
// passages.
type SymmetricEmbedder interface {
	// EmbedSymmetric embeds texts in the model's form for symmetric
	// tasks. With bulk it may run several texts together, faster, at the
	// price of vectors that depend slightly on the texts run with them.
	EmbedSymmetric(ctx context.Context, texts []string, bulk bool) ([][]float32, error)
}

var _ SymmetricEmbedder = (*Local)(nil)

// bulkBatch is the most texts per run of a bulk EmbedSymmetric.
const bulkBatch = 16

// SymmetricPrefix returns the prefix of symmetric tasks: the shorter of
// the model's query and passage prefixes. That is what the model cards of
// the default models ask for: bge-small-en-v1.5 no instruction for
// classification and similarity (its query prefix is a retrieval
// instruction of 9 tokens), e5 "query: " for symmetric tasks.
func (m Manifest) SymmetricPrefix() string {
	if len(m.PassagePrefix) < len(m.QueryPrefix) {
		return m.PassagePrefix
	}
	return m.QueryPrefix
}

// EmbedSymmetric embeds texts with the manifest's SymmetricPrefix in the
// query session. Without bulk each text runs alone, as in EmbedQueries.
// With bulk, texts of the same token length run together, up to 16 per
// run: no padding, so attention sees only real tokens, but the dynamically
// quantized models pick their int8 scales over the whole run, so a vector
// differs a little from the text's vector alone (cosine 0.96–1.0 on short
// SNIPS utterances; see the package doc). Bulk suits work that tolerates
// that, such as the examples of an intent classifier: on 1,500 short
// utterances it took about 10–20 % less CPU than one text per run.
func (l *Local) EmbedSymmetric(ctx context.Context, texts []string, bulk bool) ([][]float32, error) {
	prefix := l.man.SymmetricPrefix()
	if !bulk {
		return l.embed(ctx, l.query, prefix, texts)
	}
	seqs := make([][]int32, len(texts))
	for i, s := range texts {
		seqs[i] = l.tok.Encode(prefix+s, l.man.MaxTokens)
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
