package cpu

import (
	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/gonum"
)

// Matrix products run gonum's SGEMM kernels, but on the pool's workers
// rather than on goroutines of gonum's own. gonum's parallel SGEMM cuts C
// into 64×64 blocks and starts a goroutine per block, each summing its
// block's products over K in steps of 64; beside the pool's polling
// workers those goroutines wait for a P, and each product pays for
// starting them. gemm cuts C the same way and gives each worker a
// contiguous run of blocks, each computed by the same steps through
// gonum's serial kernel, so that a product's arithmetic, and its result,
// do not depend on the number of workers or on whether it runs on one.

// Gonum's cut: blocks of gemmBlock×gemmBlock, and products of fewer than
// gemmMinBlocks blocks of C computed whole, in one serial call.
const (
	gemmBlock     = 64
	gemmMinBlocks = 4
)

var sgemm = gonum.Implementation{}.Sgemm

// gemmArgs are a product's operands, for the pool's workers.
type gemmArgs struct {
	tA, tB      bool
	m, n, k     int
	alpha, beta float32
	a, b, c     []float32
	lda, ldb    int
	ldc         int
	cols        int // blocks across C
}

// gemm computes c ← alpha·op(a)·op(b) + beta·c on row-major matrices with
// the given strides, op(a) m×k and op(b) k×n, sharing C's blocks among the
// pool's workers; with p nil (inside one of the pool's loops) the calling
// goroutine computes them all.
func gemm(p *pool, tA, tB bool, m, n, k int, alpha float32, a []float32, lda int, b []float32, ldb int, beta float32, c []float32, ldc int) {
	if m == 0 || n == 0 {
		return
	}
	rows, cols := (m+gemmBlock-1)/gemmBlock, (n+gemmBlock-1)/gemmBlock
	if rows*cols < gemmMinBlocks || k == 0 { // k 0: c ← beta·c
		sgemm(trans(tA), trans(tB), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc)
		return
	}
	g := gemmArgs{tA: tA, tB: tB, m: m, n: n, k: k, alpha: alpha, beta: beta,
		a: a, b: b, c: c, lda: lda, ldb: ldb, ldc: ldc, cols: cols}
	if p == nil {
		g.blocks(0, rows*cols)
		return
	}
	p.gemm = g
	p.For(rows*cols, 1, p.gemmF)
	p.gemm = gemmArgs{}
}

// blocks computes C's blocks [lo, hi), numbered row by row.
func (g *gemmArgs) blocks(lo, hi int) {
	ta, tb := trans(g.tA), trans(g.tB)
	for blk := lo; blk < hi; blk++ {
		i, j := blk/g.cols*gemmBlock, blk%g.cols*gemmBlock
		mi, nj := min(gemmBlock, g.m-i), min(gemmBlock, g.n-j)
		c := g.c[i*g.ldc+j:]
		beta := g.beta
		for l := 0; l < g.k; l += gemmBlock {
			kl := min(gemmBlock, g.k-l)
			ao, bo := i*g.lda+l, l*g.ldb+j // op(a)[i, l], op(b)[l, j]
			if g.tA {
				ao = l*g.lda + i
			}
			if g.tB {
				bo = j*g.ldb + l
			}
			a, b := g.a[ao:], g.b[bo:]
			sgemm(ta, tb, mi, nj, kl, g.alpha, a, g.lda, b, g.ldb, beta, c, g.ldc)
			beta = 1
		}
	}
}

func trans(t bool) blas.Transpose {
	if t {
		return blas.Trans
	}
	return blas.NoTrans
}
