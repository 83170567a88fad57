package filter

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/RoaringBitmap/roaring/v2"
)

// Regexp matches the documents where any value of the string Field matches
// the Lucene regular expression Value as a whole:
// {"regexp": {"f": {"value": "sam.*", "flags": "ALL", "case_insensitive": true,
// "max_determinized_states": 10000}}} or {"regexp": {"f": "sam.*"}}.
// See the package doc for the syntax.
type Regexp struct {
	Field string
	Value string
	// Flags enables Lucene's optional operators, "ALL" when empty.
	Flags           string
	CaseInsensitive bool
	// MaxDeterminizedStates bounds the automaton, DefaultMaxDeterminizedStates
	// when 0.
	MaxDeterminizedStates int

	prog *rxProg // compiled by Parse or NewRegexp; nil compiles per Eval
}

// NewRegexp returns a compiled Regexp clause with default flags and limits.
func NewRegexp(field, value string, caseInsensitive bool) (*Regexp, error) {
	q := &Regexp{Field: field, Value: value, CaseInsensitive: caseInsensitive}
	p, err := q.compile()
	if err != nil {
		return nil, err
	}
	q.prog = p
	return q, nil
}

func (q *Regexp) compile() (*rxProg, error) {
	flags, err := parseRxFlags(q.Flags)
	if err != nil {
		return nil, rxErrorf(ErrInvalid, "%s", err.Error())
	}
	maxStates := q.MaxDeterminizedStates
	if maxStates <= 0 {
		maxStates = DefaultMaxDeterminizedStates
	}
	b := newRxBuilder(maxStates)
	root, err := compileLucene(b, q.Value, flags, q.CaseInsensitive)
	if err != nil {
		return nil, err
	}
	return newRxProg(b, root)
}

// String returns the canonical JSON form.
func (q *Regexp) String() string {
	var b strings.Builder
	b.WriteString(`{"regexp":{`)
	quoteJSON(&b, q.Field)
	b.WriteString(`:{"value":`)
	quoteJSON(&b, q.Value)
	if q.Flags != "" {
		b.WriteString(`,"flags":`)
		quoteJSON(&b, q.Flags)
	}
	if q.CaseInsensitive {
		b.WriteString(`,"case_insensitive":true`)
	}
	if q.MaxDeterminizedStates > 0 {
		b.WriteString(`,"max_determinized_states":`)
		b.WriteString(strconv.Itoa(q.MaxDeterminizedStates))
	}
	b.WriteString(`}}}`)
	return b.String()
}

// Validate checks the field (enum or enum_text) and the pattern.
func (q *Regexp) Validate(s Schema) error {
	if _, err := checkField(s, q.Field, "regexp", FieldEnum, FieldEnumText); err != nil {
		return err
	}
	if q.prog == nil {
		if _, err := q.compile(); err != nil {
			return err
		}
	}
	return nil
}

func (q *Regexp) eval(e *evalCtx, _, dst *roaring.Bitmap) error {
	dst.Clear()
	p := q.prog
	if p == nil {
		var err error
		if p, err = q.compile(); err != nil {
			return err
		}
	}
	if err := p.scan(e.idx, q.Field, dst); err != nil {
		return rxErrorAt("filter.regexp."+q.Field, err)
	}
	return nil
}

func (q *Regexp) cost(e *evalCtx) (uint64, *roaring.Bitmap) {
	// Unknown until scanned: rank after terms and ranges.
	return uint64(e.idx.NumDocs()) + 1, nil
}

func parseRegexp(_ *parser, path string, body any) (Query, error) {
	q := &Regexp{}
	var err error
	q.Field, q.Value, err = parseValueClause(path, body, func(kpath, k string, v any) (bool, error) {
		switch k {
		case "flags":
			s, ok := v.(string)
			if !ok {
				return true, errAt(kpath, "expected a string, got %s", jsonKind(v))
			}
			q.Flags = s
		case "case_insensitive":
			b, err := parseBoolFlag(kpath, v)
			q.CaseInsensitive = b
			return true, err
		case "max_determinized_states":
			n, err := strconv.Atoi(fmt.Sprint(v))
			if err != nil || n <= 0 {
				return true, errAt(kpath, "expected a positive integer")
			}
			q.MaxDeterminizedStates = n
		case "flags_value":
			return true, unsupportedAt(kpath, "regexp flags_value")
		default:
			return false, nil
		}
		return true, nil
	})
	if err != nil {
		return nil, err
	}
	p, err := q.compile()
	if err != nil {
		return nil, rxErrorAt(path+"."+q.Field, err)
	}
	q.prog = p
	return q, nil
}

// parseValueClause reads a single-field clause whose field takes a string
// (the value) or an object with "value" and options, as regexp and prefix
// do. opt is called with each other key of the object and its path, and
// reports whether it knows the key; "rewrite", "boost" and "_name" are
// accepted and ignored, any other key is an error.
func parseValueClause(path string, body any, opt func(kpath, k string, v any) (known bool, err error)) (field, value string, err error) {
	field, fb, err := singleField(path, body)
	if err != nil {
		return "", "", err
	}
	path += "." + field
	switch x := fb.(type) {
	case string:
		return field, x, nil
	case map[string]any:
		seen := false
		for k, v := range x {
			switch k {
			case "value":
				s, ok := v.(string)
				if !ok {
					return "", "", errAt(path+".value", "expected a string, got %s", jsonKind(v))
				}
				value, seen = s, true
			case "rewrite", "boost", "_name":
			default:
				known, err := opt(path+"."+k, k, v)
				if err != nil {
					return "", "", err
				}
				if !known {
					return "", "", errAt(path, "unknown parameter %q", k)
				}
			}
		}
		if !seen {
			return "", "", errAt(path, "missing \"value\"")
		}
		return field, value, nil
	default:
		return "", "", errAt(path, "expected a string or an object, got %s", jsonKind(fb))
	}
}

