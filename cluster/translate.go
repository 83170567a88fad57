package cluster

import (
	"encoding/json"
	"fmt"
	"regexp/syntax"
	"strings"

	"github.com/najdi/najdi/filter"
)

// Translate turns a parsed and validated najdi filter into the query DSL of
// the cluster. The filter language is Elasticsearch's, so clauses pass
// through in their canonical form, except:
//
//   - contains (najdi's extension: an RE2 expression found anywhere in a
//     value, case-insensitively) becomes a case-insensitive regexp
//     ".*literal.*" when the expression is a literal, and a term on number
//     fields; any other expression is ErrInvalid on a cluster;
//   - case-insensitive term, prefix and regexp clauses whose values hold
//     non-ASCII letters: Lucene folds ASCII only where najdi folds Unicode
//     (Č/č), so those letters are spelled as both cases in a regexp.
//
// s gives the field types (the collection schema Validate used).
func Translate(q filter.Query, s filter.Schema) (json.RawMessage, error) {
	if q == nil {
		return nil, nil
	}
	var b strings.Builder
	if err := translate(&b, q, s); err != nil {
		return nil, err
	}
	return json.RawMessage(b.String()), nil
}

func translate(b *strings.Builder, q filter.Query, s filter.Schema) error {
	switch q := q.(type) {
	case *filter.Bool:
		b.WriteString(`{"bool":{`)
		first := true
		for _, occ := range []struct {
			name string
			qs   []filter.Query
		}{{"must", q.Must}, {"filter", q.Filter}, {"should", q.Should}, {"must_not", q.MustNot}} {
			if len(occ.qs) == 0 {
				continue
			}
			if !first {
				b.WriteByte(',')
			}
			first = false
			fmt.Fprintf(b, "%q:[", occ.name)
			for i, c := range occ.qs {
				if i > 0 {
					b.WriteByte(',')
				}
				if err := translate(b, c, s); err != nil {
					return err
				}
			}
			b.WriteByte(']')
		}
		if q.MinimumShouldMatch != "" {
			if !first {
				b.WriteByte(',')
			}
			msm, _ := json.Marshal(q.MinimumShouldMatch)
			b.WriteString(`"minimum_should_match":`)
			b.Write(msm)
		}
		b.WriteString(`}}`)
		return nil
	case *filter.Contains:
		if t, _ := s.FieldType(q.Field); t == filter.FieldNumber {
			b.WriteString((&filter.Term{Field: q.Field, Value: filter.Value{Text: q.Value, Kind: filter.KindNumber}}).String())
			return nil
		}
		lit, ok := literalRE2(q.Value)
		if !ok {
			return &Error{Kind: ErrInvalid, Op: "filter", Reason: fmt.Sprintf("contains %q on field %q: only literal text is supported on a search cluster, not a regular expression", q.Value, q.Field)}
		}
		b.WriteString(regexpJSON(q.Field, ".*"+luceneQuote(lit, true)+".*"))
		return nil
	case *filter.Term:
		if q.CaseInsensitive && nonASCIILetters(q.Value.Text) {
			b.WriteString(regexpJSON(q.Field, luceneQuote(q.Value.Text, true)))
			return nil
		}
	case *filter.Prefix:
		if q.CaseInsensitive && nonASCIILetters(q.Value) {
			b.WriteString(regexpJSON(q.Field, luceneQuote(q.Value, true)+".*"))
			return nil
		}
	case *filter.Regexp:
		if q.CaseInsensitive && nonASCIILetters(q.Value) {
			b.WriteString(regexpFullJSON(q, foldLuceneRegexp(q.Value)))
			return nil
		}
	}
	b.WriteString(q.String())
	return nil
}

// regexpJSON returns a case-insensitive regexp clause (ASCII folded by
// Lucene; the caller spelled non-ASCII letters in both cases).
func regexpJSON(field, re string) string {
	f, _ := json.Marshal(field)
	v, _ := json.Marshal(re)
	return fmt.Sprintf(`{"regexp":{%s:{"value":%s,"flags":"ALL","case_insensitive":true}}}`, f, v)
}

// regexpFullJSON is q with a rewritten pattern.
func regexpFullJSON(q *filter.Regexp, re string) string {
	f, _ := json.Marshal(q.Field)
	v, _ := json.Marshal(re)
	flags := q.Flags
	if flags == "" {
		flags = "ALL"
	}
	fl, _ := json.Marshal(flags)
	out := fmt.Sprintf(`{"regexp":{%s:{"value":%s,"flags":%s,"case_insensitive":true`, f, v, fl)
	if q.MaxDeterminizedStates > 0 {
		out += fmt.Sprintf(`,"max_determinized_states":%d`, q.MaxDeterminizedStates)
	}
	return out + `}}}`
}

// nonASCIILetters reports whether s holds a non-ASCII rune with another case.
func nonASCIILetters(s string) bool {
	for _, r := range s {
		if r > 127 && otherCase(r) != r {
			return true
		}
	}
	return false
}

// otherCase returns a rune of the same simple-folding orbit, or r.
func otherCase(r rune) rune {
	if f := simpleFold(r); f != r {
		return f
	}
	return r
}

// luceneQuote escapes s as a Lucene regexp literal; with fold, non-ASCII
// letters become a class of their case variants.
func luceneQuote(s string, fold bool) string {
	var b strings.Builder
	for _, r := range s {
		if fold && r > 127 && otherCase(r) != r {
			b.WriteString(foldClass(r))
			continue
		}
		if r < 128 && !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

// foldClass returns "[xX…]" with every rune of r's folding orbit.
func foldClass(r rune) string {
	var b strings.Builder
	b.WriteByte('[')
	b.WriteRune(r)
	for f := simpleFold(r); f != r; f = simpleFold(f) {
		b.WriteRune(f)
	}
	b.WriteByte(']')
	return b.String()
}

// foldLuceneRegexp spells every non-ASCII letter of a Lucene pattern in
// all its cases: outside a class as a class, inside a class by adding the
// variants. Escaped characters are kept as they are.
func foldLuceneRegexp(p string) string {
	var b strings.Builder
	inClass, inQuote, esc := false, false, false
	for _, r := range p {
		switch {
		case esc:
			esc = false
			b.WriteRune(r)
			continue
		case r == '\\':
			esc = true
			b.WriteRune(r)
			continue
		case r == '"' && !inClass:
			inQuote = !inQuote
		case r == '[' && !inQuote:
			inClass = true
		case r == ']' && !inQuote:
			inClass = false
		}
		if r > 127 && otherCase(r) != r {
			switch {
			case inClass:
				b.WriteRune(r)
				for f := simpleFold(r); f != r; f = simpleFold(f) {
					b.WriteRune(f)
				}
				continue
			case inQuote:
				// a quoted literal cannot hold a class: close, class, reopen
				b.WriteString(`"` + foldClass(r) + `"`)
				continue
			default:
				b.WriteString(foldClass(r))
				continue
			}
		}
		b.WriteRune(r)
	}
	return b.String()
}

// literalRE2 returns the text an RE2 expression matches when it is a plain
// literal (possibly written with escapes).
func literalRE2(expr string) (string, bool) {
	re, err := syntax.Parse(expr, syntax.Perl)
	if err != nil {
		return expr, true // najdi searches an invalid expression as literal text
	}
	re = re.Simplify()
	switch re.Op {
	case syntax.OpLiteral:
		return string(re.Rune), true
	case syntax.OpEmptyMatch:
		return "", true
	}
	return "", false
}
