package ingest

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"
)

// csvSniffSize is how much of the decoded input the delimiter sniffer reads.
const csvSniffSize = 64 << 10

// csvSniffLines is how many records the delimiter sniffer compares.
const csvSniffLines = 20

// csvDelimiters are the candidates of delimiter sniffing, preferred in order.
var csvDelimiters = []rune{',', ';', '\t', '|'}

// csvReader reads CSV records: the first row is the header, every further
// row is a record. See NewRecordReader.
type csvReader struct {
	r     *csv.Reader
	limit *recLimitReader
	tee   *csvTee
	delim rune
	// lines counts the input lines before r's first line: r starts again
	// after a row whose quote is never closed.
	lines int
	names []string
	index int
	done  bool
}

// newCSVReader decodes r, sniffs the delimiter unless opts sets one, and
// reads the header row.
func newCSVReader(r io.Reader, opts RecordOptions) (*csvReader, error) {
	dr, err := DecodingReader(r, opts.Charset)
	if err != nil {
		return nil, fmt.Errorf("csv: %w", err)
	}
	br := bufio.NewReaderSize(dr, csvSniffSize)
	delim := opts.Delimiter
	if delim == 0 {
		head, err := br.Peek(csvSniffSize)
		if err != nil && err != io.EOF && err != bufio.ErrBufferFull {
			return nil, fmt.Errorf("csv: sniff delimiter: %w", err)
		}
		delim = csvSniffDelimiter(head, err == io.EOF)
	}
	if !csvValidDelim(delim) {
		return nil, fmt.Errorf("csv: delimiter %q: %w", delim, ErrUnsupportedFormat)
	}
	limit := &recLimitReader{r: br, left: MaxRecordSize}
	c := &csvReader{limit: limit, delim: delim}
	c.restart(limit)
	header, err := c.r.Read()
	if err == io.EOF {
		c.done = true
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("csv: header: %w: %w", ErrCorrupt, err)
	}
	if _, _, err, ok := c.runaway(header, 0); ok {
		return nil, fmt.Errorf("csv: header: %w", err)
	}
	c.names = recHeaderNames(header)
	return c, nil
}

// restart makes c read CSV from src, a continuation of the input.
func (c *csvReader) restart(src io.Reader) {
	c.tee = &csvTee{r: src}
	c.r = csv.NewReader(c.tee)
	c.r.Comma = c.delim
	c.r.FieldsPerRecord = -1
	c.r.LazyQuotes = true
	c.r.ReuseRecord = true
}

// csvTee passes reads through and keeps the bytes read from offset keep
// on, so that the record being parsed can be read again raw.
type csvTee struct {
	r    io.Reader
	buf  []byte
	base int64 // input offset of buf[0]
	keep int64 // bytes before this input offset may be dropped
	eof  bool  // r reported io.EOF
}

// Read implements io.Reader.
func (t *csvTee) Read(p []byte) (int, error) {
	if dead := int(t.keep - t.base); dead > 0 && dead >= len(t.buf)/2 {
		t.buf = t.buf[:copy(t.buf, t.buf[dead:])]
		t.base = t.keep
	}
	n, err := t.r.Read(p)
	t.buf = append(t.buf, p[:n]...)
	if err == io.EOF {
		t.eof = true
	}
	return n, err
}

// drained reports whether the input ends at offset end.
func (t *csvTee) drained(end int64) bool { return t.eof && end == t.base+int64(len(t.buf)) }

// runaway checks the multi-line quoted fields of the record just read,
// which starts at offset start of the current csv.Reader's input. With lazy
// quotes encoding/csv reads a quoted field that is never closed up to the
// end of the input, and one holding a stray quote ("a"b) on to the next
// quote that a delimiter or a line break follows: either can swallow the
// rows below it. runaway reports such a field and the input line after the
// quote that broke it, where reading should go on: at offset next, after
// the input's first lines lines. ok is false when the record is sound.
func (c *csvReader) runaway(fields []string, start int64) (next int64, lines int, err error, ok bool) {
	var raw []byte
	off0, first := 0, 0
	for i, f := range fields {
		if strings.IndexByte(f, '\n') < 0 {
			continue // only a quoted field holds a line break
		}
		end := c.r.InputOffset()
		if raw == nil {
			raw = c.tee.buf[start-c.tee.base : end-c.tee.base]
			// The record starts after the empty lines encoding/csv skips,
			// on the line of its first field.
			for {
				if bytes.HasPrefix(raw[off0:], []byte("\n")) {
					off0++
				} else if bytes.HasPrefix(raw[off0:], []byte("\r\n")) {
					off0 += 2
				} else {
					break
				}
			}
			first, _ = c.r.FieldPos(0)
		}
		qline, qcol := c.r.FieldPos(i)
		q := off0
		for l := first; l < qline && q >= 0; l++ {
			if j := bytes.IndexByte(raw[q:], '\n'); j >= 0 {
				q += j + 1
			} else {
				q = -1
			}
		}
		if q < 0 || q+qcol-1 >= len(raw) || raw[q+qcol-1] != '"' {
			continue
		}
		q += qcol - 1
		closed, stray := csvScanQuoted(raw[q+1:], c.delim)
		at := q // reading goes on after the line of at
		switch {
		case closed < 0 && c.tee.drained(end):
			err = fmt.Errorf("the quoted field that starts at column %d is never closed", qcol)
		case closed >= 0 && stray >= 0 && bytes.IndexByte(raw[q+1+stray:q+1+closed], '\n') >= 0:
			at = q + 1 + stray
			sline := qline + bytes.Count(raw[q:at], []byte("\n"))
			scol := at - bytes.LastIndexByte(raw[:at], '\n')
			err = fmt.Errorf("the quoted field that starts at column %d holds a stray quote at line %d, column %d and runs on over the next lines (a quote inside a quoted field is written twice)", qcol, c.lines+sline, scol)
		default:
			continue
		}
		j := bytes.IndexByte(raw[at:], '\n')
		if j < 0 || len(bytes.Trim(raw[at+j:], "\r\n")) == 0 {
			continue // no line after it: nothing was swallowed
		}
		lines = c.lines + qline + bytes.Count(raw[q:at], []byte("\n"))
		return start + int64(at+j+1), lines, fmt.Errorf("line %d: %w: %w", c.lines+qline, err, ErrCorrupt), true
	}
	return 0, 0, nil, false
}

