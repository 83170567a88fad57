package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// jsonReader reads the records of a JSON file.
//
// The shape of the top level decides what a record is:
//   - an array: each element is a record, streamed one at a time; an element
//     that is not an object is reported as a *RecordError;
//   - an object whose values are all objects: one record per key, with
//     Record.Key set to the key;
//   - an object with exactly one property holding a non-empty array of
//     objects (a wrapper such as {"data": [...], "total": 3}): the elements
//     of that array; the other properties are ignored;
//   - an empty object: no record;
//   - any other object: one record.
//
// A top-level object is buffered whole (up to MaxJSONObjectSize) to tell
// these cases apart; a streamed array element may hold MaxRecordSize bytes.
//
// A record object is flattened into properties in the order of the file:
// nested objects give dotted names ("name.native.nld.official"); an array of
// scalars gives one property with several values; the elements of an array
// of objects are flattened under the same dotted prefix and their values
// merged, so [{"a":1},{"a":2}] under "x" gives x.a = [1, 2]. A key seen
// twice merges its values into the first property. Empty arrays and empty
// objects give no property; null gives one null value. Numbers keep their
// text in Value.Str.
type jsonReader struct {
	dec   *json.Decoder
	limit *recLimitReader
	index int
	// records buffered from a top-level object; keys parallel them when
	// the object is an object of records.
	raws []json.RawMessage
	keys []string
	// streaming is set while dec sits inside a top-level array.
	streaming bool
	done      bool
}

// errJSONNotObject reports a record that is not a JSON object.
var errJSONNotObject = errors.New("record is not a JSON object")

// newJSONReader decodes r and reads the start of its top-level value.
func newJSONReader(r io.Reader, opts RecordOptions) (*jsonReader, error) {
	dr, err := DecodingReader(r, opts.Charset)
	if err != nil {
		return nil, fmt.Errorf("json: %w", err)
	}
	limit := &recLimitReader{r: dr, left: MaxJSONObjectSize}
	dec := json.NewDecoder(limit)
	dec.UseNumber()
	tok, err := dec.Token()
	if err == io.EOF {
		return &jsonReader{done: true}, nil
	}
	if err != nil {
		return nil, fmt.Errorf("json: %w: %w", ErrCorrupt, err)
	}
	j := &jsonReader{dec: dec, limit: limit}
	switch tok {
	case json.Delim('['):
		j.streaming = true
		return j, nil
	case json.Delim('{'):
		if err := j.bufferObject(); err != nil {
			return nil, err
		}
		return j, nil
	}
	return nil, fmt.Errorf("json: top level is %T, want an array or object: %w", tok, ErrCorrupt)
}

// bufferObject reads the rest of a top-level object and classifies it.
func (j *jsonReader) bufferObject() error {
	var keys []string
	var raws []json.RawMessage
	size := int64(0)
	for j.dec.More() {
		tok, err := j.dec.Token()
		if err != nil {
			return fmt.Errorf("json: %w: %w", ErrCorrupt, err)
		}
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("json: object key %v: %w", tok, ErrCorrupt)
		}
		var raw json.RawMessage
		if err := j.dec.Decode(&raw); err != nil {
			return fmt.Errorf("json: value of %q: %w: %w", key, ErrCorrupt, err)
		}
		size += int64(len(raw) + len(key))
		if size > MaxJSONObjectSize {
			return fmt.Errorf("json: top-level object over %d bytes: %w", MaxJSONObjectSize, ErrTooLarge)
		}
		keys = append(keys, key)
		raws = append(raws, raw)
	}
	if _, err := j.dec.Token(); err != nil {
		return fmt.Errorf("json: %w: %w", ErrCorrupt, err)
	}
	if err := jsonExpectEOF(j.dec); err != nil {
		return err
	}
	allObjects := len(raws) > 0
	arrayProp, arrays := -1, 0
	for i, raw := range raws {
		if jsonFirstByte(raw) != '{' {
			allObjects = false
		}
		if jsonFirstByte(raw) == '[' && jsonArrayOfObjects(raw) {
			arrayProp = i
			arrays++
		}
	}
	switch {
	case allObjects:
		j.keys, j.raws = keys, raws
	case arrays == 1:
		dec := json.NewDecoder(bytes.NewReader(raws[arrayProp]))
		dec.UseNumber()
		if _, err := dec.Token(); err != nil {
			return fmt.Errorf("json: %w: %w", ErrCorrupt, err)
		}
		j.dec, j.streaming, j.limit = dec, true, nil
	case len(keys) == 0:
		// An empty object holds no record.
	default:
		// One record: rebuild it from the buffered properties.
		var buf bytes.Buffer
		buf.WriteByte('{')
		for i, k := range keys {
			if i > 0 {
				buf.WriteByte(',')
			}
			kb, _ := json.Marshal(k)
			buf.Write(kb)
			buf.WriteByte(':')
			buf.Write(raws[i])
		}
		buf.WriteByte('}')
		j.raws = []json.RawMessage{buf.Bytes()}
	}
	return nil
}