// Prefix matches the documents where any value of the string Field starts
// with Value: {"prefix": {"f": {"value": "sam", "case_insensitive": true}}}.
type Prefix struct {
	Field           string
	Value           string
	CaseInsensitive bool
}

// String returns the canonical JSON form.
func (q *Prefix) String() string {
	var b strings.Builder
	b.WriteString(`{"prefix":{`)
	quoteJSON(&b, q.Field)
	b.WriteString(`:{"value":`)
	quoteJSON(&b, q.Value)
	if q.CaseInsensitive {
		b.WriteString(`,"case_insensitive":true`)
	}
	b.WriteString(`}}}`)
	return b.String()
}

// Validate checks that Field is an enum or enum_text field.
func (q *Prefix) Validate(s Schema) error {
	_, err := checkField(s, q.Field, "prefix", FieldEnum, FieldEnumText)
	return err
}

func (q *Prefix) eval(e *evalCtx, _, dst *roaring.Bitmap) error {
	dst.Clear()
	if !q.CaseInsensitive {
		e.idx.Terms(q.Field, q.Value, func(term string, docs *roaring.Bitmap) bool {
			if !strings.HasPrefix(term, q.Value) {
				return false
			}
			dst.Or(docs)
			return true
		})
		return nil
	}
	b := newRxBuilder(DefaultMaxDeterminizedStates)
	root := rxIDAnyStr
	rs := []rune(q.Value)
	for i := len(rs) - 1; i >= 0; i-- {
		root = b.cat(b.set(foldSet([]rxRange{{rs[i], rs[i]}})), root)
	}
	p, err := newRxProg(b, root)
	if err != nil {
		return err
	}
	return p.scan(e.idx, q.Field, dst)
}

func (q *Prefix) cost(e *evalCtx) (uint64, *roaring.Bitmap) {
	return uint64(e.idx.NumDocs()) + 1, nil
}

func parsePrefix(_ *parser, path string, body any) (Query, error) {
	q := &Prefix{}
	var err error
	q.Field, q.Value, err = parseValueClause(path, body, func(kpath, k string, v any) (bool, error) {
		if k != "case_insensitive" {
			return false, nil
		}
		b, err := parseBoolFlag(kpath, v)
		q.CaseInsensitive = b
		return true, err
	})
	if err != nil {
		return nil, err
	}
	return q, nil
}

// rxProg is a compiled automaton shared by concurrent evaluations; the lazily
// built DFA is guarded by mu.
type rxProg struct {
	mu     sync.Mutex
	b      *rxBuilder
	root   int32
	prefix string
	st     []int32 // st[i] = state after the first i bytes of prev; -1 inside a rune
	prev   []byte
}

func newRxProg(b *rxBuilder, root int32) (*rxProg, error) {
	if b.err != nil {
		return nil, b.err
	}
	b.markState(root)
	return &rxProg{b: b, root: root, prefix: b.literalPrefix(root)}, nil
}

// scan ORs into dst the docs of every term of field accepted by the
// automaton. It seeks to the literal prefix, reuses the states of the
// prefix shared with the previous term, and skips every term below a prefix
// that reached the dead state.
func (p *rxProg) scan(idx Index, field string, dst *roaring.Bitmap) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.b.err != nil {
		return p.b.err
	}
	if p.root == rxIDNone {
		return nil
	}
	from := p.prefix
	for {
		p.prev = p.prev[:0]
		p.st = append(p.st[:0], p.root)
		restart := false
		idx.Terms(field, from, func(term string, docs *roaring.Bitmap) bool {
			if !strings.HasPrefix(term, p.prefix) {
				return false
			}
			i := 0
			for i < len(p.prev) && i < len(term) && p.prev[i] == term[i] {
				i++
			}
			for p.st[i] < 0 {
				i--
			}
			state := p.st[i]
			p.st = p.st[:i+1]
			for i < len(term) && state != rxIDNone {
				r, w := utf8.DecodeRuneInString(term[i:])
				state = p.b.step(state, r)
				for range w - 1 {
					p.st = append(p.st, -1)
				}
				p.st = append(p.st, state)
				i += w
			}
			if p.b.err != nil {
				return false
			}
			if state == rxIDNone {
				if i < len(term) {
					// Every term starting with term[:i] is rejected: seek past them.
					if next, ok := prefixSuccessor(term[:i]); ok {
						from, restart = next, true
					}
					return false
				}
			} else if p.b.nodes[state].nullable {
				dst.Or(docs)
			}
			p.prev = append(p.prev[:0], term...)
			return true
		})
		if p.b.err != nil {
			return p.b.err
		}
		if !restart {
			return nil
		}
	}
}

// prefixSuccessor returns the smallest string greater than every string
// starting with s; false if there is none.
func prefixSuccessor(s string) (string, bool) {
	b := []byte(s)
	for len(b) > 0 {
		if b[len(b)-1] < 0xff {
			b[len(b)-1]++
			return string(b), true
		}
		b = b[:len(b)-1]
	}
	return "", false
}
