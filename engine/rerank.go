package engine

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"

	"github.com/najdi/najdi/internal/errs"
	"github.com/najdi/najdi/internal/strictjson"
)

// Reranker scores how relevant texts are to a query, in 0..1, each text
// independently of the others (package rerank's cross-encoder). Engine
// Options.Reranker holds the server's; a search asks for it with
// SearchRequest.Rerank.
type Reranker interface {
	Score(ctx context.Context, query string, passages []string) ([]float64, error)
}

// RerankRequest asks a search to re-score its first candidates with the
// reranker. It applies to English collections only.
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

// planRerank validates req.Rerank into p.rerankK: a reranker must be
// configured, the query present and every collection English.
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
	for _, c := range p.colls {
		if lang := c.config().SearchConfig.Language; lang != "en" {
			return invalidField("rerank", "the reranker (cross-encoder ms-marco-MiniLM-L-12-v2) is English only, and collection %q has search_config.language %q; search it without rerank", c.id, lang)
		}
	}
	if e.opts.Reranker == nil {
		return errs.New(errs.Unavailable, "rerank: this server has no reranker configured")
	}
	p.rerankK = k
	return nil
}

// rerank re-scores the p.rerankK best candidates of all (by fused score,
// before the identifier tier) with the reranker, ordering them by its
// probability of relevance p, as is the common use of a cross-encoder (no
// weights tuned): each gets m + (1−m)·p, where m is the best fused score of
// the candidates not re-scored (0 if none), which keep their scores and
// order below them. Scores stay in 0..1 and source keeps its meaning
// (which retrievers found the document).
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
	texts := make([]string, len(top))
	for i, h := range top {
		d, err := e.rerankDoc(ctx, h)
		if errors.Is(err, ErrNotFound) {
			continue // deleted since the snapshot; loadHits drops it
		}
		if err != nil {
			return err
		}
		texts[i] = rerankText(&d, h)
	}
	scores, err := e.opts.Reranker.Score(ctx, p.query, texts)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return kindError(errs.Unavailable, err, "rerank: the reranker failed")
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
		return truncRunes(b.String(), rerankMaxRunes)
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
	return truncRunes(b.String(), rerankMaxRunes)
}

// truncRunes cuts s to at most n runes.
func truncRunes(s string, n int) string {
	i := 0
	for pos := range s {
		if i == n {
			return s[:pos]
		}
		i++
	}
	return s
}

// rerankDoc loads the body of a hit to rerank, from the cluster when the
// engine runs on a Backend.
func (e *Engine) rerankDoc(ctx context.Context, h *hit) (Document, error) {
	if e.remote() {
		return e.loadRemoteDoc(ctx, h.c, h.docID)
	}
	return e.loadDoc(h.c, h.docID)
}
