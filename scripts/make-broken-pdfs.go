//go:build ignore

// Command make-broken-pdfs writes the broken PDF fixtures of package
// ingest's recovery tests (TestParsePDFBroken) into
// ingest/testdata/broken-pdf:
//
//	go run ./scripts/make-broken-pdfs.go
//
// It builds two valid three-page PDFs of its own, classic.pdf (PDF 1.4,
// cross-reference table, catalog and page tree written last as pdfTeX and
// ReportLab do) and objstm.pdf (PDF 1.5, page dictionaries, catalog and
// font in a compressed object stream, cross-reference stream), and derives
// from them the damage real-world files show: a startxref pointing to the
// wrong offset, a missing cross-reference table or trailer, stale object
// offsets, wrong stream lengths and truncation. Output is deterministic;
// only the standard library is used.
//
// Every page has an opening and a closing marker word (amber/anchor,
// basil/bramble, cobalt/cypress) that the tests look for.
package main

import (
	"bytes"
	"compress/zlib"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// page is one page's text: the first and last words are its markers.
type page struct {
	open, close string
	name        string
}

var pages = []page{
	{"amber", "anchor", "one"},
	{"basil", "bramble", "two"},
	{"cobalt", "cypress", "three"},
}

// content returns the content stream of page i: a heading and fourteen
// body lines in 11 pt Helvetica.
func content(i int) string {
	p := pages[i]
	var b strings.Builder
	fmt.Fprintf(&b, "BT /F1 16 Tf 72 720 Td (Chapter %s begins with %s) Tj ET\n", p.name, p.open)
	b.WriteString("BT /F1 11 Tf 14 TL 72 690 Td\n")
	for k := 1; k <= 12; k++ {
		fmt.Fprintf(&b, "(Line %d of page %s tells how the quick brown fox jumps over the lazy dog.) Tj T*\n", k, p.name)
	}
	fmt.Fprintf(&b, "(Page %s ends with the word %s.) Tj\nET\n", p.name, p.close)
	return b.String()
}

func deflate(s string) []byte {
	var b bytes.Buffer
	w, _ := zlib.NewWriterLevel(&b, zlib.BestCompression)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// writer assembles a PDF and remembers each object's offset.
type writer struct {
	bytes.Buffer
	offs map[int]int
}

func newWriter(version string) *writer {
	w := &writer{offs: map[int]int{}}
	fmt.Fprintf(w, "%%PDF-%s\n%%\xe2\xe3\xcf\xd3\n", version)
	return w
}

func (w *writer) obj(id int, body string) {
	w.offs[id] = w.Len()
	fmt.Fprintf(w, "%d 0 obj\n%s\nendobj\n", id, body)
}

// stream writes a stream object; length, when not -1, is the /Length
// written instead of the true one.
func (w *writer) stream(id int, dict string, data []byte, length int) {
	if length < 0 {
		length = len(data)
	}
	w.offs[id] = w.Len()
	fmt.Fprintf(w, "%d 0 obj\n<< %s/Length %d >>\nstream\n", id, dict, length)
	w.Write(data)
	w.WriteString("\nendstream\nendobj\n")
}

// xref writes a cross-reference table for ids first..last and returns its
// offset.
func (w *writer) xref(first, last int) int {
	off := w.Len()
	if first == 1 {
		fmt.Fprintf(w, "xref\n0 %d\n0000000000 65535 f \n", last+1)
	} else {
		fmt.Fprintf(w, "xref\n0 1\n0000000000 65535 f \n%d %d\n", first, last-first+1)
	}
	for id := first; id <= last; id++ {
		fmt.Fprintf(w, "%010d 00000 n \n", w.offs[id])
	}
	return off
}

const (
	fontDict = "<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>"
	infoDict = "<< /Title (Broken Reference Fixture) /Producer (make-broken-pdfs) >>"
	fileID   = "[<8E3C2A8B0B7E4C1D9F00A1B2C3D4E5F6> <8E3C2A8B0B7E4C1D9F00A1B2C3D4E5F6>]"
)

// classicOpts selects the damage done while writing classic.pdf.
type classicOpts struct {
	lengths   map[int]int // object id → /Length written instead of the true one
	noXref    bool        // leave out the cross-reference table
	noTrailer bool        // leave out the trailer dictionary
}

// classic writes the PDF 1.4 document: 1 font, 2/3 4/5 6/7 page and
// content of pages one to three (pages one and two uncompressed, three
// deflated), 8 page tree, 9 catalog, 10 info. It returns the file and the
// offset of its cross-reference table.
func classic(o classicOpts) ([]byte, int) {
	w := newWriter("1.4")
	w.obj(1, fontDict)
	for i := range pages {
		pg, ct := 2+2*i, 3+2*i
		w.obj(pg, fmt.Sprintf("<< /Type /Page /Parent 8 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 1 0 R >> >> /Contents %d 0 R >>", ct))
		data, dict := []byte(content(i)), ""
		if i == 2 {
			data, dict = deflate(content(i)), "/Filter /FlateDecode "
		}
		length := -1
		if l, ok := o.lengths[ct]; ok {
			length = len(data) + l
		}
		w.stream(ct, dict, data, length)
	}
	w.obj(8, "<< /Type /Pages /Kids [2 0 R 4 0 R 6 0 R] /Count 3 >>")
	w.obj(9, "<< /Type /Catalog /Pages 8 0 R >>")
	w.obj(10, infoDict)
	xref := w.Len()
	if !o.noXref {
		xref = w.xref(1, 10)
	}
	if !o.noTrailer {
		fmt.Fprintf(w, "trailer\n<< /Size 11 /Root 9 0 R /Info 10 0 R /ID %s >>\n", fileID)
	}
	fmt.Fprintf(w, "startxref\n%d\n%%%%EOF\n", xref)
	return w.Bytes(), xref
}

// update appends an incremental update to a classic file that replaces
// page two's content (object 5) and returns the new file and the offset of
// the update's cross-reference section.
func update(base []byte, prev int) ([]byte, int) {
	w := &writer{offs: map[int]int{}}
	w.Write(base)
	text := strings.ReplaceAll(content(1), "lazy dog", "sleepy revised cat")
	w.stream(5, "", []byte(text), -1)
	xref := w.xref(5, 5)
	fmt.Fprintf(w, "trailer\n<< /Size 11 /Root 9 0 R /Info 10 0 R /ID %s /Prev %d >>\nstartxref\n%d\n%%%%EOF\n", fileID, prev, xref)
	return w.Bytes(), xref
}

// objstm writes the PDF 1.5 document: 1 2 3 deflated contents of pages one
// to three, 4 an object stream holding 5 font, 6 7 8 pages, 9 page tree,
// 10 catalog, 11 info, and 12 the cross-reference stream. xref false
// leaves the cross-reference stream out. It returns the file and the offset
// of the cross-reference stream.
func objstm(xref bool) ([]byte, int) {
	w := newWriter("1.5")
	for i := range pages {
		w.stream(1+i, "/Filter /FlateDecode ", deflate(content(i)), -1)
	}
	inner := []string{fontDict}
	for i := range pages {
		inner = append(inner, fmt.Sprintf("<< /Type /Page /Parent 9 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 5 0 R >> >> /Contents %d 0 R >>", 1+i))
	}
	inner = append(inner, "<< /Type /Pages /Kids [6 0 R 7 0 R 8 0 R] /Count 3 >>", "<< /Type /Catalog /Pages 9 0 R >>", infoDict)
	var head, body strings.Builder
	for k, o := range inner {
		fmt.Fprintf(&head, "%d %d ", 5+k, body.Len())
		body.WriteString(o)
		body.WriteString("\n")
	}
	first := head.Len()
	w.stream(4, fmt.Sprintf("/Type /ObjStm /N %d /First %d /Filter /FlateDecode ", len(inner), first),
		deflate(head.String()+body.String()), -1)
	off := w.Len()
	if xref {
		// Entries: type (1 byte), offset or object stream (2), generation
		// or index (1).
		var rows []byte
		rows = append(rows, 0, 0, 0, 255)
		for id := 1; id <= 4; id++ {
			rows = append(rows, 1, byte(w.offs[id]>>8), byte(w.offs[id]), 0)
		}
		for k := range inner {
			rows = append(rows, 2, 0, 4, byte(k))
		}
		rows = append(rows, 1, byte(off>>8), byte(off), 0) // 12: this stream
		w.stream(12, fmt.Sprintf("/Type /XRef /Size 13 /W [1 2 1] /Root 10 0 R /Info 11 0 R /ID %s /Filter /FlateDecode ", fileID),
			deflate(string(rows)), -1)
	}
	fmt.Fprintf(w, "startxref\n%d\n%%%%EOF\n", off)
	return w.Bytes(), off
}

// setStartxref replaces the offset after the last startxref.
func setStartxref(b []byte, off int) []byte {
	i := bytes.LastIndex(b, []byte("startxref\n"))
	return append(bytes.Clone(b[:i]), fmt.Sprintf("startxref\n%d\n%%%%EOF\n", off)...)
}

// insertAt returns b with s inserted at offset i.
func insertAt(b []byte, i int, s string) []byte {
	out := append(bytes.Clone(b[:i]), s...)
	return append(out, b[i:]...)
}

// setXrefEntry rewrites object id's entry in the (single-section) table at
// xref to point to off.
func setXrefEntry(b []byte, xref, id, off int) []byte {
	out := bytes.Clone(b)
	i := xref + bytes.Index(b[xref:], []byte("65535 f \n")) + len("65535 f \n") + (id-1)*20
	copy(out[i:], fmt.Sprintf("%010d", off))
	return out
}

func main() {
	out := flag.String("out", "ingest/testdata/broken-pdf", "directory to write the fixtures to")
	flag.Parse()
	if err := os.MkdirAll(*out, 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "make-broken-pdfs:", err)
		os.Exit(1)
	}
	files := map[string][]byte{}

	good, xref := classic(classicOpts{})
	files["classic.pdf"] = good
	files["startxref-wrong.pdf"] = setStartxref(good, xref-37)
	files["startxref-beyond-eof.pdf"] = setStartxref(good, len(good)+1000)
	files["startxref-missing.pdf"] = good[:bytes.LastIndex(good, []byte("startxref"))]
	noXref, _ := classic(classicOpts{noXref: true})
	files["xref-missing.pdf"] = noXref
	noTrailer, _ := classic(classicOpts{noTrailer: true})
	files["trailer-missing.pdf"] = noTrailer
	neither, _ := classic(classicOpts{noXref: true, noTrailer: true})
	files["xref-and-trailer-missing.pdf"] = neither

	// Objects moved: 64 bytes inserted after the header shift every object
	// while startxref still finds the (stale) table.
	shifted := insertAt(good, bytes.IndexByte(good, '\n')+1, "%"+strings.Repeat("-", 62)+"\n")
	files["offsets-stale.pdf"] = setStartxref(shifted, xref+64)
	// One stale entry: page two's content stream (object 5) is said to be
	// 9 bytes before where it is.
	classicOffs := func() map[int]int {
		m := map[int]int{}
		for id := 1; id <= 10; id++ {
			m[id] = bytes.Index(good, []byte(fmt.Sprintf("\n%d 0 obj\n", id))) + 1
		}
		return m
	}()
	files["offset-one-wrong.pdf"] = setXrefEntry(good, xref, 5, classicOffs[5]-9)

	// Wrong stream lengths: page one's uncompressed content said to be 300
	// bytes longer (it would run into page two), page three's deflated one
	// 40 bytes shorter (its last lines would be cut).
	long, _ := classic(classicOpts{lengths: map[int]int{3: 300}})
	files["length-too-long.pdf"] = long
	short, _ := classic(classicOpts{lengths: map[int]int{7: -40}})
	files["length-too-short.pdf"] = short

	// Truncation: the catalog and page tree come last, so every cut loses
	// them.
	files["truncated-50.pdf"] = good[:len(good)/2]
	files["truncated-90.pdf"] = good[:len(good)*9/10]
	mid := classicOffs[7] + bytes.Index(good[classicOffs[7]:], []byte("stream\n")) + len("stream\n")
	files["truncated-mid-stream.pdf"] = good[:mid+(classicOffs[8]-mid)/2]

	// An incremental update (page two's content replaced) whose final
	// startxref is wrong: the newer object must win.
	updated, uxref := update(good, xref)
	files["update-startxref-wrong.pdf"] = setStartxref(updated, uxref+11)

	ostm, oxref := objstm(true)
	files["objstm.pdf"] = ostm
	files["objstm-startxref-wrong.pdf"] = setStartxref(ostm, oxref-100)
	noXrefStm, _ := objstm(false)
	files["objstm-xref-missing.pdf"] = noXrefStm
	files["objstm-truncated-90.pdf"] = ostm[:len(ostm)*9/10]
	// Cut before the object stream: no page is left.
	files["objstm-truncated-50.pdf"] = ostm[:len(ostm)/2]

	for name, data := range files {
		if err := os.WriteFile(filepath.Join(*out, name), data, 0o644); err != nil {
			fmt.Fprintln(os.Stderr, "make-broken-pdfs:", err)
			os.Exit(1)
		}
	}
}
