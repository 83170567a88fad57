package ingest

import (
	"errors"
	"fmt"
	"io"
	"strconv"
)

// ErrTooLarge reports input beyond a parser's documented size limit: a
// spreadsheet larger than MaxSpreadsheetSize, a JSON top-level object larger
// than MaxJSONObjectSize, or one CSV row, JSON array element or JSONL line
// longer than MaxRecordSize.
var ErrTooLarge = errors.New("input too large")

// Size limits of the record parsers. Streaming formats (CSV, JSONL, a JSON
// top-level array) use memory bounded by their largest record, not by the
// file size; the others hold the whole input.
const (
	// MaxSpreadsheetSize caps an XLSX or ODS file, which is read into
	// memory because ZIP needs random access.
	MaxSpreadsheetSize = 512 << 20
	// MaxJSONObjectSize caps a JSON file whose top level is an object: it is
	// buffered to decide between one record, an object of records and a
	// wrapper holding an array of records.
	MaxJSONObjectSize = 512 << 20
	// MaxRecordSize caps the bytes of one CSV row, JSON array element or
	// JSONL line, so that an unterminated quote or string cannot swallow
	// the rest of a file into one record. A longer JSONL line is a
	// *RecordError and skipped; a longer CSV row or JSON element stops the
	// reader with an error wrapping ErrTooLarge. The count includes the
	// parser's read-ahead, so the cap holds give or take a buffer.
	MaxRecordSize = 64 << 20
	// MaxRecordDepth caps the nesting depth of a JSON record.
	MaxRecordDepth = 512
	// MaxSheetColumns caps the columns read from a spreadsheet row (the
	// XLSX limit); cells beyond it are dropped.
	MaxSheetColumns = 16384
)

// NewRecordReader returns a reader of the records in r, which holds a file of
// record-oriented format f (FormatCSV, FormatJSON, FormatJSONL, FormatXLSX or
// FormatODS).
//
// CSV, JSON and JSONL are decoded to UTF-8 by DecodingReader (opts.Charset
// overrides detection) and streamed: memory is bounded by the largest
// record, not the file. XLSX and ODS are read fully, up to
// MaxSpreadsheetSize. The returned reader does not close r.
//
// CSV: the first row names the properties (a blank name becomes column_N,
// N the 1-based column; a repeated one gets _2, _3, ...). The delimiter is
// opts.Delimiter, else the one of , ; TAB | that splits the first rows into
// the most consistent field counts. Quoted fields may hold delimiters,
// doubled quotes and newlines. A row with more fields than the header is a
// *RecordError; missing trailing cells are null. Every cell is KindString
// except empty cells (KindNull) and cells in canonical number form
// (KindNumber, Str keeping the text): "-1.5e3" is a number, "004", "+420",
// "1,5" are strings. Record.Index counts data rows, bad rows included.
//
// JSON: a top-level array gives one record per element (a non-object
// element is a *RecordError), an object of objects one record per key
// (Record.Key), a wrapper object with exactly one array of objects its
// elements, any other object one record. Objects flatten to dotted names in
// file order; arrays give multi-valued properties; see jsonReader.
//
// JSONL: one object per line, flattened as in JSON; blank lines are skipped
// and Record.Index is the 0-based line number. A bad line is a *RecordError.
//
// XLSX and ODS: every sheet in order, Record.Sheet its name and
// Record.Index the data row within it. The header is the first non-empty
// row, unless that row has a single non-empty cell and the next non-empty
// row has more: the first is then a caption, dropped, and the next is the
// header. Empty rows and sheets are skipped; cells right of the header are
// named column_N. Numeric cells are KindNumber with the displayed text in
// Str, booleans KindBool, dates and times KindString (see xlsxReader and
// odsReader for the details of each format).
func NewRecordReader(f Format, r io.Reader, opts RecordOptions) (RecordReader, error) {
	switch f {
	case FormatCSV:
		return newCSVReader(r, opts)
	case FormatJSON:
		return newJSONReader(r, opts)
	case FormatJSONL:
		return newJSONLReader(r, opts)
	case FormatXLSX:
		return newXLSXReader(r)
	case FormatODS:
		return newODSReader(r)
	}
	return nil, fmt.Errorf("record reader for %q: %w", f, ErrUnsupportedFormat)
}

// recParseNumber reports whether s is a number in canonical form (the JSON
// number grammar: optional minus, no leading zeros except a lone 0 before the
// point, optional fraction and exponent) and returns its value. "004",
// "+420", "1,5", ".5" and out-of-range numbers are not numbers.
func recParseNumber(s string) (float64, bool) {
	i, n := 0, len(s)
	if i < n && s[i] == '-' {
		i++
	}
	switch {
	case i < n && s[i] == '0':
		i++
	case i < n && s[i] >= '1' && s[i] <= '9':
		i = skipDigits(s, i)
	default:
		return 0, false
	}
	if i < n && s[i] == '.' {
		start := i + 1
		if i = skipDigits(s, start); i == start {
			return 0, false
		}
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		if i < n && (s[i] == '+' || s[i] == '-') {
			i++
		}
		start := i
		if i = skipDigits(s, start); i == start {
			return 0, false
		}
	}
	if i != n {
		return 0, false
	}
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		return 0, false
	}
	return v, true
}

// skipDigits returns the index of the first byte of s at or after i that is
// not an ASCII digit.
func skipDigits(s string, i int) int {
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	return i
}

// recTextValue returns the Value of a text cell: null when empty, a number
// when s is in canonical number form, else a string.
func recTextValue(s string) Value {
	if s == "" {
		return Value{}
	}
	if v, ok := recParseNumber(s); ok {
		return Value{Kind: KindNumber, Str: s, Num: v}
	}
	return Value{Kind: KindString, Str: s}
}

