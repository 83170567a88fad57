package invindex

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkMergeTextIndexes merges four segments of 10,000 documents each
// (a 10,000-term Zipf vocabulary) with a fifth of the documents deleted
// and the survivors renumbered segment by segment, as the merger does.
func BenchmarkMergeTextIndexes(b *testing.B) {
	const segs, perSeg = 4, 10_000
	parts := make([]*TextIndex, segs)
	remap := make([][]int32, segs)
	r := rand.New(rand.NewPCG(9, 9))
	next := int32(0)
	for p := range parts {
		parts[p] = textBuild(textTestCorpus(uint64(100+p), perSeg, 10_000))
		remap[p] = survivors(int(parts[p].NumDocs()), r, &next)
	}
	b.ReportAllocs()
	for b.Loop() {
		MergeTextIndexes(parts, remap)
	}
}

// survivors returns the new numbers of n documents: four in five at
// random survive, numbered from *next on, the others map to -1.
func survivors(n int, r *rand.Rand, next *int32) []int32 {
	m := make([]int32, n)
	for old := range m {
		if r.IntN(5) == 0 {
			m[old] = -1
			continue
		}
		m[old] = *next
		*next++
	}
	return m
}
