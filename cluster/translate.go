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
//     value, case-insensitively) becomes a regexp ".*literal.*" when the
//     expression is a literal, and a term on number fields; any other
//     expression is ErrInvalid on a cluster;
//   - case-insensitive term, prefix and regexp clauses become
//     case-sensitive regexps that spell every letter in all its cases
//     (Lucene's own folding differs from najdi's and between versions, see
//     foldPattern);
//   - on OpenSearch 3 (Lucene 10) the regexp flag ALL no longer enables the
//     complement operator ~, so ALL is sent as the list of the operators.
//
// s gives the field types (the collection schema Validate used).
func (c *Client) Translate(q filter.Query, s filter.Schema) (json.RawMessage, error) {
	if q == nil {
		return nil, nil
	}
	var b strings.Builder
	if err := c.translate(&b, q, s); err != nil {
		return nil, err
	}
	return json.RawMessage(b.String()), nil
}

func (c *Client) translate(b *strings.Builder, q filter.Query, s filter.Schema) error {
	switch q := q.(type) {
	case *filter.Bool:
		return q.AppendJSON(b, func(b *strings.Builder, k filter.Query) error { return c.translate(b, k, s) })
	case *filter.Contains:
		if t, _ := s.FieldType(q.Field); t == filter.FieldNumber {
			b.WriteString((&filter.Term{Field: q.Field, Value: filter.Value{Text: q.Value, Kind: filter.KindNumber}}).String())
			return nil
		}
		lit, ok := literalRE2(q.Value)
		if !ok {
			return clusterError(ErrInvalid, 0, "filter", fmt.Sprintf("contains %q on field %q: only literal text is supported on a search cluster, not a regular expression", q.Value, q.Field), nil)
		}
		b.WriteString(c.regexpJSON(q.Field, ".*"+foldLiteral(lit)+".*", "", 0))
		return nil
	case *filter.Term:
		if q.CaseInsensitive {
			b.WriteString(c.regexpJSON(q.Field, foldLiteral(q.Value.Text), "", 0))
			return nil
		}
	case *filter.Prefix:
		if q.CaseInsensitive {
			b.WriteString(c.regexpJSON(q.Field, foldLiteral(q.Value)+".*", "", 0))
			return nil
		}
	case *filter.Regexp:
		p := q.Value
		if q.CaseInsensitive {
			p = foldPattern(p)
		}
		b.WriteString(c.regexpJSON(q.Field, p, q.Flags, q.MaxDeterminizedStates))
		return nil
	}
	b.WriteString(q.String())
	return nil
}

// regexpJSON returns a case-sensitive regexp clause with flags for the
// cluster's version.
func (c *Client) regexpJSON(field, re, flags string, maxStates int) string {
	if flags == "" {
		flags = "ALL"
	}
	if c.info.Flavour == OpenSearch && c.info.Major >= 3 {
		var parts []string
		for _, f := range strings.Split(flags, "|") {
			if strings.TrimSpace(f) == "ALL" {
				parts = append(parts, "INTERSECTION", "COMPLEMENT", "EMPTY", "ANYSTRING", "INTERVAL")
			} else {
				parts = append(parts, strings.TrimSpace(f))
			}
		}
		flags = strings.Join(parts, "|")
	}
	f, _ := json.Marshal(field)
	v, _ := json.Marshal(re)
	fl, _ := json.Marshal(flags)
	out := fmt.Sprintf(`{"regexp":{%s:{"value":%s,"flags":%s`, f, v, fl)
	if maxStates > 0 {
		out += fmt.Sprintf(`,"max_determinized_states":%d`, maxStates)
	}
	return out + `}}}`
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
