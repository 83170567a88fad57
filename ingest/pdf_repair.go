package ingest

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"reflect"
	"slices"

	"github.com/ledongthuc/pdf"
)

// Cross-reference recovery.
//
// Real-world PDFs often have a startxref that points to the wrong offset,
// a cross-reference table with stale offsets or no table at all, no
// trailer, streams whose /Length is wrong, or are cut short. Like pdfminer,
// pypdf and PDFBox, ParsePDF then reads the file as a sequence of objects:
//
//  1. One scan finds every "N G obj" header and "trailer" keyword
//     (pdfScan). Each object's value is parsed only up to the next header,
//     and a stream's data ends where its /Length says when "endstream"
//     follows there, else at the first "endstream" or "endobj" after it;
//     headers inside stream data are skipped. Searches for those keywords
//     only move forward, so the whole scan is linear in the file size.
//  2. The library's own reading is kept when it opened the file, every
//     cross-reference entry points to its object, and no stream it reads
//     has a wrong /Length (pdfRecovery.broken).
//  3. Otherwise the last definition of each object number wins, as in an
//     incremental update; object streams are decompressed (within a
//     budget) to place the objects they hold. The catalog is the /Root of
//     the last trailer (or cross-reference stream) whose root exists, else
//     the last /Type /Catalog object; when neither has a page tree, one is
//     made of every /Type /Page object in file order, as pdfminer does for
//     truncated files.
//  4. The repaired file is the original bytes followed by corrected copies
//     of broken objects (a stream with its true /Length, an object that
//     lacked endobj) and one new cross-reference stream, which the library
//     then opens as usual.

// Limits of cross-reference recovery.
const (
	pdfMaxObjects     = 1 << 21  // object numbers and headers recovery keeps; see pdfCheckXrefSizes
	pdfMaxObjStmBytes = 64 << 20 // decompressed object-stream bytes read per file
	pdfMaxObjStmWork  = 1 << 30  // /N times the decompressed size of an object stream recovery uses
	pdfMaxEOLGap      = 64       // white space allowed between stream data and endstream
	pdfMaxHeaderGap   = 256      // white space allowed before an object a cross-reference entry points to
)

// Object types recovery tells apart (pdfObj.typ).
const (
	pdfTypeOther byte = iota
	pdfTypeCatalog
	pdfTypePage
	pdfTypeObjStm
	pdfTypeXRef
)

// Filters of an object stream (pdfObj.filter).
const (
	pdfFilterNone byte = iota
	pdfFilterFlate
	pdfFilterOther
)

// pdfCand is a header or trailer keyword found by the byte scan.
type pdfCand struct {
	pos     int // offset of "N" in "N G obj", or of "trailer"
	body    int // offset after "obj" or "trailer"
	ref     pdfRef
	trailer bool
}

// pdfObj is an object found by recovery, in a file position or inside an
// object stream.
type pdfObj struct {
	ref pdfRef
	// pos is the offset of the object's header; for an object in an
	// object stream, that of the stream's header.
	pos int
	// stm is the index in pdfRecovery.objs of the object stream holding
	// the object, -1 for one at a file position; index is its place there.
	stm, index int32
	// val0 and val1 delimit the value (objects at a file position only).
	val0, val1 int
	typ        byte
	isInt      bool
	hasPages   bool
	parms      bool // object stream with /DecodeParms
	filter     byte
	// fix marks an object whose copy must be written: a stream whose
	// /Length is wrong or its "stream" keyword not followed by an end of
	// line, or an object without endobj.
	fix      bool
	num      int64 // the value of an integer object
	pages    pdfRef
	length   pdfVal // /Length of a stream: integer, reference, or kind 0
	data0    int    // stream data start, -1 for no stream
	data1    int    // stream data end
	term     int    // offset of the endstream or endobj after the data, -1 if none
	n, first int64  // /N and /First of an object stream
}

// pdfTrailer is a trailer dictionary or the dictionary of a
// cross-reference stream; its values are spans of the file.
type pdfTrailer struct {
	pos                     int
	root, info, id, encrypt pdfVal
}

