package vector

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/RoaringBitmap/roaring/v2"
)

func TestSelectLargest(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, n := range []int{1, 2, 3, 7, 64, 129, 1000} {
		for _, spread := range []uint64{2, 50, 1 << 62} { // many ties, some, none
			a := make([]uint64, n)
			for i := range a {
				a[i] = r.Uint64N(spread)
			}
			want := slices.Clone(a)
			slices.Sort(want)
			slices.Reverse(want)
			for _, m := range []int{1, n / 2, n} {
				if m == 0 {
					continue
				}
				got := slices.Clone(a)
				selectLargest(got, m)
				if got[m-1] != want[m-1] {
					t.Fatalf("n %d m %d: a[m-1] = %d, want the m-th largest %d", n, m, got[m-1], want[m-1])
				}
				top := slices.Clone(got[:m])
				slices.Sort(top)
				slices.Reverse(top)
				if !slices.Equal(top, want[:m]) {
					t.Fatalf("n %d m %d: a[:m] is not the m largest", n, m)
				}
			}
		}
	}
}

func TestCandKeyOrder(t *testing.T) {
	tests := []struct {
		a, b   Result // int8 score as Score, id
		better bool   // a ranks above b
	}{
		{Result{1, 5}, Result{2, 4}, true},
		{Result{1, -5}, Result{2, 4}, false},
		{Result{1, 7}, Result{2, 7}, true}, // tie: lower id first
		{Result{9, -2147483648}, Result{0, -2147483647}, false},
		{Result{0, 2147483647}, Result{4294967295, 2147483647}, true},
	}
	for _, tt := range tests {
		ka, kb := candKey(int32(tt.a.Score), tt.a.ID), candKey(int32(tt.b.Score), tt.b.ID)
		if (ka > kb) != tt.better {
			t.Errorf("candKey%v > candKey%v = %v, want %v", tt.a, tt.b, ka > kb, tt.better)
		}
		if candID(ka) != tt.a.ID || candScore(ka) != int32(tt.a.Score) {
			t.Errorf("candKey%v decodes to id %d score %d", tt.a, candID(ka), candScore(ka))
		}
	}
}

// refIVF is the IVF search written plainly: for an index with 4-bit
// codes (any k), the nprobe best lists, every allowed position
// of them scored with its 4-bit code (unpacked here, not through a
// kernel), the sl best (4-bit score, then lower position) scored with
// their int8 codes, the m best (int8 score, then id; a spilled vector in
// the shortlist twice counts twice) re-scored exactly once per id, the k
// best returned; otherwise refIVF8.
func refIVF(x *Index, q []float32, k, nprobe int, allow func(uint32) bool) (res []Result, pool []uint32) {
	if x.nib == nil {
		return refIVF8(x, q, k, nprobe, allow)
	}
	d := x.dims
	var lists []Result
	for l := range x.nlist {
		lists = append(lists, Result{uint32(l), DotFloat32(q, x.centroids[l*d:(l+1)*d])})
	}
	slices.SortFunc(lists, byRank)
	qq := make([]int8, d)
	quantizeQuery(qq, q, x.scale)
	var cands []Result // ID: list position
	for _, l := range lists[:nprobe] {
		for p := x.listStart[l.ID]; p < x.listStart[l.ID+1]; p++ {
			if allow == nil || allow(x.listIDs[p]) {
				var s int32
				id := x.listIDs[p]
				for j, c := range x.codes[int(id)*d : int(id+1)*d] {
					s += int32(qq[j]) * int32((int(c)+127)>>4)
				}
				cands = append(cands, Result{p, float32(s)})
			}
		}
	}
	m := max(x.opts.Rerank, rerankPerK*k)
	slices.SortFunc(cands, byRank)
	cands = cands[:min(len(cands), shortlistLen(k, m))]
	var short []Result
	for _, c := range cands {
		id := x.listIDs[c.ID]
		short = append(short, Result{id, float32(DotInt8(qq, x.codes[int(id)*d:int(id+1)*d]))})
	}
	slices.SortFunc(short, byRank)
	seen := map[uint32]bool{}
	var out []Result
	for _, c := range short[:min(len(short), m)] {
		if !seen[c.ID] {
			seen[c.ID] = true
			out = append(out, Result{c.ID, DotFloat32(q, x.Vector(c.ID))})
			pool = append(pool, c.ID)
		}
	}
	slices.SortFunc(out, byRank)
	slices.Sort(pool)
	return out[:min(k, len(out))], pool
}

