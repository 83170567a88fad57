package vector

import (
	"errors"
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

// clustered returns n unit vectors of dims dimensions drawn from a mixture
// of clusters Gaussian blobs around random unit centres (spread sigma per
// dimension), the shape of real sentence embeddings at small scale.
func clustered(seed uint64, n, dims, clusters int, sigma float64) [][]float32 {
	r := rand.New(rand.NewPCG(seed, 7))
	centres := make([][]float64, clusters)
	for c := range centres {
		v := make([]float64, dims)
		for d := range v {
			v[d] = r.NormFloat64()
		}
		centres[c] = v
	}
	out := make([][]float32, n)
	for i := range out {
		c := centres[r.IntN(clusters)]
		v := make([]float32, dims)
		var norm float64
		for d := range v {
			f := c[d]/math.Sqrt(float64(dims)) + sigma*r.NormFloat64()
			v[d] = float32(f)
			norm += f * f
		}
		for d := range v {
			v[d] /= float32(math.Sqrt(norm))
		}
		out[i] = v
	}
	return out
}

func buildIndex(t testing.TB, vs [][]float32, opts Options) *Index {
	t.Helper()
	b := NewBuilder(len(vs[0]))
	for i, v := range vs {
		b.Add(uint32(i), v)
	}
	x, err := b.Build(opts)
	if err != nil {
		t.Fatal(err)
	}
	return x
}

// exact returns the exact top k of q among vs (allow nil = all) by float64
// dot products, ties by id.
func exact(vs [][]float32, q []float32, k int, allow func(int) bool) []Result {
	var all []Result
	for i, v := range vs {
		if allow != nil && !allow(i) {
			continue
		}
		var s float64
		for d := range v {
			s += float64(v[d]) * float64(q[d])
		}
		all = append(all, Result{uint32(i), float32(s)})
	}
	slices.SortFunc(all, func(a, b Result) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return int(a.ID) - int(b.ID)
	})
	return all[:min(k, len(all))]
}

// recall returns |got ∩ want| / |want|.
func recall(got, want []Result) float64 {
	if len(want) == 0 {
		return 1
	}
	hit := 0
	for _, w := range want {
		for _, g := range got {
			if g.ID == w.ID {
				hit++
				break
			}
		}
	}
	return float64(hit) / float64(len(want))
}

func checkSorted(t *testing.T, res []Result) {
	t.Helper()
	for i := 1; i < len(res); i++ {
		if worse(res[i-1], res[i]) {
			t.Fatalf("results not sorted at %d: %v", i, res)
		}
	}
}

func TestRecallSynthetic(t *testing.T) {
	const n, dims, k = 30000, 128, 10
	vs := clustered(1, n+200, dims, 1000, 0.085)
	queries, vs := vs[n:], vs[:n]
	x := buildIndex(t, vs, Options{Seed: 1})
	if x.NList() == 0 {
		t.Fatalf("index of %d vectors has no IVF", n)
	}
	var sum float64
	var dst []Result
	for _, q := range queries {
		dst = x.Search(q, k, 0, nil, dst)
		checkSorted(t, dst)
		sum += recall(dst, exact(vs, q, k, nil))
	}
	r := sum / float64(len(queries))
	t.Logf("nlist %d nprobe %d: recall@10 %.4f", x.NList(), x.Options().NProbe, r)
	if r < 0.95 {
		t.Errorf("recall@10 = %.4f at default nprobe %d, want ≥ 0.95", r, x.Options().NProbe)
	}
	// Scanning every list leaves only quantization error, which the
	// float32 re-ranking removes.
	sum = 0
	for _, q := range queries[:50] {
		dst = x.Search(q, k, x.NList(), nil, dst)
		sum += recall(dst, exact(vs, q, k, nil))
	}
	if r := sum / 50; r < 0.995 {
		t.Errorf("recall@10 = %.4f probing all lists, want ≥ 0.995", r)
	}
}