// pdfRecovery holds what the scan found in data.
type pdfRecovery struct {
	data     []byte
	objs     []pdfObj // in file order; objects of object streams appended by repair
	trailers []pdfTrailer
	// win maps an object number to the index in objs of its definition
	// in effect: the last one in the file.
	win map[uint32]int32
	// stmsRead is set once the object streams were read.
	stmsRead bool
}

// pdfScan finds the objects and trailers of data in one pass.
func pdfScan(data []byte) *pdfRecovery {
	rec := &pdfRecovery{data: data, win: map[uint32]int32{}}
	cands := pdfCandidates(data)
	endstream := pdfFinder{pat: []byte("endstream")}
	endobj := pdfFinder{pat: []byte("endobj")}
	skipTo := 0
	for k, c := range cands {
		if c.pos < skipTo {
			continue // inside the data of a stream
		}
		w := len(data)
		if k+1 < len(cands) {
			w = cands[k+1].pos
		}
		lx := pdfObjLexer{data: data, end: w}
		if c.trailer {
			var t pdfTrailer
			i := lx.skip(c.body)
			if i+1 < w && data[i] == '<' && data[i+1] == '<' {
				if _, ok := lx.dict(i, 0, t.collect); ok {
					t.pos = c.pos
					rec.trailers = append(rec.trailers, t)
				}
			}
			continue
		}
		o := pdfObj{ref: c.ref, pos: c.pos, stm: -1, data0: -1, term: -1}
		var t pdfTrailer
		if !o.parse(&lx, c.body, &t) {
			continue
		}
		if o.typ == pdfTypeXRef {
			t.pos = c.pos
			rec.trailers = append(rec.trailers, t)
		}
		if j, ok := lx.keyword(o.val1, "stream"); ok && lx.end > o.val1 && o.val0 < o.val1 && data[o.val0] == '<' {
			o.scanStream(data, j, w, &endstream, &endobj)
			if o.term >= 0 {
				skipTo = o.term
			}
		} else if _, ok := lx.keyword(o.val1, "endobj"); !ok {
			o.fix = true
		}
		rec.win[o.ref.id] = int32(len(rec.objs))
		rec.objs = append(rec.objs, o)
	}
	rec.checkLengths()
	return rec
}

// parse reads the object's value at i and the facts recovery needs.
func (o *pdfObj) parse(lx *pdfObjLexer, i int, t *pdfTrailer) bool {
	i = lx.skip(i)
	if i+1 < lx.end && lx.data[i] == '<' && lx.data[i+1] == '<' {
		end, ok := lx.dict(i, 0, func(key string, ks int, v pdfVal) {
			o.collect(key, v)
			t.collect(key, ks, v)
		})
		o.val0, o.val1 = i, end
		return ok
	}
	v, ok := lx.value(i, 0)
	if !ok {
		return false
	}
	o.val0, o.val1 = v.start, v.end
	o.isInt, o.num = v.kind == pdfValInt, v.num
	return true
}

// collect records a dictionary entry recovery needs.
func (o *pdfObj) collect(key string, v pdfVal) {
	switch key {
	case "Type":
		switch v.name {
		case "Catalog":
			o.typ = pdfTypeCatalog
		case "Page":
			o.typ = pdfTypePage
		case "ObjStm":
			o.typ = pdfTypeObjStm
		case "XRef":
			o.typ = pdfTypeXRef
		}
	case "Pages":
		o.pages, o.hasPages = v.ref()
	case "Length":
		o.length = v
	case "Filter":
		o.filter = pdfFilterOther
		if v.kind == pdfValName && v.name == "FlateDecode" {
			o.filter = pdfFilterFlate
		}
	case "DecodeParms":
		o.parms = v.kind != pdfValOther
	case "N":
		if v.kind == pdfValInt {
			o.n = v.num
		}
	case "First":
		if v.kind == pdfValInt {
			o.first = v.num
		}
	}
}

