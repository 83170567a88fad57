package engine

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/najdi/najdi/vector"
)

// RankerConfig holds every constant of keyword scoring, semantic scoring
// and their fusion. DefaultRanker documents the defaults; ARCHITECTURE.md
// explains the calibration.
type RankerConfig struct {
	// K1 and B are the BM25 parameters (1.2, 0.75).
	K1, B float32
	// TitleBoost weighs title sections in BM25F-style weighted term
	// frequencies (2.0); HeadingBoost weighs h1..h6 and caption (1.5);
	// other sections weigh 1.
	TitleBoost, HeadingBoost float32
	// KeywordWeight and SemanticWeight weigh the calibrated keyword and
	// semantic scores in the fused score (0.35 and 0.65); they sum to 1.
	KeywordWeight, SemanticWeight float64
	// SemanticFloor and SemanticCeiling map cosine similarity linearly to
	// 0..1: at or below the floor a chunk carries no evidence, at the
	// ceiling full evidence (0.55 and 0.90, fitted to bge-small-en-v1.5's
	// similarity distribution).
	SemanticFloor, SemanticCeiling float64
	// KeywordSaturation shapes the calibrated keyword score
	// s = r / (r + KeywordSaturation) * (1 + KeywordSaturation), where r is
	// the BM25 score divided by the query's maximum attainable score (0.3).
	KeywordSaturation float64
	// Candidates is the number of documents each retriever contributes
	// before fusion, at least max_results (default 100).
	Candidates int
	// ChunkTokens is the target chunk size in model tokens (256).
	ChunkTokens int
	// NProbe is the number of IVF lists probed (0 = the vector index default).
	NProbe int
}

// DefaultRanker returns the default ranking constants.
func DefaultRanker() RankerConfig {
	return RankerConfig{
		K1: 1.2, B: 0.75,
		TitleBoost: 2, HeadingBoost: 1.5,
		KeywordWeight: 0.35, SemanticWeight: 0.65,
		SemanticFloor: 0.55, SemanticCeiling: 0.90,
		KeywordSaturation: 0.3,
		Candidates:        100,
		ChunkTokens:       256,
	}
}

// Validate reports inconsistent constants.
func (r RankerConfig) Validate() error {
	switch {
	case r.K1 <= 0 || r.B < 0 || r.B > 1:
		return fmt.Errorf("ranker: BM25 needs K1 > 0 and 0 <= B <= 1")
	case r.TitleBoost <= 0 || r.HeadingBoost <= 0:
		return fmt.Errorf("ranker: boosts must be positive")
	case r.KeywordWeight < 0 || r.SemanticWeight < 0 || r.KeywordWeight+r.SemanticWeight <= 0:
		return fmt.Errorf("ranker: weights must be non-negative and not both zero")
	case r.SemanticCeiling <= r.SemanticFloor:
		return fmt.Errorf("ranker: SemanticCeiling must exceed SemanticFloor")
	case r.KeywordSaturation <= 0:
		return fmt.Errorf("ranker: KeywordSaturation must be positive")
	case r.Candidates <= 0 || r.ChunkTokens <= 0:
		return fmt.Errorf("ranker: Candidates and ChunkTokens must be positive")
	}
	return nil
}

// SectionBoost returns the BM25F weight of a section type.
func (r RankerConfig) SectionBoost(typ string) float32 {
	switch strings.ToLower(typ) {
	case "title", "name", "subtitle":
		return r.TitleBoost
	case "h1", "h2", "h3", "h4", "h5", "h6", "caption", "heading":
		return r.HeadingBoost
	}
	return 1
}

// VectorOptions returns the vector index options for new segments.
func (r RankerConfig) VectorOptions() vector.Options {
	return vector.Options{NProbe: r.NProbe}
}

// keywordScore calibrates a BM25 score: ratio is the score divided by the
// query's maximum attainable BM25 score Σ idf·(k1+1), in [0,1).
func (r RankerConfig) keywordScore(ratio float64) float64 {
	if ratio <= 0 {
		return 0
	}
	s := ratio / (ratio + r.KeywordSaturation) * (1 + r.KeywordSaturation)
	return min(s, 1)
}

