package ingest

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"runtime/metrics"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/najdi/najdi/internal/bombs"
	"github.com/najdi/najdi/internal/testutil"
)

// The budgets of issue 18 for refusing a bomb.
const (
	bombMaxTime = 2 * time.Second
	bombMaxHeap = 200 << 20
)

var (
	corpusOnce sync.Once
	corpus     []bombs.Bomb
)

// bombCorpus builds the corpus once per test binary.
func bombCorpus() []bombs.Bomb {
	corpusOnce.Do(func() { corpus = bombs.Corpus() })
	return corpus
}

// parseCount parses data as format f to the end: records (or sections of
// a document) produced before the first error that stops the reader.
func parseCount(f Format, data []byte) (int, error) {
	if !f.RecordOriented() {
		doc, err := ParseDocument(f, data, "")
		return len(doc.Sections), err
	}
	rr, err := NewRecordReader(f, bytes.NewReader(data), RecordOptions{})
	if err != nil {
		return 0, err
	}
	n := 0
	for {
		_, err := rr.Next()
		if err == io.EOF {
			return n, nil
		}
		var re *RecordError
		if errors.As(err, &re) {
			continue
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// measured is what parsing one input cost.
type measured struct {
	n       int
	err     error
	elapsed time.Duration
	peak    uint64 // highest heap growth seen (live and not yet swept objects)
	alloc   uint64 // bytes allocated
}

var heapSample = []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}, {Name: "/gc/heap/allocs:bytes"}}

func heapNow() (objects, allocs uint64) {
	metrics.Read(heapSample)
	return heapSample[0].Value.Uint64(), heapSample[1].Value.Uint64()
}

// parseMeasured runs parseCount in a goroutine and samples the heap every
// millisecond. A parse past 20 s or 1.5 GiB of heap cannot be stopped, so
// it panics: the test fails without taking the machine down.
func parseMeasured(name string, f Format, data []byte) measured {
	runtime.GC()
	base, alloc0 := heapNow()
	type result struct {
		n   int
		err error
	}
	done := make(chan result, 1)
	start := time.Now()
	go func() {
		n, err := parseCount(f, data)
		done <- result{n, err}
	}()
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	var peak uint64
	sample := func() {
		h, _ := heapNow()
		if h > base && h-base > peak {
			peak = h - base
		}
	}
	for {
		select {
		case r := <-done:
			elapsed := time.Since(start)
			sample()
			_, alloc1 := heapNow()
			return measured{n: r.n, err: r.err, elapsed: elapsed, peak: peak, alloc: alloc1 - alloc0}
		case <-tick.C:
			sample()
			if el := time.Since(start); peak > 1536<<20 || el > 20*time.Second {
				panic(fmt.Sprintf("%s: still parsing after %v with the heap %d MiB larger: aborting", name, el.Round(time.Millisecond), peak>>20))
			}
		}
	}
}

// TestBombs parses every bomb of the corpus (internal/bombs,
// scripts/make-bombs.go) and checks that it is refused with the right
// error, one naming the limit, in under 2 s and 200 MB of heap; the
// harmless ones (nested archives, which the readers never open, a sheet
// listed many times) must parse within the same budget.
func TestBombs(t *testing.T) {
	for _, b := range bombCorpus() {
		t.Run(b.Name, func(t *testing.T) {
			f, err := ParseFormat(b.Format)
			if err != nil {
				t.Fatal(err)
			}
			m := parseMeasured(b.Name, f, b.Data)
			t.Logf("%-30s %7.2f MB -> %-9s in %6.1f ms, heap +%5.1f MB peak, %6.1f MB allocated, %d records/sections: %v",
				b.Name, float64(len(b.Data))/1e6, b.Want, float64(m.elapsed.Microseconds())/1000, float64(m.peak)/1e6, float64(m.alloc)/1e6, m.n, m.err)
			switch b.Want {
			case bombs.TooLarge, bombs.Stopped:
				if !errors.Is(m.err, ErrTooLarge) {
					t.Errorf("error %v, want ErrTooLarge", m.err)
				}
				if b.Want == bombs.TooLarge && m.n > 0 {
					t.Errorf("%d records or sections before the refusal, want none", m.n)
				}
			case bombs.Corrupt:
				if !errors.Is(m.err, ErrCorrupt) || errors.Is(m.err, ErrTooLarge) {
					t.Errorf("error %v, want ErrCorrupt", m.err)
				}
				if m.n > 0 {
					t.Errorf("%d records before the refusal, want none", m.n)
				}
			case bombs.Harmless:
				if m.err != nil || m.n == 0 {
					t.Errorf("%d records or sections, error %v; want the valid content", m.n, m.err)
				}
			}
			if m.err != nil && !strings.Contains(m.err.Error(), b.Limit) {
				t.Errorf("error %q does not name the limit (%q)", m.err, b.Limit)
			}
			if m.elapsed > bombMaxTime {
				t.Errorf("took %v, want under %v", m.elapsed, bombMaxTime)
			}
			if m.peak > bombMaxHeap {
				t.Errorf("heap grew by %d MB, want under %d MB", m.peak>>20, bombMaxHeap>>20)
			}
		})
	}
}

// legitDigest returns a digest of everything a parser returns for data:
// every record's sheet, index, key and typed values, or every section of a
// document and its title.
func legitDigest(f Format, data []byte) (string, error) {
	h := sha256.New()
	if !f.RecordOriented() {
		doc, err := ParseDocument(f, data, "")
		if err != nil {
			return "", err
		}
		fmt.Fprintf(h, "title %q\n", doc.Title)
		for _, s := range doc.Sections {
			fmt.Fprintf(h, "%q %q\n", s.Type, s.Content)
		}
		return hex.EncodeToString(h.Sum(nil))[:16], nil
	}
	rr, err := NewRecordReader(f, bytes.NewReader(data), RecordOptions{})
	if err != nil {
		return "", err
	}
	for {
		rec, err := rr.Next()
		if err == io.EOF {
			return hex.EncodeToString(h.Sum(nil))[:16], nil
		}
		if err != nil {
			fmt.Fprintf(h, "error %v\n", err)
			var re *RecordError
			if errors.As(err, &re) {
				continue
			}
			return "", err
		}
		fmt.Fprintf(h, "%q %d %q:", rec.Sheet, rec.Index, rec.Key)
		for _, p := range rec.Props {
			fmt.Fprintf(h, " %q=", p.Name)
			for _, v := range p.Values {
				fmt.Fprintf(h, "%d|%q|%v|%v;", v.Kind, v.Str, v.Num, v.Bool)
			}
		}
		h.Write([]byte{'\n'})
	}
}

// TestArchiveLegitimate checks that the real files of ingest/testdata and
// the shared data parse exactly as before the archive limits: digests of
// their records and sections taken with the readers of commit 7c43b7e.
func TestArchiveLegitimate(t *testing.T) {
	want := map[string]string{
		"testdata/odfpy.ods":            "93574785f808eb5c",
		"testdata/openpyxl.xlsx":        "481c37365cc9dd8c",
		"testdata/xlsxwriter-1904.xlsx": "1119092d9f87a70e",
		"testdata/python-docx.docx":     "626e17611ea63e4d",
		"docs/kyc-file-structure.xlsx":  "6f5da211292db9b8",
		"docs/test-columnar.ods":        "bc3be370946fb637",
		"docs/testEXCEL.xlsx":           "2cf049d3a0aa67ad",
		"docs/testWORD.docx":            "75fd357915a52fa4",
	}
	for name, digest := range want {
		path := name
		if strings.HasPrefix(name, "docs/") {
			path = filepath.Join(testutil.SharedData(t), name)
		}
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		f, err := ParseFormat(strings.TrimPrefix(filepath.Ext(name), "."))
		if err != nil {
			t.Fatal(err)
		}
		got, err := legitDigest(f, data)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if got != digest {
			t.Errorf("%s: digest %s, want %s", name, got, digest)
		}
	}
}

// rawEntry is one member of a hand-made archive: data is written as is
// under the header's sizes, method and checksum.
type rawEntry struct {
	name   string
	method uint16
	data   []byte // compressed
	size   uint64 // declared uncompressed size
	crc    uint32
}

// deflated returns a rawEntry holding content deflated, with true sizes.
func deflated(t *testing.T, name, content string) rawEntry {
	t.Helper()
	var b bytes.Buffer
	w, err := flate.NewWriter(&b, flate.BestCompression)
	if err != nil {
		t.Fatal(err)
	}
	w.Write([]byte(content))
	w.Close()
	return rawEntry{name: name, method: zip.Deflate, data: b.Bytes(), size: uint64(len(content)), crc: crc32.ChecksumIEEE([]byte(content))}
}

// rawZip builds an archive of the entries.
func rawZip(t *testing.T, entries ...rawEntry) []byte {
	t.Helper()
	var b bytes.Buffer
	zw := zip.NewWriter(&b)
	for _, e := range entries {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: e.name, Method: e.method, CRC32: e.crc,
			CompressedSize64: uint64(len(e.data)), UncompressedSize64: e.size})
		if err != nil {
			t.Fatal(err)
		}
		w.Write(e.data)
	}
	if err := zw.Close(); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// TestArchiveLimits triggers each limit of archive.go on its own, with the
