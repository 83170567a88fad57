package engine

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/text"
	"github.com/najdi/najdi/vector"
)

// docPrep is prepare's scratch state, reused across documents.
type docPrep struct {
	tf         map[string]float32  // term → weighted frequency of one document
	terms      []invindex.TermFreq // tf, sorted
	chunkTexts []string            // the text of every chunk so far, by chunk id
	// embed embeds chunkTexts in the background as they accumulate; nil
	// until the first document of a flush that embeds.
	embed *embedPipe
}

// analyzeDoc analyzes document d (local number local) with the analyzer of
// its language: searchable sections weighted by their section boost, then
// envelope fields of type text and enum_text (a record's properties are
// sections already). When the collection embeds, each of them is chunked
// into seg.Chunks; a field's chunks point past the sections: they give
// semantic evidence, not passages. It returns the document's sorted term
// frequencies (valid until the next call) and its weighted length.
func (w *writer) analyzeDoc(rec *collRecord, seg *segment.Segment, local uint32, d pendingDoc, p *docPrep) ([]invindex.TermFreq, float32) {
	rk := w.e.opts.Ranker
	sample := ""
	for _, s := range d.sections {
		if len(sample) > 2000 {
			break
		}
		sample += s.Content + "\n"
	}
	a := analyzerFor(rec.Config.SearchConfig.Language, sample)
	clear(p.tf)
	var length float32
	for si, s := range d.sections {
		if !searchable(rec, s.Type) {
			continue
		}
		boost := rk.SectionBoost(s.Type)
		a.Analyze(s.Content, func(t text.Token) {
			p.tf[t.Term] += boost
			length += boost
		})
		if !d.record {
			w.chunkInto(seg, p, local, uint32(si), s.Content)
		}
	}
	if w.emb != nil && d.record {
		texts, refs := w.recordChunks(rec, d, local) // records.go
		p.chunkTexts = append(p.chunkTexts, texts...)
		seg.Chunks = append(seg.Chunks, refs...)
	}
	for fi, f := range d.fields {
		content := w.fieldText(rec, d, f)
		if content == "" {
			continue
		}
		a.Analyze(content, func(t text.Token) {
			p.tf[t.Term]++
			length++
		})
		w.chunkInto(seg, p, local, uint32(len(d.sections)+fi), content)
	}
	if w.emb != nil {
		if p.embed == nil {
			p.embed = newEmbedPipe(w.ctx, w.emb)
		}
		p.embed.offer(p.chunkTexts)
	}
	p.terms = p.terms[:0]
	for t, f := range p.tf {
		p.terms = append(p.terms, invindex.TermFreq{Term: t, Freq: f})
	}
	sortTerms(p.terms)
	return p.terms, length
}

// chunkInto chunks content (section section of document local) for
// embedding when the collection embeds: the chunk texts go to p, their
// code-point ranges to seg.Chunks.
func (w *writer) chunkInto(seg *segment.Segment, p *docPrep, local, section uint32, content string) {
	if w.emb == nil {
		return
	}
	for _, ch := range w.e.chunk(w.emb, content) {
		p.chunkTexts = append(p.chunkTexts, content[ch[0]:ch[1]])
		seg.Chunks = append(seg.Chunks, segment.ChunkRef{Doc: local, Section: section,
			Start: uint32(text.RuneOffset(content, ch[0])), End: uint32(text.RuneOffset(content, ch[1]))})
	}
}

// vectors returns the vectors of every chunk of the flush (vector id =
// chunk id), embedded by the pipe analyzeDoc fed.
func (w *writer) vectors(p *docPrep) ([][]float32, error) {
	if p.embed == nil {
		p.embed = newEmbedPipe(w.ctx, w.emb)
	}
	return p.embed.wait(p.chunkTexts)
}

// buildVectors builds the segment's vector index over the vectors of
// every chunk of the flush (vector id = chunk id).
func (w *writer) buildVectors(p *docPrep) (*vector.Index, error) {
	vecs, err := w.vectors(p)
	if err != nil {
		return nil, err
	}
	vb := vector.NewBuilder(w.emb.Dims())
	for i, v := range vecs {
		vb.Add(uint32(i), v)
	}
	idx, err := vb.Build(w.e.opts.Ranker.VectorOptions())
	if err != nil {
		return nil, fmt.Errorf("build vector index: %w", err)
	}
	return idx, nil
}

