package engine

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/RoaringBitmap/roaring/v2"

	"github.com/najdi/najdi/ingest"
	"github.com/najdi/najdi/invindex"
	"github.com/najdi/najdi/segment"
	"github.com/najdi/najdi/text"
	"github.com/najdi/najdi/vector"
)

// pendingDoc is a parsed document waiting in the write buffer.
type pendingDoc struct {
	id       string
	sections []ingest.Section
	fields   []fieldInput
	// idProp names the record property that gave the document id: its
	// value is the id and is exempt from the number check (checkDoc).
	idProp string
}

type fieldInput struct {
	name string
	vals []ingest.Value
	enum bool // force type enum when inferred (the spreadsheet "sheet" field)
}

// writer buffers the documents of one ingest and flushes them as segments.
// It runs with the collection's write lock held.
type writer struct {
	e        *Engine
	c        *collection
	ctx      context.Context
	progress func(int)
	jobID    string // see IngestRequest.jobID
	turn     *ingestTurn
	// lastFlush is when the buffer was last emptied: a job flushes at
	// least every jobFlushInterval (backpressure.go).
	lastFlush time.Time
	// jobBatch is the size of a job's next flush (see jobFirstFlushDocs).
	jobBatch int

	rec      collRecord
	recDirty bool
	emb      Embedder

	// types holds the types of fields new to the collection that
	// documents accepted by this ingest will infer at their flush; see
	// checkDoc.
	types map[string]string

	pending      []pendingDoc
	pendingBytes int
	processed    int
	res          IngestResult
}

func (w *writer) init() error {
	w.rec = w.c.record()
	emb, err := w.e.embedder(w.rec.Config.EmbeddingConfig)
	if err != nil {
		return err
	}
	w.emb = emb
	w.lastFlush = time.Now()
	return nil
}

func (w *writer) add(d pendingDoc) error {
	w.pending = append(w.pending, d)
	for _, s := range d.sections {
		w.pendingBytes += len(s.Content)
	}
	if len(w.pending) >= w.e.opts.FlushDocs || w.pendingBytes >= w.e.opts.FlushBytes ||
		(w.jobID != "" && (len(w.pending) >= max(w.jobBatch, jobFirstFlushDocs) || time.Since(w.lastFlush) >= jobFlushInterval)) {
		if err := w.flush(); err != nil {
			return err
		}
		// Outside the collection's write lock, which flush held.
		return w.turn.yield(w.ctx)
	}
	return nil
}

// flush writes the buffered documents as one segment, atomically with
// their bodies and the deletes of the documents they replace. Text
// analysis and embedding run before the collection's write lock is taken;
// field typing, encoding and the commit run under it.
func (w *writer) flush() error {
	if len(w.pending) == 0 {
		return nil
	}
	if w.e.closed() {
		return ErrClosed
	}
	// One status per input document, in input order; a document id given
	// twice is written once (the last copy) and reported twice.
	ids := make([]string, len(w.pending))
	for i, d := range w.pending {
		ids[i] = d.id
	}
	docs := dedupe(w.pending)
	w.pending, w.pendingBytes = w.pending[:0], 0
	w.lastFlush = time.Now()
	w.jobBatch = min(2*max(w.jobBatch, jobFirstFlushDocs), jobFlushDocs)

	seg, err := w.prepare(docs)
	if err != nil {
		return err
	}
	c := w.c
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.dropped {
		return notFoundf("collection %q was deleted during the ingest", c.id)
	}
	w.rec = c.record()
	bodies, err := w.fields(seg, docs)
	if err != nil {
		return err
	}
	c.mu.RLock()
	segs := c.segs
	replaced := map[uint64][]uint32{}
	for _, d := range docs {
		if l, ok := c.loc[d.id]; ok {
			replaced[l.seg] = append(replaced[l.seg], l.local)
		}
	}
	status := make([]DocStatus, len(ids))
	inBatch := make(map[string]bool, len(ids))
	for i, id := range ids {
		status[i] = DocStatus{DocumentID: id, Status: "created"}
		if _, ok := c.loc[id]; ok || inBatch[id] {
			status[i].Status = "replaced"
		}
		inBatch[id] = true
	}
	c.mu.RUnlock()

	b := w.e.store.NewBatch()
	for i, d := range docs {
		b.PutDocument(c.num, d.id, bodies[i])
	}
	seg.Write(b, c.num)
	var changed []*segment.Segment
	for sid, locals := range replaced {
		ns := withDeleted(segByID(segs, sid), locals)
		ns.WriteDeleted(b, c.num)
		changed = append(changed, ns)
	}
	if w.recDirty {
		raw, err := json.Marshal(w.rec)
		if err != nil {
			b.Abort()
			return fmt.Errorf("encode collection: %w", err)
		}
		b.PutCollection(c.owner, c.id, raw)
	}
	if err := b.Commit(); err != nil {
		return err
	}
	c.mu.Lock()
	// Segment ids are taken before the lock, so concurrent writers may
	// commit out of id order: keep the list sorted (segByID searches it).
	c.segs = append(replaceSegs(c.segs, changed), seg)
	slices.SortFunc(c.segs, func(a, b *segment.Segment) int { return cmpU64(a.ID, b.ID) })
	for i, d := range docs {
		c.loc[d.id] = docLoc{seg: seg.ID, local: uint32(i)}
	}
	c.invalidateVocabulary()
	if w.recDirty {
		c.rec = w.rec
		w.recDirty = false
	}
	nsegs := len(c.segs)
	c.mu.Unlock()
	w.res.Documents = append(w.res.Documents, status...)
	w.processed += len(ids)
	if w.progress != nil {
		w.progress(w.processed)
	}
	if nsegs > w.e.opts.MaxSegments {
		w.e.kickMerge()
	}
	return nil
}