// limit lowered: the checks on declared sizes and those made while
// inflating (which the corpus's honest or clumsily lying headers never
// reach), and the XML and spreadsheet limits.
func TestArchiveLimits(t *testing.T) {
	const xlsxWB = `<workbook xmlns:r="http://schemas.openxmlformats.org/officeDocument/2006/relationships"><sheets><sheet name="S" r:id="rId1"/></sheets></workbook>`
	const xlsxRels = `<Relationships><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/worksheet" Target="worksheets/sheet1.xml"/><Relationship Id="rId2" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/sharedStrings" Target="sharedStrings.xml"/></Relationships>`
	xlsx := func(sheet, shared string) []byte {
		parts := map[string]string{
			"xl/workbook.xml":            xlsxWB,
			"xl/_rels/workbook.xml.rels": xlsxRels,
			"xl/worksheets/sheet1.xml":   `<worksheet><sheetData>` + sheet + `</sheetData></worksheet>`,
		}
		if shared != "" {
			parts["xl/sharedStrings.xml"] = `<sst>` + shared + `</sst>`
		}
		return xlsxZip(t, parts)
	}
	rows := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, `<row><c t="inlineStr"><is><t>row %d</t></is></c><c><v>%d</v></c></row>`, i, i)
		}
		return b.String()
	}
	// A document part that inflates 1000:1 behind a header declaring
	// 100:1, the most the limit allows: only the meter sees it.
	zeros := strings.Repeat(" ", 4<<20)
	lying := deflated(t, "word/document.xml", docxTestHead+zeros+`<w:p><w:r><w:t>x</w:t></w:r></w:p></w:body></w:document>`)
	lying.size = 100 * uint64(len(lying.data))
	short := deflated(t, "word/document.xml", docxTestHead+`<w:p><w:r><w:t>twice as long as declared</w:t></w:r></w:p></w:body></w:document>`)
	short.size /= 2
	badCRC := deflated(t, "word/document.xml", docxTestHead+`<w:p><w:r><w:t>x</w:t></w:r></w:p></w:body></w:document>`)
	badCRC.crc ^= 1
	method := deflated(t, "word/document.xml", docxTestHead+`</w:body></w:document>`)
	method.method = 99

	tests := []struct {
		name   string
		format Format
		data   []byte
		lower  func(*limitSet)
		want   error
		phrase string
	}{
		{"entries", FormatDOCX, docxBuild(t, map[string]string{"word/document.xml": docxTestHead + `</w:body></w:document>`, "a": "", "b": "", "c": ""}),
			func(l *limitSet) { l.entries = 3 }, ErrTooLarge, "more than 3 entries"},
		{"decompressed bytes, declared", FormatXLSX, xlsx(rows(1000), ""),
			func(l *limitSet) { l.inflated = 20 << 10 }, ErrTooLarge, "limit on decompressed bytes"},
		{"decompressed bytes of a part, declared", FormatXLSX, xlsx(rows(1000), ""),
			func(l *limitSet) { l.entry = 20 << 10 }, ErrTooLarge, "limit on decompressed bytes of a part"},
		{"entry ratio, declared", FormatXLSX, xlsx(strings.Repeat(`<row><c><v>1</v></c></row>`, 10000), ""),
			func(l *limitSet) { l.grace = 1 << 10; l.ratio = 10 }, ErrTooLarge, "times its compressed size"},
		// Each entry is under the grace size, the two together are not.
		{"overall ratio, declared", FormatXLSX, xlsx(rows(1000), `<si><t>`+strings.Repeat("s", 100<<10)+`</t></si>`),
			func(l *limitSet) { l.grace = 128 << 10; l.ratio = 3 }, ErrTooLarge, "over 3 times its size"},
		{"entry ratio, inflating", FormatDOCX, rawZip(t, lying),
			func(l *limitSet) { l.grace = 1 << 10 }, ErrTooLarge, "times its compressed size"},
		{"declared size, inflating", FormatDOCX, rawZip(t, short), nil, ErrCorrupt, "past its declared size"},
		{"checksum", FormatDOCX, rawZip(t, badCRC), nil, ErrCorrupt, "checksum"},
		{"method", FormatDOCX, rawZip(t, method), nil, ErrCorrupt, "compression method 99"},
		{"depth", FormatODS, odsBuild(t, `<table:table table:name="d"><table:table-row><table:table-cell><text:p>`+strings.Repeat("<text:span>", 40)+`x`+strings.Repeat("</text:span>", 40)+`</text:p></table:table-cell></table:table-row></table:table>`),
			func(l *limitSet) { l.depth = 32 }, ErrTooLarge, "nested deeper than 32"},
		{"token", FormatXLSX, xlsx(`<row><c t="inlineStr"><is><t>`+strings.Repeat("t", 10000)+`</t></is></c></row>`, ""),
			func(l *limitSet) { l.token = 4096 }, ErrTooLarge, "XML token over 4096"},
		{"cell size, xlsx", FormatXLSX, xlsx(`<row><c t="inlineStr"><is><r><t>`+strings.Repeat("t", 600)+`</t></r><r><t>`+strings.Repeat("u", 600)+`</t></r></is></c></row>`, ""),
			func(l *limitSet) { l.cell = 1000 }, ErrTooLarge, "text in one cell"},
		{"cell size, ods", FormatODS, odsBuild(t, `<table:table table:name="c"><table:table-row><table:table-cell><text:p>`+strings.Repeat(`<text:s text:c="100"/>`, 20)+`</text:p></table:table-cell></table:table-row></table:table>`),
			func(l *limitSet) { l.cell = 1000 }, ErrTooLarge, "text in one cell"},
		{"shared strings", FormatXLSX, xlsx(`<row><c t="s"><v>0</v></c></row>`, strings.Repeat(`<si><t>twenty characters...</t></si>`, 100)),
			func(l *limitSet) { l.sharedStrings = 1000 }, ErrTooLarge, "shared strings table"},
		{"cells, padded", FormatXLSX, xlsx(`<row><c r="A1" t="inlineStr"><is><t>a</t></is></c><c r="Z1" t="inlineStr"><is><t>z</t></is></c></row>`+strings.Repeat(`<row><c><v>1</v></c></row>`, 10), ""),
			func(l *limitSet) { l.cells = 26 * 5 }, ErrTooLarge, "more than 130 cells"},
		{"cell text", FormatXLSX, xlsx(rows(100), ""),
			func(l *limitSet) { l.text = 500 }, ErrTooLarge, "bytes of cell text"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func(old limitSet) { limits = old }(limits)
			if tt.lower != nil {
				tt.lower(&limits)
			}
			f := tt.format
			_, err := parseCount(f, tt.data)
			if !errors.Is(err, tt.want) || (tt.want == ErrCorrupt && errors.Is(err, ErrTooLarge)) {
				t.Fatalf("error %v, want %v", err, tt.want)
			}
			if !strings.Contains(err.Error(), tt.phrase) {
				t.Errorf("error %q does not say %q", err, tt.phrase)
			}
			// With the default limits the same input parses (or, for the
			// lying archives, fails the same way).
			limits = defaultLimits
			if _, err := parseCount(f, tt.data); errors.Is(err, ErrTooLarge) {
				t.Errorf("with the default limits: %v", err)
			}
		})
	}
}
