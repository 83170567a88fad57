// Package bombs builds hostile ZIP-based documents — XLSX, ODS and DOCX
// decompression bombs and XML blowups — for the limit tests of packages
// ingest and server and for scripts/make-bombs.go, which writes them to a
// directory. Only the standard library is used and the output is
// deterministic.
//
// High-ratio entries are hand-made DEFLATE streams (see deflate): a stored
// block with the first period of the content, then one dynamic-Huffman
// block of copies of 258 bytes whose codes are one bit each, so that a
// gigabyte costs about a megabyte and building it costs milliseconds; the
// CRC-32 in the headers is exact (computed with crc32Combine), so the files
// are valid archives that unzip(1) would expand in full.
package bombs

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Outcome is what a reader with the ingest limits must do with a bomb.
type Outcome int

// The outcomes.
const (
	// TooLarge: refused before the first record or section, with an
	// error wrapping ingest.ErrTooLarge (HTTP 413).
	TooLarge Outcome = iota
	// Corrupt: refused as an invalid file, ingest.ErrCorrupt (HTTP 400):
	// the archive lies about its sizes.
	Corrupt
	// Stopped: some records first, then an error wrapping
	// ingest.ErrTooLarge (HTTP 200 listing the records and an error for
	// the rest of the upload): the blowup only shows after valid rows.
	Stopped
	// Harmless: parses, because the hostile part is never read (a nested
	// archive, a declared dimension).
	Harmless
)

func (o Outcome) String() string {
	switch o {
	case TooLarge:
		return "too large"
	case Corrupt:
		return "corrupt"
	case Stopped:
		return "stopped"
	}
	return "harmless"
}

// Bomb is one hostile file.
type Bomb struct {
	// Name is a file name with the format's extension.
	Name string
	// Format is "xlsx", "ods" or "docx".
	Format string
	// What says what the file does and which limit stops it.
	What string
	// Inflated is the size the file's content would expand to, in bytes.
	Inflated int64
	Want     Outcome
	// Limit is a phrase the refusal's error message must hold: the limit
	// in the words of the ingest errors ("" for a harmless file).
	Limit string
	Data  []byte
}

const (
	kib = 1 << 10
	mib = 1 << 20
	gib = 1 << 30
)

// Corpus builds every bomb, in a fixed order (about 60 MB in all, in well
// under a second).
func Corpus() []Bomb {
	sheetBomb, docxBomb := xlsxSheetRatio(), docxRatio()
	return []Bomb{
		sheetBomb,
		xlsxSharedStringRatio(),
		xlsxLyingHeader(),
		xlsxManyEntries(),
		xlsxManySmallRatio(),
		xlsxSheetListedOften(),
		xlsxSharedStringFanout(),
		xlsxDimension(),
		xlsxNested(sheetBomb.Data),
		odsRatio(),
		odsRepeat(),
		odsRepeatText(),
		odsSpaces(),
		docxBomb,
		docxStylesRatio(),
		docxDeep(),
		docxAttributes(),
		docxNestedDeflated(),
		docxNestedStored(docxBomb.Data),
	}
}

// ---- XLSX ----

const (
	xlsxMain     = "http://schemas.openxmlformats.org/spreadsheetml/2006/main"
	xlsxRelsNS   = "http://schemas.openxmlformats.org/package/2006/relationships"
	xlsxOfficeNS = "http://schemas.openxmlformats.org/officeDocument/2006/relationships"
)