func TestExactSmall(t *testing.T) {
	tests := []struct {
		name string
		n, k int
	}{
		{"one", 1, 10},
		{"k of n", 50, 50},
		{"few", 100, 10},
		{"below threshold", 3000, 20},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vs := clustered(2, tt.n+5, 64, 10, 0.1)
			queries, vs := vs[tt.n:], vs[:tt.n]
			x := buildIndex(t, vs, Options{})
			if x.NList() != 0 || x.Len() != tt.n || x.Dims() != 64 {
				t.Fatalf("nlist %d len %d dims %d", x.NList(), x.Len(), x.Dims())
			}
			for _, q := range queries {
				got := x.Search(q, tt.k, 0, nil, nil)
				want := exact(vs, q, tt.k, nil)
				if len(got) != len(want) {
					t.Fatalf("got %d results, want %d", len(got), len(want))
				}
				for i := range got {
					if got[i].ID != want[i].ID || math.Abs(float64(got[i].Score-want[i].Score)) > 1e-5 {
						t.Fatalf("result %d: got %v, want %v", i, got[i], want[i])
					}
				}
			}
		})
	}
}

func TestSearchFiltered(t *testing.T) {
	const n, dims, k = 20000, 64, 10
	vs := clustered(3, n+30, dims, 200, 0.08)
	queries, vs := vs[n:], vs[:n]
	x := buildIndex(t, vs, Options{Seed: 3})
	tests := []struct {
		name  string
		allow func(i int) bool
		floor float64
	}{
		{"none", func(int) bool { return false }, 1},
		{"one", func(i int) bool { return i == 777 }, 1},
		{"tiny exact", func(i int) bool { return i%97 == 0 }, 1},
		{"tenth", func(i int) bool { return i%10 == 3 }, 0.95},
		{"half", func(i int) bool { return i%2 == 0 }, 0.95},
		{"first half", func(i int) bool { return i < n/2 }, 0.95},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			bm := roaring.New()
			for i := range n {
				if tt.allow(i) {
					bm.Add(uint32(i))
				}
			}
			var sum, sumFn float64
			for _, q := range queries {
				want := exact(vs, q, k, tt.allow)
				got := x.Search(q, k, 0, bm, nil)
				checkSorted(t, got)
				for _, r := range got {
					if !tt.allow(int(r.ID)) {
						t.Fatalf("result %d not allowed", r.ID)
					}
				}
				sum += recall(got, want)
				gotFn := x.SearchFunc(q, k, x.NList(), func(id uint32) bool { return tt.allow(int(id)) }, nil)
				sumFn += recall(gotFn, want)
			}
			if r := sum / float64(len(queries)); r < tt.floor {
				t.Errorf("Search recall@10 = %.4f, want ≥ %.2f", r, tt.floor)
			}
			if r := sumFn / float64(len(queries)); r < 0.99 {
				t.Errorf("SearchFunc recall@10 probing all lists = %.4f, want ≥ 0.99", r)
			}
		})
	}
}

