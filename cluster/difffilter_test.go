package cluster

import (
	"fmt"
	"math/rand/v2"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/najdi/najdi/filter"
	"github.com/najdi/najdi/invindex"
)

// The filter differential test: random records and hundreds of random
// filters; najdi's embedded evaluator (package filter over an
// invindex.FieldIndex, what the engine runs) and each cluster must select
// exactly the same documents.

var (
	dfWords  = []string{"a", "ab", "abc", "b", "ba", "Ab", "AB", "c1", "c10", "c2", "x.y", "", "ňa", "Ňa", "čaj", "ČAJ", "a b"}
	dfNums   = []float64{-1, 0, 0.5, 1, 2, 2.5, 10, 100}
	dfSchema = filter.SchemaMap{"e1": filter.FieldEnum, "e2": filter.FieldEnumText, "n1": filter.FieldNumber, "n2": filter.FieldNumber}
)

// filterGen generates random filters of the whole supported DSL.
type filterGen struct{ r *rand.Rand }

func jq(s string) string { return strconv.Quote(s) } // JSON-safe for these words

func (g *filterGen) strField() string { return []string{"e1", "e2"}[g.r.IntN(2)] }
func (g *filterGen) numField() string { return []string{"n1", "n2"}[g.r.IntN(2)] }
func (g *filterGen) word() string     { return dfWords[g.r.IntN(len(dfWords))] }
func (g *filterGen) num() float64     { return dfNums[g.r.IntN(len(dfNums))] }

func (g *filterGen) leaf() string {
	switch g.r.IntN(11) {
	case 0:
		f, w := g.strField(), g.word()
		if g.r.IntN(3) == 0 {
			return fmt.Sprintf(`{"term":{%s:{"value":%s,"case_insensitive":true}}}`, jq(f), jq(w))
		}
		return fmt.Sprintf(`{"term":{%s:%s}}`, jq(f), jq(w))
	case 1:
		f, v := g.numField(), g.num()
		if g.r.IntN(4) == 0 {
			return fmt.Sprintf(`{"term":{%s:"%v"}}`, jq(f), v) // numeric string
		}
		return fmt.Sprintf(`{"term":{%s:%v}}`, jq(f), v)
	case 2:
		var ws []string
		for range g.r.IntN(4) {
			ws = append(ws, jq(g.word()))
		}
		return fmt.Sprintf(`{"terms":{%s:[%s]}}`, jq(g.strField()), strings.Join(ws, ","))
	case 3:
		var vs []string
		for range 1 + g.r.IntN(3) {
			vs = append(vs, fmt.Sprint(g.num()))
		}
		return fmt.Sprintf(`{"terms":{%s:[%s]}}`, jq(g.numField()), strings.Join(vs, ","))
	case 4:
		var ops []string
		if g.r.IntN(2) == 0 {
			ops = append(ops, fmt.Sprintf(`%q:%v`, []string{"gt", "gte"}[g.r.IntN(2)], g.num()))
		}
		if g.r.IntN(2) == 0 || len(ops) == 0 {
			ops = append(ops, fmt.Sprintf(`%q:%v`, []string{"lt", "lte"}[g.r.IntN(2)], g.num()))
		}
		return fmt.Sprintf(`{"range":{%s:{%s}}}`, jq(g.numField()), strings.Join(ops, ","))
	case 5, 6:
		re := g.regex(2)
		switch g.r.IntN(4) {
		case 0:
			re = "~(" + re + ")"
		case 1:
			re = "(" + re + ")&(" + g.regex(1) + ")"
		}
		return fmt.Sprintf(`{"regexp":{%s:{"value":%s,"case_insensitive":%v}}}`, jq(g.strField()), jq(re), g.r.IntN(3) == 0)
	case 7:
		w := g.word()
		if rs := []rune(w); len(rs) > 2 {
			w = string(rs[:2])
		}
		return fmt.Sprintf(`{"prefix":{%s:{"value":%s,"case_insensitive":%v}}}`, jq(g.strField()), jq(w), g.r.IntN(2) == 0)
	case 8:
		f := []string{"e1", "e2", "n1", "n2"}[g.r.IntN(4)]
		return fmt.Sprintf(`{"exists":{"field":%s}}`, jq(f))
	case 9:
		if g.r.IntN(3) == 0 {
			return fmt.Sprintf(`{"contains":{%s:"%v"}}`, jq(g.numField()), g.num())
		}
		w := g.word()
		if rs := []rune(w); len(rs) > 1 {
			w = string(rs[g.r.IntN(len(rs))])
		}
		if w == "." {
			w = `\.`
		}
		return fmt.Sprintf(`{"contains":{%s:%s}}`, jq(g.strField()), jq(w))
	default:
		if g.r.IntN(2) == 0 {
			return `{"match_all":{}}`
		}
		return `{"match_none":{}}`
	}
}