// xlsxSheetHead and xlsxSheetTail wrap the rows of a worksheet.
const (
	xlsxSheetHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<worksheet xmlns="` + xlsxMain + `"><sheetData>`
	xlsxSheetTail = `</sheetData></worksheet>`
)

// xlsxParts returns the package parts of a workbook with the given sheet
// parts (xl/worksheets/sheetN.xml, N from 1) listed in order; sheets
// repeats the list of sheets that many times over (the same parts listed
// again); shared adds a shared strings relationship.
func xlsxParts(nsheets, listed int, shared bool) []entry {
	var wb, rels strings.Builder
	wb.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<workbook xmlns="` + xlsxMain + `" xmlns:r="` + xlsxOfficeNS + `"><sheets>`)
	rels.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" + `<Relationships xmlns="` + xlsxRelsNS + `">`)
	for i := 1; i <= nsheets; i++ {
		fmt.Fprintf(&rels, `<Relationship Id="rId%d" Type="`+xlsxOfficeNS+`/worksheet" Target="worksheets/sheet%d.xml"/>`, i, i)
	}
	for k := range listed {
		for i := 1; i <= nsheets; i++ {
			n := k*nsheets + i
			fmt.Fprintf(&wb, `<sheet name="S%d" sheetId="%d" r:id="rId%d"/>`, n, n, i)
		}
	}
	if shared {
		rels.WriteString(`<Relationship Id="rIdS" Type="` + xlsxOfficeNS + `/sharedStrings" Target="sharedStrings.xml"/>`)
	}
	wb.WriteString(`</sheets></workbook>`)
	rels.WriteString(`</Relationships>`)
	return []entry{
		{name: "[Content_Types].xml", body: []byte(`<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/></Types>`)},
		{name: "_rels/.rels", body: []byte(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="` + xlsxRelsNS + `"><Relationship Id="rId1" Type="` + xlsxOfficeNS + `/officeDocument" Target="xl/workbook.xml"/></Relationships>`)},
		{name: "xl/workbook.xml", body: []byte(wb.String())},
		{name: "xl/_rels/workbook.xml.rels", body: []byte(rels.String())},
	}
}

// xlsxRow is one row of one numeric cell padded to 32 bytes, the period of
// the row bombs.
var xlsxRow = []byte(`<row><c><v>1</v></c></row>      `)

// xlsxSheetRatio: one worksheet of 16M identical rows, 512 MiB of XML in
// about 1.3 MB (400:1). The compression ratio limit refuses it from the
// declared sizes, before a row is read.
func xlsxSheetRatio() Bomb {
	r := run{prefix: []byte(xlsxSheetHead), unit: xlsxRow, n: 16 * mib, suffix: []byte(xlsxSheetTail)}
	parts := append(xlsxParts(1, 1, false), entry{name: "xl/worksheets/sheet1.xml", bomb: &r})
	return Bomb{Name: "xlsx-sheet-ratio.xlsx", Limit: "compression ratio", Format: "xlsx", Want: TooLarge, Inflated: r.size(), Data: buildZip(parts),
		What: "a worksheet of 16M identical rows, 512 MiB at 400:1: the per-entry compression ratio"}
}

// xlsxSharedStringRatio: a shared strings table holding one 2 GiB string
// (1030:1), which a reader keeping the table in memory would hold whole.
func xlsxSharedStringRatio() Bomb {
	r := run{prefix: []byte(`<?xml version="1.0" encoding="UTF-8"?><sst xmlns="` + xlsxMain + `" count="1" uniqueCount="1"><si><t>A`),
		unit: []byte("A"), n: 2*gib - 1, suffix: []byte(`</t></si></sst>`)}
	parts := append(xlsxParts(1, 1, true),
		entry{name: "xl/sharedStrings.xml", bomb: &r},
		entry{name: "xl/worksheets/sheet1.xml", body: []byte(xlsxSheetHead + `<row><c t="s"><v>0</v></c></row><row><c t="s"><v>0</v></c></row>` + xlsxSheetTail)})
	return Bomb{Name: "xlsx-shared-string-ratio.xlsx", Limit: "compression ratio", Format: "xlsx", Want: TooLarge, Inflated: r.size(), Data: buildZip(parts),
		What: "one shared string of 2 GiB at 1030:1: the per-entry compression ratio"}
}

// xlsxLyingHeader: the worksheet's headers declare 4 KiB, its data
// inflates to 512 MiB. Reading past the declared size is refused as a
// corrupt archive.
func xlsxLyingHeader() Bomb {
	r := run{prefix: []byte(xlsxSheetHead), unit: xlsxRow, n: 16 * mib, suffix: []byte(xlsxSheetTail)}
	parts := append(xlsxParts(1, 1, false), entry{name: "xl/worksheets/sheet1.xml", bomb: &r, lieAbout: 4 * kib})
	return Bomb{Name: "xlsx-lying-header.xlsx", Limit: "declared size", Format: "xlsx", Want: Corrupt, Inflated: r.size(), Data: buildZip(parts),
		What: "a worksheet declaring 4 KiB that inflates to 512 MiB: inflating past the declared size"}
}

// xlsxManyEntries: a valid workbook followed by 20,000 empty entries,
// whose directory alone costs a reader memory per entry.
func xlsxManyEntries() Bomb {
	parts := append(xlsxParts(1, 1, false), entry{name: "xl/worksheets/sheet1.xml", body: []byte(xlsxSheetHead + `<row><c><v>1</v></c></row><row><c><v>2</v></c></row>` + xlsxSheetTail)})
	for i := range 20000 {
		parts = append(parts, entry{name: "xl/media/e" + strconv.Itoa(i), store: true})
	}
	return Bomb{Name: "xlsx-many-entries.xlsx", Limit: "archive entries", Format: "xlsx", Want: TooLarge, Data: buildZip(parts),
		What: "20,000 entries: the number of archive entries"}
}

// xlsxManySmallRatio: 1,000 worksheets of 1000 KiB each, every one under
// the grace size of the per-entry ratio check, 1000 MiB from about 3 MB:
// the overall compression ratio.
func xlsxManySmallRatio() Bomb {
	const sheets = 1000
	parts := xlsxParts(sheets, 1, false)
	var r run
	for i := 1; i <= sheets; i++ {
		r = run{prefix: []byte(xlsxSheetHead), unit: xlsxRow, n: 1000 * kib / 32, suffix: []byte(xlsxSheetTail)}
		parts = append(parts, entry{name: "xl/worksheets/sheet" + strconv.Itoa(i) + ".xml", bomb: &r})
	}
	return Bomb{Name: "xlsx-many-small-ratio.xlsx", Limit: "compression ratio", Format: "xlsx", Want: TooLarge, Inflated: sheets * r.size(), Data: buildZip(parts),
		What: "1,000 worksheets of 1000 KiB at 400:1, each under the per-entry grace: the overall compression ratio"}
}

// xlsxSheetListedOften: one worksheet of 1,000 rows (42 KB) that the
// workbook lists 20,000 times: 0.8 GB of XML if every listing were read.
// The reader reads a worksheet part once.
func xlsxSheetListedOften() Bomb {
	const listed = 20000
	var sheet bytes.Buffer
	sheet.WriteString(xlsxSheetHead)
	sheet.WriteString(`<row><c t="inlineStr"><is><t>n</t></is></c><c t="inlineStr"><is><t>square</t></is></c></row>`)
	for i := 1; i <= 1000; i++ {
		fmt.Fprintf(&sheet, `<row><c><v>%d</v></c><c><v>%d</v></c></row>`, i, i*i)
	}
	sheet.WriteString(xlsxSheetTail)
	parts := append(xlsxParts(1, listed, false), entry{name: "xl/worksheets/sheet1.xml", body: sheet.Bytes()})
	return Bomb{Name: "xlsx-sheet-listed-often.xlsx", Format: "xlsx", Want: Harmless, Inflated: listed * int64(sheet.Len()), Data: buildZip(parts),
		What: "one 42 KB worksheet listed 20,000 times by the workbook: read once"}
}

// xlsxSharedStringFanout: a 512 KiB shared string used by every cell of
// two rows of 16,384 cells: 16 GiB of cell text from a 0.7 MB stored
// worksheet whose compression ratio is 1. The limit on the cell text a
// spreadsheet expands to refuses the header row.
func xlsxSharedStringFanout() Bomb {
	str := run{prefix: []byte(`<?xml version="1.0" encoding="UTF-8"?><sst xmlns="` + xlsxMain + `" count="1" uniqueCount="1"><si><t>`),
		unit: []byte("ABCDEFGH"), n: 512 * kib / 8, suffix: []byte(`</t></si></sst>`)}
	var sheet bytes.Buffer
	sheet.WriteString(xlsxSheetHead)
	for range 2 {
		sheet.WriteString(`<row>`)
		for range 16384 {
			sheet.WriteString(`<c t="s"><v>0</v></c>`)
		}
		sheet.WriteString(`</row>`)
	}
	sheet.WriteString(xlsxSheetTail)
	parts := append(xlsxParts(1, 1, true),
		entry{name: "xl/sharedStrings.xml", body: str.bytes()},
		entry{name: "xl/worksheets/sheet1.xml", body: sheet.Bytes(), store: true})
	return Bomb{Name: "xlsx-shared-string-fanout.xlsx", Limit: "cell text", Format: "xlsx", Want: TooLarge, Inflated: 2 * 16384 * 512 * kib, Data: buildZip(parts),
		What: "a 512 KiB shared string in 2 x 16,384 cells, 16 GiB of cell text: the cell text a spreadsheet expands to"}
}

// xlsxDimension: a worksheet declaring A1:XFD1048576 whose every row puts
// one cell in the last column, XFD: each of its 20,000 rows pads to
// 16,384 columns. Compressed normally (about 7:1); the cell limit stops
// it after a few hundred rows.
func xlsxDimension() Bomb {
	var sheet bytes.Buffer
	sheet.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<worksheet xmlns="` + xlsxMain + `"><dimension ref="A1:XFD1048576"/><sheetData>`)
	sheet.WriteString(`<row r="1"><c r="A1" t="inlineStr"><is><t>key</t></is></c><c r="XFD1" t="inlineStr"><is><t>far</t></is></c></row>`)
	for i := 2; i <= 20001; i++ {
		fmt.Fprintf(&sheet, `<row r="%d"><c r="XFD%d"><v>%d</v></c></row>`, i, i, i)
	}
	sheet.WriteString(xlsxSheetTail)
	parts := append(xlsxParts(1, 1, false), entry{name: "xl/worksheets/sheet1.xml", body: sheet.Bytes()})
	return Bomb{Name: "xlsx-dimension.xlsx", Limit: "cells a spreadsheet expands to", Format: "xlsx", Want: Stopped, Inflated: int64(sheet.Len()), Data: buildZip(parts),
		What: "20,000 rows each padded to column XFD (16,384 cells): the cells a spreadsheet expands to"}
}

// xlsxNested: a small valid workbook carrying the XLSX sheet bomb as a
// stored embedded object, which the reader never opens.
func xlsxNested(bomb []byte) Bomb {
	parts := append(xlsxParts(1, 1, false),
		entry{name: "xl/worksheets/sheet1.xml", body: []byte(xlsxSheetHead + `<row><c t="inlineStr"><is><t>name</t></is></c></row><row><c t="inlineStr"><is><t>nested</t></is></c></row>` + xlsxSheetTail)},
		entry{name: "xl/embeddings/Microsoft_Excel_Worksheet.xlsx", body: bomb, store: true})
	return Bomb{Name: "xlsx-nested.xlsx", Format: "xlsx", Want: Harmless, Data: buildZip(parts),
		What: "a valid workbook embedding the sheet bomb, stored: never opened"}
}

// ---- ODS ----

const (
	odsHead = `<?xml version="1.0" encoding="UTF-8"?>` + "\n" +
		`<office:document-content xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" office:version="1.2"><office:body><office:spreadsheet><table:table table:name="Sheet1">`
	odsTail = `</table:table></office:spreadsheet></office:body></office:document-content>`
)

// odsParts returns an ODS package around content.xml.
func odsParts(content entry) []entry {
	content.name = "content.xml"
	return []entry{
		{name: "mimetype", body: []byte("application/vnd.oasis.opendocument.spreadsheet"), store: true},
		{name: "META-INF/manifest.xml", body: []byte(`<?xml version="1.0" encoding="UTF-8"?><manifest:manifest xmlns:manifest="urn:oasis:names:tc:opendocument:xmlns:manifest:1.0" manifest:version="1.2"><manifest:file-entry manifest:full-path="/" manifest:media-type="application/vnd.oasis.opendocument.spreadsheet"/><manifest:file-entry manifest:full-path="content.xml" manifest:media-type="text/xml"/></manifest:manifest>`)},
		content,
	}
}

// odsRatio: a cell of 2 GiB of text (1030:1), which a decoder would
// buffer whole as one token.
func odsRatio() Bomb {
	r := run{prefix: []byte(odsHead + `<table:table-row><table:table-cell office:value-type="string"><text:p>A`),
		unit: []byte("A"), n: 2*gib - 1,
		suffix: []byte(`</text:p></table:table-cell></table:table-row>` + odsTail)}
	return Bomb{Name: "ods-ratio.ods", Limit: "compression ratio", Format: "ods", Want: TooLarge, Inflated: r.size(), Data: buildZip(odsParts(entry{bomb: &r})),
		What: "a 2 GiB cell at 1030:1: the per-entry compression ratio"}
}

// odsRepeat: one cell repeated over 16,384 columns in a row repeated
// 1,048,576 times, a few hundred bytes of XML for 17G cells.
func odsRepeat() Bomb {
	body := odsHead + `<table:table-row table:number-rows-repeated="1048576"><table:table-cell table:number-columns-repeated="16384" office:value-type="string"><text:p>bomb</text:p></table:table-cell></table:table-row>` + odsTail
	return Bomb{Name: "ods-repeat.ods", Limit: "cells a spreadsheet expands to", Format: "ods", Want: TooLarge, Inflated: 16384 * 1048576, Data: buildZip(odsParts(entry{body: []byte(body)})),
		What: "a cell repeated over 16,384 columns and 1,048,576 rows: the cells a spreadsheet expands to"}
}

// odsRepeatText: a 128 KiB cell repeated over 16,384 columns, twice:
// 4 GiB of cell text from 2 KB.
func odsRepeatText() Bomb {
	text := strings.Repeat("ABCDEFGH", 128*kib/8)
	body := odsHead + `<table:table-row table:number-rows-repeated="2"><table:table-cell table:number-columns-repeated="16384" office:value-type="string"><text:p>` + text + `</text:p></table:table-cell></table:table-row>` + odsTail
	return Bomb{Name: "ods-repeat-text.ods", Limit: "cell text", Format: "ods", Want: TooLarge, Inflated: 2 * 16384 * 128 * kib, Data: buildZip(odsParts(entry{body: []byte(body)})),
		What: "a 128 KiB cell repeated over 16,384 columns and 2 rows, 4 GiB of text: the cell text a spreadsheet expands to"}
}

// odsSpaces: one cell of 200,000 <text:s text:c="1024"/>, 200 MiB of
// spaces from 4.6 MB of stored XML.
func odsSpaces() Bomb {
	r := run{prefix: []byte(odsHead + `<table:table-row><table:table-cell office:value-type="string"><text:p>`),
		unit: []byte(`<text:s text:c="1024"/>`), n: 200000,
		suffix: []byte(`</text:p></table:table-cell></table:table-row>` + odsTail)}
	return Bomb{Name: "ods-spaces.ods", Limit: "text in one cell", Format: "ods", Want: TooLarge, Inflated: 200000 * 1024, Data: buildZip(odsParts(entry{body: r.bytes(), store: true})),
		What: "200,000 text:s elements of 1,024 spaces in one stored cell, 200 MiB of text: the size of a cell"}
}

// ---- DOCX ----

const (
	docxHead = `<?xml version="1.0" encoding="UTF-8" standalone="yes"?>` + "\n" +
		`<w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>`
	docxTail  = `</w:body></w:document>`
	docxHello = `<w:p><w:r><w:t>Hello, bomb.</w:t></w:r></w:p>`
)

// docxParts returns a DOCX package around the given parts.
func docxParts(parts ...entry) []entry {
	return append([]entry{
		{name: "[Content_Types].xml", body: []byte(`<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`)},
		{name: "_rels/.rels", body: []byte(`<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="` + xlsxRelsNS + `"><Relationship Id="rId1" Type="` + xlsxOfficeNS + `/officeDocument" Target="word/document.xml"/></Relationships>`)},
	}, parts...)
}

// docxRatio: a paragraph of 2 GiB of text (1030:1).
func docxRatio() Bomb {
	r := run{prefix: []byte(docxHead + `<w:p><w:r><w:t>A`), unit: []byte("A"), n: 2*gib - 1, suffix: []byte(`</w:t></w:r></w:p>` + docxTail)}
	return Bomb{Name: "docx-ratio.docx", Limit: "compression ratio", Format: "docx", Want: TooLarge, Inflated: r.size(), Data: buildZip(docxParts(entry{name: "word/document.xml", bomb: &r})),
		What: "a 2 GiB paragraph at 1030:1: the per-entry compression ratio"}
}

// docxStylesRatio: a valid body with a styles part of 1 GiB of white space
// between two elements (1030:1), a part whose errors the reader ignores.
func docxStylesRatio() Bomb {
	r := run{prefix: []byte(`<?xml version="1.0"?><w:styles xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"> `),
		unit: []byte(" "), n: gib, suffix: []byte(`</w:styles>`)}
	return Bomb{Name: "docx-styles-ratio.docx", Limit: "compression ratio", Format: "docx", Want: TooLarge, Inflated: r.size(),
		Data: buildZip(docxParts(entry{name: "word/document.xml", body: []byte(docxHead + docxHello + docxTail)}, entry{name: "word/styles.xml", bomb: &r})),
		What: "1 GiB of white space in word/styles.xml at 1030:1: the per-entry compression ratio in an optional part"}
}

// docxDeep: 2,000,000 nested table cells in a stored document part (12 MB):
// each open element costs the XML decoder and the parser memory.
func docxDeep() Bomb {
	r := run{prefix: []byte(docxHead + docxHello), unit: []byte(`<w:tc>`), n: 2000000, suffix: []byte(docxTail)}
	return Bomb{Name: "docx-deep.docx", Limit: "XML depth", Format: "docx", Want: TooLarge, Inflated: r.size(),
		Data: buildZip(docxParts(entry{name: "word/document.xml", body: r.bytes(), store: true})),
		What: "2,000,000 nested w:tc elements, stored: the XML nesting depth"}
}

// docxAttributes: one paragraph element with 3,000,000 attributes in a
// stored document part (15 MB), which the XML decoder turns into one
// slice of 3M attributes.
func docxAttributes() Bomb {
	r := run{prefix: []byte(docxHead + `<w:p`), unit: []byte(` a=""`), n: 3000000, suffix: []byte(`/>` + docxHello + docxTail)}
	return Bomb{Name: "docx-attributes.docx", Limit: "XML token", Format: "docx", Want: TooLarge, Inflated: r.size(),
		Data: buildZip(docxParts(entry{name: "word/document.xml", body: r.bytes(), store: true})),
		What: "one element with 3,000,000 attributes (15 MB), stored: the size of one XML token"}
}

// docxNestedDeflated: a valid document carrying a nested ZIP whose one
// stored member is 512 MiB of zeros, deflated in the outer archive at
// 1030:1 (0.5 MB): an entry the reader never opens.
func docxNestedDeflated() Bomb {
	inner := run{unit: []byte{0}, n: 512 * mib}
	pre, suf := storedZip("zeros.bin", inner)
	outer := run{prefix: pre, unit: []byte{0}, n: inner.n, suffix: suf}
	return Bomb{Name: "docx-nested-deflated.docx", Format: "docx", Want: Harmless, Inflated: outer.size(),
		Data: buildZip(docxParts(entry{name: "word/document.xml", body: []byte(docxHead + docxHello + docxTail)}, entry{name: "word/embeddings/package.zip", bomb: &outer})),
		What: "an embedded ZIP of 512 MiB deflated at 1030:1: never opened"}
}

// docxNestedStored: a valid document carrying the DOCX paragraph bomb as a
// stored embedded package, which the reader never opens.
func docxNestedStored(bomb []byte) Bomb {
	return Bomb{Name: "docx-nested-stored.docx", Format: "docx", Want: Harmless,
		Data: buildZip(docxParts(entry{name: "word/document.xml", body: []byte(docxHead + docxHello + docxTail)}, entry{name: "word/embeddings/Microsoft_Word_Document.docx", body: bomb, store: true})),
		What: "a valid document embedding the paragraph bomb, stored: never opened"}
}
