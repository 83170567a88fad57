package engine

import (
	"fmt"
	"slices"
	"strings"
	"unicode"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/text"
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

// identifierTerms returns, for each identifier-like token of the query,
// the analyzed terms it consists of. A token (a run of non-space
// characters, trimmed of surrounding punctuation) is identifier-like when
// it mixes letters and digits: BRCA1, ZX-48213, COVID-19, v2.3.1, ISO3166.
// Such tokens name things exactly, and the embedding models know nothing
// of them, so documents holding every one of them rank first (see tier).
func identifierTerms(an *text.Analyzer, q string) [][]string {
	var out [][]string
	for _, tok := range strings.Fields(q) {
		tok = strings.TrimFunc(tok, func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
		letters, digits := false, false
		for _, r := range tok {
			letters = letters || unicode.IsLetter(r)
			digits = digits || unicode.IsDigit(r)
		}
		if !letters || !digits {
			continue
		}
		var terms []string
		an.Analyze(tok, func(t text.Token) {
			if !slices.Contains(terms, t.Term) {
				terms = append(terms, t.Term)
			}
		})
		if len(terms) > 0 {
			out = append(out, terms)
		}
	}
	return out
}

// rareIdentifiers keeps the identifiers of a query of nterms distinct
// terms that decide its ranking: identifiers rare in the corpus of n
// documents (one of their terms is in at most max(rareMinDocs,
// n/rareShare) documents), in a query that is mostly about them (their
// terms are at least a third of the query's). A unique code names one
// thing, and its exact matches belong first; a frequent one (a gene name
// throughout a biomedical corpus), or one in a long sentence about
// something else, is ranked by the fused score like any other word.
func rareIdentifiers(ids [][]string, nterms int, n uint64, df func(term string) uint64) [][]string {
	limit := max(rareMinDocs, n/rareShare)
	var out [][]string
	idTerms := 0
	for _, terms := range ids {
		if slices.ContainsFunc(terms, func(t string) bool { return df(t) <= limit }) {
			out = append(out, terms)
			idTerms += len(terms)
		}
	}
	if 3*idTerms < nterms {
		return nil
	}
	return out
}

// The rareness bound of rareIdentifiers.
const (
	rareMinDocs = 3
	rareShare   = 1000
)

// exactDocs returns the documents of a text index that hold every term of
// every identifier, nil when there are no identifiers.
func exactDocs(ti *invindex.TextIndex, ids [][]string) *roaring.Bitmap {
	if len(ids) == 0 {
		return nil
	}
	var out *roaring.Bitmap
	for _, terms := range ids {
		for _, t := range terms {
			if bm := ti.TermBitmap(t); out == nil {
				out = bm
			} else {
				out.And(bm)
			}
			if out.IsEmpty() {
				return out
			}
		}
	}
	return out
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
