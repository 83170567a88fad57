// Package strictjson decodes JSON request bodies strictly and words its
// errors for API clients.
//
// Strictly: unknown object fields, data after the value and values of the
// wrong JSON type are errors. For clients: an error names the offending
// value by its JSON path (max_results, summary_config.max_tokens,
// documents[1].sections[0].content) and says what the API expects there
// ("must be an integer, got a string"), never Go's struct and type names.
//
// encoding/json decodes; its errors are worded for Go programmers ("cannot
// unmarshal string into Go struct field SearchRequest.max_results of type
// int") and their paths have no array indices or map keys. So when decoding
// fails, Decode reads the body once more with a json.Decoder to find the
// path: a type error by the byte offset encoding/json reports, an unknown
// field by walking the destination's type beside the tokens. The second
// pass costs nothing on the success path.
package strictjson

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"reflect"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Error is a decoding error worded for API clients.
type Error struct {
	// Path is the JSON path of the offending value or field: dotted object
	// keys and [i] array indices ("documents[1].document_id"). It is ""
	// when the error is not about one value (malformed JSON, trailing
	// data), or when the top-level value itself has the wrong type.
	Path string

	kind   errorKind
	detail string // the message after the path, or all of it for kindOther
}

type errorKind uint8

const (
	kindType    errorKind = iota // detail: "must be X, got Y"
	kindUnknown                  // detail: " (known fields: ...)"
	kindOther                    // detail: the whole message
)

// Error implements error.
func (e *Error) Error() string {
	switch e.kind {
	case kindType:
		if e.Path == "" {
			return "the body " + e.detail
		}
		return e.Path + " " + e.detail
	case kindUnknown:
		return fmt.Sprintf("unknown field %q%s", e.Path, e.detail)
	}
	return e.detail
}

// Within returns err with its path placed under prefix, for a type whose
// UnmarshalJSON decodes its own value with Decode: the error of
// {"url": 5} decoded at "embedding_config.model" names
// "embedding_config.model.url". Errors of other types are returned as is.
func Within(prefix string, err error) error {
	var se *Error
	if prefix == "" || !errors.As(err, &se) || se.kind == kindOther {
		return err
	}
	out := *se
	out.Path = join(prefix, se.Path)
	return &out
}

// Options tune decoding.
type Options struct {
	// UseNumber decodes numbers into interface{} values as json.Number
	// instead of float64.
	UseNumber bool
}

// Decode decodes the JSON value in b into v with default options.
func Decode(b []byte, v any) error { return Options{}.Decode(b, v) }

// Decode decodes the one JSON value in b into v, rejecting unknown object
// fields and anything but white space after the value. Failures are
// *Error values, except errors returned by a type's own UnmarshalJSON,
// which are returned as they are.
func (o Options) Decode(b []byte, v any) error {
	// encoding/json would replace bytes that are not UTF-8 by U+FFFD and
	// so silently change names and values: JSON is UTF-8.
	if !utf8.Valid(b) {
		at := 0
		for at < len(b) {
			r, n := utf8.DecodeRune(b[at:])
			if r == utf8.RuneError && n <= 1 {
				break
			}
			at += n
		}
		return &Error{kind: kindOther, detail: "the body is not valid UTF-8 at " + position(b, int64(at+1))}
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.DisallowUnknownFields()
	if o.UseNumber {
		d.UseNumber()
	}
	err := d.Decode(v)
	if intb, ok := integralRetry(b, err); ok {
		// JSON Schema counts 76.0 as an integer: decode again with the
		// integral numbers written as integers.
		rv := reflect.ValueOf(v).Elem()
		rv.Set(reflect.Zero(rv.Type()))
		b = intb
		d = json.NewDecoder(bytes.NewReader(b))
		d.DisallowUnknownFields()
		if o.UseNumber {
			d.UseNumber()
		}
		err = d.Decode(v)
	}
	if err != nil {
		return translate(b, v, err)
	}
	end := int(d.InputOffset())
	if rest := bytes.TrimLeft(b[end:], " \t\r\n"); len(rest) > 0 {
		return &Error{kind: kindOther, detail: "unexpected data after the JSON value at " + position(b, int64(len(b)-len(rest)+1))}
	}
	return nil
}

// translate words an encoding/json error for clients.
func translate(b []byte, v any, err error) error {
	var se *Error
	var te *json.UnmarshalTypeError
	var syn *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return err
	case errors.As(err, &te):
		path, _ := pathAt(b, te.Offset)
		return &Error{Path: path, kind: kindType, detail: "must be " + want(te.Type) + ", got " + got(te.Value)}
	case errors.As(err, &syn):
		return &Error{kind: kindOther, detail: "malformed JSON at " + position(b, syn.Offset) + ": " + syn.Error()}
	case err == io.EOF:
		return &Error{kind: kindOther, detail: "the body holds no JSON value"}
	case errors.Is(err, io.ErrUnexpectedEOF):
		return &Error{kind: kindOther, detail: "malformed JSON: the body ends before the JSON value is complete"}
	}
	if name, ok := strings.CutPrefix(err.Error(), "json: unknown field "); ok {
		name, uerr := strconv.Unquote(name)
		if uerr == nil {
			w := &walker{dec: json.NewDecoder(bytes.NewReader(b)), name: name}
			w.dec.UseNumber()
			if w.value(reflect.TypeOf(v), "") == errFound {
				detail := ""
				if len(w.known) > 0 {
					of := ""
					if w.parent != "" {
						of = " of " + w.parent
					}
					detail = fmt.Sprintf(" (known fields%s: %s)", of, strings.Join(w.known, ", "))
				}
				return &Error{Path: w.path, kind: kindUnknown, detail: detail}
			}
			return &Error{Path: name, kind: kindUnknown}
		}
	}
	return err
}

