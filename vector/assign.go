package vector

import (
	"math"
)

// assignRecheck is the number of centroids, best by their approximate
// (int8) score, whose score is recomputed exactly before a vector's list
// is chosen (coarse.nearest); a spill list is chosen the same way.
const assignRecheck = 8

// coarse scores vectors against a set of centroids approximately, with
// int8 codes and the int8 kernel (per-dimension quantization of the
// centroids, as the index quantizes vectors, and of the vector as a
// search quantizes its query), and exactly for the few best: assigning
// 1M vectors to 2,000 centroids takes 2·10⁹ dot products, and the int8
// kernel scores a centroid several times faster than a float32 dot
// product does.
type coarse struct {
	dims, k int
	cent    []float32 // k × dims
	codes   []int8    // k × dims
	scale   []float32 // per dimension
	off     []float32 // per dimension: lo + 127·scale, the value of code 0
}

// newCoarse returns the scorer of cent (k × dims, kept, not copied).
func newCoarse(cent []float32, dims int) *coarse {
	c := &coarse{dims: dims, k: len(cent) / dims, cent: cent, codes: make([]int8, len(cent)), off: make([]float32, dims)}
	var lo []float32
	lo, c.scale = quantParams(cent, dims)
	for i := range c.k {
		quantize(c.codes[i*dims:(i+1)*dims], cent[i*dims:(i+1)*dims], lo, c.scale)
	}
	for d := range dims {
		c.off[d] = lo[d] + 127*c.scale[d]
	}
	return c
}

// coarseScratch holds one worker's buffers.
type coarseScratch struct {
	qq    []int8
	raw   []int32
	dots  []float32 // approximate dot product with every centroid
	cand  [assignRecheck]int
	candV [assignRecheck]float32
}

func (c *coarse) scratch() *coarseScratch {
	return &coarseScratch{qq: make([]int8, c.dims), raw: make([]int32, c.k), dots: make([]float32, c.k)}
}

// approx sets s.dots[j] to the approximate dot product of v with centroid
// j: with a centroid coded as off + scale·code, v·c = v·off +
// Σ (v[d]·scale[d])·code[d], the weights v[d]·scale[d] rescaled to int8.
func (c *coarse) approx(s *coarseScratch, v []float32) {
	base := DotFloat32(v, c.off)
	var m float32
	for d, f := range v {
		m = max(m, abs32(f*c.scale[d]))
	}
	if m == 0 || m != m {
		for j := range s.dots {
			s.dots[j] = base
		}
		return
	}
	kq := 127 / m
	for d, f := range v {
		s.qq[d] = int8(math.Round(float64(f * c.scale[d] * kq)))
	}
	dotInt8Rows(s.qq, c.codes, s.raw)
	inv := 1 / kq
	for j, r := range s.raw {
		s.dots[j] = base + float32(r)*inv
	}
}

// top keeps in s.cand the (up to) assignRecheck indexes j ≠ skip of the
// largest vals[j], and returns how many it kept.
func (s *coarseScratch) top(vals []float32, skip int) int {
	n := 0
	for j, x := range vals {
		if j == skip || n == assignRecheck && x <= s.candV[n-1] {
			continue
		}
		i := min(n, assignRecheck-1)
		if n < assignRecheck {
			n++
		}
		for i > 0 && s.candV[i-1] < x {
			s.cand[i], s.candV[i] = s.cand[i-1], s.candV[i-1]
			i--
		}
		s.cand[i], s.candV[i] = j, x
	}
	return n
}

// nearest returns the centroid with the largest dot product with v among
// the assignRecheck best by approximate score (ties: the lowest index),
// and that dot product, exact. s.dots holds the approximate scores after.
func (c *coarse) nearest(s *coarseScratch, v []float32) (int, float32) {
	c.approx(s, v)
	n := s.top(s.dots, -1)
	best, bestScore := -1, float32(math.Inf(-1))
	for _, j := range s.cand[:n] {
		if d := DotFloat32(v, c.cent[j*c.dims:(j+1)*c.dims]); d > bestScore || d == bestScore && j < best {
			best, bestScore = j, d
		}
	}
	return best, bestScore
}

// spill returns the SOAR spill list of v (see assignLists) whose primary
// list is best (dot product xc): the least cost among the assignRecheck
// centroids of least approximate cost (from s.dots, as nearest left
// them), recomputed with exact dot products; best itself when there is
// no other centroid.
func (c *coarse) spill(s *coarseScratch, v []float32, gram []float32, best int, xc float32) int {
	r2 := 2 - 2*xc
	cost := func(j int, dot float32) float32 {
		cst := 2 - 2*dot
		if r2 > 1e-6 {
			p := 1 - xc - dot + gram[best*c.k+j]
			cst += soarLambda * p * p / r2
		}
		return cst
	}
	// Negated costs in s.raw's place: top keeps the largest.
	neg := s.dots
	for j, d := range s.dots {
		neg[j] = -cost(j, d)
	}
	n := s.top(neg, best)
	sb, sbCost := best, float32(math.Inf(1))
	for _, j := range s.cand[:n] {
		if cst := cost(j, DotFloat32(v, c.cent[j*c.dims:(j+1)*c.dims])); cst < sbCost || cst == sbCost && j < sb {
			sb, sbCost = j, cst
		}
	}
	return sb
}