func TestSearchEdges(t *testing.T) {
	vs := clustered(4, 5000, 32, 20, 0.1)
	x := buildIndex(t, vs, Options{})
	q := vs[0]
	if got := x.Search(q, 0, 0, nil, nil); len(got) != 0 {
		t.Errorf("k=0: %v", got)
	}
	if got := x.Search(q[:5], 10, 0, nil, nil); len(got) != 0 {
		t.Errorf("wrong dims: %v", got)
	}
	if got := x.Search(q, 10, 0, roaring.BitmapOf(1e6), nil); len(got) != 0 {
		t.Errorf("allow beyond ids: %v", got)
	}
	got := x.Search(q, 10, -3, nil, nil)
	if len(got) != 10 || got[0].ID != 0 {
		t.Errorf("self query: %v", got)
	}
	empty, err := NewBuilder(32).Build(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := empty.Search(q, 10, 0, nil, nil); empty.Len() != 0 || len(got) != 0 {
		t.Errorf("empty index: %v", got)
	}
}

func TestBuildErrors(t *testing.T) {
	tests := []struct {
		name string
		ids  []uint32
		opts Options
		want error
	}{
		{"duplicate", []uint32{0, 0}, Options{}, ErrInvalidInput},
		{"gap", []uint32{0, 2}, Options{}, ErrInvalidInput},
		{"negative option", []uint32{0}, Options{NProbe: -1}, ErrInvalidOptions},
	}
	for _, tt := range tests {
		b := NewBuilder(2)
		for _, id := range tt.ids {
			b.Add(id, []float32{1, 0})
		}
		if _, err := b.Build(tt.opts); !errors.Is(err, tt.want) {
			t.Errorf("%s: err %v, want %v", tt.name, err, tt.want)
		}
	}
}

func TestDeterministicBuild(t *testing.T) {
	vs := clustered(5, 6000, 32, 30, 0.1)
	a := buildIndex(t, vs, Options{Seed: 9}).AppendBinary(nil)
	b := buildIndex(t, vs, Options{Seed: 9}).AppendBinary(nil)
	if !slices.Equal(a, b) {
		t.Error("two builds with the same seed differ")
	}
}

func TestConcurrentSearch(t *testing.T) {
	vs := clustered(12, 6000, 32, 40, 0.1)
	x := buildIndex(t, vs, Options{})
	allow := roaring.New()
	allow.AddRange(0, 3000)
	want := make([][]Result, 64)
	for i := range want {
		want[i] = x.Search(vs[i], 10, 0, allow, nil)
	}
	errs := make(chan string, 4)
	for g := range 4 {
		go func() {
			var dst []Result
			for r := range 20 {
				i := (g*20 + r) % len(want)
				dst = x.Search(vs[i], 10, 0, allow, dst)
				if !slices.Equal(dst, want[i]) {
					errs <- "concurrent search differs"
					return
				}
			}
			errs <- ""
		}()
	}
	for range 4 {
		if e := <-errs; e != "" {
			t.Fatal(e)
		}
	}
}

// TestSearchReusesNoResults runs every kind of search after every other on
// one index, so that each reuses the pooled scratch of the one before, and
// checks each against exact search: a search must never return results of
// a previous one (an empty allowed set once returned the previous heap).
func TestSearchReusesNoResults(t *testing.T) {
	for _, size := range []struct {
		name string
		n    int
	}{{"exact index", 500}, {"ivf index", 6000}} {
		t.Run(size.name, func(t *testing.T) {
			const dims, k = 32, 10
			vs := clustered(5, size.n+4, dims, 40, 0.1)
			queries, vs := vs[size.n:], vs[:size.n]
			x := buildIndex(t, vs, Options{Seed: 5})
			allows := []struct {
				name  string
				allow func(i int) bool // nil: unfiltered
			}{
				{"unfiltered", nil},
				{"empty", func(int) bool { return false }},
				{"beyond ids", func(int) bool { return false }},
				{"one", func(i int) bool { return i == 7 }},
				{"half", func(i int) bool { return i%2 == 1 }},
			}
			bitmap := func(j int) *roaring.Bitmap {
				a := allows[j]
				switch {
				case a.allow == nil:
					return nil
				case a.name == "beyond ids":
					return roaring.BitmapOf(uint32(size.n + 10))
				}
				bm := roaring.New()
				for i := range size.n {
					if a.allow(i) {
						bm.Add(uint32(i))
					}
				}
				return bm
			}
			for _, q := range queries {
				for prev := range allows {
					for next := range allows {
						x.Search(q, k, 0, bitmap(prev), nil)
						got := x.Search(q, k, 0, bitmap(next), nil)
						want := exact(vs, q, k, allows[next].allow)
						for _, r := range got {
							if f := allows[next].allow; f != nil && !f(int(r.ID)) {
								t.Fatalf("%s after %s: result %d not allowed", allows[next].name, allows[prev].name, r.ID)
							}
						}
						if len(want) == 0 && len(got) != 0 {
							t.Fatalf("%s after %s: %d results, want none", allows[next].name, allows[prev].name, len(got))
						}
						if len(got) > k {
							t.Fatalf("%s after %s: %d results > k", allows[next].name, allows[prev].name, len(got))
						}
						var fn func(uint32) bool
						if f := allows[next].allow; f != nil {
							fn = func(id uint32) bool { return f(int(id)) }
						}
						gotFn := x.SearchFunc(q, k, 0, fn, nil)
						for _, r := range gotFn {
							if f := allows[next].allow; f != nil && !f(int(r.ID)) {
								t.Fatalf("SearchFunc %s after %s: result %d not allowed", allows[next].name, allows[prev].name, r.ID)
							}
						}
					}
				}
			}
		})
	}
}

func TestDefaultProbes(t *testing.T) {
	for _, c := range []struct{ nprobe, k, want int }{
		{40, 1, 40}, {40, 10, 40}, {40, 100, 40}, {40, 101, 41}, {40, 300, 60}, {40, 900, 80}, {16, 300, 24},
	} {
		if got := DefaultProbes(c.nprobe, c.k); got != c.want {
			t.Errorf("DefaultProbes(%d, %d) = %d, want %d", c.nprobe, c.k, got, c.want)
		}
	}
}

func TestFilterProbes(t *testing.T) {
	for _, c := range []struct {
		nprobe int
		frac   float64
		want   int
	}{
		{40, 1, 40}, {40, 0, 40}, {40, 0.5, 53}, {40, 0.01, 124}, {40, 0.2, 70}, {40, 0.05, 95}, {188, 0.2, 326},
	} {
		if got := filterProbes(c.nprobe, c.frac); got != c.want {
			t.Errorf("filterProbes(%d, %v) = %d, want %d", c.nprobe, c.frac, got, c.want)
		}
	}
}

// TestFilteredProbesStayIVF checks that a filter allowing 20 % of the
// vectors, at a hybrid search's k 300, scans the lists filterProbes names
// instead of falling back to scoring every allowed vector (as scaling the
// lists by n/allowed did: more bytes than the allowed vectors' float32),
// and that its recall@300 stays within 0.01 of the unfiltered search's.
func TestFilteredProbesStayIVF(t *testing.T) {
	const n, dims, k = 20000, 64, 300
	vs := clustered(31, n+20, dims, 200, 0.08)
	queries, vs := vs[n:], vs[:n]
	x := buildIndex(t, vs, Options{Seed: 5})
	allowed := func(i int) bool { return i%5 == 2 }
	bm := roaring.New()
	for i := range n {
		if allowed(i) {
			bm.Add(uint32(i))
		}
	}
	card := bm.GetCardinality()
	np := x.probes(0, k, card)
	if want := min(filterProbes(DefaultProbes(x.Options().NProbe, k), 0.2), x.NList()); np != want {
		t.Fatalf("lists of a 20 %% filter at k %d = %d, want %d", k, np, want)
	}
	if x.exactCheaper(card, np) {
		t.Fatalf("a 20 %% filter at k %d scores every allowed vector (%d lists of %d)", k, np, x.NList())
	}
	var filtered, unfiltered float64
	for _, q := range queries {
		filtered += recall(x.Search(q, k, 0, bm, nil), exact(vs, q, k, allowed))
		unfiltered += recall(x.Search(q, k, 0, nil, nil), exact(vs, q, k, nil))
	}
	filtered /= float64(len(queries))
	unfiltered /= float64(len(queries))
	if filtered < unfiltered-0.01 {
		t.Errorf("recall@%d with a 20 %% filter %.4f, unfiltered %.4f", k, filtered, unfiltered)
	}
	t.Logf("recall@%d: filtered %.4f (%d lists), unfiltered %.4f", k, filtered, np, unfiltered)
}

// TestSearchLargeKScalesProbes checks that a search for many results with
// the default nprobe scans the lists DefaultProbes names: it returns what an
// explicit nprobe of that many lists returns, and recall@300 beats the
// unscaled default's.
func TestSearchLargeKScalesProbes(t *testing.T) {
	vs := clustered(21, 12_000, 32, 150, 0.08)
	x := buildIndex(t, vs, Options{Seed: 1})
	queries := clustered(22, 40, 32, 150, 0.08)
	const k = 300
	np := DefaultProbes(x.Options().NProbe, k)
	if np <= x.Options().NProbe || np > x.NList() {
		t.Fatalf("DefaultProbes(%d, %d) = %d with %d lists", x.Options().NProbe, k, np, x.NList())
	}
	var scaled, unscaled float64
	for _, q := range queries {
		got := x.Search(q, k, 0, nil, nil)
		if want := x.Search(q, k, np, nil, nil); !slices.Equal(got, want) {
			t.Fatalf("default nprobe at k %d differs from nprobe %d", k, np)
		}
		truth := exact(vs, q, k, nil)
		scaled += recall(got, truth)
		unscaled += recall(x.Search(q, k, x.Options().NProbe, nil, nil), truth)
	}
	if scaled <= unscaled {
		t.Fatalf("recall@%d with scaled probes %.3f, unscaled %.3f", k, scaled/40, unscaled/40)
	}
	t.Logf("recall@%d: scaled nprobe %d %.3f, unscaled %d %.3f", k, np, scaled/40, x.Options().NProbe, unscaled/40)
}
