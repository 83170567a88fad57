package engine

import (
	"sync"

	"github.com/najdi/najdi/nlu/ner"
	"github.com/najdi/najdi/text/diacritics"
)

var (
	restorerOnce sync.Once
	restorer     *diacritics.Restorer
	restorerErr  error
)

// restoreQuery restores Czech diacritics in the query when the request, or
// else the first collection's search_config, asks for it.
func (e *Engine) restoreQuery(p *plan) error {
	on := p.colls[0].config().SearchConfig.RestoreDiacritics
	if p.req.RestoreDiacritics != nil {
		on = *p.req.RestoreDiacritics
	}
	if !on || p.query == "" {
		return nil
	}
	restorerOnce.Do(func() {
		restorer, restorerErr = diacritics.Default()
		if restorerErr == nil {
			// Multiword place names get their spelling and capitals back
			// in lowercase queries ("cesky krumlov" → "Český Krumlov").
			restorer = restorer.WithNames(ner.CzechPlaceNames())
		}
	})
	if restorerErr != nil {
		return restorerErr
	}
	r := restorer
	if len(p.colls) == 1 {
		r = e.collectionRestorer(p.colls[0], restorer)
	} else if v := e.vocabulary(p.colls); len(v) > 0 {
		r = r.WithVocabulary(v)
	}
	if q, changed := r.Restore(p.query); changed && q != p.query {
		p.query, p.changed = q, true
	}
	return nil
}

// collectionRestorer returns the base restorer extended with the
// collection's vocabulary, cached until the collection changes.
func (e *Engine) collectionRestorer(c *collection, base *diacritics.Restorer) *diacritics.Restorer {
	e.vocabulary([]*collection{c}) // fills c.vocabCache
	c.mu.Lock()
	vc := c.vocabCache
	c.mu.Unlock()
	if vc == nil {
		return base
	}
	vc.rOnce.Do(func() {
		vc.r = base
		if len(vc.words) > 0 {
			vc.r = base.WithVocabulary(vc.words)
		}
	})
	return vc.r
}
