package filter

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// refRec is one random record for the reference evaluator.
type refRec struct {
	strs map[string][]string
	nums map[string][]float64
}

// refQuery is a random filter: its JSON and an independent predicate.
type refQuery struct {
	json  string
	match func(r refRec) bool
}

// diffKids maps the JSON of a generated bool to its children, for shrinking.
var diffKids = map[string][]refQuery{}

var (
	diffWords  = []string{"a", "ab", "abc", "b", "ba", "Ab", "AB", "c1", "c10", "c2", "x.y", "", "ňa", "Ňa"}
	diffNums   = []float64{-1, 0, 0.5, 1, 2, 2.5, 10, 100}
	diffSchema = SchemaMap{"e1": FieldEnum, "e2": FieldEnumText, "n1": FieldNumber, "n2": FieldNumber}
)

type diffGen struct{ r *rand.Rand }

func q(s string) string {
	var b strings.Builder
	quoteJSON(&b, s)
	return b.String()
}

func (g *diffGen) strField() string { return []string{"e1", "e2"}[g.r.IntN(2)] }
func (g *diffGen) numField() string { return []string{"n1", "n2"}[g.r.IntN(2)] }
func (g *diffGen) word() string     { return diffWords[g.r.IntN(len(diffWords))] }
func (g *diffGen) num() float64     { return diffNums[g.r.IntN(len(diffNums))] }

func anyStr(vs []string, f func(string) bool) bool   { return slices.ContainsFunc(vs, f) }
func anyNum(vs []float64, f func(float64) bool) bool { return slices.ContainsFunc(vs, f) }

func (g *diffGen) leaf() refQuery {
	switch g.r.IntN(9) {
	case 0:
		f, w := g.strField(), g.word()
		if g.r.IntN(3) == 0 {
			return refQuery{fmt.Sprintf(`{"term":{%s:{"value":%s,"case_insensitive":true}}}`, q(f), q(w)),
				func(r refRec) bool { return anyStr(r.strs[f], func(s string) bool { return strings.EqualFold(s, w) }) }}
		}
		return refQuery{fmt.Sprintf(`{"term":{%s:%s}}`, q(f), q(w)),
			func(r refRec) bool { return slices.Contains(r.strs[f], w) }}
	case 1:
		f, v := g.numField(), g.num()
		return refQuery{fmt.Sprintf(`{"term":{%s:%v}}`, q(f), v),
			func(r refRec) bool { return slices.Contains(r.nums[f], v) }}
	case 2:
		f := g.strField()
		var ws []string
		for range g.r.IntN(4) {
			ws = append(ws, g.word())
		}
		qs := make([]string, len(ws))
		for i, w := range ws {
			qs[i] = q(w)
		}
		return refQuery{fmt.Sprintf(`{"terms":{%s:[%s]}}`, q(f), strings.Join(qs, ",")),
			func(r refRec) bool { return anyStr(r.strs[f], func(s string) bool { return slices.Contains(ws, s) }) }}
	case 3, 4:
		f := g.numField()
		var ops []string
		var preds []func(float64) bool
		if g.r.IntN(2) == 0 {
			v := g.num()
			if g.r.IntN(2) == 0 {
				ops, preds = append(ops, fmt.Sprintf(`"gt":%v`, v)), append(preds, func(x float64) bool { return x > v })
			} else {
				ops, preds = append(ops, fmt.Sprintf(`"gte":%v`, v)), append(preds, func(x float64) bool { return x >= v })
			}
		}
		if g.r.IntN(2) == 0 {
			v := g.num()
			if g.r.IntN(2) == 0 {
				ops, preds = append(ops, fmt.Sprintf(`"lt":%v`, v)), append(preds, func(x float64) bool { return x < v })
			} else {
				ops, preds = append(ops, fmt.Sprintf(`"lte":%v`, v)), append(preds, func(x float64) bool { return x <= v })
			}
		}
		return refQuery{fmt.Sprintf(`{"range":{%s:{%s}}}`, q(f), strings.Join(ops, ",")),
			func(r refRec) bool {
				return anyNum(r.nums[f], func(x float64) bool {
					for _, p := range preds {
						if !p(x) {
							return false
						}
					}
					return true
				})
			}}
	case 5, 6:
		f := g.strField()
		luc, re2 := g.regex(2)
		ci := g.r.IntN(3) == 0
		flags := ""
		if ci {
			flags = "(?i)"
		}
		re := regexp.MustCompile(`^` + flags + `(?:` + re2 + `)$`)
		pred := func(s string) bool { return re.MatchString(s) }
		switch g.r.IntN(4) {
		case 0: // complement
			luc = "~(" + luc + ")"
			pred = func(s string) bool { return !re.MatchString(s) }
		case 1: // intersection with a second pattern
			luc2, re22 := g.regex(1)
			re2c := regexp.MustCompile(`^` + flags + `(?:` + re22 + `)$`)
			luc = "(" + luc + ")&(" + luc2 + ")"
			pred = func(s string) bool { return re.MatchString(s) && re2c.MatchString(s) }
		}
		return refQuery{fmt.Sprintf(`{"regexp":{%s:{"value":%s,"case_insensitive":%v}}}`, q(f), q(luc), ci),
			func(r refRec) bool { return anyStr(r.strs[f], pred) }}
	case 7:
		f := []string{"e1", "e2", "n1", "n2"}[g.r.IntN(4)]
		return refQuery{fmt.Sprintf(`{"exists":{"field":%s}}`, q(f)),
			func(r refRec) bool { return len(r.strs[f])+len(r.nums[f]) > 0 }}
	default:
		f, w := g.strField(), g.word()
		if rs := []rune(w); len(rs) > 1 {
			w = string(rs[:1])
		}
		lw := strings.ToLower(w)
		return refQuery{fmt.Sprintf(`{"contains":{%s:%s}}`, q(f), q(w)),
			func(r refRec) bool {
				return anyStr(r.strs[f], func(s string) bool { return strings.Contains(strings.ToLower(s), lw) })
			}}
	}
}

