package vector

import (
	"math"
	"math/rand/v2"
	"runtime"
	"sync"
)

// parallelFor calls fn on disjoint ranges covering 0..n-1, one per
// GOMAXPROCS worker, and waits for them.
func parallelFor(n int, fn func(lo, hi int)) {
	w := min(runtime.GOMAXPROCS(0), n)
	if w <= 1 {
		if n > 0 {
			fn(0, n)
		}
		return
	}
	var wg sync.WaitGroup
	step := (n + w - 1) / w
	for lo := 0; lo < n; lo += step {
		wg.Add(1)
		go func(lo, hi int) {
			defer wg.Done()
			fn(lo, hi)
		}(lo, min(lo+step, n))
	}
	wg.Wait()
}

// nearest returns the centroid with the largest dot product with v.
func nearest(v, centroids []float32, dims int) (int, float32) {
	best, bestScore := 0, float32(math.Inf(-1))
	for c := 0; c*dims < len(centroids); c++ {
		if s := DotFloat32(v, centroids[c*dims:(c+1)*dims]); s > bestScore {
			best, bestScore = c, s
		}
	}
	return best, bestScore
}

// assignApprox turns on the int8 pre-selection of assignLists and of the
// Lloyd iterations (coarse); tests turn it off to compare.
var assignApprox = true

// soarLambda weighs, when choosing a vector's spill list, how parallel its
// residual there may be to its primary residual (SOAR, Sun et al. 2023).
const soarLambda = 1

// assignLists returns the nearest centroid of every vector and, with
// spill, a second list chosen SOAR-style: the centroid c' minimizing
// ‖x−c'‖² + λ·((x−c)·(x−c'))²/‖x−c‖², which favours a second residual
// orthogonal to the first, so that a query poorly served by the primary
// list (along the primary residual) is well served by the spill list. A
// vector whose second choice is its first gets no spill (second = first).
// With more than assignRecheck centroids (and assignApprox), both choices
// are made among the assignRecheck candidates best by int8 score, scored
// exactly (coarse).
func assignLists(vecs []float32, dims int, centroids []float32, spill bool) (first, second []uint32) {
	n := len(vecs) / dims
	k := len(centroids) / dims
	first = make([]uint32, n)
	if spill && k > 1 {
		second = make([]uint32, n)
	}
	var gram []float32 // centroid dot products, k × k
	if second != nil {
		gram = make([]float32, k*k)
		parallelFor(k, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				for j := range k {
					gram[i*k+j] = DotFloat32(centroids[i*dims:(i+1)*dims], centroids[j*dims:(j+1)*dims])
				}
			}
		})
	}
	if k > assignRecheck && assignApprox {
		cc := newCoarse(centroids, dims)
		parallelFor(n, func(lo, hi int) {
			s := cc.scratch()
			for i := lo; i < hi; i++ {
				v := vecs[i*dims : (i+1)*dims]
				best, xc := cc.nearest(s, v)
				first[i] = uint32(best)
				if second != nil {
					second[i] = uint32(cc.spill(s, v, gram, best, xc))
				}
			}
		})
		return first, second
	}
	parallelFor(n, func(lo, hi int) {
		dots := make([]float32, k)
		for i := lo; i < hi; i++ {
			v := vecs[i*dims : (i+1)*dims]
			best := 0
			for c := range k {
				dots[c] = DotFloat32(v, centroids[c*dims:(c+1)*dims])
				if dots[c] > dots[best] {
					best = c
				}
			}
			first[i] = uint32(best)
			if second == nil {
				continue
			}
			// With unit x and centroids: ‖x−c‖² = 2−2x·c and
			// (x−c)·(x−c') = 1 − x·c − x·c' + c·c'.
			xc := dots[best]
			r2 := 2 - 2*xc
			sb, sbCost := best, float32(math.Inf(1))
			for c := range k {
				if c == best {
					continue
				}
				cost := 2 - 2*dots[c]
				if r2 > 1e-6 {
					p := 1 - xc - dots[c] + gram[best*k+c]
					cost += soarLambda * p * p / r2
				}
				if cost < sbCost {
					sb, sbCost = c, cost
				}
			}
			second[i] = uint32(sb)
		}
	})
	return first, second
}