// regex returns a random Lucene regular expression over the words' letters.
func (g *filterGen) regex(depth int) string {
	var b strings.Builder
	for range 1 + g.r.IntN(3) {
		var l string
		switch k := g.r.IntN(9); {
		case k < 3:
			l = string([]rune("abcAx1ňČ")[g.r.IntN(8)])
		case k == 3:
			l = `\.`
		case k == 4:
			l = "."
		case k == 5:
			l = []string{"[ab]", "[^a]", "[a-c]", "[ňč]"}[g.r.IntN(4)]
		case k == 6:
			l = `" "`
		default:
			if depth > 0 {
				l = "(" + g.regex(depth-1) + "|" + g.regex(depth-1) + ")"
			} else {
				l = "c"
			}
		}
		switch g.r.IntN(7) {
		case 0:
			l += "*"
		case 1:
			l += "+"
		case 2:
			l += "?"
		case 3:
			lo := g.r.IntN(2)
			l += fmt.Sprintf("{%d,%d}", lo, lo+g.r.IntN(2))
		}
		b.WriteString(l)
	}
	return b.String()
}

func (g *filterGen) query(depth int) string {
	if depth == 0 || g.r.IntN(3) == 0 {
		return g.leaf()
	}
	var parts []string
	for _, name := range []string{"must", "filter", "should", "must_not"} {
		var kids []string
		for range g.r.IntN(3) {
			kids = append(kids, g.query(depth-1))
		}
		if len(kids) == 1 && g.r.IntN(2) == 0 {
			parts = append(parts, fmt.Sprintf("%q:%s", name, kids[0]))
		} else if len(kids) > 0 || g.r.IntN(4) == 0 {
			parts = append(parts, fmt.Sprintf("%q:[%s]", name, strings.Join(kids, ",")))
		}
	}
	switch g.r.IntN(6) {
	case 0:
		parts = append(parts, `"minimum_should_match":`+strconv.Itoa(g.r.IntN(6)-2))
	case 1:
		parts = append(parts, `"minimum_should_match":"50%"`)
	case 2:
		parts = append(parts, `"minimum_should_match":"-30%"`)
	}
	g.r.Shuffle(len(parts), func(i, j int) { parts[i], parts[j] = parts[j], parts[i] })
	return `{"bool":{` + strings.Join(parts, ",") + `}}`
}

