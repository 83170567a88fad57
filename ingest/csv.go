package ingest

import (
	"bufio"
	"bytes"
	"encoding/csv"
	"errors"
	"fmt"
	"io"
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
	limit := &recLimitReader{r: br, left: MaxRecordSize}
	cr := csv.NewReader(limit)
	cr.Comma = delim
	cr.FieldsPerRecord = -1
	cr.LazyQuotes = true
	cr.ReuseRecord = true
	if !csvValidDelim(delim) {
		return nil, fmt.Errorf("csv: delimiter %q: %w", delim, ErrUnsupportedFormat)
	}
	c := &csvReader{r: cr, limit: limit}
	header, err := cr.Read()
	if err == io.EOF {
		c.done = true
		return c, nil
	}
	if err != nil {
		return nil, fmt.Errorf("csv: header: %w: %w", ErrCorrupt, err)
	}
	c.names = recHeaderNames(header)
	return c, nil
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
// row with fewer has null values for the missing cells.
func (c *csvReader) Next() (Record, error) {
	if c.done {
		return Record{}, io.EOF
	}
	c.limit.left = MaxRecordSize
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
			return Record{}, &RecordError{Index: idx, Err: fmt.Errorf("%w: %w", ErrCorrupt, err)}
		}
		c.done = true
		return Record{}, fmt.Errorf("csv: row %d: %w", idx, err)
	}
	c.index++
	if len(fields) > len(c.names) {
		line, _ := c.r.FieldPos(0)
		return Record{}, &RecordError{Index: idx, Err: fmt.Errorf("line %d: %d fields, header has %d: %w", line, len(fields), len(c.names), ErrCorrupt)}
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
