package ingest

import (
	"bytes"
	"fmt"
	"io"
	"strconv"
	"strings"
	"unicode"

	"github.com/xuri/excelize/v2"
)

// xlsxUnzipLimit caps the decompressed size of an XLSX file; everything is
// kept in memory so that no temporary file outlives the reader.
const xlsxUnzipLimit = 1 << 30

// xlsxGrid streams the sheets of an XLSX workbook with excelize's Rows.
//
// Each sheet is read by two row iterators in step: one gives the displayed
// text (number formats applied), the other the stored value. A cell is a
// number (KindNumber, Num from the stored value, Str the displayed text)
// when its stored value is in canonical number form and its displayed text
// still reads as a number once currency signs, percent signs, spaces and
// thousands separators are removed ("1,234.50", "10%", "$3"); a stored
// number displayed as a date or time ("01-01-60", "12:30") is KindString
// with the displayed text; TRUE/FALSE cells are KindBool; any other cell is
// KindString, and empty cells are null. Like CSV, a text cell holding a
// canonical number ("42") is typed as a number.
type xlsxGrid struct {
	f          *excelize.File
	sheets     []string
	next       int
	shown, raw *excelize.Rows
	row        []Value
}

// newXLSXReader reads the whole XLSX file (up to MaxSpreadsheetSize).
func newXLSXReader(r io.Reader) (rr RecordReader, err error) {
	data, err := recReadAll(r, "xlsx")
	if err != nil {
		return nil, err
	}
	defer xlsxRecover(&err)
	f, err := excelize.OpenReader(bytes.NewReader(data), excelize.Options{
		UnzipSizeLimit:    xlsxUnzipLimit,
		UnzipXMLSizeLimit: xlsxUnzipLimit,
	})
	if err != nil {
		return nil, fmt.Errorf("xlsx: %w: %w", ErrCorrupt, err)
	}
	sheets := f.GetSheetList()
	if len(sheets) == 0 {
		_ = f.Close()
		return nil, fmt.Errorf("xlsx: no worksheets: %w", ErrCorrupt)
	}
	return &recTableReader{grid: &xlsxGrid{f: f, sheets: sheets}}, nil
}

// xlsxRecover turns a panic inside excelize on a malformed file into an
// error wrapping ErrCorrupt.
func xlsxRecover(err *error) {
	if p := recover(); p != nil {
		*err = fmt.Errorf("xlsx: %w: %v", ErrCorrupt, p)
	}
}

// closeRows closes the iterators of the current sheet.
func (x *xlsxGrid) closeRows() {
	if x.shown != nil {
		_ = x.shown.Close()
		_ = x.raw.Close()
		x.shown, x.raw = nil, nil
	}
}

// nextSheet implements recGrid.
func (x *xlsxGrid) nextSheet() (name string, err error) {
	defer xlsxRecover(&err)
	x.closeRows()
	if x.next >= len(x.sheets) {
		if x.f != nil {
			_ = x.f.Close()
			x.f = nil
		}
		return "", io.EOF
	}
	name = x.sheets[x.next]
	x.next++
	if x.shown, err = x.f.Rows(name); err != nil {
		x.shown = nil
		return "", fmt.Errorf("xlsx: sheet %q: %w: %w", name, ErrCorrupt, err)
	}
	if x.raw, err = x.f.Rows(name); err != nil {
		_ = x.shown.Close()
		x.shown = nil
		return "", fmt.Errorf("xlsx: sheet %q: %w: %w", name, ErrCorrupt, err)
	}
	return name, nil
}

// nextRow implements recGrid.
func (x *xlsxGrid) nextRow() (row []Value, err error) {
	defer xlsxRecover(&err)
	if x.shown == nil {
		return nil, io.EOF
	}
	if !x.shown.Next() {
		if err := x.shown.Error(); err != nil {
			return nil, fmt.Errorf("xlsx: %w: %w", ErrCorrupt, err)
		}
		return nil, io.EOF
	}
	x.raw.Next()
	shown, err := x.shown.Columns()
	if err != nil {
		return nil, fmt.Errorf("xlsx: %w: %w", ErrCorrupt, err)
	}
	raw, err := x.raw.Columns(excelize.Options{RawCellValue: true})
	if err != nil {
		return nil, fmt.Errorf("xlsx: %w: %w", ErrCorrupt, err)
	}
	n := min(max(len(shown), len(raw)), MaxSheetColumns)
	x.row = x.row[:0]
	for i := range n {
		var s, r string
		if i < len(shown) {
			s = shown[i]
		}
		if i < len(raw) {
			r = raw[i]
		}
		x.row = append(x.row, xlsxValue(r, s))
	}
	return x.row, nil
}

// xlsxValue types a cell from its stored and displayed text.
func xlsxValue(raw, shown string) Value {
	if shown == "" {
		shown = raw
	}
	if shown == "" {
		return Value{}
	}
	switch {
	case shown == "TRUE" && raw == "1":
		return Value{Kind: KindBool, Str: shown, Bool: true}
	case shown == "FALSE" && raw == "0":
		return Value{Kind: KindBool, Str: shown}
	}
	if num, ok := recParseNumber(raw); ok && (shown == raw || xlsxLooksNumeric(shown)) {
		return Value{Kind: KindNumber, Str: shown, Num: num}
	}
	return Value{Kind: KindString, Str: shown}
}

// xlsxLooksNumeric reports whether a displayed value reads as a number once
// spaces, thousands separators, currency and percent signs and accounting
// parentheses are removed.
func xlsxLooksNumeric(s string) bool {
	clean := strings.Map(func(r rune) rune {
		switch {
		case r == ',' || r == '%' || r == '(' || r == ')' || r == '+':
			return -1
		case unicode.IsSpace(r) || unicode.Is(unicode.Sc, r):
			return -1
		}
		return r
	}, s)
	if clean == "" {
		return false
	}
	_, err := strconv.ParseFloat(clean, 64)
	return err == nil
}
