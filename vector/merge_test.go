package vector

import (
	"bytes"
	"fmt"
	"slices"
	"testing"
)

// mergeParts cuts vs into parts of the given sizes built with opts,
// deleting every delEvery-th vector of part 0 (0: none), and returns them
// with their remaps (survivors numbered in order) and the survivors.
func mergeParts(t testing.TB, vs [][]float32, sizes []int, delEvery int, opts Options) ([]*Index, [][]int32, [][]float32) {
	t.Helper()
	var parts []*Index
	var remap [][]int32
	var live [][]float32
	lo, next := 0, int32(0)
	for p, size := range sizes {
		parts = append(parts, buildIndex(t, vs[lo:lo+size], opts))
		r := make([]int32, size)
		for i := range r {
			if p == 0 && delEvery > 0 && i%delEvery == delEvery-1 {
				r[i] = -1
				continue
			}
			r[i] = next
			next++
			live = append(live, vs[lo+i])
		}
		remap = append(remap, r)
		lo += size
	}
	return parts, remap, live
}

// listsOf returns the lists each id of x is in, by id.
func listsOf(x *Index) [][]int {
	out := make([][]int, x.n)
	for l := range x.nlist {
		for _, id := range x.listIDs[x.listStart[l]:x.listStart[l+1]] {
			out[id] = append(out[id], l)
		}
	}
	return out
}

// TestMergeReusesBaseIVF: a merge in which one IVF part holds most
// survivors keeps its centroids and its survivors' lists, assigns the
// others like a build, quantizes every vector within its range, and
// loses no recall@10 on real vectors against a fresh build of the
// survivors (at the default nprobe).
func TestMergeReusesBaseIVF(t *testing.T) {
	corpus, queries := readRealFixture(t)
	opts := Options{Seed: 1, BruteForceBelow: 1000}
	// A large IVF part and four exact ones, as in the engine's tiered
	// merges; every 50th vector of the large part deleted.
	parts, remap, live := mergeParts(t, corpus, []int{3600, 225, 225, 225, 225}, 50, opts)
	m, err := Merge(parts, remap, opts)
	if err != nil {
		t.Fatal(err)
	}
	base := parts[0]
	if !slices.Equal(m.centroids, base.centroids) || m.NList() != base.NList() {
		t.Fatalf("merged index has %d lists, not the base part's %d centroids", m.NList(), base.NList())
	}
	if want := max(DefaultMinProbe, base.NList()/DefaultProbeDivisor); m.Options().NProbe != want {
		t.Errorf("merged nprobe %d, want %d for %d lists", m.Options().NProbe, want, m.NList())
	}
	baseLists, mLists := listsOf(base), listsOf(m)
	for old, nw := range remap[0] {
		if nw >= 0 && !slices.Equal(baseLists[old], mLists[nw]) {
			t.Fatalf("base vector %d (now %d) in lists %v, was in %v", old, nw, mLists[nw], baseLists[old])
		}
	}
	// The others are where a build would put them.
	f, s := assignLists(m.vecs, m.dims, m.centroids, true)
	for id := range live {
		if id < len(live)-900 {
			continue
		}
		want := []int{int(f[id])}
		if s[id] != f[id] {
			want = append(want, int(s[id]))
		}
		slices.Sort(want)
		if !slices.Equal(mLists[id], want) {
			t.Fatalf("vector %d of a small part in lists %v, want %v", id, mLists[id], want)
		}
	}
	checkQuantized(t, m)
	fresh := buildIndex(t, live, opts)
	var rm, rf float64
	for _, q := range queries {
		want := exact(live, q, 10, nil)
		rm += recall(m.Search(q, 10, 0, nil, nil), want)
		rf += recall(fresh.Search(q, 10, 0, nil, nil), want)
	}
	rm, rf = rm/float64(len(queries)), rf/float64(len(queries))
	t.Logf("recall@10 at the default nprobe: merged %.4f (nlist %d, nprobe %d), fresh build %.4f (nlist %d, nprobe %d)",
		rm, m.NList(), m.Options().NProbe, rf, fresh.NList(), fresh.Options().NProbe)
	if rm < rf-0.01 || rm < 0.95 {
		t.Errorf("merged recall@10 %.4f, fresh build %.4f: want ≥ %.4f and ≥ 0.95", rm, rf, rf-0.01)
	}
}