// regex returns an equivalent pair of Lucene and RE2 patterns.
func (g *diffGen) regex(depth int) (string, string) {
	n := 1 + g.r.IntN(3)
	var luc, re2 strings.Builder
	for range n {
		var l, r string
		switch k := g.r.IntN(8); {
		case k < 3:
			c := "abcAx1"[g.r.IntN(6)]
			l, r = string(c), string(c)
		case k == 3:
			l, r = `\.`, `\.`
		case k == 4:
			l, r = ".", "."
		case k == 5:
			l, r = "[ab]", "[ab]"
			if g.r.IntN(2) == 0 {
				l, r = "[^a]", "[^a]"
			}
		default:
			if depth > 0 {
				l1, r1 := g.regex(depth - 1)
				l2, r2 := g.regex(depth - 1)
				l, r = "("+l1+"|"+l2+")", "(?:"+r1+"|"+r2+")"
			} else {
				l, r = "c", "c"
			}
		}
		switch g.r.IntN(7) {
		case 0:
			l, r = l+"*", r+"*"
		case 1:
			l, r = l+"+", r+"+"
		case 2:
			l, r = l+"?", r+"?"
		case 3:
			lo := g.r.IntN(2)
			hi := lo + g.r.IntN(2)
			l, r = fmt.Sprintf("%s{%d,%d}", l, lo, hi), fmt.Sprintf("(?:%s){%d,%d}", r, lo, hi)
		}
		luc.WriteString(l)
		re2.WriteString(r)
	}
	return luc.String(), re2.String()
}

func (g *diffGen) query(depth int) refQuery {
	if depth == 0 || g.r.IntN(3) == 0 {
		if g.r.IntN(20) == 0 {
			return refQuery{`{"match_all":{}}`, func(refRec) bool { return true }}
		}
		return g.leaf()
	}
	occ := [4][]refQuery{}
	var parts []string
	for i, name := range []string{"must", "filter", "should", "must_not"} {
		for range g.r.IntN(3) {
			occ[i] = append(occ[i], g.query(depth-1))
		}
		if len(occ[i]) == 1 && g.r.IntN(2) == 0 {
			parts = append(parts, fmt.Sprintf("%q:%s", name, occ[i][0].json))
			continue
		}
		js := make([]string, len(occ[i]))
		for j, c := range occ[i] {
			js[j] = c.json
		}
		parts = append(parts, fmt.Sprintf("%q:[%s]", name, strings.Join(js, ",")))
	}
	msmJSON := ""
	var msm func(n int) int
	switch g.r.IntN(6) {
	case 0:
		k := g.r.IntN(6) - 2
		msmJSON = strconv.Itoa(k)
		msm = func(n int) int {
			if k < 0 {
				return max(n+k, 0)
			}
			return k
		}
	case 1:
		msmJSON = `"50%"`
		msm = func(n int) int { return n * 50 / 100 }
	case 2:
		msmJSON = `"-30%"`
		msm = func(n int) int { return n - n*30/100 } // truncation toward zero
	}
	if msmJSON != "" {
		parts = append(parts, `"minimum_should_match":`+msmJSON)
	}
	g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	json := `{"bool":{` + strings.Join(parts, ",") + `}}`
	var kids []refQuery
	for _, o := range occ {
		kids = append(kids, o...)
	}
	diffKids[json] = kids
	return refQuery{json, func(r refRec) bool {
		for _, c := range append(slices.Clone(occ[0]), occ[1]...) {
			if !c.match(r) {
				return false
			}
		}
		for _, c := range occ[3] {
			if c.match(r) {
				return false
			}
		}
		required := len(occ[0]) + len(occ[1])
		need := 0
		if msm != nil && len(occ[0])+len(occ[1])+len(occ[2]) > 0 {
			need = msm(len(occ[2]))
		}
		if required == 0 && len(occ[2]) > 0 {
			need = max(need, 1)
		}
		if need > len(occ[2]) {
			return false
		}
		got := 0
		for _, c := range occ[2] {
			if c.match(r) {
				got++
			}
		}
		return got >= need
	}}
}

