package cpu

import (
	"fmt"

	"github.com/wb-sim/wb/dnn"
)

// linear is a prepared fully connected layer: rows × k inputs, the weight
// stored transposed as wt [k, n].
type linear struct {
	rows, k, n               int
	x, wt, b, y, dy, dx, dwt []float32
	db                       []float32
	xt                       *transposer // backward-weights: x into [k, rows]
	biasRowsF, biasGradF     func(lo, hi int)
}

func prepLinear(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	v, err := descInts(d, dnn.AttrK, dnn.AttrN)
	if err != nil {
		return nil, err
	}
	if len(d.In) != 1 || v[0] < 1 || v[1] < 1 || d.In[0].Elems()%int64(v[0]) != 0 {
		return nil, fmt.Errorf("linear: input %v, k %d, n %d", d.In, v[0], v[1])
	}
	l := &linear{k: v[0], n: v[1]}
	per := int(d.In[0].Elems()) / l.k // rows per sample
	l.rows = batch * per
	bias := d.Attr[dnn.AttrBias] == 1
	switch pass {
	case dnn.Forward:
		l.x = a.floats("x", batch, per, l.k)
		l.wt = a.floats("wt", l.k, l.n)
		if bias {
			l.b = a.floats("b", l.n)
		}
		l.y = a.floats("y", batch, per, l.n)
		l.biasRowsF = l.biasRows
		return l.forward, nil
	case dnn.BackwardData:
		l.dy = a.floats("dy", batch, per, l.n)
		l.wt = a.floats("wt", l.k, l.n)
		l.dx = a.floats("dx", batch, per, l.k)
		return l.backwardData, nil
	case dnn.BackwardWeights:
		l.x = a.floats("x", batch, per, l.k)
		l.dy = a.floats("dy", batch, per, l.n)
		l.dwt = a.floats("dwt", l.k, l.n)
		l.xt = newTransposer(l.x, l.rows, l.k, l.k, a.floats("xT", l.k, batch, per))
		if bias {
			l.db = a.floats("db", l.n)
		}
		l.biasGradF = l.biasGrad
		return l.backwardWeights, nil
	}
	return nil, unsupportedPass(d.Op, pass)
}

func (l *linear) forward(p *pool) {
	beta := float32(0)
	if l.b != nil {
		p.For(l.rows, grainFor(l.n), l.biasRowsF)
		beta = 1
	}
	gemm(p, false, false, l.rows, l.n, l.k, 1, l.x, l.k, l.wt, l.n, beta, l.y, l.n)
}

func (l *linear) backwardData(p *pool) {
	gemm(p, false, true, l.rows, l.k, l.n, 1, l.dy, l.n, l.wt, l.n, 0, l.dx, l.k)
}

func (l *linear) backwardWeights(p *pool) {
	l.xt.run(p)
	gemm(p, false, false, l.k, l.n, l.rows, 1, l.xt.dst, l.rows, l.dy, l.n, 0, l.dwt, l.n)
	if l.db != nil {
		p.For(l.n, grainFor(l.rows), l.biasGradF)
	}
}

func (l *linear) biasRows(lo, hi int) {
	for r := lo; r < hi; r++ {
		copy(l.y[r*l.n:(r+1)*l.n], l.b)
	}
}

// biasGrad sums columns [lo, hi) of dy, row by row.
func (l *linear) biasGrad(lo, hi int) {
	db := l.db[lo:hi]
	clear(db)
	for r := range l.rows {
		for j, v := range l.dy[r*l.n+lo : r*l.n+hi] {
			db[j] += v
		}
	}
}

// matmul is a prepared batch of products of activations: count products
// of a [m, k] by b [k, n] (or [n, k] with transB).
type matmul struct {
	count, m, k, n int
	transB         bool
	a, b, c        []float32 // forward: inputs and product; backward: inputs and the product's gradient
	da, db         []float32
	t              []float32 // backward: Aᵀ, or dCᵀ with transB, per product
	fwdF, bwdF     func(lo, hi int)
	// p shares each product's blocks among its workers while the products
	// run one after another; nil while the pool shares the products.
	p *pool
}