// collect records a trailer entry.
func (t *pdfTrailer) collect(key string, _ int, v pdfVal) {
	switch key {
	case "Root":
		t.root = v
	case "Info":
		t.info = v
	case "ID":
		t.id = v
	case "Encrypt":
		t.encrypt = v
	}
}

// scanStream finds the data of the stream whose keyword ends at j: where
// /Length says when endstream follows there, else up to the next endstream
// or endobj, else up to next (the next header) for a stream cut short.
func (o *pdfObj) scanStream(data []byte, j, next int, endstream, endobj *pdfFinder) {
	start := j
	eol := false
	if start < len(data) && data[start] == '\r' {
		start, eol = start+1, true
	}
	if start < len(data) && data[start] == '\n' {
		start, eol = start+1, true
	}
	o.data0, o.fix = start, !eol
	if o.length.kind == pdfValInt && o.length.num >= 0 && o.length.num <= int64(len(data)-start) {
		if t := pdfEndstreamAt(data, start+int(o.length.num)); t >= 0 {
			o.data1, o.term = start+int(o.length.num), t
			return
		}
	}
	if o.length.kind != pdfValRef {
		o.fix = true // missing or wrong /Length
	}
	t := endstream.next(data, start)
	if e := endobj.next(data, start); t < 0 || e >= 0 && e < t {
		t = e
	}
	if t < 0 {
		o.data1, o.fix = max(start, next), true
		return
	}
	o.term, o.data1 = t, t
	if o.data1 > start && data[o.data1-1] == '\n' {
		o.data1--
	}
	if o.data1 > start && data[o.data1-1] == '\r' {
		o.data1--
	}
}

// checkLengths marks the streams whose indirect /Length disagrees with
// where their data ends.
func (rec *pdfRecovery) checkLengths() {
	for i := range rec.objs {
		o := &rec.objs[i]
		if o.data0 < 0 || o.length.kind != pdfValRef || o.fix {
			continue
		}
		r, _ := o.length.ref()
		l := rec.lookup(r)
		if l == nil || !l.isInt {
			continue // unknown: keep the library's reading
		}
		if o.term < 0 || l.num < 0 || l.num > int64(o.term-o.data0) ||
			pdfEndstreamAt(rec.data[:min(len(rec.data), o.term+len("endstream"))], o.data0+int(l.num)) != o.term {
			o.fix = true
		}
	}
}

// pdfEndstreamAt returns the offset of the "endstream" keyword that
// follows i after at most pdfMaxEOLGap bytes of white space, -1 if none.
func pdfEndstreamAt(data []byte, i int) int {
	for k := 0; i < len(data) && k <= pdfMaxEOLGap && pdfIsSpace(data[i]); k++ {
		i++
	}
	if bytes.HasPrefix(data[i:], []byte("endstream")) {
		return i
	}
	return -1
}

// pdfFinder finds the next occurrence of pat at or after an offset.
// Asked for non-decreasing offsets, it reads each byte of data once.
type pdfFinder struct {
	pat      []byte
	from, at int // at is the first occurrence at or after from, -1 if none
	valid    bool
}

func (f *pdfFinder) next(data []byte, i int) int {
	if f.valid && i >= f.from && (f.at < 0 || i <= f.at) {
		return f.at
	}
	f.valid, f.from, f.at = true, i, -1
	if k := bytes.Index(data[i:], f.pat); k >= 0 {
		f.at = i + k
	}
	return f.at
}