// searchable reports whether a section of this type takes part in keyword
// and semantic search: every section except enum and number fields.
func searchable(rec *collRecord, typ string) bool {
	t, ok := fieldTypeOf(rec, typ)
	return !ok || (t != FieldEnum && t != FieldNumber)
}

// fieldType returns the type field f takes in rec: declared or inferred
// before, else as this ingest's documents typed it (checkDoc), else as
// inferred from f itself ("" when f holds only nulls).
func (w *writer) fieldType(rec *collRecord, f fieldInput) string {
	if typ, ok := fieldTypeOf(rec, f.name); ok {
		return typ
	}
	if typ := w.types[f.name]; typ != "" {
		return typ
	}
	return inferType(f)
}

// fieldText returns the searchable text of field f of d: its string
// values joined, when its type is text or enum_text and d has no section
// of the same name holding it already; "" otherwise.
func (w *writer) fieldText(rec *collRecord, d pendingDoc, f fieldInput) string {
	for _, s := range d.sections {
		if s.Type == f.name {
			return ""
		}
	}
	if typ := w.fieldType(rec, f); typ != FieldText && typ != FieldEnumText {
		return ""
	}
	var parts []string
	for _, v := range f.vals {
		if v.Kind != ingest.KindNull && strings.TrimSpace(v.Str) != "" {
			parts = append(parts, v.Str)
		}
	}
	return strings.Join(parts, ", ")
}

func sortTerms(t []invindex.TermFreq) {
	slices.SortFunc(t, func(a, b invindex.TermFreq) int { return strings.Compare(a.Term, b.Term) })
}

// fields types the documents' fields (inferring new ones into w.rec),
// builds the segment's field index and encodes the document bodies. It runs
// under the collection's write lock.
func (w *writer) fields(seg *segment.Segment, docs []pendingDoc) ([][]byte, error) {
	fb := invindex.NewFieldBuilder()
	bodies := make([][]byte, len(docs))
	for i, d := range docs {
		local := uint32(i)
		stored := storedDoc{Sections: d.sections}
		for _, f := range d.fields {
			_, known := fieldTypeOf(&w.rec, f.name)
			typ := w.fieldType(&w.rec, f)
			if !known {
				if typ == "" || inferType(f) == "" {
					// Only nulls so far, or only here: the type comes from
					// the first real value stored. (Another document of the
					// upload may have typed the field — one that a later
					// occurrence of its id replaced, so it is not stored.)
					continue
				}
				w.rec.Inferred[f.name] = typ
				w.recDirty = true
			}
			fv := FieldValue{Name: f.name}
			for _, v := range f.vals {
				switch v.Kind {
				case ingest.KindNull:
					continue
				case ingest.KindNumber:
					fv.Values = append(fv.Values, v.Num)
				case ingest.KindString:
					// A number field stores numbers, also from text cells
					// (a CSV cell, or one split by "multi").
					if n, ok := numberOf(v); ok && typ == FieldNumber {
						fv.Values = append(fv.Values, n)
					} else {
						fv.Values = append(fv.Values, v.Str)
					}
				case ingest.KindBool:
					fv.Values = append(fv.Values, v.Bool)
				default:
					fv.Values = append(fv.Values, v.Str)
				}
				switch typ {
				case FieldNumber:
					if n, ok := numberOf(v); ok {
						fb.AddNumber(local, f.name, n)
					}
				case FieldEnum, FieldEnumText:
					fb.AddString(local, f.name, v.Str)
				}
			}
			if len(fv.Values) > 0 {
				stored.Fields = append(stored.Fields, fv)
			}
		}
		if w.rec.NamesKnown {
			w.recDirty = noteStoredNames(&w.rec, &stored) || w.recDirty
		}
		body, err := json.Marshal(stored)
		if err != nil {
			return nil, fmt.Errorf("encode document %q: %w", d.id, err)
		}
		bodies[i] = body
	}
	seg.Fields = fb.Build(uint32(len(docs)))
	return bodies, nil
}
