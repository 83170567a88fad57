package ingest

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/najdi/najdi/internal/testutil"
)

// pdfBrokenDir holds the fixtures written by scripts/make-broken-pdfs.go.
const pdfBrokenDir = "testdata/broken-pdf"

// pdfMarkers are the first and last words of the fixtures' three pages.
var pdfMarkers = []string{"amber", "anchor", "basil", "bramble", "cobalt", "cypress"}

func pdfReadBroken(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(pdfBrokenDir, name))
	if err != nil {
		t.Fatalf("%v (regenerate with go run ./scripts/make-broken-pdfs.go)", err)
	}
	return b
}

// pdfAllText joins the title and sections of doc.
func pdfAllText(doc Document) string {
	var b strings.Builder
	b.WriteString(doc.Title)
	for _, s := range doc.Sections {
		b.WriteByte('\n')
		b.WriteString(s.Content)
	}
	return b.String()
}

func TestParsePDFBroken(t *testing.T) {
	intact := map[string]Document{}
	for _, name := range []string{"classic.pdf", "objstm.pdf"} {
		doc, err := ParsePDF(pdfReadBroken(t, name))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		text := pdfAllText(doc)
		for _, w := range pdfMarkers {
			if !strings.Contains(text, w) {
				t.Fatalf("%s: intact fixture lacks %q", name, w)
			}
		}
		intact[name] = doc
	}
	tests := []struct {
		file   string
		same   string   // intact fixture whose sections must come back exactly
		want   []string // words the text must contain
		absent []string // words it must not
		err    bool     // the file must be refused as malformed
	}{
		{file: "startxref-wrong.pdf", same: "classic.pdf"},
		{file: "startxref-beyond-eof.pdf", same: "classic.pdf"},
		{file: "startxref-missing.pdf", same: "classic.pdf"},
		{file: "xref-missing.pdf", same: "classic.pdf"},
		{file: "trailer-missing.pdf", same: "classic.pdf"},
		{file: "xref-and-trailer-missing.pdf", same: "classic.pdf"},
		{file: "offsets-stale.pdf", same: "classic.pdf"},
		{file: "offset-one-wrong.pdf", same: "classic.pdf"},
		// Read up to endstream: page one must not run into page two's
		// text, page three must keep its last lines.
		{file: "length-too-long.pdf", same: "classic.pdf"},
		{file: "length-too-short.pdf", same: "classic.pdf"},
		{
			file:   "update-startxref-wrong.pdf",
			want:   append([]string{"page two tells how the quick brown fox jumps over the sleepy revised cat"}, pdfMarkers...),
			absent: []string{"page two tells how the quick brown fox jumps over the lazy dog"},
		},
		// Truncated files: the catalog and page tree (written last) are
		// gone; the pages found are read in file order, a stream cut short
		// as far as it goes.
		{file: "truncated-50.pdf", want: []string{"amber", "anchor", "basil", "Line 2 of page two"}, absent: []string{"bramble", "cobalt", "cypress"}},
		{file: "truncated-90.pdf", same: "classic.pdf"},
		{file: "truncated-mid-stream.pdf", want: []string{"amber", "anchor", "basil", "bramble", "cobalt"}, absent: []string{"cypress"}},
		{file: "objstm-startxref-wrong.pdf", same: "objstm.pdf"},
		{file: "objstm-xref-missing.pdf", same: "objstm.pdf"},
		{file: "objstm-truncated-90.pdf", same: "objstm.pdf"},
		{file: "objstm-truncated-50.pdf", err: true},
	}
	// An xref stream whose /Size would make the library allocate 2^36
	// entries is refused before, and the file recovered.
	huge := bytes.Replace(pdfReadBroken(t, "objstm.pdf"), []byte("/Size 13 "), []byte("/Size 68719476736 "), 1)
	if doc, err := ParsePDF(huge); err != nil || !reflect.DeepEqual(doc, intact["objstm.pdf"]) {
		t.Errorf("xref stream /Size 2^36: err %v, %d sections", err, len(doc.Sections))
	}
	for _, tt := range tests {
		t.Run(strings.TrimSuffix(tt.file, ".pdf"), func(t *testing.T) {
			doc, err := ParsePDF(pdfReadBroken(t, tt.file))
			if tt.err {
				if !errors.Is(err, ErrCorrupt) || !strings.Contains(err.Error(), "malformed PDF: ") {
					t.Fatalf("err = %v, want ErrCorrupt saying malformed PDF", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			docCheckOutput(t, doc)
			if tt.same != "" && !reflect.DeepEqual(doc, intact[tt.same]) {
				t.Errorf("recovered document differs from %s:\n%q\nwant\n%q", tt.same, doc.Sections, intact[tt.same].Sections)
			}
			text := pdfAllText(doc)
			for _, w := range tt.want {
				if !strings.Contains(text, w) {
					t.Errorf("text lacks %q", w)
				}
			}
			for _, w := range tt.absent {
				if strings.Contains(text, w) {
					t.Errorf("text has %q", w)
				}
			}
		})
	}
}

// pdfDeflate compresses s with zlib.
func pdfDeflate(s string) []byte {
	var b bytes.Buffer
	w := zlib.NewWriter(&b)
	w.Write([]byte(s))
	w.Close()
	return b.Bytes()
}

// pdfSetStartxref returns data with the offset after its last startxref
// replaced by off.
func pdfSetStartxref(data []byte, off int) []byte {
	i := bytes.LastIndex(data, []byte("startxref"))
	return append(bytes.Clone(data[:i]), fmt.Sprintf("startxref\n%d\n%%%%EOF\n", off)...)
}

// TestParsePDFBrokenShared damages real-world files (a pdfTeX paper with
// a cross-reference table, a Word file with a hybrid table and object
// streams): what can be recovered must read as the intact file does.
func TestParsePDFBrokenShared(t *testing.T) {
	for _, name := range []string{"tracemonkey.pdf", "testPDFVarious.pdf"} {
		good := testutil.ReadDoc(t, name)
		want, err := ParsePDF(good)
		if err != nil {
			t.Fatal(err)
		}
		i := bytes.LastIndex(good, []byte("startxref"))
		off, _ := pdfLeadingInt(good[i+len("startxref"):])
		j := bytes.LastIndex(good[:i], []byte("trailer"))
		header := bytes.IndexByte(good, '\n') + 1
		moved := append(append(bytes.Clone(good[:header]), "% moved\n"...), good[header:]...)
		for _, tt := range []struct {
			name string
			data []byte
		}{
			{"startxref wrong", pdfSetStartxref(good, off+17)},
			{"startxref zero", pdfSetStartxref(good, 0)},
			{"no trailer", append(bytes.Clone(good[:j]), good[i:]...)},
			{"objects moved", pdfSetStartxref(moved, off+len("% moved\n"))},
		} {
			t.Run(name+"/"+tt.name, func(t *testing.T) {
				doc, err := ParsePDF(tt.data)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(doc, want) {
					t.Errorf("recovered document differs: %d sections, want %d", len(doc.Sections), len(want.Sections))
				}
			})
		}
	}

	t.Run("testPDFVarious truncated", func(t *testing.T) {
		// Cut in half, inside the second page's resources: the text of
		// both pages is there (the Japanese font is lost).
		good := testutil.ReadDoc(t, "testPDFVarious.pdf")
		doc, err := ParsePDF(good[:len(good)/2])
		if err != nil {
			t.Fatal(err)
		}
		docCheckOutput(t, doc)
		text := pdfAllText(doc)
		for _, w := range []string{"Footnote appears here", "Number bullet 3", "Row 2 Col 3", "1 This is a footnote.", "Row 2 column 2"} {
			if !strings.Contains(text, w) {
				t.Errorf("text lacks %q", w)
			}
		}
	})

	t.Run("tracemonkey truncated", func(t *testing.T) {
		// pdfTeX writes the fonts, the page tree and the catalog last. Cut
		// before the catalog (object 995), the pages are found in file
		// order and read as in the intact file.
		good := testutil.ReadDoc(t, "tracemonkey.pdf")
		want, err := ParsePDF(good)
		if err != nil {
			t.Fatal(err)
		}
		cut := bytes.Index(good, []byte("\n995 0 obj"))
		doc, err := ParsePDF(good[:cut])
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(doc.Sections, want.Sections) {
			t.Errorf("recovered document differs: %d sections, want %d", len(doc.Sections), len(want.Sections))
		}
		// Cut at 40%, the fonts are gone too: no text but what figures
		// carry in their own fonts, and no error.
		doc, err = ParsePDF(good[:len(good)*4/10])
		if err != nil {
			t.Fatal(err)
		}
		docCheckOutput(t, doc)
	})
}

// TestParsePDFTruncatedEverywhere cuts a fixture at every offset: each cut
// parses or is refused as corrupt, never panics, and a longer prefix
// never loses a page marker a shorter one had.
func TestParsePDFTruncatedEverywhere(t *testing.T) {
	for _, name := range []string{"classic.pdf", "objstm.pdf"} {
		data := pdfReadBroken(t, name)
		for n := 0; n <= len(data); n += 7 {
			doc, err := ParsePDF(data[:n])
			if err != nil {
				if !errors.Is(err, ErrCorrupt) {
					t.Fatalf("%s[:%d]: %v does not wrap ErrCorrupt", name, n, err)
				}
				continue
			}
			docCheckOutput(t, doc)
		}
	}
}

// TestParsePDFRepairBounded feeds recovery inputs that would make naive
// scanning quadratic or allocate by object number: each must be answered
// quickly.
func TestParsePDFRepairBounded(t *testing.T) {
	const n = 1 << 20
	rep := func(s string) []byte {
		return append([]byte("%PDF-1.4\n"), bytes.Repeat([]byte(s), n/len(s))...)
	}
	// An object stream of 100,000 entries at one offset, where a 1 MiB
	// dictionary starts.
	var head, many bytes.Buffer
	for id := 1; id <= 100_000; id++ {
		fmt.Fprintf(&head, "%d 0 ", id)
	}
	body := "<< /Type /Page /A [" + strings.Repeat("1 ", n/2) + "] >>"
	stm := pdfDeflate(head.String() + body)
	objStm := fmt.Appendf(nil, "%%PDF-1.5\n1 0 obj\n<< /Type /ObjStm /N 100000 /First %d /Filter /FlateDecode /Length %d >>\nstream\n%s\nendstream\nendobj\n",
		head.Len(), len(stm), stm)
	many.WriteString("%PDF-1.4\n")
	for id := 1; many.Len() < n; id++ {
		fmt.Fprintf(&many, "%d 0 obj << /Type /Page /Contents %d 0 R >> endobj\n", id, id)
	}
	tests := []struct {
		name string
		data []byte
	}{
		{"object stream entries at one offset", objStm},
		{"distinct pages", many.Bytes()},
		{"streams without endstream", rep("1 0 obj\n<< /Length 99999 >>\nstream\nBT (x) Tj ET\n")},
		{"unterminated strings", rep("1 0 obj\n(abc \\( ")},
		{"unterminated dicts", rep("2 0 obj\n<< /Type /Page /Contents 3 0 R /Kids [ ")},
		{"trailers", rep("trailer\n<< /Root 1 0 R /Size 9 ")},
		{"object streams", rep("4 0 obj\n<< /Type /ObjStm /N 99999999 /First 99999999 /Length 10 >>\nstream\n0123456789\nendstream\nendobj\n")},
		{"huge object numbers", rep("4294967295 65535 obj\n<< /Type /Page /Contents 4294967295 0 R >>\nendobj\n")},
		{"many pages", rep("7 0 obj << /Type /Page /Contents 8 0 R >> endobj ")},
		{"deep nesting", append([]byte("%PDF-1.4\n1 0 obj\n"), bytes.Repeat([]byte("[<<"), n/3)...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			start := time.Now()
			doc, err := ParsePDF(tt.data)
			if err != nil && !errors.Is(err, ErrCorrupt) {
				t.Fatalf("err %v does not wrap ErrCorrupt", err)
			}
			if err == nil {
				docCheckOutput(t, doc)
			}
			// Linear work on 1 MiB takes milliseconds; quadratic would
			// take hours. The bound is loose for slow and race builds.
			if d := time.Since(start); d > 10*time.Second {
				t.Errorf("took %v", d)
			}
		})
	}
}

// pdfBuildObjStm writes a PDF 1.5 file whose objects 1..len(objs) are
// objs; those in packed go into one object stream, the others stand at
// file positions, and a cross-reference stream lists them all.
func pdfBuildObjStm(objs []string, packed map[int]bool) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.5\n")
	stmID := len(objs) + 1
	offs := map[int]int{}
	var head, body strings.Builder
	index := map[int]int{}
	for i, o := range objs {
		id := i + 1
		if packed[id] {
			index[id] = len(index)
			fmt.Fprintf(&head, "%d %d ", id, body.Len())
			body.WriteString(o + "\n")
			continue
		}
		offs[id] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", id, o)
	}
	offs[stmID] = b.Len()
	data := head.String() + body.String()
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /ObjStm /N %d /First %d /Length %d >>\nstream\n%s\nendstream\nendobj\n",
		stmID, len(index), head.Len(), len(data), data)
	xref := b.Len()
	var rows []byte
	rows = append(rows, 0, 0, 0, 0, 255, 255)
	for id := 1; id <= stmID; id++ {
		if packed[id] {
			rows = append(rows, 2, 0, 0, byte(stmID), 0, byte(index[id]))
		} else {
			rows = append(rows, 1, 0, byte(offs[id]>>8), byte(offs[id]), 0, 0)
		}
	}
	fmt.Fprintf(&b, "%d 0 obj\n<< /Type /XRef /Size %d /W [1 3 2] /Root 1 0 R /Info 2 0 R /Length %d >>\nstream\n%s\nendstream\nendobj\nstartxref\n%d\n%%%%EOF\n",
		stmID+1, stmID+1, len(rows), rows, xref)
	return b.Bytes()
}

// TestParsePDFOpenHexString covers a hang of the PDF library's lexer: a
// hex string left open at the end of a content stream or an object stream
// makes it read end-of-line bytes forever. Such a stream is left out.
func TestParsePDFOpenHexString(t *testing.T) {
	page := "<< /Type /Page /Parent 3 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 6 0 R >> >> /Contents 5 0 R >>"
	content := "BT /F1 12 Tf 72 700 Td (Hi) Tj ET"
	objs := func(info string) []string {
		return []string{"<< /Type /Catalog /Pages 3 0 R >>", info, "<< /Type /Pages /Kids [4 0 R] /Count 1 >>", page,
			fmt.Sprintf("<< /Length %d >>\nstream\n%s\nendstream", len(content), content), pdfHelvetica}
	}
	tests := []struct {
		name string
		data []byte
		want []Section
	}{
		{"content stream", pdfBuild("BT /F1 12 Tf 72 700 Td (Hi) Tj ET <4142 43", pdfHelvetica), nil},
		{"intact object stream", pdfBuildObjStm(objs("<< /Title (Greeting) >>"), map[int]bool{2: true}),
			[]Section{{Type: "title", Content: "Greeting"}, {Type: "p", Content: "Hi"}}},
		// The library would hang loading /Info; the object stream is left
		// out, and the information dictionary with it.
		{"object stream", pdfBuildObjStm(objs("<< /Title <4142"), map[int]bool{2: true}), []Section{{Type: "p", Content: "Hi"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			type result struct {
				doc Document
				err error
			}
			done := make(chan result, 1)
			go func() {
				doc, err := ParsePDF(tt.data)
				done <- result{doc, err}
			}()
			select {
			case r := <-done:
				if r.err != nil {
					t.Fatal(r.err)
				}
				if !reflect.DeepEqual(r.doc.Sections, tt.want) {
					t.Errorf("sections %q, want %q", r.doc.Sections, tt.want)
				}
			case <-time.After(10 * time.Second):
				t.Fatal("ParsePDF hangs") // the goroutine is left spinning
			}
		})
	}
}