// pdfCandidates returns the "N G obj" headers and "trailer" keywords of
// data in file order, at most pdfMaxObjects headers.
func pdfCandidates(data []byte) []pdfCand {
	var objs, trailers []pdfCand
	for i := 0; len(objs) < pdfMaxObjects; {
		k := bytes.Index(data[i:], []byte("obj"))
		if k < 0 {
			break
		}
		p := i + k
		i = p + 3
		if p+3 < len(data) && pdfIsRegular(data[p+3]) {
			continue
		}
		if pos, ref, ok := pdfHeaderBefore(data, p); ok && ref.id < pdfMaxObjects {
			objs = append(objs, pdfCand{pos: pos, body: p + 3, ref: ref})
		}
	}
	for i := 0; len(trailers) < pdfMaxObjects; {
		k := bytes.Index(data[i:], []byte("trailer"))
		if k < 0 {
			break
		}
		p := i + k
		i = p + len("trailer")
		if (p == 0 || !pdfIsRegular(data[p-1])) && (i == len(data) || !pdfIsRegular(data[i])) {
			trailers = append(trailers, pdfCand{pos: p, body: i, trailer: true})
		}
	}
	// Merge the two sorted lists.
	out := make([]pdfCand, 0, len(objs)+len(trailers))
	for len(objs) > 0 || len(trailers) > 0 {
		if len(trailers) == 0 || len(objs) > 0 && objs[0].pos < trailers[0].pos {
			out, objs = append(out, objs[0]), objs[1:]
		} else {
			out, trailers = append(out, trailers[0]), trailers[1:]
		}
	}
	return out
}

// pdfHeaderBefore parses "N G " before the "obj" at p and returns the
// offset of N.
func pdfHeaderBefore(data []byte, p int) (pos int, ref pdfRef, ok bool) {
	j := p
	spaces := func() bool {
		k := j
		for j > 0 && k-j < 16 && pdfIsSpace(data[j-1]) {
			j--
		}
		return j < k
	}
	digits := func(most int) (int64, bool) {
		k := j
		for j > 0 && k-j < most && data[j-1] >= '0' && data[j-1] <= '9' {
			j--
		}
		n, ok := pdfParseInt(data[j:k])
		return n, ok && j < k
	}
	if !spaces() {
		return 0, ref, false
	}
	gen, ok := digits(5)
	if !ok || gen >= 1<<16 || !spaces() {
		return 0, ref, false
	}
	id, ok := digits(10)
	if !ok || id >= 1<<32 || j > 0 && pdfIsRegular(data[j-1]) {
		return 0, ref, false
	}
	return j, pdfRef{uint32(id), uint16(gen)}, true
}

// pdfHeaderAt parses the "N G obj" header at off, after white space, and
// returns the offset of N.
func pdfHeaderAt(data []byte, off int64) (pos int, ref pdfRef, ok bool) {
	if off < 0 || off >= int64(len(data)) {
		return 0, ref, false
	}
	i := int(off)
	for k := 0; i < len(data) && k < pdfMaxHeaderGap && pdfIsSpace(data[i]); k++ {
		i++
	}
	lx := pdfObjLexer{data: data, end: min(len(data), i+40)}
	id, ok1 := lx.value(i, 0)
	gen, ok2 := lx.value(id.end, 0)
	_, ok3 := lx.keyword(gen.end, "obj")
	if !ok1 || !ok2 || !ok3 || id.kind != pdfValInt || gen.kind != pdfValInt {
		return 0, ref, false
	}
	r, ok := pdfVal{kind: pdfValRef, num: id.num, gen: gen.num}.ref()
	return i, r, ok
}

// lookup returns the definition in effect of the object r, nil if none.
func (rec *pdfRecovery) lookup(r pdfRef) *pdfObj {
	i, ok := rec.win[r.id]
	if !ok || rec.objs[i].ref != r {
		return nil
	}
	return &rec.objs[i]
}

// broken reports whether r, the library's reading of the file, needs
// recovery: a cross-reference entry that does not point to its object, a
// stream it would read with a wrong /Length, or an object stream it would
// hang on (recovery leaves that one out).
func (rec *pdfRecovery) broken(r *pdf.Reader) bool {
	if rec.objStmHangs() {
		return true
	}
	at := make(map[int]int32, len(rec.objs))
	for i, o := range rec.objs {
		at[o.pos] = int32(i)
	}
	broken := false
	pdfLibraryXref(r, func(ref pdfRef, off int64) bool {
		pos, found, ok := pdfHeaderAt(rec.data, off)
		if !ok || found != ref {
			broken = true
		} else if i, ok := at[pos]; ok && rec.objs[i].fix {
			broken = true
		}
		return !broken
	})
	return broken
}