// semanticScore calibrates a cosine similarity.
func (r RankerConfig) semanticScore(cos float64) float64 {
	s := (cos - r.SemanticFloor) / (r.SemanticCeiling - r.SemanticFloor)
	return max(0, min(1, s))
}

// fuse combines calibrated keyword and semantic scores; a retriever that
// is off (keyword when fulltext is disabled, semantic for keyword-only
// collections) gives its weight to the other.
func (r RankerConfig) fuse(key, sem float64, keyword, semantic bool) float64 {
	switch {
	case !semantic:
		return key
	case !keyword:
		return sem
	}
	return (r.KeywordWeight*key + r.SemanticWeight*sem) / (r.KeywordWeight + r.SemanticWeight)
}

// tier ranks exact identifier matches first when there are any: their
// scores become 0.5 + s/2 and every other score s/2, so the order within
// each tier is the fused order and scores stay in 0..1.
func tier(hits []*hit) {
	if !slices.ContainsFunc(hits, func(h *hit) bool { return h.exact }) {
		return
	}
	for _, h := range hits {
		if h.exact {
			h.score = 0.5 + h.score/2
		} else {
			h.score /= 2
		}
		h.score = round6(h.score)
	}
}

func round6(f float64) float64 { return math.Round(f*1e6) / 1e6 }

// scoreHits calibrates and fuses the evidence of each candidate (its best
// chunk first); retrieve cuts the ranking at min_score. keyword and
// semantic tell which retrievers ran (see fuse).
func (r RankerConfig) scoreHits(hs []*hit, keyword, semantic bool) []*hit {
	for _, h := range hs {
		if len(h.bestCh) > 0 {
			slices.SortFunc(h.bestCh, func(a, b chunkHit) int {
				if a.cos != b.cos {
					if a.cos > b.cos {
						return -1
					}
					return 1
				}
				return int(a.id) - int(b.id)
			})
			h.sem = r.semanticScore(h.bestCh[0].cos)
		}
		h.score = r.fuse(h.key, h.sem, keyword, semantic)
		h.score = round6(h.score)
		h.byKey = h.byKey || h.exact
	}
	return hs
}

// rankTop moves the n first hits of the ranking of the candidates of
// every collection (exact identifier matches first: the caller applies
// tier; then by score, collection id and document id) to the front of hs, in that order; the
// rest of hs is left in no particular order. compareHits is a total order
// of the candidates (no two share a collection and a document id), so
// these are the first n of a full sort. A bounded heap picks them in
// O(len(hs)·log n) instead of sorting every candidate.
func rankTop(hs []*hit, n int) {
	if n <= 0 {
		return
	}
	if n >= len(hs)/2 {
		slices.SortFunc(hs, compareHits)
		return
	}
	// hs[:n] is a heap whose root is the worst of the best n so far.
	top := hs[:n]
	for i := n/2 - 1; i >= 0; i-- {
		siftWorst(top, i)
	}
	for i := n; i < len(hs); i++ {
		if compareHits(hs[i], top[0]) < 0 {
			top[0], hs[i] = hs[i], top[0]
			siftWorst(top, 0)
		}
	}
	slices.SortFunc(top, compareHits)
}

// siftWorst restores the heap property of h below i: every hit ranks at
// or after (compareHits) its children, so the root is the worst.
func siftWorst(h []*hit, i int) {
	for {
		w, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && compareHits(h[l], h[w]) > 0 {
			w = l
		}
		if r < len(h) && compareHits(h[r], h[w]) > 0 {
			w = r
		}
		if w == i {
			return
		}
		h[i], h[w] = h[w], h[i]
		i = w
	}
}

// compareHits orders hits by score (descending), collection id and
// document id.
func compareHits(a, b *hit) int {
	if a.score != b.score {
		if a.score > b.score {
			return -1
		}
		return 1
	}
	if a.c != b.c {
		if c := strings.Compare(a.c.id, b.c.id); c != 0 {
			return c
		}
	}
	return strings.Compare(a.docID, b.docID)
}
