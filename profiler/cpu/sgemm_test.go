package cpu

import (
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// TestGemmMatchesGonum checks gemm against gonum's own blas32.Gemm on
// random shapes (empty, thin, under and over gonum's four-block threshold,
// edges of partial blocks), both transposes and padded strides: the
// results must be bit for bit the same with one worker, with several and
// with none (inside a loop), since every block sums over K in gonum's
// steps whoever computes it.
func TestGemmMatchesGonum(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pools := []*pool{nil, newPool(1), newPool(2), newPool(3)}
	for _, p := range pools[1:] {
		defer p.stop()
	}
	dims := []int{0, 1, 3, 63, 64, 65, 130, 200}
	for trial := range 300 {
		m, n, k := dims[rng.IntN(len(dims))], dims[rng.IntN(len(dims))], dims[rng.IntN(len(dims))]
		tA, tB := rng.IntN(2) == 1, rng.IntN(2) == 1
		alpha, beta := float32(1+rng.IntN(2)), float32(rng.IntN(3))/2
		ar, ac, br, bc := m, k, k, n
		if tA {
			ar, ac = k, m
		}
		if tB {
			br, bc = n, k
		}
		lda, ldb, ldc := max(ac, 1)+rng.IntN(3), max(bc, 1)+rng.IntN(3), max(n, 1)+rng.IntN(3)
		fill := func(rows, ld int) []float32 {
			s := make([]float32, max(rows*ld, 1))
			for i := range s {
				s[i] = float32(rng.NormFloat64())
			}
			return s
		}
		a, b, c0 := fill(ar, lda), fill(br, ldb), fill(m, ldc)
		want := slices.Clone(c0)
		if m > 0 && n > 0 {
			ta, tb := blas.NoTrans, blas.NoTrans
			if tA {
				ta = blas.Trans
			}
			if tB {
				tb = blas.Trans
			}
			blas32.Gemm(ta, tb, alpha, blas32.General{Rows: ar, Cols: ac, Stride: lda, Data: a},
				blas32.General{Rows: br, Cols: bc, Stride: ldb, Data: b}, beta,
				blas32.General{Rows: m, Cols: n, Stride: ldc, Data: want})
		}
		for w, p := range pools {
			c := slices.Clone(c0)
			gemm(p, tA, tB, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
			if !slices.Equal(c, want) {
				t.Fatalf("trial %d: %d×%d×%d tA=%v tB=%v α=%v β=%v, pool %d: differs from gonum", trial, m, n, k, tA, tB, alpha, beta, w)
			}
		}
	}
}

// TestPoolLoops checks that every index of a loop is visited exactly once
// for loops of every size around the split points, on pools of 1–4
// workers, many loops in a row (workers that fall asleep between them
// included).
func TestPoolLoops(t *testing.T) {
	for workers := 1; workers <= 4; workers++ {
		p := newPool(workers)
		hits := make([]int32, 1000)
		f := func(lo, hi int) {
			for i := lo; i < hi; i++ {
				hits[i]++
			}
		}
		for round := range 200 {
			n, grain := round%37*27, 1+round%5
			clear(hits)
			p.For(n, grain, f)
			for i, h := range hits {
				if want := int32(b2i(i < n)); h != want {
					t.Fatalf("%d workers, n=%d grain=%d: index %d visited %d times", workers, n, grain, i, h)
				}
			}
			if round == 100 {
				time.Sleep(3 * spinFor) // the workers go to sleep; the next loop wakes them
			}
		}
		p.stop()
	}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