// pdfLibraryXref calls fn with each cross-reference entry of r that
// places an object at a file offset, until fn returns false. It reads the
// library's unexported table; if its layout changed, it calls nothing.
func pdfLibraryXref(r *pdf.Reader, fn func(ref pdfRef, off int64) bool) {
	xref := reflect.ValueOf(r).Elem().FieldByName("xref")
	if !xref.IsValid() || xref.Kind() != reflect.Slice || xref.Len() == 0 {
		return
	}
	t := xref.Type().Elem()
	ptrF, ok1 := t.FieldByName("ptr")
	inF, ok2 := t.FieldByName("inStream")
	offF, ok3 := t.FieldByName("offset")
	if !ok1 || !ok2 || !ok3 || ptrF.Type.Kind() != reflect.Struct || inF.Type.Kind() != reflect.Bool || offF.Type.Kind() != reflect.Int64 {
		return
	}
	idF, ok1 := ptrF.Type.FieldByName("id")
	genF, ok2 := ptrF.Type.FieldByName("gen")
	if !ok1 || !ok2 || idF.Type.Kind() != reflect.Uint32 || genF.Type.Kind() != reflect.Uint16 {
		return
	}
	for i := range xref.Len() {
		e := xref.Index(i)
		off := e.FieldByIndex(offF.Index).Int()
		if e.FieldByIndex(inF.Index).Bool() || off == 0 {
			continue
		}
		p := e.FieldByIndex(ptrF.Index)
		ref := pdfRef{uint32(p.FieldByIndex(idF.Index).Uint()), uint16(p.FieldByIndex(genF.Index).Uint())}
		if ref.id == 0 && ref.gen == 65535 {
			continue // free
		}
		if !fn(ref, off) {
			return
		}
	}
}

// repair returns data followed by corrected copies of broken objects and
// a cross-reference stream covering every object found. extras false
// leaves the trailer's /Info, /ID and /Encrypt out of it.
func (rec *pdfRecovery) repair(extras bool) ([]byte, error) {
	if len(rec.objs) == 0 {
		return nil, errors.New("malformed PDF: no objects found")
	}
	if !rec.stmsRead {
		rec.stmsRead = true
		rec.readObjStms()
		rec.checkLengths()
	}
	root, pages, err := rec.findRoot()
	if err != nil {
		return nil, err
	}
	var trailer pdfTrailerExtras
	if extras {
		trailer = rec.trailerExtras()
	}
	entries, maxID := rec.xrefEntries()

	out := make([]byte, 0, len(rec.data)+len(rec.data)/8+64*len(entries)+1024)
	out = append(out, rec.data...)
	out = append(out, '\n')
	for k := range entries {
		if o := &rec.objs[entries[k].objectIdx]; o.fix && o.stm < 0 {
			entries[k].off = int64(len(out))
			out = rec.appendCopy(out, o)
		}
	}
	next := maxID + 1
	if root == nil {
		cat, tree := next, next+1
		next += 2
		entries = append(entries, pdfXrefEntry{id: cat, typ: 1, off: int64(len(out))})
		out = fmt.Appendf(out, "%d 0 obj\n<< /Type /Catalog /Pages %d 0 R >>\nendobj\n", cat, tree)
		entries = append(entries, pdfXrefEntry{id: tree, typ: 1, off: int64(len(out))})
		out = fmt.Appendf(out, "%d 0 obj\n<< /Type /Pages /Count %d /Kids [", tree, len(pages))
		for _, p := range pages {
			out = fmt.Appendf(out, " %d %d R", p.id, p.gen)
		}
		out = append(out, " ] >>\nendobj\n"...)
		root = fmt.Appendf(nil, "%d 0 R", cat)
	}
	return rec.appendXref(out, entries, next, root, trailer), nil
}

