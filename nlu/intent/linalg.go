package intent

import (
	"errors"
	"math"
	"sync"
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

// dot64 returns the dot product of a and b[:len(a)], four sums at a time.
func dot64(a, b []float64) float64 {
	b = b[:len(a)]
	var s0, s1, s2, s3 float64
	i := 0
	for ; i+4 <= len(a); i += 4 {
		s0 += a[i] * b[i]
		s1 += a[i+1] * b[i+1]
		s2 += a[i+2] * b[i+2]
		s3 += a[i+3] * b[i+3]
	}
	for ; i < len(a); i++ {
		s0 += a[i] * b[i]
	}
	return (s0 + s1) + (s2 + s3)
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
// norms of M = L⁻¹. Column c of M is found by forward substitution from
// row c on, independently of the other columns, so two goroutines share
// the columns.
func cholInverseDiag(l []float64, n int) []float64 {
	diag := make([]float64, n)
	const workers = 2
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			v := make([]float64, n)
			// Interleave columns: column c costs about (n-c)²/2.
			for c := w; c < n; c += workers {
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
			}
		}()
	}
	wg.Wait()
	return diag
}
