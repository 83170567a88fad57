package ingest

import (
	"errors"
	"fmt"
	"io"

	"github.com/najdi/najdi/api"
)

// Errors returned by the parsers. Callers test them with errors.Is.
var (
	// ErrUnsupportedFormat reports a format name or content that najdi cannot ingest.
	ErrUnsupportedFormat = errors.New("unsupported format")
	// ErrCorrupt reports a file that claims a format but cannot be parsed as it.
	ErrCorrupt = errors.New("corrupt file")
)

// Format names an ingestible file format.
type Format string

// The formats najdi ingests.
const (
	FormatText  Format = "text"
	FormatHTML  Format = "html"
	FormatDOCX  Format = "docx"
	FormatPDF   Format = "pdf"
	FormatJSON  Format = "json"
	FormatJSONL Format = "jsonl"
	FormatCSV   Format = "csv"
	FormatXLSX  Format = "xlsx"
	FormatODS   Format = "ods"
)

// Formats lists every supported format in a stable order.
var Formats = []Format{FormatText, FormatHTML, FormatDOCX, FormatPDF, FormatJSON, FormatJSONL, FormatCSV, FormatXLSX, FormatODS}

// ParseFormat returns the Format named s, or an error wrapping ErrUnsupportedFormat.
func ParseFormat(s string) (Format, error) {
	switch s {
	case "txt", "plain":
		return FormatText, nil
	case "htm":
		return FormatHTML, nil
	case "ndjson":
		return FormatJSONL, nil
	}
	for _, f := range Formats {
		if string(f) == s {
			return f, nil
		}
	}
	return "", fmt.Errorf("%w: %q (supported: text, html, docx, pdf, json, jsonl, csv, xlsx, ods)", ErrUnsupportedFormat, s)
}

// RecordOriented reports whether f yields one record per row/line/element
// rather than a single document.
func (f Format) RecordOriented() bool {
	switch f {
	case FormatJSON, FormatJSONL, FormatCSV, FormatXLSX, FormatODS:
		return true
	}
	return false
}

// Section is one block of a document's text in reading order (package
// api): a title, heading (h1..h6), paragraph (p), list item (li), table,
// caption, ... For records, Type is the property name and Content its text.
type Section = api.Section

// Document is the result of parsing a document-oriented file.
type Document struct {
	// Title is the document title when the format declares one (HTML
	// <title>, DOCX core properties, PDF info); it is also the first
	// section when it is not already part of the flow.
	Title string
	// Sections follow the flow of the document. Empty sections are dropped.
	Sections []Section
}

// ValueKind says which field of a Value holds the data.
type ValueKind uint8

// The kinds of record values.
const (
	KindNull ValueKind = iota
	KindString
	KindNumber
	KindBool
)

// Value is one scalar value of a record property. Str always holds the
// value's text as it should appear in a section ("" for null); Num holds
// the number for KindNumber and Bool the truth value for KindBool.
type Value struct {
	Kind ValueKind
	Str  string
	Num  float64
	Bool bool
}

// Property is one named property of a record. Values has several elements
// for JSON arrays of scalars; nested objects are flattened into properties
// with dotted names ("name.common").
type Property struct {
	Name   string
	Values []Value
}

// Record is one row, line or array element of a record-oriented file.
type Record struct {
	// Index is the 0-based position of the record in the file (data rows
	// only for CSV and spreadsheets; per sheet for spreadsheets).
	Index int
	// Sheet is the sheet name for spreadsheets, "" otherwise.
	Sheet string
	// Key is the object key when the file is a JSON object of records.
	Key string
	// Props keep the original column or property order.
	Props []Property
}

// RecordReader streams the records of a file.
//
// Next returns the next record, io.EOF at the end, a *RecordError for one bad
// record (the reader stays usable: call Next again), or any other error when
// the file cannot be read further.
type RecordReader interface {
	Next() (Record, error)
}

// RecordError reports one record that could not be parsed.
type RecordError struct {
	Index int // 0-based record position, as Record.Index
	Sheet string
	Err   error
}

// Error implements error.
func (e *RecordError) Error() string {
	if e.Sheet != "" {
		return fmt.Sprintf("sheet %q record %d: %v", e.Sheet, e.Index, e.Err)
	}
	return fmt.Sprintf("record %d: %v", e.Index, e.Err)
}

// Unwrap returns the underlying error.
func (e *RecordError) Unwrap() error { return e.Err }

// RecordOptions tune record parsing.
type RecordOptions struct {
	// Delimiter is the CSV delimiter; 0 sniffs it from , ; \t and |.
	Delimiter rune
	// Charset overrides encoding detection for text formats (CSV, JSON,
	// JSONL), e.g. "windows-1250"; "" detects.
	Charset string
}

var _ = io.EOF