// findRoot returns the catalog: the root of the last trailer, else the last
// catalog object, whose page tree exists. Without one it returns the page
// objects in file order instead (at most pdfMaxPages), for a new catalog.
func (rec *pdfRecovery) findRoot() (root []byte, pages []pdfRef, err error) {
	catalog := func(r pdfRef) bool {
		o := rec.lookup(r)
		return o != nil && o.hasPages && rec.lookup(o.pages) != nil
	}
	for _, t := range slices.Backward(rec.trailers) {
		if r, ok := t.root.ref(); ok && catalog(r) {
			return fmt.Appendf(nil, "%d %d R", r.id, r.gen), nil, nil
		}
	}
	for i := len(rec.objs) - 1; i >= 0; i-- {
		o := &rec.objs[i]
		if o.typ == pdfTypeCatalog && rec.lookup(o.ref) == o && catalog(o.ref) {
			return fmt.Appendf(nil, "%d %d R", o.ref.id, o.ref.gen), nil, nil
		}
	}
	for i := range rec.objs {
		o := &rec.objs[i]
		if o.typ == pdfTypePage && rec.lookup(o.ref) == o && len(pages) < pdfMaxPages {
			pages = append(pages, o.ref)
		}
	}
	slices.SortStableFunc(pages, func(a, b pdfRef) int { return rec.lookup(a).pos - rec.lookup(b).pos })
	if len(pages) == 0 {
		return nil, nil, errors.New("malformed PDF: no catalog and no pages found")
	}
	return nil, pages, nil
}

// pdfTrailerExtras are the trailer entries a repaired file carries over:
// the last /Info, /ID and /Encrypt of the trailers (zero when absent).
type pdfTrailerExtras struct {
	info, id, encrypt pdfVal
}

// trailerExtras returns the last /Info, /ID and /Encrypt of the trailers.
func (rec *pdfRecovery) trailerExtras() pdfTrailerExtras {
	var x pdfTrailerExtras
	for _, t := range rec.trailers {
		if t.info.kind == pdfValRef {
			x.info = t.info
		}
		if t.id.kind == pdfValArray {
			x.id = t.id
		}
		if t.encrypt.kind == pdfValRef || t.encrypt.kind == pdfValDict {
			x.encrypt = t.encrypt
		}
	}
	return x
}

// pdfXrefEntry is the cross-reference entry in effect for one object
// number.
type pdfXrefEntry struct {
	id        uint32
	typ       byte  // 1 at an offset, 2 in an object stream
	off       int64 // offset, or object number of the object stream
	gen       int64 // generation, or index in the object stream
	objectIdx int32
}

// xrefEntries returns the entries in effect, by object number, and the
// largest object number.
func (rec *pdfRecovery) xrefEntries() ([]pdfXrefEntry, uint32) {
	entries := make([]pdfXrefEntry, 0, len(rec.win))
	maxID := uint32(0)
	for id, i := range rec.win {
		o := &rec.objs[i]
		e := pdfXrefEntry{id: id, typ: 1, off: int64(o.pos), gen: int64(o.ref.gen), objectIdx: i}
		if o.stm >= 0 {
			e.typ, e.off, e.gen = 2, int64(rec.objs[o.stm].ref.id), int64(o.index)
		}
		entries = append(entries, e)
		maxID = max(maxID, id)
	}
	slices.SortFunc(entries, func(a, b pdfXrefEntry) int { return int(int64(a.id) - int64(b.id)) })
	return entries, maxID
}

