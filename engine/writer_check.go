package engine

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/najdi/najdi/ingest"
)

// docTooLarge is checkDoc's error for a document over MaxDocumentBytes.
type docTooLarge struct{ n int }

func (e *docTooLarge) Error() string {
	return fmt.Sprintf("the document holds more than %d bytes of text, the limit per document is %d bytes (%d MiB)", e.n, MaxDocumentBytes, MaxDocumentBytes>>20)
}

// checkDoc validates a parsed document before it is buffered, against the
// collection's field types and the limits of limits.go: its size, valid
// UTF-8 section and field names, values of number fields that are numbers,
// and the number of distinct fields of the collection. A value that is not
// a number is an error for a settled number field (declared, or stored by
// an earlier flush); a field this upload's unflushed documents inferred as
// a number becomes enum_text instead, as the column holds text too. A
// document it accepts has its new fields' types recorded in w.types, which
// fields uses when it types them at the flush.
func (w *writer) checkDoc(d pendingDoc) error {
	if err := checkDocSize(d); err != nil {
		return err
	}
	var added, demote map[string]string
	for _, f := range d.fields {
		if !utf8.ValidString(f.name) {
			return fmt.Errorf("field name %q is not valid UTF-8", f.name)
		}
		// A type is settled when declared or stored by an earlier flush;
		// one inferred by this upload's unflushed documents is not yet.
		typ, settled := fieldTypeOf(&w.rec, f.name)
		known := settled
		if !known {
			typ, known = w.types[f.name]
		}
		if !known {
			typ, known = added[f.name]
		}
		// The property holding a record's id is exempt: ids inferred as
		// numbers from one file (1, 2, 3) do not reject the records of
		// another whose ids are not (a-1); the value stays text.
		if typ == FieldNumber && f.name != d.idProp {
			to, err := checkNumbers(f, settled)
			if err != nil {
				return err
			}
			if to != "" {
				demote = setType(demote, f.name, to)
			}
		}
		if known {
			continue
		}
		t := inferType(f)
		if t == "" {
			continue // only nulls: typed by the first real value
		}
		if n := w.fieldCount() + len(added); n >= MaxFieldsPerCollection {
			return fmt.Errorf("field %q would be field number %d of the collection, more than the limit of %d fields per collection", f.name, n+1, MaxFieldsPerCollection)
		}
		added = setType(added, f.name, t)
	}
	for n, t := range added {
		w.types = setType(w.types, n, t)
	}
	for n, t := range demote {
		w.types = setType(w.types, n, t)
	}
	return nil
}

// setType records type t of field name in m, allocating m when nil.
func setType(m map[string]string, name, t string) map[string]string {
	if m == nil {
		m = map[string]string{}
	}
	m[name] = t
	return m
}

// checkDocSize checks that the section types are valid UTF-8 and that the
// document's text (sections and field values) is within MaxDocumentBytes.
func checkDocSize(d pendingDoc) error {
	size := 0
	for _, s := range d.sections {
		size += len(s.Content)
		if !utf8.ValidString(s.Type) {
			return fmt.Errorf("section type %q is not valid UTF-8", s.Type)
		}
	}
	for _, f := range d.fields {
		for _, v := range f.vals {
			size += len(v.Str)
		}
	}
	if size > MaxDocumentBytes {
		return &docTooLarge{n: MaxDocumentBytes}
	}
	return nil
}

// checkNumbers checks the values of f, a number field: blanks are no
// value; a value that is not a number is an error when the type is settled
// and otherwise demotes the field to the text type returned (enum_text, or
// enum for an enum column: the column holds text too, as a CSV "Dial"
// column of 93 and 1-684).
func checkNumbers(f fieldInput, settled bool) (demoteTo string, err error) {
	for _, v := range f.vals {
		if v.Kind == ingest.KindNull || (v.Kind == ingest.KindString && strings.TrimSpace(v.Str) == "") {
			continue // blank: no value
		}
		if _, ok := numberOf(v); ok {
			continue
		}
		if settled {
			return "", fmt.Errorf("field %q is a number field: %s is not a number", f.name, quoteValue(v))
		}
		if f.enum {
			return FieldEnum, nil
		}
		return FieldEnumText, nil
	}
	return "", nil
}

// fieldCount counts the collection's distinct fields: declared, inferred,
// and new in this ingest.
func (w *writer) fieldCount() int {
	n := len(w.rec.Config.Fields)
	for name := range w.rec.Inferred {
		if _, ok := w.rec.Config.Fields[name]; !ok {
			n++
		}
	}
	for name := range w.types {
		if _, ok := fieldTypeOf(&w.rec, name); !ok {
			n++
		}
	}
	return n
}

func quoteValue(v ingest.Value) string {
	switch v.Kind {
	case ingest.KindBool:
		return strconv.FormatBool(v.Bool)
	case ingest.KindString:
		s := v.Str
		if len(s) > 64 {
			s = s[:64] + "..."
		}
		return strconv.Quote(s)
	}
	return strconv.Quote(v.Str)
}

func inferType(f fieldInput) string {
	for _, v := range f.vals {
		switch v.Kind {
		case ingest.KindNull:
			continue
		case ingest.KindNumber:
			if f.enum {
				return FieldEnum
			}
			return FieldNumber
		default:
			if f.enum {
				return FieldEnum
			}
			return FieldEnumText
		}
	}
	return ""
}

func numberOf(v ingest.Value) (float64, bool) {
	switch v.Kind {
	case ingest.KindNumber:
		return v.Num, true
	case ingest.KindString:
		n, err := strconv.ParseFloat(v.Str, 64)
		return n, err == nil
	}
	return 0, false
}