// dfRecords returns n random records as cluster documents and their
// embedded field index (document i is id fmt.Sprintf("%04d", i)).
func dfRecords(g *filterGen, n int) ([]Document, *invindex.FieldIndex) {
	b := invindex.NewFieldBuilder()
	docs := make([]Document, n)
	for d := range docs {
		fields := map[string][]any{}
		for _, f := range []string{"e1", "e2"} {
			var seen []string
			for range g.r.IntN(4) {
				w := g.word()
				if !slices.Contains(seen, w) {
					seen = append(seen, w)
					fields[f] = append(fields[f], w)
					b.AddString(uint32(d), f, w)
				}
			}
		}
		for _, f := range []string{"n1", "n2"} {
			k := g.r.IntN(4)
			if f == "n2" {
				k = min(k, 1)
			}
			for range k {
				v := g.num()
				fields[f] = append(fields[f], v)
				b.AddNumber(uint32(d), f, v)
			}
		}
		docs[d] = Document{ID: fmt.Sprintf("%04d", d), Fields: fields, Terms: map[string]float32{"x": 1}, Length: 1}
	}
	return docs, b.Build(uint32(n))
}

func TestFilterDifferential(t *testing.T) {
	const numDocs, numFilters = 300, 400
	forEachNode(t, func(t *testing.T, c *Client) {
		ctx := testCtx(t)
		seed := uint64(7)
		if v := os.Getenv("NAJDI_DIFF_SEED"); v != "" {
			seed, _ = strconv.ParseUint(v, 10, 64)
		}
		g := &filterGen{r: rand.New(rand.NewPCG(seed, 11))}
		docs, idx := dfRecords(g, numDocs)
		if err := c.CreateCollection(ctx, "diff", Schema{Fields: dfSchema}); err != nil {
			t.Fatal(err)
		}
		if failed, err := c.Ingest(ctx, "diff", docs); err != nil || len(failed) > 0 {
			t.Fatalf("ingest: %v %v", failed, err)
		}
		type result struct {
			js         string
			want, got  []string
			err        error
			nonTrivial bool
		}
		filters := make([]string, numFilters)
		for i := range filters {
			filters[i] = g.query(1 + i%4)
		}
		results := make([]result, numFilters)
		var wg sync.WaitGroup
		sem := make(chan struct{}, 4)
		for i, js := range filters {
			q, err := filter.Parse([]byte(js))
			if err == nil {
				err = q.Validate(dfSchema)
			}
			if err != nil {
				t.Fatalf("generated filter %s: %v", js, err)
			}
			bm := roaring.New()
			if err := filter.Eval(q, idx, bm); err != nil {
				t.Fatalf("embedded eval %s: %v", js, err)
			}
			want := []string{}
			for it := bm.Iterator(); it.HasNext(); {
				want = append(want, docs[it.Next()].ID)
			}
			results[i] = result{js: js, want: want, nonTrivial: len(want) > 0 && len(want) < numDocs}
			tr := Filter{Query: q, Schema: dfSchema}
			wg.Add(1)
			sem <- struct{}{}
			go func() {
				defer wg.Done()
				defer func() { <-sem }()
				got, err := c.FilterIDs(ctx, "diff", tr)
				results[i].got, results[i].err = got, err
				if got == nil {
					results[i].got = []string{}
				}
			}()
		}
		wg.Wait()
		nonTrivial, bad := 0, 0
		for _, r := range results {
			if r.nonTrivial {
				nonTrivial++
			}
			if r.err != nil {
				bad++
				t.Errorf("filter %s: %v", r.js, r.err)
				continue
			}
			if !slices.Equal(r.got, r.want) {
				bad++
				if bad <= 10 {
					t.Errorf("filter %s\n embedded %d docs, cluster %d docs; only embedded %v; only cluster %v",
						r.js, len(r.want), len(r.got), minus(r.want, r.got), minus(r.got, r.want))
				}
			}
		}
		if nonTrivial < numFilters/3 {
			t.Fatalf("only %d of %d filters had a non-trivial result", nonTrivial, numFilters)
		}
		t.Logf("%d random filters, %d with a non-trivial result, %d disagreements", numFilters, nonTrivial, bad)
	})
}

func minus(a, b []string) []string {
	var out []string
	for _, x := range a {
		if !slices.Contains(b, x) {
			out = append(out, x)
			if len(out) == 5 {
				out = append(out, "…")
				break
			}
		}
	}
	return out
}