// checkQuantized checks that every vector's int8 code decodes to within
// half a step of its value: the quantization range covers all vectors.
func checkQuantized(t *testing.T, x *Index) {
	t.Helper()
	codes := x.codesByID()
	for id := range x.n {
		for d, v := range x.Vector(uint32(id)) {
			c := codes[id*x.dims+d]
			got := x.lo[d] + x.scale[d]*float32(int(c)+127)
			if diff := abs32(got - v); diff > x.scale[d]*0.5001+1e-7 {
				t.Fatalf("vector %d dim %d: %v coded %d decodes to %v", id, d, v, c, got)
			}
		}
	}
}

// TestMergeRetrains: a merge retrains, giving the index a fresh build of
// the survivors would, when no IVF part holds half the survivors, when the
// number of lists would grow past reuseGrowth, and when spilling differs.
func TestMergeRetrains(t *testing.T) {
	vs := clustered(31, 24000, 32, 80, 0.1)
	opts := Options{Seed: 5}
	same := func(t *testing.T, m *Index, live [][]float32, o Options) {
		t.Helper()
		want := buildIndex(t, live, o)
		if !bytes.Equal(m.AppendBinary(nil), want.AppendBinary(nil)) {
			t.Errorf("merged index (nlist %d) differs from a fresh build (nlist %d)", m.NList(), want.NList())
		}
	}
	t.Run("no majority", func(t *testing.T) {
		parts, remap, live := mergeParts(t, vs, []int{5000, 5000, 4800}, 7, opts)
		m, err := Merge(parts, remap, opts)
		if err != nil {
			t.Fatal(err)
		}
		same(t, m, live, opts)
	})
	t.Run("growth", func(t *testing.T) {
		// 6000 + 6000: reused (NList 155 of 219); + 12000 more: the
		// default NList 310 is 2× the reused 155, so it retrains.
		parts, remap, live := mergeParts(t, vs[:12000], []int{6000, 6000}, 0, opts)
		m1, err := Merge(parts, remap, opts)
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(m1.centroids, parts[0].centroids) {
			t.Fatal("first merge retrained")
		}
		rest := buildIndex(t, vs[12000:], opts)
		r2 := [][]int32{make([]int32, 12000), make([]int32, 12000)}
		for i := range 12000 {
			r2[0][i], r2[1][i] = int32(i), int32(12000+i)
		}
		m2, err := Merge([]*Index{m1, rest}, r2, opts)
		if err != nil {
			t.Fatal(err)
		}
		same(t, m2, append(slices.Clone(live), vs[12000:]...), opts)
	})
	t.Run("spill differs", func(t *testing.T) {
		parts, remap, live := mergeParts(t, vs[:9000], []int{8000, 1000}, 0, opts)
		o := opts
		o.NoSpill = true
		m, err := Merge(parts, remap, o)
		if err != nil {
			t.Fatal(err)
		}
		same(t, m, live, o)
	})
}

// TestMergeDeterministic: the same merge twice gives the same index, with
// and without reuse, spilling or not.
func TestMergeDeterministic(t *testing.T) {
	vs := clustered(41, 12000, 24, 40, 0.1)
	for _, tc := range []struct {
		sizes []int
		opts  Options
	}{
		{[]int{10000, 1000, 1000}, Options{Seed: 3}},
		{[]int{10000, 1000, 1000}, Options{Seed: 3, NoSpill: true}},
		{[]int{4000, 4000, 4000}, Options{Seed: 3}},
	} {
		t.Run(fmt.Sprint(tc.sizes, tc.opts.NoSpill), func(t *testing.T) {
			parts, remap, _ := mergeParts(t, vs, tc.sizes, 9, tc.opts)
			a, err := Merge(parts, remap, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			b, err := Merge(parts, remap, tc.opts)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a.AppendBinary(nil), b.AppendBinary(nil)) {
				t.Error("two merges of the same parts differ")
			}
			checkQuantized(t, a)
		})
	}
}
