package ingest

import (
	"archive/zip"
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"mime"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// DetectSniffSize is how much of a file's beginning DetectFormat needs for
// content sniffing; a shorter head is fine for small files.
const DetectSniffSize = 64 << 10

// detectContentTypes maps media types to formats. Types absent here, and
// the generic ones in detectGeneric, fall through to the file name.
var detectContentTypes = map[string]Format{
	"text/plain":                FormatText,
	"text/markdown":             FormatText,
	"text/html":                 FormatHTML,
	"application/xhtml+xml":     FormatHTML,
	"application/pdf":           FormatPDF,
	"application/x-pdf":         FormatPDF,
	"application/json":          FormatJSON,
	"text/json":                 FormatJSON,
	"application/x-ndjson":      FormatJSONL,
	"application/ndjson":        FormatJSONL,
	"application/jsonl":         FormatJSONL,
	"application/x-jsonl":       FormatJSONL,
	"application/jsonlines":     FormatJSONL,
	"application/x-jsonlines":   FormatJSONL,
	"text/csv":                  FormatCSV,
	"application/csv":           FormatCSV,
	"text/x-csv":                FormatCSV,
	"text/tab-separated-values": FormatCSV,
	"application/vnd.openxmlformats-officedocument.wordprocessingml.document": FormatDOCX,
	"application/vnd.openxmlformats-officedocument.spreadsheetml.sheet":       FormatXLSX,
	"application/vnd.oasis.opendocument.spreadsheet":                          FormatODS,
}

// detectExtensions maps lower-case file name extensions to formats.
var detectExtensions = map[string]Format{
	".txt": FormatText, ".text": FormatText, ".md": FormatText,
	".html": FormatHTML, ".htm": FormatHTML, ".xhtml": FormatHTML,
	".pdf":  FormatPDF,
	".docx": FormatDOCX,
	".xlsx": FormatXLSX, ".xlsm": FormatXLSX,
	".ods":   FormatODS,
	".json":  FormatJSON,
	".jsonl": FormatJSONL, ".ndjson": FormatJSONL,
	".csv": FormatCSV, ".tsv": FormatCSV, ".tab": FormatCSV,
}

// DetectFormat returns the format of a file from its Content-Type (with or
// without parameters), else the extension of fileName, else the content of
// head, its first bytes (DetectSniffSize is enough; the whole file is
// better for small files).
//
// Generic or unknown media types (application/octet-stream,
// application/zip, application/vnd.ms-excel that Windows browsers send for
// CSV files, ...) fall through to the next step. Sniffing recognizes PDF,
// ZIP containers holding word/ (DOCX), xl/ (XLSX) or an ODS mimetype, JSON
// (a '{' or '[' value) against JSONL (several values one per line), HTML
// tags, delimited lines with a constant field count (CSV), and otherwise
// text. Binary content that is none of these, and ZIP files of another
// kind, give an error wrapping ErrUnsupportedFormat.
func DetectFormat(contentType, fileName string, head []byte) (Format, error) {
	if contentType != "" {
		mt, _, err := mime.ParseMediaType(contentType)
		if err != nil {
			mt, _, _ = strings.Cut(contentType, ";")
			mt = strings.ToLower(strings.TrimSpace(mt))
		}
		if f, ok := detectContentTypes[mt]; ok {
			return f, nil
		}
		if strings.HasSuffix(mt, "+json") {
			return FormatJSON, nil
		}
	}
	if ext := strings.ToLower(path.Ext(strings.ReplaceAll(fileName, `\`, "/"))); ext != "" {
		if f, ok := detectExtensions[ext]; ok {
			return f, nil
		}
	}
	return detectSniff(head)
}

// detectSniff guesses the format from the content alone.
func detectSniff(head []byte) (Format, error) {
	if i := bytes.Index(head, []byte("%PDF-")); i >= 0 && i < 1024 {
		return FormatPDF, nil
	}
	if bytes.HasPrefix(head, []byte("PK\x03\x04")) {
		return detectZip(head)
	}
	text, err := DecodeBytes(head, "")
	if err != nil || detectBinary(text) {
		return "", fmt.Errorf("detect format: binary content: %w", ErrUnsupportedFormat)
	}
	trimmed := strings.TrimLeftFunc(text, unicode.IsSpace)
	if trimmed == "" {
		return FormatText, nil
	}
	switch trimmed[0] {
	case '{', '[':
		if detectJSONLines(trimmed) {
			return FormatJSONL, nil
		}
		if trimmed[0] == '{' || json.Valid([]byte(trimmed)) || detectJSONPrefix(trimmed) {
			return FormatJSON, nil
		}
	}
	if detectHTML(trimmed) {
		return FormatHTML, nil
	}
	if detectDelimited(text) {
		return FormatCSV, nil
	}
	return FormatText, nil
}

// detectZip tells the OOXML and ODF containers apart by their entries:
// from the central directory when head is the whole file, else from the
// local headers of the first entries.
func detectZip(head []byte) (Format, error) {
	var names []string
	if zr, err := zip.NewReader(bytes.NewReader(head), int64(len(head))); err == nil {
		for _, f := range zr.File {
			names = append(names, f.Name)
		}
	}
	const odsMime = "mimetype" + "application/vnd.oasis.opendocument.spreadsheet"
	if len(head) > 30 && bytes.HasPrefix(head[30:], []byte(odsMime)) {
		return FormatODS, nil
	}
	has := func(prefix string) bool {
		for _, n := range names {
			if strings.HasPrefix(n, prefix) {
				return true
			}
		}
		return bytes.Contains(head, []byte(prefix))
	}
	switch {
	case has("word/"):
		return FormatDOCX, nil
	case has("xl/"):
		return FormatXLSX, nil
	}
	for _, n := range names {
		if n == "content.xml" && bytes.Contains(head, []byte("opendocument.spreadsheet")) {
			return FormatODS, nil
		}
	}
	return "", fmt.Errorf("detect format: zip archive of unknown kind: %w", ErrUnsupportedFormat)
}

// detectBinary reports text with NUL bytes or many control characters.
func detectBinary(text string) bool {
	ctrl, n := 0, 0
	for _, r := range text {
		n++
		switch {
		case r == 0:
			return true
		case r == utf8.RuneError:
			ctrl++
		case r < 0x20 && r != '\n' && r != '\r' && r != '\t' && r != '\f':
			ctrl++
		}
	}
	return n > 0 && ctrl*10 > n
}

// detectJSONLines reports whether text holds at least two lines that are
// each one complete JSON value (a last, possibly cut, line is ignored).
func detectJSONLines(text string) bool {
	lines := strings.Split(text, "\n")
	if len(lines) > 1 {
		lines = lines[:len(lines)-1] // possibly cut by the head size
	}
	good := 0
	for i, l := range lines {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		if !json.Valid([]byte(l)) {
			return false
		}
		good++
		if i >= 20 {
			break
		}
	}
	if good == 1 && len(lines) > 0 {
		// One complete line: a JSONL file cut after its first line has a
		// second line starting with a value too.
		rest := strings.TrimSpace(text[strings.Index(text, "\n")+1:])
		return rest != "" && (rest[0] == '{' || rest[0] == '[') && !json.Valid([]byte(strings.TrimSpace(text)))
	}
	return good >= 2
}

// detectJSONPrefix reports whether text is the beginning of a JSON array:
// after '[' comes an object, array, string, number, literal or ']'.
func detectJSONPrefix(text string) bool {
	rest := strings.TrimLeftFunc(text[1:], unicode.IsSpace)
	if rest == "" {
		return true
	}
	switch c := rest[0]; {
	case c == '{' || c == '[' || c == '"' || c == ']' || c == '-' || (c >= '0' && c <= '9'):
		return true
	case strings.HasPrefix(rest, "true") || strings.HasPrefix(rest, "false") || strings.HasPrefix(rest, "null"):
		return true
	}
	return false
}

// detectHTMLTags are markers of an HTML document, lower case.
var detectHTMLTags = []string{"<!doctype html", "<html", "<head", "<body", "<title", "<meta ", "<div", "<p>", "<p ", "<table", "<h1", "<h2", "<ul", "<br", "<span", "<a href"}

// detectHTML reports text that starts with markup and holds an HTML tag.
func detectHTML(text string) bool {
	if text[0] != '<' {
		return false
	}
	low := strings.ToLower(text[:min(len(text), 4096)])
	for _, t := range detectHTMLTags {
		if strings.Contains(low, t) {
			return true
		}
	}
	return false
}

// detectDelimited reports text whose first lines split, for one of the CSV
// delimiters, into the same number (at least two) of fields: at least a
// header and two rows, and every one of the first lines agreeing.
func detectDelimited(text string) bool {
	if i := strings.LastIndexByte(text, '\n'); i >= 0 && i < len(text)-1 {
		text = text[:i+1] // drop a possibly cut last line
	}
	for _, d := range csvDelimiters {
		cr := csv.NewReader(strings.NewReader(text))
		cr.Comma = d
		cr.FieldsPerRecord = -1
		cr.ReuseRecord = true
		fields, rows, ok := 0, 0, true
		for rows < csvSniffLines {
			rec, err := cr.Read()
			if err != nil {
				if err != io.EOF {
					ok = false
				}
				break
			}
			if rows == 0 {
				fields = len(rec)
			} else if len(rec) != fields {
				ok = false
				break
			}
			rows++
		}
		if ok && fields >= 2 && rows >= 3 {
			return true
		}
	}
	return false
}
