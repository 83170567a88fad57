package engine

import (
	"context"
	"strings"
	"sync"

	"github.com/najdi/najdi/nlu/ner"
	"github.com/najdi/najdi/text"
	"github.com/najdi/najdi/text/diacritics"
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
	base, err := e.baseRestorer()
	if err != nil {
		return err
	}
	r := base
	if len(p.colls) == 1 {
		r = e.collectionRestorer(p.colls[0], base)
	} else if v := e.vocabulary(p.colls); len(v) > 0 {
		r = r.WithVocabulary(v)
	}
	if q, changed := r.Restore(p.query); changed && q != p.query {
		p.query, p.changed = q, true
	}
	return nil
}

// baseRestorer returns the engine's restorer without collection
// vocabularies, built on first use: the default lexicon and dictionary
// (shared by the process) with Czech place names, so that multiword place
// names get their spelling and capitals back in lowercase queries ("cesky
// krumlov" → "Český Krumlov").
func (e *Engine) baseRestorer() (*diacritics.Restorer, error) {
	br := &e.restorer
	br.once.Do(func() {
		br.r, br.err = diacritics.Default()
		if br.err == nil {
			br.r = br.r.WithNames(ner.CzechPlaceNames())
		}
	})
	return br.r, br.err
}

// collectionRestorer returns the base restorer extended with the
// collection's vocabulary, cached until the collection changes.
func (e *Engine) collectionRestorer(c *collection, base *diacritics.Restorer) *diacritics.Restorer {
	e.vocabulary([]*collection{c}) // fills c.mu.vocabCache
	c.mu.Lock()
	vc := c.mu.vocabCache
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

// vocabSampleDocs bounds how many documents feed a collection's
// diacritics vocabulary.
const vocabSampleDocs = 5000

// vocabCache holds a collection's word forms (lowercase, with diacritics)
// and their counts, for diacritics restoration.
type vocabCache struct {
	once  sync.Once
	words map[string]int
	rOnce sync.Once
	r     *diacritics.Restorer
}

// vocabulary returns the merged word-form counts of the collections,
// built lazily from up to vocabSampleDocs documents each (buildVocabulary)
// and cached until the collection changes.
func (e *Engine) vocabulary(colls []*collection) map[string]int {
	out := map[string]int{}
	for _, c := range colls {
		c.mu.Lock()
		vc := c.mu.vocabCache
		if vc == nil {
			vc = &vocabCache{}
			c.mu.vocabCache = vc
		}
		c.mu.Unlock()
		vc.once.Do(func() { vc.words = e.buildVocabulary(c) })
		for w, n := range vc.words {
			out[w] += n
		}
	}
	return out
}

// buildVocabulary counts the word forms of a sample of up to
// vocabSampleDocs live documents (backend.vocabularySample): the same
// sample for the same collection state, whatever the map order.
func (e *Engine) buildVocabulary(c *collection) map[string]int {
	words := map[string]int{}
	for _, id := range e.be.vocabularySample(c, vocabSampleDocs) {
		d, err := e.be.document(context.Background(), c, id)
		if err != nil {
			continue
		}
		for _, s := range d.Sections {
			for _, sp := range text.Words(s.Content) {
				w := strings.ToLower(s.Content[sp.Start:sp.End])
				if len(w) > 1 && len(w) < 40 {
					words[w]++
				}
			}
		}
	}
	return words
}

// invalidateVocabulary drops the cached vocabulary after a write; c.mu is
// held.
func (c *collection) invalidateVocabulary() { c.mu.vocabCache = nil }
