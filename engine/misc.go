package engine

import (
	"strings"
	"sync"

	"github.com/google/uuid"

	"github.com/najdi/najdi/text"
	"github.com/najdi/najdi/text/diacritics"
)

func newID() string { return uuid.NewString() }

// kickMerge asks the merger to look for work now.
func (e *Engine) kickMerge() {
	select {
	case e.kick <- struct{}{}:
	default:
	}
}

func (e *Engine) mergeKick() <-chan struct{} { return e.kick }

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
// built lazily from up to vocabSampleDocs documents each and cached until
// the collection changes.
func (e *Engine) vocabulary(colls []*collection) map[string]int {
	out := map[string]int{}
	for _, c := range colls {
		c.mu.Lock()
		vc := c.vocabCache
		if vc == nil {
			vc = &vocabCache{}
			c.vocabCache = vc
		}
		c.mu.Unlock()
		vc.once.Do(func() { vc.words = e.buildVocabulary(c) })
		for w, n := range vc.words {
			out[w] += n
		}
	}
	return out
}

func (e *Engine) buildVocabulary(c *collection) map[string]int {
	c.mu.RLock()
	ids := make([]string, 0, min(len(c.loc), vocabSampleDocs))
	for id := range c.loc {
		if len(ids) == vocabSampleDocs {
			break
		}
		ids = append(ids, id)
	}
	c.mu.RUnlock()
	words := map[string]int{}
	for _, id := range ids {
		d, err := e.loadDoc(c, id)
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

// invalidateVocabulary drops the cached vocabulary after a write.
func (c *collection) invalidateVocabulary() { c.vocabCache = nil }