// recColumnName names the 0-based column i whose header is blank.
func recColumnName(i int) string {
	return "column_" + strconv.Itoa(i+1)
}

// recHeaderNames returns unique property names for a header row: a blank
// name becomes column_N (N the 1-based column), a repeated name gets a
// suffix _2, _3, ... that no other column uses.
func recHeaderNames(header []string) []string {
	names := make([]string, len(header))
	used := make(map[string]bool, len(header))
	for i, h := range header {
		if h == "" {
			h = recColumnName(i)
		}
		names[i] = h
	}
	// Reserve the names as written first so that a suffixed duplicate never
	// steals a later column's own name.
	first := make(map[string]int, len(names))
	for i, n := range names {
		if _, ok := first[n]; !ok {
			first[n] = i
			used[n] = true
		}
	}
	for i, n := range names {
		if first[n] == i {
			continue
		}
		for k := 2; ; k++ {
			c := n + "_" + strconv.Itoa(k)
			if !used[c] {
				used[c] = true
				names[i] = c
				break
			}
		}
	}
	return names
}

// recLimitReader fails with ErrTooLarge once more than left bytes are
// read; the record readers refill left before every record.
type recLimitReader struct {
	r    io.Reader
	left int64
}

// Read implements io.Reader.
func (l *recLimitReader) Read(p []byte) (int, error) {
	if l.left <= 0 {
		return 0, fmt.Errorf("record over the size limit: %w", ErrTooLarge)
	}
	if int64(len(p)) > l.left {
		p = p[:l.left]
	}
	n, err := l.r.Read(p)
	l.left -= int64(n)
	return n, err
}

// recGrid is a spreadsheet seen as sheets of rows of cells; XLSX and ODS
// implement it and recTableReader turns it into records.
type recGrid interface {
	// nextSheet moves to the next sheet and returns its name, or io.EOF.
	nextSheet() (string, error)
	// nextRow returns the next row of the current sheet (cells by 0-based
	// column, nulls where empty, possibly with trailing nulls), or io.EOF
	// at the end of the sheet. The slice is valid until the next call.
	nextRow() ([]Value, error)
}

// recTableReader reads records from the sheets of a recGrid.
//
// The header of a sheet is its first non-empty row, except that when that
// row has a single non-empty cell and the next non-empty row has more, the
// first row is taken as a caption of the sheet and dropped, and the next is
// the header. Rows with no non-empty cell are skipped; sheets without data
// rows yield nothing. Cells beyond the header get names column_N.
type recTableReader struct {
	grid    recGrid
	sheet   string
	inSheet bool
	names   []string
	pending []Value // a data row read while looking for the header
	index   int
	done    bool
}

// recNonEmpty counts the non-null cells of row.
func recNonEmpty(row []Value) int {
	n := 0
	for _, v := range row {
		if v.Kind != KindNull {
			n++
		}
	}
	return n
}

// nextNonEmpty returns the next row of the sheet with a non-null cell, a
// copy the caller owns, or io.EOF.
func (t *recTableReader) nextNonEmpty() ([]Value, error) {
	for {
		row, err := t.grid.nextRow()
		if err != nil {
			return nil, err
		}
		if recNonEmpty(row) > 0 {
			return append([]Value(nil), row...), nil
		}
	}
}

// startSheet reads the header of the next sheet with data.
func (t *recTableReader) startSheet() error {
	for {
		name, err := t.grid.nextSheet()
		if err != nil {
			return err
		}
		first, err := t.nextNonEmpty()
		if err == io.EOF {
			continue
		}
		if err != nil {
			return err
		}
		header := first
		second, err := t.nextNonEmpty()
		if err != nil && err != io.EOF {
			return err
		}
		t.pending = nil
		if second != nil {
			if recNonEmpty(first) == 1 && recNonEmpty(second) > 1 {
				header = second
			} else {
				t.pending = second
			}
		}
		texts := make([]string, len(header))
		for i, v := range header {
			texts[i] = v.Str
		}
		for len(texts) > 0 && texts[len(texts)-1] == "" {
			texts = texts[:len(texts)-1]
		}
		t.names = recHeaderNames(texts)
		t.sheet, t.inSheet, t.index = name, true, 0
		return nil
	}
}

// Next implements RecordReader.
func (t *recTableReader) Next() (Record, error) {
	if t.done {
		return Record{}, io.EOF
	}
	for {
		if !t.inSheet {
			if err := t.startSheet(); err != nil {
				t.done = true
				return Record{}, err
			}
		}
		row := t.pending
		t.pending = nil
		if row == nil {
			var err error
			row, err = t.nextNonEmpty()
			if err == io.EOF {
				t.inSheet = false
				continue
			}
			if err != nil {
				t.done = true
				return Record{}, err
			}
		}
		rec := Record{Index: t.index, Sheet: t.sheet, Props: t.props(row)}
		t.index++
		return rec, nil
	}
}

// props turns a data row into properties named by the header.
func (t *recTableReader) props(row []Value) []Property {
	n := len(t.names)
	props := make([]Property, 0, max(n, len(row)))
	vals := make([]Value, n)
	copy(vals, row)
	for i, name := range t.names {
		props = append(props, Property{Name: name, Values: vals[i : i+1 : i+1]})
	}
	for i := n; i < len(row); i++ {
		if row[i].Kind == KindNull {
			continue
		}
		props = append(props, Property{Name: recColumnName(i), Values: []Value{row[i]}})
	}
	return props
}
