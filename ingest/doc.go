// Package ingest turns uploaded files into najdi documents and records.
//
// Document-oriented formats (plain text, HTML, DOCX, PDF) become one
// Document whose Sections follow the flow of the file. Record-oriented
// formats (JSON, JSONL, CSV, XLSX, ODS) are read as a stream of Records, one
// per row, line or array element, whose Props keep the original column or
// property order. Parsers never panic on bad input: a corrupt file returns an
// error wrapping ErrCorrupt; a single bad record is reported by a
// *RecordError from RecordReader.Next while the reader goes on.
//
// # Why
//
// Search quality starts at ingestion: a heading that is lost, two columns
// read across, a hyphen left in "com- piled" or a page of mojibake from a
// broken PDF font all end up in the index and in the passages users see.
// The document parsers therefore keep structure (section types title,
// subtitle, h1..h6, p, li, table, caption, quote, pre, footnote) and drop
// what is not text of the document (navigation, scripts, running headers,
// undecodable glyphs) rather than guessing.
//
// # Charsets
//
// DecodeBytes and DecodingReader turn bytes into UTF-8. A byte order mark
// wins, then a declared charset label (Content-Type, <meta>), then
// detection: BOM-less UTF-16 by its zero bytes, valid UTF-8, and otherwise
// a Czech-aware choice between windows-1250, ISO-8859-2 and windows-1252.
// Each candidate decodes the non-ASCII bytes and is scored: frequent
// letters of its languages (Czech/Slovak á č ď é ě í ň ó ř š ť ú ů ý ž for
// the Central European charsets; é è à ç ü ö ä ß ñ for windows-1252) score
// 4, rarer ones (Polish, Hungarian; Nordic) 2, other letters 1, symbols 0
// and C1 controls or undefined bytes -20; the best score wins and ties go
// to windows-1250. Czech in windows-1250 versus ISO-8859-2 differs in
// š ś ť ź Š Ś Ť Ź (0x9A/0x9C/0x9D/0x9F... versus 0xB9/0xB6/0xBB/0xBC...),
// which decode to controls or rare letters under the wrong charset.
//
// # Plain text
//
// ParseText splits on blank lines; lines of a block are joined with
// spaces, except list items (lines starting with -, *, •, "1.", "a)"),
// which become li sections, and Markdown headings (# and setext). A first
// short single-line block without final punctuation becomes the title.
//
// # HTML
//
// ParseHTML decodes, parses with golang.org/x/net/html (which rejects
// trees nested deeper than 512 elements: such pages return ErrCorrupt) and
// walks the tree once. Block elements start sections, inline elements join
// the current block, loose text inside containers becomes p. Data tables
// yield one section per row ("Header: cell | Header: cell" when the first
// row holds <th> headers); layout tables are read like divs. Site chrome
// is dropped by element (nav, aside, header/footer outside article),
// ARIA role, hidden state, and well-known ids and classes (MediaWiki's
// toc, edit links, navboxes and [1] reference markers).
//
// # DOCX
//
// ParseDOCX streams word/document.xml with encoding/xml and keeps a stack
// of open paragraphs, tables, rows and cells. Paragraph types come from
// styles (resolved through styles.xml to their built-in English names, so
// localized style ids work), outline levels and numbering. Sections that
// complete inside an open paragraph or row (text boxes, nested tables) are
// deferred until it is emitted, so the flow stays in document order.
// Footnotes and endnotes follow the body. Parts are inflated through a
// 256 MiB limit.
//
// # PDF
//
// ParsePDF uses github.com/ledongthuc/pdf only to read the object graph
// and tokenize content streams; text extraction is ours:
//
//  1. A content interpreter tracks the graphics and text state (cm, q/Q,
//     Tm/Td/T*, Tc/Tw/Tz/TL/Ts, Tj/TJ/'/", form XObjects) and records each
//     glyph's position, advance width (from /Widths or the CIDFont /W
//     array) and size. Text comes from the font's ToUnicode CMap (parsed
//     by our own lexer), else from its encoding (standard encodings and
//     /Differences glyph names). Composite fonts without ToUnicode,
//     .notdef and unknown glyph names ("g31") have no text; a font whose
//     glyphs on a page are more than 30% unmappable is dropped entirely
//     there, so broken fonts never produce mojibake. Rotated glyphs are
//     skipped.
//  2. Glyphs in content order become fragments, cut at baseline changes
//     and gaps over 1.6 em; a gap over 0.15 em inside a fragment is a
//     space. Spacing accents drawn over a letter (TeX's "¨" + "ı") are
//     composed (NFC) into "ï". Fragments on one baseline (superscripts
//     included) form rows, split again at gaps over 1.6 em.
//  3. Reading order: lines wider than 60% of the text width cut the page
//     into bands; in each band the column gutter is the longest x range in
//     the middle half of the page that (almost) no column-sized line
//     crosses, with at least four lines on each side. The left column is
//     read before the right; centred lines crossing the gutter cut the
//     band again.
//  4. Running headers and footers (lines in the top or bottom 9% of the
//     page whose text, digits ignored, recurs on half the pages) and bare
//     page numbers are dropped. Small-font lines at the end of a column
//     (footnotes, copyright notices) become footnote sections emitted
//     after the paragraph they interrupt.
//  5. Lines become paragraphs; a paragraph ends at a font size change, a
//     gap over 1.45 times the usual line spacing, a first-line indent, a
//     short line ending a sentence, consecutive short lines, or a bullet.
//     Across a column or page break it runs on when it did not end a
//     sentence and the next block starts in lower case. A line-end hyphen
//     between letters is removed when the next line starts in lower case.
//     Rows of two or more same-baseline cells on consecutive lines are
//     table sections ("cell | cell").
//  6. Paragraphs of at most three lines set at least 12% larger than the
//     body size (the size carrying the most characters) are headings,
//     ranked by size: the largest on page 1 is the title when it is at
//     least 1.3 times the body size, the next sizes are h1, h2, and h3 for
//     the rest; short bold lines at body size are the next level.
//
// Broken files are recovered the way pdfminer, pypdf and PDFBox do: when
// the library cannot open a file, a cross-reference entry does not point
// to its object, or a stream's /Length does not end at endstream, one
// linear scan finds every "N G obj" header and trailer; the last
// definition of each object wins, object streams are read, the catalog is
// the last trailer's /Root or /Type /Catalog object, and a truncated file
// with neither gets a page tree of its /Type /Page objects in file order.
// The file is then opened with corrected copies of broken streams and a
// new cross-reference stream appended (pdf_repair.go).
//
// Work is bounded: 20M content operators and 5M glyphs per document,
// 64 MiB per decompressed content stream, form nesting 8, page tree depth
// 64, 2^21 object numbers, 64 MiB of object streams read by recovery;
// panics in the library are recovered (a failing page is skipped, a file
// that cannot be opened is ErrCorrupt).
package ingest
