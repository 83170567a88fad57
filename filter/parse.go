package filter

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// maxDepth bounds clause nesting so hostile input cannot exhaust the stack.
const maxDepth = 64

// clauseParsers is the dispatch table from clause name to its decoder.
var clauseParsers map[string]func(p *parser, path string, body any) (Query, error)

func init() {
	// Assigned in init to break the initialization cycle through parseClause.
	clauseParsers = map[string]func(p *parser, path string, body any) (Query, error){
		"bool":       parseBool,
		"term":       parseTerm,
		"terms":      parseTerms,
		"range":      parseRange,
		"regexp":     parseRegexp,
		"prefix":     parsePrefix,
		"exists":     parseExists,
		"match_all":  parseMatchAll,
		"match_none": parseMatchNone,
		"contains":   parseContains,
	}
}

type parser struct{ depth int }

// Parse decodes a JSON filter object (a subset of the Elasticsearch 7+ query
// DSL, see the package doc). Errors wrap ErrInvalid (and ErrUnsupported for
// constructs najdi does not implement) and name the offending path, e.g.
// `filter.bool.must[1].range.price: unknown operator "lt2"`.
func Parse(data []byte) (Query, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, errorf(ErrInvalid, "filter: malformed JSON: %s", err.Error())
	}
	if d.More() {
		return nil, errorf(ErrInvalid, "filter: trailing data after the filter object")
	}
	var p parser
	return p.clause("filter", v)
}

func errAt(path, format string, args ...any) error {
	return errorf(ErrInvalid, "%s: %s", path, fmt.Sprintf(format, args...))
}

func unsupportedAt(path, what string) error {
	return errorf(ErrUnsupported, "%s: unsupported construct %q", path, what)
}

// clause decodes one clause object {"name": body}. An empty object matches
// everything, as Elasticsearch treats an empty query.
func (p *parser) clause(path string, v any) (Query, error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errAt(path, "expected a clause object, got %s", jsonKind(v))
	}
	if len(obj) == 0 {
		return MatchAll{}, nil
	}
	if len(obj) != 1 {
		return nil, errAt(path, "a clause object must have exactly one key, got %s", keyList(obj))
	}
	p.depth++
	defer func() { p.depth-- }()
	if p.depth > maxDepth {
		return nil, errorf(ErrTooComplex, "%s: nesting deeper than %d", path, maxDepth)
	}
	for name, body := range obj {
		fn, ok := clauseParsers[name]
		if !ok {
			return nil, unsupportedAt(path, name)
		}
		return fn(p, path+"."+name, body)
	}
	panic("BUG: unreachable")
}

func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	}
	return fmt.Sprintf("%T", v)
}

func keyList(obj map[string]any) string {
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, strconv.Quote(k))
	}
	sort.Strings(keys)
	return strings.Join(keys, ", ")
}

// singleField unpacks {"field": body} used by term, range, regexp and prefix.
// "boost" and "_name" siblings are accepted and ignored.
func singleField(path string, v any) (field string, body any, err error) {
	obj, ok := v.(map[string]any)
	if !ok {
		return "", nil, errAt(path, "expected an object, got %s", jsonKind(v))
	}
	n := 0
	for k, b := range obj {
		if k == "boost" || k == "_name" {
			continue
		}
		field, body = k, b
		n++
	}
	if n != 1 {
		return "", nil, errAt(path, "expected exactly one field, got %d", n)
	}
	return field, body, nil
}

// parseValue decodes a term value: string, number or boolean.
func parseValue(path string, v any) (Value, error) {
	switch x := v.(type) {
	case string:
		return Value{Text: x}, nil
	case json.Number:
		return Value{Text: x.String(), Kind: KindNumber}, nil
	case bool:
		return Value{Text: strconv.FormatBool(x), Kind: KindBool}, nil
	}
	return Value{}, errAt(path, "expected a string, number or boolean value, got %s", jsonKind(v))
}

func parseBoolFlag(path string, v any) (bool, error) {
	switch x := v.(type) {
	case bool:
		return x, nil
	case string:
		if b, err := strconv.ParseBool(x); err == nil {
			return b, nil
		}
	}
	return false, errAt(path, "expected a boolean, got %s", jsonKind(v))
}

// params decodes the parameters of a clause by name: each function gets
// the parameter's path and value.
type params map[string]func(path string, v any) error

// parseParams decodes the parameter object obj of the clause at path with
// ps. "boost" must be a number and "_name" may be anything (a filter has
// no score and no named queries, so both are accepted and ignored); any
// other key is an unknown parameter. required, unless "", must be present.
func parseParams(path string, obj map[string]any, required string, ps params) error {
	for k, v := range obj {
		if f := ps[k]; f != nil {
			if err := f(path+"."+k, v); err != nil {
				return err
			}
			continue
		}
		switch k {
		case "boost":
			if err := checkBoost(path+".boost", v); err != nil {
				return err
			}
		case "_name":
		default:
			return errAt(path, "unknown parameter %q", k)
		}
	}
	if _, ok := obj[required]; required != "" && !ok {
		return errAt(path, "missing %q", required)
	}
	return nil
}

func checkBoost(path string, v any) error {
	switch x := v.(type) {
	case json.Number:
		return nil
	case string:
		if _, err := strconv.ParseFloat(x, 64); err == nil {
			return nil
		}
	}
	return errAt(path, "expected a number")
}

// quoteJSON writes s as a JSON string.
func quoteJSON(b *strings.Builder, s string) {
	data, err := json.Marshal(s)
	if err != nil {
		panic("BUG: marshal string: " + err.Error())
	}
	// json.Marshal escapes <, > and & as \u003c...; that is still valid JSON.
	b.Write(data)
}

func formatFloat(v float64) string {
	return strconv.FormatFloat(v, 'g', -1, 64)
}

// ParseQueryParams builds the filter of the query endpoint from
// `filter:{field}=value` parameters given as (field, value) pairs, the field
// name without the "filter:" prefix. Every pair becomes a Contains clause;
// several pairs are ANDed. No pairs give MatchAll.
func ParseQueryParams(params [][2]string) (Query, error) {
	qs := make([]Query, 0, len(params))
	for _, kv := range params {
		if kv[0] == "" {
			return nil, errorf(ErrInvalid, "filter: empty field name in a filter: parameter")
		}
		c, err := NewContains(kv[0], kv[1])
		if err != nil {
			return nil, err
		}
		qs = append(qs, c)
	}
	switch len(qs) {
	case 0:
		return MatchAll{}, nil
	case 1:
		return qs[0], nil
	}
	return &Bool{Filter: qs}, nil
}