// position renders the byte offset after which a problem was found as
// "line L, column C" (1-based; columns count bytes).
func position(b []byte, off int64) string {
	at := int(min(max(off-1, 0), int64(len(b))))
	line := 1 + bytes.Count(b[:at], []byte{'\n'})
	col := at - bytes.LastIndexByte(b[:at], '\n')
	return fmt.Sprintf("line %d, column %d", line, col)
}

// want names what a value of type t is in JSON.
func want(t reflect.Type) string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Bool:
		return "a boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return "an integer"
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return "a non-negative integer"
	case reflect.Float32, reflect.Float64:
		return "a number"
	case reflect.String:
		return "a string"
	case reflect.Slice, reflect.Array:
		return "an array of " + plural(t.Elem())
	case reflect.Map, reflect.Struct:
		return "an object"
	}
	return "a JSON value"
}

// plural names values of type t in the plural.
func plural(t reflect.Type) string {
	switch w := want(t); w {
	case "a boolean", "a non-negative integer", "a number", "a string":
		return strings.TrimPrefix(w, "a ") + "s"
	case "an integer", "an object":
		return strings.TrimPrefix(w, "an ") + "s"
	}
	if k := t.Kind(); k == reflect.Slice || k == reflect.Array {
		return "arrays"
	}
	return "values"
}

// got words encoding/json's description of the value it found: "string",
// "number", "number 2.5", "bool", "array", "object".
func got(v string) string {
	switch {
	case v == "array", v == "object":
		return "an " + v
	case v == "bool":
		return "a boolean"
	case strings.HasPrefix(v, "number "):
		return strings.TrimPrefix(v, "number ")
	case v == "":
		return "another type"
	}
	return "a " + v
}

// join appends a key or an index to a path.
func join(path, elem string) string {
	switch {
	case path == "":
		return elem
	case elem == "":
		return path
	case strings.HasPrefix(elem, "["):
		return path + elem
	}
	return path + "." + elem
}

// key renders an object key as a path element: as is when it is a plain
// name, quoted in brackets otherwise ("fields[\"a.b\"]").
func key(k string) string {
	plain := k != ""
	for _, r := range k {
		if !(r == '_' || r == '-' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r > 0x7f) {
			plain = false
			break
		}
	}
	if plain {
		return k
	}
	return "[" + strconv.Quote(k) + "]"
}

func index(i int) string { return "[" + strconv.Itoa(i) + "]" }

// pathAt returns the path of the value of b whose first token ends at byte
// offset off: encoding/json reports a type error at the end of a scalar or
// just after the '{' or '[' of a container.
func pathAt(b []byte, off int64) (string, bool) {
	type frame struct {
		path  string
		array bool
		n     int    // elements seen, in an array
		key   string // the current key, in an object
		inKey bool   // an object expecting a key or '}'
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var stack []frame
	for {
		tok, err := dec.Token()
		if err != nil {
			return "", false
		}
		var path string
		if len(stack) > 0 {
			top := &stack[len(stack)-1]
			if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
				stack = stack[:len(stack)-1]
				continue
			}
			switch {
			case top.inKey:
				top.key, top.inKey = key(tok.(string)), false
				continue
			case top.array:
				path = join(top.path, index(top.n))
				top.n++
			default:
				path = join(top.path, top.key)
				top.inKey = true
			}
		}
		if dec.InputOffset() == off {
			return path, true
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{path: path, inKey: true})
		case json.Delim('['):
			stack = append(stack, frame{path: path, array: true})
		}
	}
}

var (
	errFound        = errors.New("found")
	rawMessageType  = reflect.TypeFor[json.RawMessage]()
	unmarshalerType = reflect.TypeFor[json.Unmarshaler]()
)

