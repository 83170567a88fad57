package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/najdi/najdi/internal/errs"
	"github.com/najdi/najdi/internal/strictjson"
	"github.com/najdi/najdi/rerank"
	"github.com/najdi/najdi/text"
)

// Reranker scores how relevant texts are to a query, in 0..1, each text
// independently of the others (package rerank's cross-encoder). Engine
// Options.Reranker holds the server's; a search asks for it with
// SearchRequest.Rerank.
type Reranker interface {
	Score(ctx context.Context, query string, passages []string) ([]float64, error)
}

// RerankRequest asks a search to re-score its first candidates: with the
// cross-encoder (Options.Reranker) in English collections, with the
// similarity of sentence windows under the collection's embedding model in
// Czech and auto collections.
type RerankRequest struct {
	// TopK is how many of the best hybrid candidates are re-scored (default
	// DefaultRerankTopK, at most MaxRerankTopK).
	TopK *int `json:"top_k,omitempty"`
	// Off is set by "rerank": false (the same as leaving rerank out).
	Off bool `json:"-"`
}

// UnmarshalJSON reads rerank as true (rerank DefaultRerankTopK
// candidates), false (no reranking) or an object with top_k.
func (r *RerankRequest) UnmarshalJSON(b []byte) error {
	switch string(bytes.TrimSpace(b)) {
	case "true":
		*r = RerankRequest{}
		return nil
	case "false":
		*r = RerankRequest{Off: true}
		return nil
	}
	if t := bytes.TrimSpace(b); len(t) == 0 || t[0] != '{' {
		return invalidField("rerank", "must be true, false or an object with top_k, got %s", b)
	}
	type plain RerankRequest
	var p plain
	// strictjson reads an integral number written with a fraction (11.0)
	// as an integer, as JSON Schema counts it; the decoder below words
	// the errors.
	if strictjson.Decode(b, &p) == nil {
		*r = RerankRequest(p)
		return nil
	}
	p = plain{}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
			name = strings.Trim(name, `"`)
			return invalidField("rerank."+name, "unknown field %q (known fields: top_k)", name)
		}
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) {
			return invalidField("rerank."+te.Field, "must be an integer, got a %s", te.Value)
		}
		return invalidField("rerank", "%v", err)
	}
	*r = RerankRequest(p)
	return nil
}

const (
	// DefaultRerankTopK is the number of candidates re-scored by default.
	DefaultRerankTopK = 20
	// MaxRerankTopK bounds rerank.top_k: each candidate costs one
	// cross-encoder run (tens of milliseconds on a 2-core machine).
	MaxRerankTopK = 100
	// rerankMaxRunes bounds the text of a candidate given to the reranker;
	// the model reads at most 512 tokens of query and text together.
	rerankMaxRunes = 4000
)

// planRerank validates req.Rerank into p.rerankK: the query must be
// present, a cross-encoder configured when a collection is English, and
// every other collection must have an embedding model (its reranker is the
// embedding similarity of sentence windows, rerank.Similarity).
func (e *Engine) planRerank(p *plan, req SearchRequest) error {
	if req.Rerank == nil || req.Rerank.Off {
		return nil
	}
	k := DefaultRerankTopK
	if req.Rerank.TopK != nil {
		k = *req.Rerank.TopK
		if k < 1 || k > MaxRerankTopK {
			return invalidField("rerank.top_k", "must be between 1 and %d, got %d", MaxRerankTopK, k)
		}
	}
	if p.query == "" {
		return invalidField("rerank", "reranking needs a query")
	}
	english := false
	for _, c := range p.colls {
		cfg := c.config()
		if crossEncodes(cfg) {
			english = true
			continue
		}
		if cfg.EmbeddingConfig.Keyword() {
			return invalidField("rerank", "collection %q (search_config.language %q) is reranked by the similarity of its embedding model, and it has none (embedding_config.model %q); search it without rerank", c.id, cfg.SearchConfig.Language, cfg.EmbeddingConfig.Model)
		}
	}
	if english && e.opts.Reranker == nil {
		return errs.New(errs.ErrUnavailable, "rerank: this server has no reranker configured")
	}
	p.rerankK = k
	return nil
}

// crossEncodes reports whether a collection's candidates are reranked by
// the cross-encoder (English collections) rather than by the similarity of
// its embedding model (rerank.Similarity: Czech and auto collections, which
// the English cross-encoder cannot read).
func crossEncodes(cfg CollectionConfig) bool { return cfg.SearchConfig.Language == "en" }

// similarityWeight is the weight of the similarity score against the fused
// score for candidates reranked by embedding similarity: a·s + (1−a)·fused
// (tuned on the train queries of the Czech retrieval set; bench/README.md).
const similarityWeight = 0.5