func TestDifferential(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	g := &diffGen{r: r}
	const numDocs = 300
	recs := make([]refRec, numDocs)
	idx := newMemIndex(numDocs)
	idx.restrict = true
	for d := range recs {
		rec := refRec{strs: map[string][]string{}, nums: map[string][]float64{}}
		for _, f := range []string{"e1", "e2"} {
			for range r.IntN(4) {
				w := g.word()
				if !slices.Contains(rec.strs[f], w) {
					rec.strs[f] = append(rec.strs[f], w)
					idx.addString(uint32(d), f, w)
				}
			}
		}
		for _, f := range []string{"n1", "n2"} {
			k := r.IntN(4)
			if f == "n2" {
				k = min(k, 1)
			}
			for range k {
				v := g.num()
				rec.nums[f] = append(rec.nums[f], v)
				idx.addNumber(uint32(d), f, v)
			}
		}
		recs[d] = rec
	}
	dst := roaring.New()
	nonTrivial := 0
	for i := range 600 {
		rq := g.query(1 + i%4)
		qy, err := Parse([]byte(rq.json))
		if err != nil {
			t.Fatalf("parse %s: %v", rq.json, err)
		}
		if err := qy.Validate(diffSchema); err != nil {
			t.Fatalf("validate %s: %v", rq.json, err)
		}
		q2, err := Parse([]byte(qy.String()))
		if err != nil || q2.String() != qy.String() {
			t.Fatalf("round trip of %s: %v", qy.String(), err)
		}
		for _, qq := range []Query{qy, q2} {
			if err := Eval(qq, idx, dst); err != nil {
				t.Fatalf("eval %s: %v", rq.json, err)
			}
			want := roaring.New()
			for d, rec := range recs {
				if rq.match(rec) {
					want.Add(uint32(d))
				}
			}
			if !dst.Equals(want) {
				m := diffMinimize(t, rq, idx, recs)
				t.Fatalf("filter %s\nminimal failing clause %s", rq.json, m)
			}
			if c := want.GetCardinality(); c > 0 && c < numDocs {
				nonTrivial++
			}
		}
	}
	// Guard against a generator that only yields empty or full results.
	if nonTrivial < 400 {
		t.Fatalf("only %d of 1200 evaluations had a non-trivial result", nonTrivial)
	}
}

// diffMinimize returns the deepest failing clause whose children all pass.
func diffMinimize(t *testing.T, rq refQuery, idx Index, recs []refRec) string {
	for _, k := range diffKids[rq.json] {
		if !diffAgrees(t, k, idx, recs) {
			return diffMinimize(t, k, idx, recs)
		}
	}
	qy, _ := Parse([]byte(rq.json))
	got := roaring.New()
	if err := Eval(qy, idx, got); err != nil {
		t.Fatal(err)
	}
	want := roaring.New()
	for d, rec := range recs {
		if rq.match(rec) {
			want.Add(uint32(d))
		}
	}
	return fmt.Sprintf("%s\ngot  %s\nwant %s", rq.json, formatIDs(got), formatIDs(want))
}

func diffAgrees(t *testing.T, rq refQuery, idx Index, recs []refRec) bool {
	qy, err := Parse([]byte(rq.json))
	if err != nil {
		t.Fatal(err)
	}
	got := roaring.New()
	if err := Eval(qy, idx, got); err != nil {
		t.Fatal(err)
	}
	for d, rec := range recs {
		if rq.match(rec) != got.Contains(uint32(d)) {
			return false
		}
	}
	return true
}