// refIVF8 is refIVF for an index without 4-bit codes: every allowed
// position of the nprobe best lists scored with its int8 code, the m best
// (int8 score, then id; a spilled vector counts twice) re-scored exactly,
// the k best returned.
func refIVF8(x *Index, q []float32, k, nprobe int, allow func(uint32) bool) (res []Result, pool []uint32) {
	d := x.dims
	var lists []Result
	for l := range x.nlist {
		lists = append(lists, Result{uint32(l), DotFloat32(q, x.centroids[l*d:(l+1)*d])})
	}
	slices.SortFunc(lists, byRank)
	qq := make([]int8, d)
	quantizeQuery(qq, q, x.scale)
	var cands []Result
	for _, l := range lists[:nprobe] {
		for p := x.listStart[l.ID]; p < x.listStart[l.ID+1]; p++ {
			id := x.listIDs[p]
			if allow == nil || allow(id) {
				cands = append(cands, Result{id, float32(DotInt8(qq, x.codes[int(p)*d:int(p+1)*d]))})
			}
		}
	}
	slices.SortFunc(cands, byRank)
	cands = cands[:min(len(cands), max(x.opts.Rerank, rerankPerK*k))]
	seen := map[uint32]bool{}
	var out []Result
	for _, c := range cands {
		if !seen[c.ID] {
			seen[c.ID] = true
			out = append(out, Result{c.ID, DotFloat32(q, x.Vector(c.ID))})
			pool = append(pool, c.ID)
		}
	}
	slices.SortFunc(out, byRank)
	slices.Sort(pool)
	return out[:min(k, len(out))], pool
}

// withNibbles returns a copy of x laid out with 4-bit codes (as an index
// of nibbleFrom vectors or more is) when nibbles is set, else x.
func withNibbles(x *Index, nibbles bool) *Index {
	if !nibbles {
		return x
	}
	y := &Index{dims: x.dims, n: x.n, vecs: x.vecs, opts: x.opts, nlist: x.nlist,
		centroids: x.centroids, lo: x.lo, scale: x.scale, listStart: x.listStart,
		listIDs: x.listIDs, maxList: x.maxList}
	y.layout(x.codesByID(), true)
	if !slices.Equal(y.codesByID(), x.codesByID()) {
		panic("BUG: int8 codes changed by the 4-bit layout")
	}
	return y
}

// TestIVFMatchesReference checks the IVF search (candidates kept by
// threshold and quickselect) against refIVF: the same re-scored
// candidates, and the same results, scores and order, for small and large k (a pool larger than the buffer's first
// cut), with and without allowed sets.
func TestIVFMatchesReference(t *testing.T) {
	vs := clustered(21, 6000, 48, 60, 0.08)
	queries := clustered(22, 20, 48, 60, 0.08)
	x8 := buildIndex(t, vs, Options{Seed: 2})
	if x8.nib != nil {
		t.Fatal("small index laid out with 4-bit codes")
	}
	half := func(id uint32) bool { return id%2 == 0 }
	for _, nibbles := range []bool{false, true} {
		x := withNibbles(x8, nibbles)
		tenth := func(id uint32) bool { return id%10 == 3 }
		for _, k := range []int{1, 10, 40, 300} {
			for _, nprobe := range []int{1, 8, x.NList()} {
				for _, af := range []struct {
					name string
					fn   func(uint32) bool
				}{{"all", nil}, {"half", half}, {"tenth", tenth}} {
					t.Run(fmt.Sprintf("nibbles=%v/k=%d/nprobe=%d/%s", nibbles, k, nprobe, af.name), func(t *testing.T) {
						var bm *roaring.Bitmap
						if af.fn != nil {
							bm = roaring.New()
							for id := range uint32(len(vs)) {
								if af.fn(id) {
									bm.Add(id)
								}
							}
						}
						for qi, q := range queries {
							want, wantPool := refIVF(x, q, k, nprobe, af.fn)
							s := x.getScratch(k)
							x.ivf(s, q, k, nprobe, bm, nil)
							got := slices.Clone(s.top.sorted())
							pool := slices.Compact(slices.Clone(s.ids))
							x.scratch.Put(s)
							if !slices.Equal(pool, wantPool) {
								t.Fatalf("query %d: re-scored %d candidates %v\nwant %d: %v", qi, len(pool), pool, len(wantPool), wantPool)
							}
							if !slices.Equal(got, want) {
								t.Fatalf("query %d: got %v\nwant %v", qi, got, want)
							}
							s = x.getScratch(k)
							x.ivf(s, q, k, nprobe, nil, af.fn)
							got = slices.Clone(s.top.sorted())
							x.scratch.Put(s)
							if !slices.Equal(got, want) {
								t.Fatalf("query %d (predicate): got %v\nwant %v", qi, got, want)
							}
						}
					})
				}
			}
		}
	}
}
