package engine

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestRankTop checks rankTop against a full sort by compareHits: the
// first n hits, in order, for candidate sets with many equal scores (ties
// broken by collection and document id), for every n from 0 past the
// number of hits.
func TestRankTop(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	colls := []*collection{{id: "a"}, {id: "b"}}
	for _, size := range []int{0, 1, 2, 5, 11, 64, 300} {
		hs := make([]*hit, size)
		for i := range hs {
			hs[i] = &hit{c: colls[r.IntN(2)], docID: fmt.Sprintf("d%04d", i), score: float64(r.IntN(8)) / 8}
		}
		r.Shuffle(len(hs), func(i, j int) { hs[i], hs[j] = hs[j], hs[i] })
		want := slices.Clone(hs)
		slices.SortStableFunc(want, compareHits)
		for n := 0; n <= size+2; n++ {
			got := slices.Clone(hs)
			rankTop(got, n)
			k := min(n, size)
			if !slices.Equal(got[:k], want[:k]) {
				t.Fatalf("%d hits, n %d: first %d differ", size, n, k)
			}
			if !sameHits(got, want) {
				t.Fatalf("%d hits, n %d: hits lost or duplicated", size, n)
			}
		}
	}
}

// sameHits reports whether a and b hold the same hits in any order.
func sameHits(a, b []*hit) bool {
	m := map[*hit]int{}
	for _, h := range a {
		m[h]++
	}
	for _, h := range b {
		m[h]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return len(a) == len(b)
}
