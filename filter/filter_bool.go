package filter

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/RoaringBitmap/roaring/v2"
)

// Bool combines clauses as Elasticsearch's bool query does:
// {"bool": {"must": [...], "filter": [...], "should": [...], "must_not": [...],
// "minimum_should_match": 1}}.
//
// Must and Filter clauses must all match; MustNot clauses must not match.
// Should clauses must match at least MinimumShouldMatch of them; when it is
// empty the default is 1 if there are should clauses but no must/filter
// clauses, else 0 (should does not narrow). Without must/filter clauses at
// least one should clause must match whatever MinimumShouldMatch says
// (Lucene's rule for a disjunction). A Bool with must_not clauses only
// ignores MinimumShouldMatch. A Bool with no clauses matches all.
type Bool struct {
	Must, Filter, Should, MustNot []Query
	// MinimumShouldMatch is "" (default), an integer ("2", "-1") or a
	// percentage ("50%", "-25%"), as in Elasticsearch.
	MinimumShouldMatch string
}

// String returns the canonical JSON form.
func (q *Bool) String() string {
	var b strings.Builder
	_ = q.AppendJSON(&b, func(b *strings.Builder, c Query) error { // never fails
		b.WriteString(c.String())
		return nil
	})
	return b.String()
}

// AppendJSON writes the bool query's JSON to b, each clause written by
// clause: String passes each clause's canonical form, a cluster backend its
// translation (cluster.Client.Translate). It stops at clause's first error.
func (q *Bool) AppendJSON(b *strings.Builder, clause func(*strings.Builder, Query) error) error {
	b.WriteString(`{"bool":{`)
	first := true
	for _, occ := range [...]struct {
		name string
		qs   []Query
	}{{"must", q.Must}, {"filter", q.Filter}, {"should", q.Should}, {"must_not", q.MustNot}} {
		if len(occ.qs) == 0 {
			continue
		}
		if !first {
			b.WriteByte(',')
		}
		first = false
		b.WriteByte('"')
		b.WriteString(occ.name)
		b.WriteString(`":[`)
		for i, c := range occ.qs {
			if i > 0 {
				b.WriteByte(',')
			}
			if err := clause(b, c); err != nil {
				return err
			}
		}
		b.WriteByte(']')
	}
	if q.MinimumShouldMatch != "" {
		if !first {
			b.WriteByte(',')
		}
		b.WriteString(`"minimum_should_match":`)
		if _, err := strconv.Atoi(q.MinimumShouldMatch); err == nil {
			b.WriteString(q.MinimumShouldMatch)
		} else {
			quoteJSON(b, q.MinimumShouldMatch)
		}
	}
	b.WriteString(`}}`)
	return nil
}

// Validate checks every child clause and MinimumShouldMatch.
func (q *Bool) Validate(s Schema) error {
	if q.MinimumShouldMatch != "" {
		if _, err := minShouldMatch(len(q.Should), q.MinimumShouldMatch); err != nil {
			return err
		}
	}
	for _, qs := range [...][]Query{q.Must, q.Filter, q.Should, q.MustNot} {
		for _, c := range qs {
			if err := c.Validate(s); err != nil {
				return err
			}
		}
	}
	return nil
}

// minShouldMatch computes the number of should clauses required, following
// Elasticsearch's Queries.calculateMinShouldMatch.
func minShouldMatch(n int, spec string) (int, error) {
	spec = strings.TrimSpace(spec)
	if strings.Contains(spec, "<") {
		return 0, unsupportedAt("filter.bool.minimum_should_match", "conditional minimum_should_match "+spec)
	}
	result := n
	if p, ok := strings.CutSuffix(spec, "%"); ok {
		percent, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil {
			return 0, errAt("filter.bool.minimum_should_match", "invalid percentage %q", spec)
		}
		// float calc = (result * percent) * (1 / 100f), as in Elasticsearch.
		calc := float32(n*percent) * (1 / float32(100))
		if calc < 0 {
			result += int(calc)
		} else {
			result = int(calc)
		}
	} else {
		calc, err := strconv.Atoi(spec)
		if err != nil {
			return 0, errAt("filter.bool.minimum_should_match", "invalid value %q", spec)
		}
		if calc < 0 {
			result += calc
		} else {
			result = calc
		}
	}
	return max(result, 0), nil
}

func (q *Bool) required() int { return len(q.Must) + len(q.Filter) }

func (q *Bool) eval(e *evalCtx, within, dst *roaring.Bitmap) error {
	nShould := 0
	// A bool of must_not clauses only (or none) ignores
	// minimum_should_match, as on Elasticsearch and OpenSearch (they rewrite
	// it to match_all minus the must_not clauses).
	if q.MinimumShouldMatch != "" && (len(q.Should) > 0 || q.required() > 0) {
		n, err := minShouldMatch(len(q.Should), q.MinimumShouldMatch)
		if err != nil {
			return err
		}
		nShould = n
	} else if q.required() == 0 && len(q.Should) > 0 {
		nShould = 1
	}
	if q.required() == 0 && len(q.Should) > 0 && nShould == 0 {
		nShould = 1
	}
	if nShould > len(q.Should) {
		dst.Clear()
		return nil
	}
	switch {
	case q.required() > 0:
		if err := q.conjunction(e, within, dst); err != nil {
			return err
		}
	case nShould == 0:
		e.all(dst)
	}
	if nShould > 0 && (q.required() == 0 || !dst.IsEmpty()) {
		if err := q.should(e, nShould, within, dst); err != nil {
			return err
		}
	}
	if len(q.MustNot) > 0 && !dst.IsEmpty() {
		s := e.get()
		defer e.put(s)
		for _, c := range q.MustNot {
			if _, direct := c.cost(e); direct != nil {
				dst.AndNot(direct)
			} else if err := c.eval(e, dst, s); err != nil {
				return err
			} else {
				dst.AndNot(s)
			}
			if dst.IsEmpty() {
				break
			}
		}
	}
	return nil
}

