package filter_test

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
	"github.com/najdi/najdi/filter"
	"github.com/najdi/najdi/invindex"
)

// benchIndex builds n docs: brand (50 values), color (10), stock (2),
// price uniform in [0, 1000).
func benchIndex(n int) *invindex.FieldIndex {
	r := rand.New(rand.NewPCG(7, 7))
	b := invindex.NewFieldBuilder()
	for d := range uint32(n) {
		b.AddString(d, "brand", fmt.Sprintf("brand%02d", r.IntN(50)))
		b.AddString(d, "color", fmt.Sprintf("color%d", r.IntN(10)))
		b.AddString(d, "stock", []string{"yes", "no"}[r.IntN(2)])
		b.AddNumber(d, "price", float64(r.IntN(100000))/100)
	}
	return b.Build(uint32(n))
}

var benchSink uint64

// benchEval runs the sub-benchmark name: evaluating the filter query on idx.
func benchEval(b *testing.B, name, query string, idx *invindex.FieldIndex) {
	q, err := filter.Parse([]byte(query))
	if err != nil {
		b.Fatal(err)
	}
	dst := roaring.New()
	b.Run(name, func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if err := filter.Eval(q, idx, dst); err != nil {
				b.Fatal(err)
			}
		}
		benchSink += dst.GetCardinality()
	})
}

func BenchmarkEval(b *testing.B) {
	idx := benchIndex(1_000_000)
	for _, c := range []struct{ name, q string }{
		{"term", `{"term":{"brand":"brand07"}}`},
		{"bool3terms+range", `{"bool":{"filter":[{"term":{"brand":"brand07"}},{"term":{"color":"color3"}},{"term":{"stock":"yes"}},{"range":{"price":{"gte":100,"lt":500}}}]}}`},
		{"range-wide", `{"range":{"price":{"gte":100,"lt":900}}}`},
		{"range-narrow", `{"range":{"price":{"gte":100,"lt":101}}}`},
		{"should3", `{"bool":{"should":[{"term":{"brand":"brand01"}},{"term":{"brand":"brand02"}},{"term":{"color":"color1"}}]}}`},
		{"must_not", `{"bool":{"must":{"term":{"color":"color3"}},"must_not":{"term":{"stock":"no"}}}}`},
	} {
		benchEval(b, c.name, c.q, idx)
	}
}

func BenchmarkRegexp(b *testing.B) {
	r := rand.New(rand.NewPCG(9, 9))
	fb := invindex.NewFieldBuilder()
	const terms = 100_000
	for d := range uint32(terms) {
		fb.AddString(d, "sku", fmt.Sprintf("%c%c-%06d", 'a'+r.IntN(26), 'a'+r.IntN(26), r.IntN(1_000_000)))
	}
	idx := fb.Build(terms)
	for _, c := range []struct{ name, pattern string }{
		{"prefix", `ab-.*`},
		{"class", `[a-c][x-z]-0.*`},
		{"contains", `.*123.*`},
		{"interval", `.*-<1000-1999>`},
		{"complement", `~(.*[0-8])`},
	} {
		benchEval(b, c.name, fmt.Sprintf(`{"regexp":{"sku":%q}}`, c.pattern), idx)
	}
}