// rerank re-scores the p.rerankK best candidates of all (by fused score,
// before the identifier tier). A candidate of an English collection gets
// the cross-encoder's probability of relevance p, as is the common use of
// a cross-encoder (no weights tuned); one of another language the
// similarity score s of its embedding model over sentence windows, fused
// with its first-stage score: p = a·s + (1−a)·fused (a =
// similarityWeight). Each then scores m + (1−m)·p, where m is the best
// fused score of the candidates not re-scored (0 if none), which keep
// their scores and order below them. Scores stay in 0..1 and source keeps
// its meaning (which retrievers found the document).
func (e *Engine) rerank(ctx context.Context, p *plan, all []*hit) error {
	if p.rerankK == 0 || len(all) == 0 {
		return nil
	}
	slices.SortStableFunc(all, func(a, b *hit) int {
		switch {
		case a.score != b.score:
			if a.score > b.score {
				return -1
			}
			return 1
		case a.c.id != b.c.id:
			return strings.Compare(a.c.id, b.c.id)
		}
		return strings.Compare(a.docID, b.docID)
	})
	top := all[:min(p.rerankK, len(all))]
	var ceIdx, simIdx []int
	var ceTexts, simTexts []string
	for i, h := range top {
		d, err := e.rerankDoc(ctx, h)
		if errors.Is(err, ErrNotFound) {
			continue // deleted since the snapshot; loadHits drops it
		}
		if err != nil {
			return err
		}
		if crossEncodes(h.c.config()) {
			ceIdx, ceTexts = append(ceIdx, i), append(ceTexts, rerankText(&d, h))
		} else {
			simIdx, simTexts = append(simIdx, i), append(simTexts, rerankText(&d, h))
		}
	}
	scores := make([]float64, len(top))
	if len(ceIdx) > 0 {
		ps, err := e.opts.Reranker.Score(ctx, p.query, ceTexts)
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			return kindError(errs.ErrUnavailable, err, "rerank: the reranker failed")
		}
		for j, i := range ceIdx {
			scores[i] = ps[j]
		}
	}
	if len(simIdx) > 0 {
		ps, err := e.similarityScores(ctx, p, top[simIdx[0]].c.config().EmbeddingConfig, simTexts)
		if err != nil {
			return err
		}
		for j, i := range simIdx {
			scores[i] = similarityWeight*ps[j] + (1-similarityWeight)*top[i].score
		}
	}
	m := 0.0
	if len(all) > len(top) {
		// One step of rounding above the best of the rest, so that a
		// re-scored candidate never ties with it.
		m = min(1, all[len(top)].score+1e-6)
	}
	for i, h := range top {
		h.score = round6(m + (1-m)*scores[i])
	}
	return nil
}

// similarityScores scores texts by the similarity of the query and their
// sentence windows under the collections' embedding model (all collections
// of a search share it), reusing the query vector of the search.
func (e *Engine) similarityScores(ctx context.Context, p *plan, ec EmbeddingConfig, texts []string) ([]float64, error) {
	emb, err := e.embedder(ec)
	if err != nil {
		return nil, err
	}
	qvec, ok := e.queries.get(ec.Key(), p.query)
	if !ok {
		vs, err := emb.EmbedQueries(ctx, []string{p.query})
		if err != nil {
			return nil, embedError(emb, err)
		}
		if len(vs) != 1 {
			return nil, &Error{Kind: ErrUpstream, Message: fmt.Sprintf("embedding model %q returned %d vectors for one query", emb.Name(), len(vs))}
		}
		qvec = vs[0]
	}
	sim := rerank.Similarity{Emb: emb}
	ps, err := sim.ScoreVector(ctx, qvec, texts)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, embedError(emb, err)
	}
	return ps, nil
}

// rerankText is the text of a candidate the reranker reads: its sections
// in order, one per line. A document longer than rerankMaxRunes is read as
// its title sections and its best chunk, the passage semantic search found.
func rerankText(d *Document, h *hit) string {
	n := 0
	for _, s := range d.Sections {
		n += len(s.Content) + 1
	}
	var b strings.Builder
	if n <= rerankMaxRunes || len(h.bestCh) == 0 {
		for _, s := range d.Sections {
			if b.Len() > 0 {
				b.WriteByte('\n')
			}
			b.WriteString(s.Content)
			if b.Len() > 4*rerankMaxRunes {
				break
			}
		}
		return text.TruncateRunes(b.String(), rerankMaxRunes)
	}
	for _, s := range d.Sections {
		if strings.EqualFold(s.Type, "title") {
			b.WriteString(s.Content)
			b.WriteByte('\n')
		}
	}
	ref := h.chunkRef(h.bestCh[0].id)
	if sec := int(ref.Section); sec < len(d.Sections) {
		runes := []rune(d.Sections[sec].Content)
		if st, en := int(ref.Start), int(ref.End); st < en && en <= len(runes) {
			b.WriteString(string(runes[st:en]))
		}
	}
	return text.TruncateRunes(b.String(), rerankMaxRunes)
}

// rerankDoc loads the body of a hit to rerank.
func (e *Engine) rerankDoc(ctx context.Context, h *hit) (Document, error) {
	return e.be.document(ctx, h.c, h.docID)
}
