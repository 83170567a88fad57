package engine

import (
	"errors"
	"slices"

	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/text"
)

// defaultPassages is the number of passages returned per document.
const defaultPassages = 3

// loadHits loads the hits' documents and cuts their passages. A document
// deleted or replaced since the search took its snapshot is dropped, not
// returned empty or with a body it did not match (loadMatched).
func (e *Engine) loadHits(p *plan, hits []*hit) ([]*hit, error) {
	bp := p.bodyParts()
	// The parts each collection's bodies need (usually one collection).
	var last *collection
	var lastBP bodyParts
	return e.cutHits(p, hits, func(h *hit) (Document, error) {
		if h.c != last {
			last, lastBP = h.c, bp
			if bp.sections != nil && !bp.none() && h.c.namesAbsent(bp.sections) {
				lastBP = bodyParts{sections: map[string]bool{}, noFields: true}
			}
		}
		return e.be.load(p, h, lastBP)
	})
}

// maxStoredNames bounds the section types and field names a collection
// record keeps (collRecord.Names): beyond it the collection stops knowing
// them and every search reads the bodies it renders.
const maxStoredNames = 2048

// noteStoredNames adds the section types and field names of a document
// about to be stored to rec.Names (rec.NamesKnown), copying the slice
// rather than changing it in place, since records share it; it reports
// whether rec changed.
func noteStoredNames(rec *collRecord, d *storedDoc) bool {
	changed := false
	add := func(name string) {
		if !rec.NamesKnown {
			return
		}
		i, found := slices.BinarySearch(rec.Names, name)
		if found {
			return
		}
		changed = true
		if len(rec.Names) >= maxStoredNames {
			rec.Names, rec.NamesKnown = nil, false
			return
		}
		rec.Names = slices.Insert(slices.Clip(rec.Names), i, name)
	}
	for _, s := range d.Sections {
		add(s.Type)
	}
	for _, f := range d.Fields {
		add(f.Name)
	}
	return changed
}

// namesAbsent reports whether no document stored in c has a section type
// or a field name in names, so that a search returning only those shows
// nothing of its bodies: empty content, no sections, no fields, no
// passages. It reads the record when the hits are loaded, after the search
// took its snapshot: a commit installs its record with its segment, and
// names are only ever added, so the record knows the names of every
// document the snapshot holds.
func (c *collection) namesAbsent(names map[string]bool) bool {
	c.mu.RLock()
	defer c.mu.RUnlock()
	rec := &c.mu.rec
	if !rec.NamesKnown {
		return false
	}
	for n := range names {
		if _, found := slices.BinarySearch(rec.Names, n); found {
			return false
		}
	}
	return true
}

// cutHits loads each hit's document with load and cuts its passages; a
// hit whose document load reports ErrNotFound (deleted or replaced since
// the search matched it) is dropped.
func (e *Engine) cutHits(p *plan, hits []*hit, load func(*hit) (Document, error)) ([]*hit, error) {
	keep := hits[:0]
	for _, h := range hits {
		d, err := load(h)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return nil, err
		}
		if len(p.docSlab) == cap(p.docSlab) {
			// One allocation for the page's documents, not one each.
			p.docSlab = make([]Document, 0, len(hits))
		}
		p.docSlab = append(p.docSlab, d)
		h.doc = &p.docSlab[len(p.docSlab)-1]
		if p.highlight && p.query != "" {
			h.passages = e.passages(p, h)
		}
		keep = append(keep, h)
	}
	return keep, nil
}

// bodyParts returns the parts of the hits' bodies the response uses:
// summaries and answers read every section; otherwise only the sections
// include_fields names, or none when neither content nor passages are
// returned; fields only with content.
func (p *plan) bodyParts() bodyParts {
	if p.summaries || p.summaryStr || p.loadAll {
		return bodyParts{}
	}
	bp := bodyParts{noFields: !p.full, sections: p.fields}
	if !p.full && !(p.highlight && p.query != "") {
		bp.sections = map[string]bool{}
	}
	return bp
}

// passages merges keyword passages and the best semantic chunks.
func (e *Engine) passages(p *plan, h *hit) []Passage {
	secs := make([]string, len(h.doc.Sections))
	for i, s := range h.doc.Sections {
		if p.fields != nil && !p.fields[s.Type] {
			continue // passages only point to returned sections
		}
		secs[i] = s.Content
	}
	qt := e.queryTermsFor(p, h.c)
	var out []Passage
	for _, ps := range text.Passages(qt.an, qt.weights, secs, text.PassageOptions{MaxPassages: defaultPassages}) {
		out = append(out, Passage{Text: ps.Text, Offsets: [2]int{ps.Start, ps.End}, SectionIndex: ps.Section, Score: round6(ps.Score)})
	}
	rk := e.opts.Ranker
	for i, ch := range h.bestCh {
		if i >= defaultPassages {
			break
		}
		ref := h.chunkRef(ch.id)
		sec := int(ref.Section)
		if sec >= len(secs) || secs[sec] == "" {
			continue
		}
		st, en := int(ref.Start), int(ref.End)
		score := rk.semanticScore(ch.cos)
		if st >= en || score <= 0 {
			continue
		}
		span, ok := runeSpan(secs[sec], st, en)
		if !ok {
			continue
		}
		out = append(out, Passage{Text: span, Offsets: [2]int{st, en}, SectionIndex: sec, Score: round6(score)})
	}
	slices.SortStableFunc(out, func(a, b Passage) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return a.SectionIndex*1e6 + a.Offsets[0] - (b.SectionIndex*1e6 + b.Offsets[0])
	})
	// Drop passages overlapping a better one.
	keep := out[:0]
	for _, ps := range out {
		overlap := false
		for _, k := range keep {
			if k.SectionIndex == ps.SectionIndex && ps.Offsets[0] < k.Offsets[1] && k.Offsets[0] < ps.Offsets[1] {
				overlap = true
				break
			}
		}
		if !overlap {
			keep = append(keep, ps)
		}
		if len(keep) == defaultPassages {
			break
		}
	}
	return keep
}

// chunkRef locates chunk id of bestCh: in the hit's segment, or in refs
// for a hit from a Backend.
func (h *hit) chunkRef(id uint32) segment.ChunkRef {
	if h.seg == nil {
		return h.refs[id]
	}
	return h.seg.Chunks[id]
}

// runeSpan returns the part of s between code points st and en (st < en),
// without copying; false when s has fewer than en code points.
func runeSpan(s string, st, en int) (string, bool) {
	n, lo := 0, -1
	for i := range s {
		if n == st {
			lo = i
		}
		if n == en {
			return s[lo:i], true
		}
		n++
	}
	if n == en && lo >= 0 {
		return s[lo:], true
	}
	return "", false
}