// jsonExpectEOF reports trailing data after the top-level value.
func jsonExpectEOF(dec *json.Decoder) error {
	if _, err := dec.Token(); err != io.EOF {
		if err == nil {
			err = errors.New("data after the top-level value")
		}
		return fmt.Errorf("json: %w: %w", ErrCorrupt, err)
	}
	return nil
}

// jsonFirstByte returns the first non-space byte of raw.
func jsonFirstByte(raw []byte) byte {
	for _, c := range raw {
		switch c {
		case ' ', '\t', '\r', '\n':
			continue
		}
		return c
	}
	return 0
}

// jsonArrayOfObjects reports whether raw is a non-empty array of objects.
func jsonArrayOfObjects(raw []byte) bool {
	var elems []json.RawMessage
	if err := json.Unmarshal(raw, &elems); err != nil || len(elems) == 0 {
		return false
	}
	for _, e := range elems {
		if jsonFirstByte(e) != '{' {
			return false
		}
	}
	return true
}

// Next implements RecordReader. Index is the element's position in the
// array, or the property's position in an object of records.
func (j *jsonReader) Next() (Record, error) {
	if j.done {
		return Record{}, io.EOF
	}
	idx := j.index
	if !j.streaming {
		if idx >= len(j.raws) {
			j.done = true
			return Record{}, io.EOF
		}
		j.index++
		rec := Record{Index: idx}
		if j.keys != nil {
			rec.Key = j.keys[idx]
		}
		dec := json.NewDecoder(bytes.NewReader(j.raws[idx]))
		dec.UseNumber()
		j.raws[idx] = nil
		props, err := jsonRecord(dec)
		if err != nil {
			return Record{}, &RecordError{Index: idx, Err: err}
		}
		rec.Props = props
		return rec, nil
	}
	if !j.dec.More() {
		j.done = true
		if _, err := j.dec.Token(); err != nil {
			return Record{}, fmt.Errorf("json: %w: %w", ErrCorrupt, err)
		}
		if err := jsonExpectEOF(j.dec); err != nil {
			return Record{}, err
		}
		return Record{}, io.EOF
	}
	j.index++
	if j.limit != nil {
		j.limit.left = MaxRecordSize
	}
	props, err := jsonRecord(j.dec)
	if errors.Is(err, errJSONNotObject) {
		return Record{}, &RecordError{Index: idx, Err: err}
	}
	if err != nil {
		j.done = true
		return Record{}, fmt.Errorf("json: element %d: %w", idx, err)
	}
	return Record{Index: idx, Props: props}, nil
}

// jsonRecord reads one value from dec: an object is flattened into
// properties; any other value is skipped and errJSONNotObject returned.
// Other errors leave dec unusable and wrap ErrCorrupt.
func jsonRecord(dec *json.Decoder) ([]Property, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	if tok != json.Delim('{') {
		if d, ok := tok.(json.Delim); ok && (d == '[' || d == '{') {
			if err := jsonSkip(dec, d, 1); err != nil {
				return nil, err
			}
		}
		return nil, fmt.Errorf("%w (got %s)", errJSONNotObject, jsonKindName(tok))
	}
	f := jsonFlattener{dec: dec}
	if err := f.object("", 1); err != nil {
		return nil, err
	}
	return f.props, nil
}

