package intent

import (
	"errors"
	"math"

	"github.com/viterin/vek"
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
			s := ri[j] - dot64(ri[:j], a[j*n:j*n+j])
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

// dot64 returns the dot product of a and b[:len(a)] (vek's AVX2 kernel
// where the CPU has it: the factorization is nearly all dot products).
func dot64(a, b []float64) float64 {
	if len(a) == 0 {
		return 0
	}
	return vek.Dot(a, b[:len(a)])
}

// cholSolve solves L Lᵀ X = B in place for the n×k row-major B, with L
// the lower triangle of l from cholesky. Both substitutions update whole
// rows of B (k values, in cache) with one row of L at a time, so L streams
// through memory once per substitution.
func cholSolve(l []float64, n int, b []float64, k int) {
	tmp := make([]float64, k)
	for i := range n {
		bi := b[i*k : i*k+k]
		li := l[i*n : i*n+i]
		for j, v := range li {
			if v != 0 {
				axpy(bi, b[j*k:j*k+k], -v, tmp)
			}
		}
		vek.MulNumber_Inplace(bi, 1/l[i*n+i])
	}
	for i := n - 1; i >= 0; i-- {
		bi := b[i*k : i*k+k]
		vek.MulNumber_Inplace(bi, 1/l[i*n+i])
		li := l[i*n : i*n+i]
		for j, v := range li {
			if v != 0 {
				axpy(b[j*k:j*k+k], bi, -v, tmp)
			}
		}
	}
}

// axpy adds a·x to y; tmp holds len(x) values of scratch.
func axpy(y, x []float64, a float64, tmp []float64) {
	if len(x) == 0 {
		return
	}
	vek.Add_Inplace(y, vek.MulNumber_Into(tmp[:len(x)], x, a))
}

// cholInverseDiag returns the diagonal of (L Lᵀ)⁻¹: the squared column
// norms of M = L⁻¹. Column c of M is found by forward substitution from
// row c on, independently of the other columns, so two goroutines share
// the columns.
func cholInverseDiag(l []float64, n int) []float64 {
	diag := make([]float64, n)
	var bufs [rowWorkers][]float64
	// Interleaved columns: column c costs about (n-c)²/2.
	parallelRowsOf(n, func(w, c int) {
		if bufs[w] == nil {
			bufs[w] = make([]float64, n)
		}
		v := bufs[w]
		sum := 0.0
		for i := c; i < n; i++ {
			x := -dot64(l[i*n+c:i*n+i], v[c:i])
			if i == c {
				x += 1
			}
			x /= l[i*n+i]
			v[i] = x
			sum += x * x
		}
		diag[c] = sum
	})
	return diag
}