// conjunction sets dst to the AND of Must and Filter, cheapest clause first,
// narrowing later clauses to the docs left and stopping when none are.
func (q *Bool) conjunction(e *evalCtx, within, dst *roaring.Bitmap) error {
	ords := e.getOrds()
	defer func() { e.putOrds(ords) }()
	for _, qs := range [...][]Query{q.Must, q.Filter} {
		for _, c := range qs {
			n, d := c.cost(e)
			ords = append(ords, fltOrder{q: c, n: n, direct: d})
		}
	}
	// Insertion sort: few clauses, and sort.Slice would allocate.
	for i := 1; i < len(ords); i++ {
		for j := i; j > 0 && ords[j].n < ords[j-1].n; j-- {
			ords[j], ords[j-1] = ords[j-1], ords[j]
		}
	}
	if ords[0].n == 0 {
		// The cheapest estimate is exact for 0 (no posting, empty range).
		dst.Clear()
		return nil
	}
	if ords[0].direct != nil {
		dst.Clear()
		dst.Or(ords[0].direct)
	} else if err := ords[0].q.eval(e, within, dst); err != nil {
		return err
	}
	var s *roaring.Bitmap
	for _, o := range ords[1:] {
		if dst.IsEmpty() {
			break
		}
		if o.direct != nil {
			dst.And(o.direct)
			continue
		}
		if s == nil {
			s = e.get()
			defer e.put(s)
		}
		if err := o.q.eval(e, dst, s); err != nil {
			return err
		}
		dst.And(s)
	}
	return nil
}

// should applies the should clauses with at least n of them required. When
// the bool has must/filter clauses dst holds their result and is narrowed;
// otherwise dst is set to the docs matching at least n should clauses.
func (q *Bool) should(e *evalCtx, n int, within, dst *roaring.Bitmap) error {
	narrow := q.required() > 0
	if narrow {
		within = dst
	}
	// atLeast[k] holds the docs matching at least k+1 should clauses so far.
	s := e.get()
	defer e.put(s)
	atLeast := make([]*roaring.Bitmap, 0, 4)
	for range n {
		atLeast = append(atLeast, e.get())
	}
	defer func() {
		for _, b := range atLeast {
			e.put(b)
		}
	}()
	tmp := e.get()
	defer e.put(tmp)
	for _, c := range q.Should {
		if err := c.eval(e, within, s); err != nil {
			return err
		}
		for k := n - 1; k >= 1; k-- {
			tmp.Clear()
			tmp.Or(atLeast[k-1])
			tmp.And(s)
			atLeast[k].Or(tmp)
		}
		atLeast[0].Or(s)
	}
	if narrow {
		dst.And(atLeast[n-1])
	} else {
		dst.Clear()
		dst.Or(atLeast[n-1])
	}
	return nil
}

func (q *Bool) cost(e *evalCtx) (uint64, *roaring.Bitmap) {
	if q.required() > 0 {
		best := uint64(e.idx.NumDocs())
		for _, qs := range [...][]Query{q.Must, q.Filter} {
			for _, c := range qs {
				n, _ := c.cost(e)
				best = min(best, n)
			}
		}
		return best, nil
	}
	if len(q.Should) > 0 {
		var sum uint64
		for _, c := range q.Should {
			n, _ := c.cost(e)
			sum += n
		}
		return min(sum, uint64(e.idx.NumDocs())), nil
	}
	return uint64(e.idx.NumDocs()), nil
}

func parseBool(p *parser, path string, body any) (Query, error) {
	obj, ok := body.(map[string]any)
	if !ok {
		return nil, errAt(path, "expected an object, got %s", jsonKind(body))
	}
	q := &Bool{}
	for k, v := range obj {
		var dst *[]Query
		switch k {
		case "must":
			dst = &q.Must
		case "filter":
			dst = &q.Filter
		case "should":
			dst = &q.Should
		case "must_not":
			dst = &q.MustNot
		case "minimum_should_match":
			switch x := v.(type) {
			case json.Number:
				if _, err := strconv.Atoi(x.String()); err != nil {
					return nil, errAt(path+"."+k, "expected an integer or a percentage, got %s", x.String())
				}
				q.MinimumShouldMatch = x.String()
			case string:
				q.MinimumShouldMatch = strings.TrimSpace(x)
			default:
				return nil, errAt(path+"."+k, "expected an integer or a percentage, got %s", jsonKind(v))
			}
			if _, err := minShouldMatch(0, q.MinimumShouldMatch); err != nil {
				return nil, err
			}
			if n, err := strconv.Atoi(q.MinimumShouldMatch); err == nil {
				q.MinimumShouldMatch = strconv.Itoa(n)
			}
			continue
		case "boost":
			if err := checkBoost(path+".boost", v); err != nil {
				return nil, err
			}
			continue
		case "_name", "adjust_pure_negative":
			continue
		default:
			return nil, errAt(path, "unknown occurrence %q", k)
		}
		sub := path + "." + k
		switch x := v.(type) {
		case []any:
			for i, c := range x {
				cq, err := p.clause(sub+"["+strconv.Itoa(i)+"]", c)
				if err != nil {
					return nil, err
				}
				*dst = append(*dst, cq)
			}
		default:
			cq, err := p.clause(sub, x)
			if err != nil {
				return nil, err
			}
			*dst = append(*dst, cq)
		}
	}
	return q, nil
}