// appendXref appends the cross-reference stream (object xrefID),
// uncompressed: type, offset or object stream, generation or index; then
// startxref and %%EOF. The stream itself is left out of the table: a
// dangling reference to its number must not resolve to it.
func (rec *pdfRecovery) appendXref(out []byte, entries []pdfXrefEntry, xrefID uint32, root []byte, x pdfTrailerExtras) []byte {
	xrefOff := len(out)
	var w2, w3 int
	for _, e := range entries {
		w2, w3 = max(w2, pdfByteWidth(e.off)), max(w3, pdfByteWidth(e.gen))
	}
	var index []byte
	rows := make([]byte, 0, len(entries)*(1+w2+w3))
	for k, e := range entries {
		if k == 0 || e.id != entries[k-1].id+1 {
			run := 1
			for k+run < len(entries) && entries[k+run].id == e.id+uint32(run) {
				run++
			}
			index = fmt.Appendf(index, " %d %d", e.id, run)
		}
		rows = append(rows, e.typ)
		rows = pdfAppendBE(rows, e.off, w2)
		rows = pdfAppendBE(rows, e.gen, w3)
	}
	out = fmt.Appendf(out, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 %d %d] /Index [%s ] /Root %s", xrefID, xrefID+1, w2, w3, index, root)
	for _, kv := range []struct {
		key string
		v   pdfVal
	}{{"Info", x.info}, {"ID", x.id}, {"Encrypt", x.encrypt}} {
		if kv.v.kind != 0 {
			out = fmt.Appendf(out, " /%s %s", kv.key, rec.data[kv.v.start:kv.v.end])
		}
	}
	out = fmt.Appendf(out, " /Length %d >>\nstream\n", len(rows))
	out = append(out, rows...)
	return fmt.Appendf(out, "\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n", xrefOff)
}

// appendCopy appends a corrected copy of o: a stream with the /Length of
// its data and an end-of-line after "stream", any object with endobj.
func (rec *pdfRecovery) appendCopy(out []byte, o *pdfObj) []byte {
	out = fmt.Appendf(out, "%d %d obj\n", o.ref.id, o.ref.gen)
	if o.data0 < 0 {
		out = append(out, rec.data[o.val0:o.val1]...)
		return append(out, "\nendobj\n"...)
	}
	out = append(out, "<<"...)
	lx := pdfObjLexer{data: rec.data, end: o.val1}
	lx.dict(o.val0, 0, func(key string, ks int, v pdfVal) {
		if key != "Length" {
			out = append(out, ' ')
			out = append(out, rec.data[ks:v.end]...)
		}
	})
	out = fmt.Appendf(out, " /Length %d >>\nstream\n", o.data1-o.data0)
	out = append(out, rec.data[o.data0:o.data1]...)
	return append(out, "\nendstream\nendobj\n"...)
}

// readObjStms adds the objects held in the object streams in effect,
// decompressing at most pdfMaxObjStmBytes in all. Objects of encrypted
// files are left out: their streams cannot be read without the key.
func (rec *pdfRecovery) readObjStms() {
	for _, t := range rec.trailers {
		if t.encrypt.kind != 0 {
			return
		}
	}
	budget := int64(pdfMaxObjStmBytes)
	n := len(rec.objs)
	for i := 0; i < n && budget > 0 && len(rec.objs) < pdfMaxObjects; i++ {
		o := &rec.objs[i]
		if o.typ == pdfTypeObjStm && o.stm < 0 && rec.win[o.ref.id] == int32(i) {
			budget -= rec.readObjStm(int32(i), budget)
		}
	}
	// Later definitions win, except over an object stream's own number.
	for i := n; i < len(rec.objs); i++ {
		o := &rec.objs[i]
		w, ok := rec.win[o.ref.id]
		if !ok || rec.objs[w].typ != pdfTypeObjStm && rec.objs[w].pos <= o.pos {
			rec.win[o.ref.id] = int32(i)
		}
	}
}