// csvScanQuoted scans the content of a quoted field, rest starting after
// its opening quote, by the rules of encoding/csv with lazy quotes: a quote
// closes the field when a delimiter, a line break or the end of the input
// follows it; two quotes are a literal quote; any other quote is a stray
// one, kept literally. It returns the offsets in rest of the closing quote
// and of the first stray quote, -1 when there is none.
func csvScanQuoted(rest []byte, delim rune) (closed, stray int) {
	var d [utf8.UTFMax]byte
	dl := utf8.EncodeRune(d[:], delim)
	stray = -1
	for i := 0; i < len(rest); i++ {
		if rest[i] != '"' {
			continue
		}
		after := rest[i+1:]
		switch {
		case len(after) > 0 && after[0] == '"':
			i++
		case len(after) == 0, after[0] == '\n', bytes.Equal(after, []byte("\r")), bytes.HasPrefix(after, []byte("\r\n")), bytes.HasPrefix(after, d[:dl]):
			return i, stray
		case stray < 0:
			stray = i
		}
	}
	return -1, stray
}

// csvValidDelim reports whether encoding/csv accepts d as a delimiter.
func csvValidDelim(d rune) bool {
	return d != 0 && d != '"' && d != '\r' && d != '\n' && d != 0xFFFD && d < 0x110000
}

// csvSniffDelimiter picks the candidate delimiter that splits the first
// records of head into the same number (above one) of fields most often,
// respecting quotes. complete says head is the whole input; otherwise its
// last, possibly cut, record is ignored. It returns ',' when nothing fits.
func csvSniffDelimiter(head []byte, complete bool) rune {
	if !complete {
		if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
			head = head[:i+1]
		}
	}
	best, bestScore, bestFields := ',', 0, 0
	for _, d := range csvDelimiters {
		cr := csv.NewReader(bytes.NewReader(head))
		cr.Comma = d
		cr.FieldsPerRecord = -1
		cr.LazyQuotes = true
		cr.ReuseRecord = true
		fields, score := 0, 0
		for line := 0; line < csvSniffLines; line++ {
			rec, err := cr.Read()
			if err != nil {
				break
			}
			if line == 0 {
				fields = len(rec)
				continue
			}
			if len(rec) == fields {
				score++
			}
		}
		if fields < 2 {
			continue
		}
		if score == 0 {
			score = 1 // a header alone still counts, below any agreeing data
			if bestScore > 1 {
				continue
			}
		} else {
			score++
		}
		if score > bestScore || (score == bestScore && fields > bestFields) {
			best, bestScore, bestFields = d, score, fields
		}
	}
	return best
}

// Next implements RecordReader. Index counts data rows, bad ones included.
// A row with more fields than the header is returned as a *RecordError; a
// row with fewer has null values for the missing cells. A row with a quoted
// field that is never closed is a *RecordError too, and reading goes on
// with the line after the quote's.
func (c *csvReader) Next() (Record, error) {
	if c.done {
		return Record{}, io.EOF
	}
	c.limit.left = MaxRecordSize
	start := c.r.InputOffset()
	c.tee.keep = start
	fields, err := c.r.Read()
	if err == io.EOF {
		c.done = true
		return Record{}, io.EOF
	}
	idx := c.index
	if err != nil {
		var pe *csv.ParseError
		if errors.As(err, &pe) {
			c.index++
			pe.StartLine += c.lines
			pe.Line += c.lines
			return Record{}, &RecordError{Index: idx, Err: fmt.Errorf("%w: %w", ErrCorrupt, err)}
		}
		c.done = true
		return Record{}, fmt.Errorf("csv: row %d: %w", idx, err)
	}
	c.index++
	if next, lines, err, ok := c.runaway(fields, start); ok {
		// Parse again what the field swallowed, from the line after the
		// quote that broke it on.
		rest := append([]byte(nil), c.tee.buf[next-c.tee.base:]...)
		c.lines = lines
		c.restart(io.MultiReader(bytes.NewReader(rest), c.tee.r))
		return Record{}, &RecordError{Index: idx, Err: err}
	}
	if len(fields) > len(c.names) {
		line, _ := c.r.FieldPos(0)
		return Record{}, &RecordError{Index: idx, Err: fmt.Errorf("line %d: %d fields, header has %d: %w", c.lines+line, len(fields), len(c.names), ErrCorrupt)}
	}
	vals := make([]Value, len(c.names))
	props := make([]Property, len(c.names))
	for i, f := range fields {
		vals[i] = recTextValue(f)
	}
	for i, name := range c.names {
		props[i] = Property{Name: name, Values: vals[i : i+1 : i+1]}
	}
	return Record{Index: idx, Props: props}, nil
}
