package intent

import (
	"errors"
	"math"
)

// errNotPositive reports a Gram matrix that is not positive definite,
// which the ridge term on its diagonal rules out except for NaN input.
var errNotPositive = errors.New("kernel matrix is not positive definite")

// cholesky factors the symmetric positive definite n×n row-major matrix a
// in place into its lower triangle L (a = L Lᵀ); the upper triangle is
// left as it was.
func cholesky(a []float64, n int) error {
	for i := range n {
		ri := a[i*n : i*n+n]
		for j := 0; j <= i; j++ {
			rj := a[j*n : j*n+j]
			s := ri[j]
			for k, v := range rj {
				s -= ri[k] * v
			}
			if j == i {
				if !(s > 0) {
					return errNotPositive
				}
				ri[i] = math.Sqrt(s)
			} else {
				ri[j] = s / a[j*n+j]
			}
		}
	}
	return nil
}

// cholSolve solves L Lᵀ X = B in place for the n×k row-major B, with L
// the lower triangle of l from cholesky.
func cholSolve(l []float64, n int, b []float64, k int) {
	for i := range n {
		bi := b[i*k : i*k+k]
		li := l[i*n : i*n+i]
		for j, v := range li {
			if v == 0 {
				continue
			}
			bj := b[j*k : j*k+k]
			for c := range bi {
				bi[c] -= v * bj[c]
			}
		}
		d := l[i*n+i]
		for c := range bi {
			bi[c] /= d
		}
	}
	for i := n - 1; i >= 0; i-- {
		bi := b[i*k : i*k+k]
		d := l[i*n+i]
		for c := range bi {
			bi[c] /= d
		}
		li := l[i*n : i*n+i]
		for j, v := range li {
			if v == 0 {
				continue
			}
			bj := b[j*k : j*k+k]
			for c := range bi {
				bj[c] -= v * bi[c]
			}
		}
	}
}

// cholInverseDiag returns the diagonal of (L Lᵀ)⁻¹: the squared column
// norms of L⁻¹, computed row by row (M = L⁻¹ is lower triangular).
func cholInverseDiag(l []float64, n int) []float64 {
	m := make([]float64, n*n)
	diag := make([]float64, n)
	for i := range n {
		mi := m[i*n : i*n+i+1]
		li := l[i*n : i*n+i]
		for j, v := range li {
			if v == 0 {
				continue
			}
			mj := m[j*n : j*n+j+1]
			for c, x := range mj {
				mi[c] -= v * x
			}
		}
		mi[i] += 1
		d := l[i*n+i]
		for c := range mi {
			mi[c] /= d
			diag[c] += mi[c] * mi[c]
		}
	}
	return diag
}