// readObjStm appends the objects held in the object stream objs[i] and
// returns the number of bytes decompressed.
func (rec *pdfRecovery) readObjStm(i int32, budget int64) int64 {
	s := rec.objs[i]
	if s.n <= 0 || s.first <= 0 {
		return 0
	}
	rd := rec.objStmReader(&s)
	if rd == nil {
		return 0
	}
	buf, _ := io.ReadAll(io.LimitReader(rd, budget)) // a stream cut short gives what it has
	var tail pdfHexTail
	tail.Write(buf)
	if s.first >= int64(len(buf)) || s.n > pdfMaxObjStmWork/int64(len(buf)) || tail.open() {
		// The library decompresses and reads the stream from its start
		// for every object it loads from it: N objects cost N times its
		// size. And it would hang on a hex string open at the end.
		return int64(len(buf))
	}
	first := int(s.first)
	type slot struct {
		id    uint32
		off   int
		index int32
	}
	var slots []slot
	lx := pdfObjLexer{data: buf, end: first}
	for k, j := int64(0), 0; k < s.n && len(rec.objs)+len(slots) < pdfMaxObjects; k++ {
		id, ok1 := lx.value(j, 0)
		off, ok2 := lx.value(id.end, 0)
		if !ok1 || !ok2 || id.kind != pdfValInt || off.kind != pdfValInt {
			break
		}
		j = off.end
		if id.num >= 0 && id.num < pdfMaxObjects && off.num >= 0 && off.num < int64(len(buf)-first) {
			slots = append(slots, slot{uint32(id.num), first + int(off.num), int32(k)})
		}
	}
	// Each object is parsed up to where the next one starts. Two objects
	// never share an offset in a real file; only the first is kept.
	added := len(rec.objs)
	sorted := slices.Clone(slots)
	slices.SortStableFunc(sorted, func(a, b slot) int { return a.off - b.off })
	for k, sl := range sorted {
		if k > 0 && sl.off == sorted[k-1].off {
			continue
		}
		end := len(buf)
		if k+1 < len(sorted) {
			end = sorted[k+1].off
		}
		o := pdfObj{ref: pdfRef{id: sl.id}, pos: s.pos, stm: i, index: sl.index, data0: -1, term: -1}
		lx := pdfObjLexer{data: buf, end: end}
		if o.parse(&lx, sl.off, &pdfTrailer{}) {
			o.val0, o.val1 = 0, 0 // spans of buf, not of the file
			rec.objs = append(rec.objs, o)
		}
	}
	// Back in the order of the stream's index, for "later wins" within it.
	slices.SortStableFunc(rec.objs[added:], func(a, b pdfObj) int { return int(a.index - b.index) })
	return int64(len(buf))
}

// objStmReader returns the decompressed data of the object stream o, nil
// when recovery cannot decode it (filters other than FlateDecode,
// predictors).
func (rec *pdfRecovery) objStmReader(o *pdfObj) io.Reader {
	if o.data0 < 0 || o.filter == pdfFilterOther || o.parms {
		return nil
	}
	var rd io.Reader = bytes.NewReader(rec.data[o.data0:o.data1])
	if o.filter == pdfFilterFlate {
		zr, err := zlib.NewReader(rd)
		if err != nil {
			return nil
		}
		rd = zr
	}
	return rd
}

// objStmHangs reports whether the library would hang reading an object
// of one of the file's object streams: one whose data ends in an open hex
// string (see pdfHexTail). It decompresses at most pdfMaxObjStmBytes.
func (rec *pdfRecovery) objStmHangs() bool {
	budget := int64(pdfMaxObjStmBytes)
	for i := range rec.objs {
		o := &rec.objs[i]
		if o.typ != pdfTypeObjStm || budget <= 0 {
			continue
		}
		if rd := rec.objStmReader(o); rd != nil {
			var tail pdfHexTail
			n, _ := io.Copy(&tail, io.LimitReader(rd, budget))
			budget -= n
			if tail.open() {
				return true
			}
		}
	}
	return false
}

// pdfByteWidth returns the bytes needed to write n big-endian, at least 1.
func pdfByteWidth(n int64) int {
	w := 1
	for n >= 256 {
		n >>= 8
		w++
	}
	return w
}

// pdfAppendBE appends n as a big-endian number of w bytes.
func pdfAppendBE(b []byte, n int64, w int) []byte {
	for k := w - 1; k >= 0; k-- {
		b = append(b, byte(n>>(8*k)))
	}
	return b
}