// dedupe keeps the last occurrence of each document id, in order.
func dedupe(docs []pendingDoc) []pendingDoc {
	last := make(map[string]int, len(docs))
	for i, d := range docs {
		last[d.id] = i
	}
	if len(last) == len(docs) {
		return append([]pendingDoc(nil), docs...)
	}
	out := make([]pendingDoc, 0, len(last))
	for i, d := range docs {
		if last[d.id] == i {
			out = append(out, d)
		}
	}
	return out
}

// withDeleted returns a copy of s whose delete bitmap also holds locals.
func withDeleted(s *segment.Segment, locals []uint32) *segment.Segment {
	ns := *s
	ns.Deleted = s.Deleted.Clone()
	ns.Deleted.AddMany(locals)
	return &ns
}

// replaceSegs returns segs with the segments of equal id replaced by repl.
func replaceSegs(segs, repl []*segment.Segment) []*segment.Segment {
	out := make([]*segment.Segment, 0, len(segs)+1)
	for _, s := range segs {
		for _, r := range repl {
			if r.ID == s.ID {
				s = r
				break
			}
		}
		out = append(out, s)
	}
	return out
}

// analyzerFor returns the analyzer of a collection language for a text.
func analyzerFor(lang string, sample string) *text.Analyzer {
	switch lang {
	case "cs":
		return text.NewAnalyzer(text.Czech)
	case "auto":
		return text.NewAnalyzer(text.DetectLanguage(sample))
	}
	return text.NewAnalyzer(text.English)
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

// prepare analyzes and embeds docs into a new segment without its field
// index (see fields).
func (w *writer) prepare(docs []pendingDoc) (*segment.Segment, error) {
	rk := w.e.opts.Ranker
	rec := w.c.record()
	tb := invindex.NewTextBuilder()
	seg := &segment.Segment{ID: w.e.store.NextID(), Docs: make([]string, len(docs)), Deleted: roaring.New()}
	var chunkTexts []string
	tf := map[string]float32{}
	var terms []invindex.TermFreq
	for i, d := range docs {
		local := uint32(i)
		seg.Docs[i] = d.id
		sample := ""
		for _, s := range d.sections {
			if len(sample) > 2000 {
				break
			}
			sample += s.Content + "\n"
		}
		a := analyzerFor(rec.Config.SearchConfig.Language, sample)
		clear(tf)
		var length float32
		for si, s := range d.sections {
			if !searchable(&rec, s.Type) {
				continue
			}
			boost := rk.SectionBoost(s.Type)
			a.Analyze(s.Content, func(t text.Token) {
				tf[t.Term] += boost
				length += boost
			})
			if w.emb != nil {
				for _, ch := range w.e.chunk(w.emb, s.Content) {
					chunkTexts = append(chunkTexts, s.Content[ch[0]:ch[1]])
					seg.Chunks = append(seg.Chunks, segment.ChunkRef{Doc: local, Section: uint32(si),
						Start: uint32(text.RuneOffset(s.Content, ch[0])), End: uint32(text.RuneOffset(s.Content, ch[1]))})
				}
			}
		}
		// Envelope fields of type text and enum_text are searched too (a
		// record's properties are sections already). Their chunks point
		// past the sections: they give semantic evidence, not passages.
		for fi, f := range d.fields {
			content := w.fieldText(&rec, d, f)
			if content == "" {
				continue
			}
			a.Analyze(content, func(t text.Token) {
				tf[t.Term]++
				length++
			})
			if w.emb != nil {
				for _, ch := range w.e.chunk(w.emb, content) {
					chunkTexts = append(chunkTexts, content[ch[0]:ch[1]])
					seg.Chunks = append(seg.Chunks, segment.ChunkRef{Doc: local, Section: uint32(len(d.sections) + fi),
						Start: uint32(text.RuneOffset(content, ch[0])), End: uint32(text.RuneOffset(content, ch[1]))})
				}
			}
		}
		terms = terms[:0]
		for t, f := range tf {
			terms = append(terms, invindex.TermFreq{Term: t, Freq: f})
		}
		sortTerms(terms)
		tb.Add(local, terms, length)
	}
	seg.Text = tb.Build()
	seg.InitChunkIndex()
	if w.emb != nil {
		vecs, err := w.e.embedPassages(w.ctx, w.emb, chunkTexts)
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
		seg.Vectors = idx
	}
	return seg, nil
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
				if typ == "" {
					continue // only nulls so far: infer on the first real value
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
		body, err := json.Marshal(stored)
		if err != nil {
			return nil, fmt.Errorf("encode document %q: %w", d.id, err)
		}
		bodies[i] = body
	}
	seg.Fields = fb.Build(uint32(len(docs)))
	return bodies, nil
}

func inferType(f fieldInput) string {
	for _, v := range f.vals {
		switch v.Kind {
		case ingest.KindNull:
			continue
		case ingest.KindNumber:
			if f.enum {
				return FieldEnum
			}
			return FieldNumber
		default:
			if f.enum {
				return FieldEnum
			}
			return FieldEnumText
		}
	}
	return ""
}

func numberOf(v ingest.Value) (float64, bool) {
	switch v.Kind {
	case ingest.KindNumber:
		return v.Num, true
	case ingest.KindString:
		n, err := strconv.ParseFloat(v.Str, 64)
		return n, err == nil
	}
	return 0, false
}

func sortTerms(t []invindex.TermFreq) {
	slices.SortFunc(t, func(a, b invindex.TermFreq) int { return strings.Compare(a.Term, b.Term) })
}

func cloneMap(m map[string]string) map[string]string {
	out := make(map[string]string, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}
