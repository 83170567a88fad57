package engine

import (
	"unicode/utf8"

	"github.com/najdi/najdi/ingest"
)

// render shapes a hit for the response.
func (e *Engine) render(p *plan, h *hit) ResultDoc {
	rd := ResultDoc{DocumentID: h.docID, Score: h.score, Source: source(h)}
	if len(p.colls) > 1 {
		rd.CollectionID = h.c.id
	}
	var inc func(string) bool
	if p.fields != nil {
		inc = func(n string) bool { return p.fields[n] }
	}
	if p.full {
		limit := min(MaxReturnedContentBytes, MaxResponseContentBytes-p.returned)
		if p.sections {
			rd.Sections = []ingest.Section{}
			for _, s := range h.doc.Sections {
				if inc == nil || inc(s.Type) {
					if len(s.Content) > limit {
						// Cut here; the sections after it are left out.
						s.Content, rd.Truncated = cutUTF8(s.Content, limit), true
						p.returned += len(s.Content)
						rd.Sections = append(rd.Sections, s)
						break
					}
					limit -= len(s.Content)
					p.returned += len(s.Content)
					rd.Sections = append(rd.Sections, s)
				}
			}
		} else {
			c := h.doc.Content(inc)
			if len(c) > limit {
				c, rd.Truncated = cutUTF8(c, limit), true
			}
			p.returned += len(c)
			rd.Content = p.contentPtr(c)
		}
		if len(h.doc.Fields) > 0 { // no fields, no "fields" member either way
			rd.Fields = FieldsMap(h.doc.Fields, inc)
		}
	}
	if p.highlight && p.query != "" {
		rd.Passages = h.passages
		if rd.Passages == nil {
			rd.Passages = []Passage{}
		}
		if p.sections && inc != nil {
			// section_index refers to the returned sections.
			idx := map[int]int{}
			n := 0
			for i, s := range h.doc.Sections {
				if inc(s.Type) {
					idx[i] = n
					n++
				}
			}
			for i := range rd.Passages {
				rd.Passages[i].SectionIndex = idx[rd.Passages[i].SectionIndex]
			}
		}
	}
	return rd
}

// cutUTF8 returns the longest prefix of s of at most n bytes that ends at
// a character boundary.
func cutUTF8(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func source(h *hit) string {
	switch {
	case h.byKey && h.bySem:
		return "sem-key"
	case h.bySem:
		return "sem"
	}
	return "key"
}

// contentPtr returns a pointer to a copy of c for ResultDoc.Content, cut
// from a slab of the plan's (one allocation per page instead of one per
// document); earlier pointers stay valid when the slab is replaced.
func (p *plan) contentPtr(c string) *string {
	if len(p.contentSlab) == cap(p.contentSlab) {
		p.contentSlab = make([]string, 0, max(p.max, 8))
	}
	p.contentSlab = append(p.contentSlab, c)
	return &p.contentSlab[len(p.contentSlab)-1]
}
