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
		remap[p] = make([]int32, parts[p].NumDocs())
		for old := range remap[p] {
			remap[p][old] = -1
			if r.IntN(5) != 0 {
				remap[p][old] = next
				next++
			}
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		MergeTextIndexes(parts, remap)
	}
}