// walker finds the first object key called name that the destination type
// does not know, reading the tokens of a body beside its Go type.
type walker struct {
	dec  *json.Decoder
	name string
	// Set when found: the key's path, the known fields of its object and
	// that object's path.
	path, parent string
	known        []string
}

// value reads one value whose destination type is t (nil: anything goes)
// at path. It returns errFound when it found the key.
func (w *walker) value(t reflect.Type, path string) error {
	tok, err := w.dec.Token()
	if err != nil {
		return err
	}
	t = typed(t)
	switch tok {
	case json.Delim('{'):
		for w.dec.More() {
			kt, err := w.dec.Token()
			if err != nil {
				return err
			}
			k, _ := kt.(string)
			var et reflect.Type
			if t != nil {
				switch t.Kind() {
				case reflect.Map:
					et = t.Elem()
				case reflect.Struct:
					f, ok := field(t, k)
					if !ok && k == w.name {
						w.path, w.parent, w.known = join(path, key(k)), path, names(t)
						return errFound
					}
					et = f
				}
			}
			if err := w.value(et, join(path, key(k))); err != nil {
				return err
			}
		}
		_, err = w.dec.Token()
	case json.Delim('['):
		var et reflect.Type
		if t != nil && (t.Kind() == reflect.Slice || t.Kind() == reflect.Array) {
			et = t.Elem()
		}
		for i := 0; w.dec.More(); i++ {
			if err := w.value(et, join(path, index(i))); err != nil {
				return err
			}
		}
		_, err = w.dec.Token()
	}
	return err
}

// typed dereferences t, or returns nil when encoding/json does not decode
// t field by field: interfaces, json.RawMessage, types with UnmarshalJSON.
func typed(t reflect.Type) reflect.Type {
	for t != nil {
		if t == rawMessageType || t.Kind() == reflect.Interface || t.Implements(unmarshalerType) || reflect.PointerTo(t).Implements(unmarshalerType) {
			return nil
		}
		if t.Kind() != reflect.Pointer {
			return t
		}
		t = t.Elem()
	}
	return nil
}

// structFields lists the JSON names and types of a struct's fields as
// encoding/json sees them: exported, named by tag or Go name, "-" skipped,
// untagged embedded structs flattened.
func structFields(t reflect.Type, visit func(name string, ft reflect.Type)) {
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				structFields(ft, visit)
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		visit(name, f.Type)
	}
}

// field returns the type of the struct field that encoding/json decodes
// the key k into: an exact name match, else a case-insensitive one.
func field(t reflect.Type, k string) (reflect.Type, bool) {
	var exact, folded reflect.Type
	structFields(t, func(name string, ft reflect.Type) {
		switch {
		case name == k && exact == nil:
			exact = ft
		case strings.EqualFold(name, k) && folded == nil:
			folded = ft
		}
	})
	if exact != nil {
		return exact, true
	}
	return folded, folded != nil
}

// names lists the JSON field names of a struct.
func names(t reflect.Type) []string {
	var out []string
	structFields(t, func(name string, _ reflect.Type) { out = append(out, name) })
	return out
}

// integralRetry returns b with every number that has an integral value
// written with a fraction or an exponent (76.0, 7.6e1) rewritten as an
// integer (76), when err is a number refused by an integer type and b holds
// such a number; ok is false otherwise. Strings are left alone.
func integralRetry(b []byte, err error) (out []byte, ok bool) {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) || te.Type == nil || !strings.HasPrefix(te.Value, "number") {
		return nil, false
	}
	t := typed(te.Type)
	if t == nil {
		return nil, false
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
	default:
		return nil, false
	}
	out = make([]byte, 0, len(b))
	changed := false
	for i := 0; i < len(b); {
		c := b[i]
		switch {
		case c == '"':
			j := i + 1
			for j < len(b) && b[j] != '"' {
				if b[j] == '\\' {
					j++
				}
				j++
			}
			j = min(j+1, len(b))
			out = append(out, b[i:j]...)
			i = j
		case c == '-' || (c >= '0' && c <= '9'):
			j := i + 1
			for j < len(b) && strings.IndexByte("0123456789.eE+-", b[j]) >= 0 {
				j++
			}
			tok := string(b[i:j])
			if strings.ContainsAny(tok, ".eE") {
				if f, perr := strconv.ParseFloat(tok, 64); perr == nil && f == math.Trunc(f) && math.Abs(f) < 1<<53 {
					tok = strconv.FormatInt(int64(f), 10)
					changed = true
				}
			}
			out = append(out, tok...)
			i = j
		default:
			out = append(out, c)
			i++
		}
	}
	return out, changed
}