// jsonKindName names the JSON type of a value's first token.
func jsonKindName(tok json.Token) string {
	switch tok.(type) {
	case json.Delim:
		return "array"
	case string:
		return "string"
	case json.Number:
		return "number"
	case bool:
		return "boolean"
	}
	return "null"
}

// jsonSkip consumes the rest of a container opened by d.
func jsonSkip(dec *json.Decoder, d json.Delim, depth int) error {
	for depth > 0 {
		tok, err := dec.Token()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if t, ok := tok.(json.Delim); ok {
			if t == '[' || t == '{' {
				depth++
			} else {
				depth--
			}
		}
	}
	return nil
}

// jsonIndexAt is the property count above which jsonFlattener indexes names
// in a map instead of scanning.
const jsonIndexAt = 32

// jsonFlattener builds the properties of one record.
type jsonFlattener struct {
	dec   *json.Decoder
	props []Property
	index map[string]int
}

// add appends v to the property name, creating it at the end if new.
func (f *jsonFlattener) add(name string, v Value) {
	if f.index != nil {
		if i, ok := f.index[name]; ok {
			f.props[i].Values = append(f.props[i].Values, v)
			return
		}
	} else {
		for i := range f.props {
			if f.props[i].Name == name {
				f.props[i].Values = append(f.props[i].Values, v)
				return
			}
		}
	}
	f.props = append(f.props, Property{Name: name, Values: []Value{v}})
	switch {
	case f.index != nil:
		f.index[name] = len(f.props) - 1
	case len(f.props) > jsonIndexAt:
		f.index = make(map[string]int, 2*len(f.props))
		for i, p := range f.props {
			f.index[p.Name] = i
		}
	}
}

// object reads the members of an object whose '{' was consumed, up to and
// including its '}', prefixing names with prefix.
func (f *jsonFlattener) object(prefix string, depth int) error {
	return f.members(depth, '}', func(tok json.Token) error {
		key, ok := tok.(string)
		if !ok {
			return fmt.Errorf("object key %v: %w", tok, ErrCorrupt)
		}
		return f.value(prefix+key, depth)
	})
}

// members reads the tokens of an object or array at nesting depth whose
// opening delimiter was consumed, up to and including end, passing each
// member's first token (an object's key, an array's element) to each.
func (f *jsonFlattener) members(depth int, end json.Delim, each func(json.Token) error) error {
	if depth > MaxRecordDepth {
		return fmt.Errorf("nesting deeper than %d: %w", MaxRecordDepth, ErrCorrupt)
	}
	for {
		tok, err := f.dec.Token()
		if err != nil {
			return fmt.Errorf("%w: %w", ErrCorrupt, err)
		}
		if tok == end {
			return nil
		}
		if err := each(tok); err != nil {
			return err
		}
	}
}

// value reads one value and adds it under name.
func (f *jsonFlattener) value(name string, depth int) error {
	tok, err := f.dec.Token()
	if err != nil {
		return fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return f.token(name, tok, depth)
}

// token adds the value starting with tok under name.
func (f *jsonFlattener) token(name string, tok json.Token, depth int) error {
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			return f.object(name+".", depth+1)
		case '[':
			return f.array(name, depth+1)
		}
		return fmt.Errorf("unexpected %v: %w", t, ErrCorrupt)
	case string:
		f.add(name, Value{Kind: KindString, Str: t})
	case json.Number:
		s := string(t)
		if v, err := strconv.ParseFloat(s, 64); err == nil {
			f.add(name, Value{Kind: KindNumber, Str: s, Num: v})
		} else {
			f.add(name, Value{Kind: KindString, Str: s})
		}
	case bool:
		s := "false"
		if t {
			s = "true"
		}
		f.add(name, Value{Kind: KindBool, Str: s, Bool: t})
	case nil:
		f.add(name, Value{})
	}
	return nil
}

// array reads the elements of an array whose '[' was consumed, adding
// scalars under name and flattening objects with the prefix name + ".".
func (f *jsonFlattener) array(name string, depth int) error {
	return f.members(depth, ']', func(tok json.Token) error { return f.token(name, tok, depth) })
}
