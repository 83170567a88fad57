package bench

import (
	"fmt"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/lang/en"
	"github.com/blevesearch/bleve/v2/search/query"
)

// newBleveRanker indexes docs in an in-memory bleve index (English
// analyzer on the title and text fields, bleve's default scoring) and
// returns a ranker that ORs a match query on both fields. Bleve lives only
// in this file so that product packages never import it.
func newBleveRanker(docs []BEIRDoc) (keywordRanker, func() error, error) {
	m := bleve.NewIndexMapping()
	m.DefaultAnalyzer = en.AnalyzerName
	idx, err := bleve.NewMemOnly(m)
	if err != nil {
		return nil, nil, fmt.Errorf("bleve: %w", err)
	}
	batch := idx.NewBatch()
	for _, d := range docs {
		if err := batch.Index(d.ID, map[string]string{"title": d.Title, "text": d.Text}); err != nil {
			idx.Close()
			return nil, nil, fmt.Errorf("bleve index %s: %w", d.ID, err)
		}
		if batch.Size() >= 1000 {
			if err := idx.Batch(batch); err != nil {
				idx.Close()
				return nil, nil, fmt.Errorf("bleve batch: %w", err)
			}
			batch.Reset()
		}
	}
	if err := idx.Batch(batch); err != nil {
		idx.Close()
		return nil, nil, fmt.Errorf("bleve batch: %w", err)
	}
	rank := func(q string, depth int) ([]string, error) {
		title := bleve.NewMatchQuery(q)
		title.SetField("title")
		body := bleve.NewMatchQuery(q)
		body.SetField("text")
		req := bleve.NewSearchRequestOptions(bleve.NewDisjunctionQuery([]query.Query{title, body}...), depth, 0, false)
		res, err := idx.Search(req)
		if err != nil {
			return nil, fmt.Errorf("bleve search: %w", err)
		}
		ids := make([]string, len(res.Hits))
		for i, h := range res.Hits {
			ids[i] = h.ID
		}
		return ids, nil
	}
	return rank, idx.Close, nil
}
