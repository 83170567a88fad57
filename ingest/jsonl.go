package ingest

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
)

// jsonlReader reads JSON Lines: one JSON object per line, flattened as
// jsonReader flattens records. Blank lines are skipped. A line that is not
// one JSON object, or is longer than MaxRecordSize, is reported as a
// *RecordError and the reader goes on with the next line. Record.Index and
// RecordError.Index are 0-based line numbers, so they point into the file
// even when blank lines are skipped.
type jsonlReader struct {
	br   *bufio.Reader
	line int
	buf  []byte
	done bool
}

// newJSONLReader decodes r.
func newJSONLReader(r io.Reader, opts RecordOptions) (*jsonlReader, error) {
	dr, err := DecodingReader(r, opts.Charset)
	if err != nil {
		return nil, fmt.Errorf("jsonl: %w", err)
	}
	return &jsonlReader{br: bufio.NewReaderSize(dr, 64<<10)}, nil
}

// errJSONLLong reports a line over MaxRecordSize.
var errJSONLLong = fmt.Errorf("line longer than %d bytes: %w", MaxRecordSize, ErrTooLarge)

// readLine returns the next line without its end, or an error; a line over
// MaxRecordSize is consumed and reported by errJSONLLong.
func (j *jsonlReader) readLine() ([]byte, error) {
	j.buf = j.buf[:0]
	long := false
	for {
		frag, err := j.br.ReadSlice('\n')
		if !long {
			if len(j.buf)+len(frag) > MaxRecordSize {
				long, j.buf = true, j.buf[:0]
			} else {
				j.buf = append(j.buf, frag...)
			}
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == io.EOF && (len(j.buf) > 0 || long) {
			err = nil
		}
		if err != nil {
			return nil, err
		}
		if long {
			return nil, errJSONLLong
		}
		return j.buf, nil
	}
}

// Next implements RecordReader.
func (j *jsonlReader) Next() (Record, error) {
	for !j.done {
		line, err := j.readLine()
		idx := j.line
		if err == io.EOF {
			j.done = true
			break
		}
		j.line++
		if errors.Is(err, ErrTooLarge) {
			return Record{}, &RecordError{Index: idx, Err: err}
		}
		if err != nil {
			j.done = true
			return Record{}, fmt.Errorf("jsonl: line %d: %w", idx+1, err)
		}
		line = bytes.TrimSpace(line)
		if len(line) == 0 {
			continue
		}
		props, err := jsonlRecord(line)
		if err != nil {
			return Record{}, &RecordError{Index: idx, Err: fmt.Errorf("line %d: %w", idx+1, err)}
		}
		return Record{Index: idx, Props: props}, nil
	}
	return Record{}, io.EOF
}

// jsonlRecord parses one line holding one JSON object.
func jsonlRecord(line []byte) ([]Property, error) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	props, err := jsonRecord(dec)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("data after the object: %w", ErrCorrupt)
	}
	return props, nil
}