func prepMatMul(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	v, err := descInts(d, dnn.AttrG, dnn.AttrM, dnn.AttrK, dnn.AttrN, dnn.AttrTransB)
	if err != nil {
		return nil, err
	}
	mm := &matmul{count: batch * v[0], m: v[1], k: v[2], n: v[3], transB: v[4] == 1}
	g := v[0]
	mm.a = a.floats("a", batch, g, mm.m, mm.k)
	mm.b = a.floats("b", batch, g, mm.k, mm.n)
	mm.fwdF, mm.bwdF = mm.forwardRange, mm.backwardRange
	switch pass {
	case dnn.Forward:
		mm.c = a.floats("c", batch, g, mm.m, mm.n)
		return mm.run(mm.fwdF), nil
	case dnn.BackwardData:
		mm.c = a.floats("dc", batch, g, mm.m, mm.n)
		mm.da = a.floats("da", batch, g, mm.m, mm.k)
		mm.db = a.floats("db", batch, g, mm.k, mm.n)
		if mm.transB {
			mm.t = a.floats("dcT", batch, g, mm.n, mm.m)
		} else {
			mm.t = a.floats("aT", batch, g, mm.k, mm.m)
		}
		return mm.run(mm.bwdF), nil
	}
	return nil, unsupportedPass(d.Op, pass)
}

// run shares the products among the workers when there are at least as
// many as workers, each product then computed by one worker, and runs
// them one after another otherwise, each product's blocks shared among
// the workers.
func (mm *matmul) run(f func(lo, hi int)) func(*pool) {
	return func(p *pool) {
		if mm.count >= p.workers {
			mm.p = nil
			p.For(mm.count, 1, f)
			return
		}
		mm.p = p
		f(0, mm.count)
		mm.p = nil
	}
}

func (mm *matmul) forwardRange(lo, hi int) {
	sa, sb, sc := mm.m*mm.k, mm.k*mm.n, mm.m*mm.n
	ldb := mm.n
	if mm.transB {
		ldb = mm.k
	}
	for i := lo; i < hi; i++ {
		gemm(mm.p, false, mm.transB, mm.m, mm.n, mm.k, 1, mm.a[i*sa:], mm.k, mm.b[i*sb:], ldb, 0, mm.c[i*sc:], mm.n)
	}
}

// backwardRange computes both inputs' gradients: for C = A·B, dA = dC·Bᵀ
// and dB = Aᵀ·dC; for C = A·Bᵀ, dA = dC·B and dB = dCᵀ·A; Aᵀ and dCᵀ are
// transposed explicitly (see transposeCols).
func (mm *matmul) backwardRange(lo, hi int) {
	sa, sb, sc := mm.m*mm.k, mm.k*mm.n, mm.m*mm.n
	for i := lo; i < hi; i++ {
		a, b, dc, da, db := mm.a[i*sa:], mm.b[i*sb:], mm.c[i*sc:], mm.da[i*sa:], mm.db[i*sb:]
		if mm.transB {
			t := mm.t[i*sc:]
			gemm(mm.p, false, false, mm.m, mm.k, mm.n, 1, dc, mm.n, b, mm.k, 0, da, mm.k)
			transposeCols(dc, mm.n, t, mm.m, mm.m, 0, mm.n)
			gemm(mm.p, false, false, mm.n, mm.k, mm.m, 1, t, mm.m, a, mm.k, 0, db, mm.k)
		} else {
			t := mm.t[i*sa:]
			gemm(mm.p, false, true, mm.m, mm.k, mm.n, 1, dc, mm.n, b, mm.n, 0, da, mm.k)
			transposeCols(a, mm.k, t, mm.m, mm.m, 0, mm.k)
			gemm(mm.p, false, false, mm.k, mm.n, mm.m, 1, t, mm.m, dc, mm.n, 0, db, mm.n)
		}
	}
}
