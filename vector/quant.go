package vector

import "math"

// quantParams returns per-dimension quantization parameters of vecs: lo[d]
// is the least value of dimension d and scale[d] spreads lo..max over the
// 255 codes −127..127.
func quantParams(vecs []float32, dims int) (lo, scale []float32) {
	lo = make([]float32, dims)
	hi := make([]float32, dims)
	for d := range dims {
		lo[d], hi[d] = float32(math.Inf(1)), float32(math.Inf(-1))
	}
	for i := 0; i+dims <= len(vecs); i += dims {
		for d, v := range vecs[i : i+dims] {
			lo[d] = min(lo[d], v)
			hi[d] = max(hi[d], v)
		}
	}
	scale = make([]float32, dims)
	for d := range dims {
		if hi[d] > lo[d] {
			scale[d] = (hi[d] - lo[d]) / 254
		} else {
			lo[d] = 0
			if !math.IsInf(float64(hi[d]), 0) {
				lo[d] = hi[d]
			}
		}
	}
	return lo, scale
}

// quantize writes the int8 code of v to dst: c = round((v−lo)/scale) − 127,
// clamped to −127..127, so v ≈ lo + scale·(c+127).
func quantize(dst []int8, v, lo, scale []float32) {
	for d, f := range v {
		if scale[d] == 0 {
			dst[d] = 0
			continue
		}
		c := math.Round(float64((f-lo[d])/scale[d])) - 127
		dst[d] = int8(max(-127, min(127, c)))
	}
}

// quantizeQuery writes to dst the int8 query whose dot product with a code
// ranks vectors like their approximate dot product with q: with
// v ≈ lo + scale·(c+127), q·v = const + Σ (q[d]·scale[d])·c[d], so the
// weights w[d] = q[d]·scale[d] are scaled to −127..127.
func quantizeQuery(dst []int8, q, scale []float32) {
	var m float32
	for d, f := range q {
		m = max(m, abs32(f*scale[d]))
	}
	if m == 0 || m != m {
		clear(dst)
		return
	}
	k := 127 / m
	for d, f := range q {
		dst[d] = int8(math.Round(float64(f * scale[d] * k)))
	}
}

func abs32(f float32) float32 {
	if f < 0 {
		return -f
	}
	return f
}