// trainKMeans returns k unit-length centroids (k × dims) of spherical
// k-means over a sample of at most kmeansSamplePerList·k vectors:
// k-means++ initialization (D² sampling with distance 1 − cos), then
// kmeansIters Lloyd iterations; an emptied cluster is re-seeded with a
// random sample vector.
func trainKMeans(vecs []float32, dims, k int, seed int64) []float32 {
	r := rand.New(rand.NewPCG(uint64(seed), 0x9e3779b97f4a7c15))
	sample := kmeansSample(vecs, dims, k, r)
	cent := kmeansPlusPlus(sample, dims, k, r)
	kmeansLloyd(sample, cent, dims, k, r)
	return cent
}

// kmeansSample returns at most kmeansSamplePerList·k rows of vecs, drawn
// without replacement (all of vecs when it is that small).
func kmeansSample(vecs []float32, dims, k int, r *rand.Rand) []float32 {
	n := len(vecs) / dims
	m := kmeansSamplePerList * k
	if n <= m {
		return vecs
	}
	idx := r.Perm(n)[:m]
	sample := make([]float32, m*dims)
	for i, j := range idx {
		copy(sample[i*dims:(i+1)*dims], vecs[j*dims:(j+1)*dims])
	}
	return sample
}

// kmeansPlusPlus seeds k centroids from the sample rows by k-means++ (D²
// sampling on the cosine distance).
func kmeansPlusPlus(sample []float32, dims, k int, r *rand.Rand) []float32 {
	s := len(sample) / dims
	row := func(i int) []float32 { return sample[i*dims : (i+1)*dims] }
	cent := make([]float32, k*dims)
	// dist[i] = 1 − max cos to the chosen centroids.
	dist := make([]float64, s)
	first := r.IntN(s)
	copy(cent, row(first))
	parallelFor(s, func(lo, hi int) {
		for i := lo; i < hi; i++ {
			dist[i] = max(0, 1-float64(DotFloat32(row(i), cent[:dims])))
		}
	})
	for c := 1; c < k; c++ {
		var total float64
		for _, d := range dist {
			total += d
		}
		pick := r.IntN(s)
		if total > 0 {
			t := r.Float64() * total
			for i, d := range dist {
				t -= d
				if t <= 0 {
					pick = i
					break
				}
			}
		}
		cc := cent[c*dims : (c+1)*dims]
		copy(cc, row(pick))
		parallelFor(s, func(lo, hi int) {
			for i := lo; i < hi; i++ {
				if d := 1 - float64(DotFloat32(row(i), cc)); d < dist[i] {
					dist[i] = max(0, d)
				}
			}
		})
	}
	return cent
}

// kmeansLloyd runs kmeansIters Lloyd iterations of spherical k-means on the
// sample, updating cent in place; an empty cluster takes a random row.
func kmeansLloyd(sample, cent []float32, dims, k int, r *rand.Rand) {
	s := len(sample) / dims
	row := func(i int) []float32 { return sample[i*dims : (i+1)*dims] }
	assign := make([]uint32, s)
	sums := make([]float64, k*dims)
	counts := make([]int, k)
	for range kmeansIters {
		if k > assignRecheck && assignApprox {
			cc := newCoarse(cent, dims)
			parallelFor(s, func(lo, hi int) {
				sc := cc.scratch()
				for i := lo; i < hi; i++ {
					c, _ := cc.nearest(sc, row(i))
					assign[i] = uint32(c)
				}
			})
		} else {
			parallelFor(s, func(lo, hi int) {
				for i := lo; i < hi; i++ {
					c, _ := nearest(row(i), cent, dims)
					assign[i] = uint32(c)
				}
			})
		}
		clear(sums)
		clear(counts)
		for i, c := range assign {
			counts[c]++
			acc := sums[int(c)*dims : int(c+1)*dims]
			for j, v := range row(i) {
				acc[j] += float64(v)
			}
		}
		for c := range k {
			cc := cent[c*dims : (c+1)*dims]
			if counts[c] == 0 {
				copy(cc, row(r.IntN(s)))
				continue
			}
			acc := sums[c*dims : (c+1)*dims]
			var norm float64
			for _, v := range acc {
				norm += v * v
			}
			norm = math.Sqrt(norm)
			if norm == 0 {
				continue
			}
			for j, v := range acc {
				cc[j] = float32(v / norm)
			}
		}
	}
}
