package rerank

import (
	"context"
	"fmt"
	"math"
	"strings"
	"unicode/utf8"

	"github.com/najdi/najdi/text"
)

// Embedder embeds queries and passages with a bi-encoder, each with the
// model's own prefixes (engine.Embedder has these methods).
type Embedder interface {
	EmbedQueries(ctx context.Context, texts []string) ([][]float32, error)
	EmbedPassages(ctx context.Context, texts []string) ([][]float32, error)
}

// Similarity constants: the windows a text is cut into and how a cosine
// becomes a score in 0..1.
const (
	// MaxWindowSentences is the longest run of consecutive sentences one
	// window holds: windows are every sentence alone and every pair of
	// neighbours (tuned on the train queries of the Czech retrieval set,
	// bench/README.md).
	MaxWindowSentences = 2
	// MaxWindows bounds the windows of one text (the first ones, in reading
	// order), and so the cost of a candidate: each window is one passage
	// embedding.
	MaxWindows = 24
	// windowMaxRunes bounds one window; the model reads 512 tokens at most.
	windowMaxRunes = 1500
	// SimilarityFloor and SimilarityCeiling map a cosine of
	// multilingual-e5-small to 0..1 linearly: its cosines of unrelated
	// sentences lie around 0.7, of a sentence and its translation around
	// 0.9 (docs/models.md).
	SimilarityFloor   = 0.7
	SimilarityCeiling = 0.95
)

// Windows cuts s into the passages the similarity scorer compares with a
// query: every sentence (a line break ends one too) and every run of up to
// span consecutive sentences, at most MaxWindows of them in reading order.
// A text without sentences gives no windows.
func Windows(s string, span int) []string {
	span = max(1, span)
	var sents []string
	for _, line := range strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' || r == '\u2029' }) {
		for _, sp := range text.Sentences(line) {
			sents = append(sents, line[sp.Start:sp.End])
		}
	}
	var out []string
	for i := range sents {
		for n := 1; n <= span && i+n <= len(sents); n++ {
			out = append(out, truncRunes(strings.Join(sents[i:i+n], " "), windowMaxRunes))
			if len(out) == MaxWindows {
				return out
			}
		}
	}
	return out
}

// truncRunes cuts s to at most n runes.
func truncRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// Similarity scores a passage by the best cosine between the query's
// embedding and the embeddings of the passage's sentence windows (Windows)
// under a bi-encoder: finer than the first stage, which compares the query
// with chunks of up to a few hundred tokens. It serves languages the
// cross-encoder cannot read (multilingual-e5-small for Czech). It is safe
// for concurrent use when Emb is.
type Similarity struct {
	// Emb embeds the query and the windows.
	Emb Embedder
	// Span is the longest run of sentences in a window (default
	// MaxWindowSentences).
	Span int
}

var _ Scorer = (*Similarity)(nil)

// Score embeds the query and scores the passages (ScoreVector).
func (s *Similarity) Score(ctx context.Context, query string, passages []string) ([]float64, error) {
	qs, err := s.Emb.EmbedQueries(ctx, []string{query})
	if err != nil {
		return nil, fmt.Errorf("similarity reranker: embed query: %w", err)
	}
	if len(qs) != 1 {
		return nil, fmt.Errorf("similarity reranker: %d vectors for one query: %w", len(qs), ErrBadModel)
	}
	return s.ScoreVector(ctx, qs[0], passages)
}

// ScoreVector scores each passage by the best cosine between qvec (the
// query's embedding by the same model) and its windows, mapped to 0..1
// (SimilarityScore). A passage without windows scores 0.
func (s *Similarity) ScoreVector(ctx context.Context, qvec []float32, passages []string) ([]float64, error) {
	cos, err := s.MaxCosines(ctx, qvec, passages)
	if err != nil {
		return nil, err
	}
	out := make([]float64, len(cos))
	for i, c := range cos {
		out[i] = SimilarityScore(c)
	}
	return out, nil
}

// MaxCosines returns, for each passage, the best cosine between qvec and
// its windows (-1 for a passage without windows). The windows of all
// passages are embedded together in batches.
func (s *Similarity) MaxCosines(ctx context.Context, qvec []float32, passages []string) ([]float64, error) {
	span := s.Span
	if span == 0 {
		span = MaxWindowSentences
	}
	var wins []string
	owner := []int{}
	for i, p := range passages {
		for _, w := range Windows(p, span) {
			wins = append(wins, w)
			owner = append(owner, i)
		}
	}
	out := make([]float64, len(passages))
	for i := range out {
		out[i] = -1
	}
	const batch = 64
	for lo := 0; lo < len(wins); lo += batch {
		hi := min(lo+batch, len(wins))
		vs, err := s.Emb.EmbedPassages(ctx, wins[lo:hi])
		if err != nil {
			return nil, fmt.Errorf("similarity reranker: embed %d windows: %w", hi-lo, err)
		}
		if len(vs) != hi-lo {
			return nil, fmt.Errorf("similarity reranker: %d vectors for %d windows: %w", len(vs), hi-lo, ErrBadModel)
		}
		for j, v := range vs {
			i := owner[lo+j]
			out[i] = max(out[i], Cosine(qvec, v))
		}
	}
	return out, nil
}

// SimilarityScore maps a cosine to 0..1 between SimilarityFloor and
// SimilarityCeiling.
func SimilarityScore(cos float64) float64 {
	return max(0, min(1, (cos-SimilarityFloor)/(SimilarityCeiling-SimilarityFloor)))
}

// Cosine is the cosine similarity of two vectors of the same length (0
// when either is zero).
func Cosine(a, b []float32) float64 {
	var dot, na, nb float64
	for i := range min(len(a), len(b)) {
		x, y := float64(a[i]), float64(b[i])
		dot += x * y
		na += x * x
		nb += y * y
	}
	if na == 0 || nb == 0 {
		return 0
	}
	return dot / math.Sqrt(na*nb)
}
