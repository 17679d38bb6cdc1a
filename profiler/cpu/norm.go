package cpu

import (
	"fmt"
	"math"

	"github.com/wb-sim/wb/dnn"
)

// normEps is the ε of the normalisations' variance: PyTorch's 1e-5.
const normEps = 1e-5

// chanNorm is batch normalisation (groups are channels, each made of one
// segment per sample) or instance normalisation (groups are the planes of
// each sample and channel).
type chanNorm struct {
	groups, segs, seg, stride int // segment j of group g starts at segStart(g, j)
	bn                        bool
	x, y, dy, dx              []float32
	gamma, beta, dgamma, dbet []float32
	mean, rstd                []float32
}

func (n *chanNorm) segStart(g, j int) int {
	if n.bn {
		return j*n.stride + g*n.seg
	}
	return g * n.seg
}

func prepChannelNorm(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	s := d.Out
	if len(s) == 0 {
		return nil, fmt.Errorf("%s on a scalar", d.Op)
	}
	c, inner := s[0], int(s.Elems())/s[0]
	n := &chanNorm{bn: d.Op == dnn.OpBatchNorm, seg: inner, stride: c * inner}
	if n.bn {
		n.groups, n.segs = c, batch
	} else {
		n.groups, n.segs = batch*c, 1
	}
	params := func() {
		if n.bn {
			n.gamma, n.beta = a.floats("gamma", c), a.floats("beta", c)
		}
	}
	var f func(lo, hi int)
	switch pass {
	case dnn.Forward:
		n.x = a.floats("x", batch, c, inner)
		params()
		n.y = a.floats("y", batch, c, inner)
		n.mean, n.rstd = a.floats("mean", n.groups), a.floats("rstd", n.groups)
		f = n.forward
	case dnn.BackwardData:
		n.x, n.dy = a.floats("x", batch, c, inner), a.floats("dy", batch, c, inner)
		params()
		n.mean, n.rstd = a.floats("mean", n.groups), a.floats("rstd", n.groups)
		n.dx = a.floats("dx", batch, c, inner)
		if n.bn {
			n.dgamma, n.dbet = a.floats("dgamma", c), a.floats("dbeta", c)
		}
		a.then(func() { n.stats(0, n.groups) })
		f = n.backward
	default:
		return nil, unsupportedPass(d.Op, pass)
	}
	grain := grainFor(n.segs * n.seg)
	return func(p *pool) { p.For(n.groups, grain, f) }, nil
}

// stats sets the mean and 1/√(var + ε) of groups [lo, hi).
func (n *chanNorm) stats(lo, hi int) {
	m := float64(n.segs * n.seg)
	for g := lo; g < hi; g++ {
		var s, ss float64
		for j := range n.segs {
			for _, v := range n.x[n.segStart(g, j):][:n.seg] {
				s += float64(v)
				ss += float64(v) * float64(v)
			}
		}
		mean := s / m
		n.mean[g] = float32(mean)
		n.rstd[g] = float32(1 / math.Sqrt(max(ss/m-mean*mean, 0)+normEps))
	}
}

// affine is group g's scale and shift: γ and β, or 1 and 0.
func (n *chanNorm) affine(g int) (float32, float32) {
	if n.gamma == nil {
		return 1, 0
	}
	return n.gamma[g], n.beta[g]
}

func (n *chanNorm) forward(lo, hi int) {
	n.stats(lo, hi)
	for g := lo; g < hi; g++ {
		gm, bt := n.affine(g)
		scale := n.rstd[g] * gm
		shift := bt - n.mean[g]*scale
		for j := range n.segs {
			o := n.segStart(g, j)
			y := n.y[o:][:n.seg]
			for i, v := range n.x[o:][:n.seg] {
				y[i] = v*scale + shift
			}
		}
	}
}

func (n *chanNorm) backward(lo, hi int) {
	m := float32(n.segs * n.seg)
	for g := lo; g < hi; g++ {
		mean, rstd := n.mean[g], n.rstd[g]
		var sdy, sdyx float32
		for j := range n.segs {
			o := n.segStart(g, j)
			dy := n.dy[o:][:n.seg]
			for i, v := range n.x[o:][:n.seg] {
				sdy += dy[i]
				sdyx += dy[i] * (v - mean) * rstd
			}
		}
		gm, _ := n.affine(g)
		k := gm * rstd
		a, b := sdy/m, sdyx/m
		for j := range n.segs {
			o := n.segStart(g, j)
			dy, dx := n.dy[o:][:n.seg], n.dx[o:][:n.seg]
			for i, v := range n.x[o:][:n.seg] {
				dx[i] = k * (dy[i] - a - (v-mean)*rstd*b)
			}
		}
		if n.dgamma != nil {
			n.dgamma[g], n.dbet[g] = sdyx, sdy
		}
	}
}

// rowNorm is layer normalisation or L2 normalisation over the last
// dimension.
type rowNorm struct {
	rows, cols                 int
	layer                      bool // layernorm, else normalize
	x, y, dy, dx               []float32
	gamma, beta, dgamma, dbeta []float32
	mean, rstd                 []float32 // layernorm: per row; normalize: rstd is 1/‖x‖
	rowF, colF                 func(lo, hi int)
}

func prepRowNorm(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	s := d.Out
	if len(s) == 0 {
		return nil, fmt.Errorf("%s on a scalar", d.Op)
	}
	cols := s[len(s)-1]
	per := int(s.Elems()) / cols
	n := &rowNorm{rows: batch * per, cols: cols, layer: d.Op == dnn.OpLayerNorm}
	params := func() {
		if n.layer {
			n.gamma, n.beta = a.floats("gamma", cols), a.floats("beta", cols)
		}
	}
	switch pass {
	case dnn.Forward:
		n.x = a.floats("x", batch, per, cols)
		params()
		n.y = a.floats("y", batch, per, cols)
		n.mean, n.rstd = a.floats("mean", batch, per), a.floats("rstd", batch, per)
		n.rowF = n.forward
	case dnn.BackwardData:
		n.x, n.dy = a.floats("x", batch, per, cols), a.floats("dy", batch, per, cols)
		params()
		n.mean, n.rstd = a.floats("mean", batch, per), a.floats("rstd", batch, per)
		n.dx = a.floats("dx", batch, per, cols)
		if n.layer {
			n.dgamma, n.dbeta = a.floats("dgamma", cols), a.floats("dbeta", cols)
			n.colF = n.paramGrads
		}
		a.then(func() { n.stats(0, n.rows) })
		n.rowF = n.backward
	default:
		return nil, unsupportedPass(d.Op, pass)
	}
	return func(p *pool) {
		p.For(n.rows, grainFor(n.cols), n.rowF)
		if n.colF != nil {
			p.For(n.cols, grainFor(n.rows), n.colF)
		}
	}, nil
}

// stats sets each row's mean and 1/√(var + ε) (layernorm), or 1/‖x‖
// (normalize, with PyTorch's F.normalize floor of 1e-12 on the norm).
func (n *rowNorm) stats(lo, hi int) {
	c := float64(n.cols)
	for r := lo; r < hi; r++ {
		var s, ss float64
		for _, v := range n.x[r*n.cols:][:n.cols] {
			s += float64(v)
			ss += float64(v) * float64(v)
		}
		if n.layer {
			mean := s / c
			n.mean[r] = float32(mean)
			n.rstd[r] = float32(1 / math.Sqrt(max(ss/c-mean*mean, 0)+normEps))
		} else {
			n.mean[r] = 0
			n.rstd[r] = float32(1 / max(math.Sqrt(ss), 1e-12))
		}
	}
}

func (n *rowNorm) forward(lo, hi int) {
	n.stats(lo, hi)
	for r := lo; r < hi; r++ {
		x, y := n.x[r*n.cols:][:n.cols], n.y[r*n.cols:][:n.cols]
		mean, rstd := n.mean[r], n.rstd[r]
		if !n.layer {
			for i, v := range x {
				y[i] = v * rstd
			}
			continue
		}
		for i, v := range x {
			y[i] = (v-mean)*rstd*n.gamma[i] + n.beta[i]
		}
	}
}

// backward is the input's gradient, row by row: for layernorm, with
// g = dy⊙γ, dx = rstd·(g − mean(g) − x̂·mean(g⊙x̂)); for normalize, with
// y = x/‖x‖, dx = (dy − y·(y·dy))/‖x‖.
func (n *rowNorm) backward(lo, hi int) {
	c := float32(n.cols)
	for r := lo; r < hi; r++ {
		x, dy, dx := n.x[r*n.cols:][:n.cols], n.dy[r*n.cols:][:n.cols], n.dx[r*n.cols:][:n.cols]
		mean, rstd := n.mean[r], n.rstd[r]
		if !n.layer {
			var dot float32
			for i, v := range x {
				dot += v * rstd * dy[i]
			}
			for i, v := range x {
				dx[i] = (dy[i] - v*rstd*dot) * rstd
			}
			continue
		}
		var sg, sgx float32
		for i, v := range x {
			g := dy[i] * n.gamma[i]
			sg += g
			sgx += g * (v - mean) * rstd
		}
		a, b := sg/c, sgx/c
		for i, v := range x {
			dx[i] = rstd * (dy[i]*n.gamma[i] - a - (v-mean)*rstd*b)
		}
	}
}

// paramGrads sums, for columns [lo, hi), dγ = Σ dy⊙x̂ and dβ = Σ dy over
// the rows.
func (n *rowNorm) paramGrads(lo, hi int) {
	dg, db := n.dgamma[lo:hi], n.dbeta[lo:hi]
	clear(dg)
	clear(db)
	for r := range n.rows {
		mean, rstd := n.mean[r], n.rstd[r]
		dy := n.dy[r*n.cols+lo : r*n.cols+hi]
		for i, v := range n.x[r*n.cols+lo : r*n.cols+hi] {
			dg[i] += dy[i] * (v - mean) * rstd
			db[i] += dy[i]
		}
	}
}

// LRN's constants: PyTorch's nn.LocalResponseNorm defaults.
const (
	lrnAlpha = 1e-4
	lrnBeta  = 0.75
	lrnK     = 1.0
)

// lrnChunk is the number of positions of a plane one unit of LRN work
// covers.
const lrnChunk = 256

// lrn is cross-channel local response normalisation: y = x·s^−β with
// s = k + α/size·Σ x² over channels [c − size/2, c + (size−1)/2].
type lrn struct {
	batch, c, inner, size, chunks int
	x, y, scale, dy, dx, t        []float32
}

func prepLRN(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	s := d.Out
	size, err := descInt(d, dnn.AttrSize)
	if err != nil {
		return nil, err
	}
	if len(s) == 0 || size < 1 {
		return nil, fmt.Errorf("lrn of %v, size %d", s, size)
	}
	l := &lrn{batch: batch, c: s[0], inner: int(s.Elems()) / s[0], size: size}
	l.chunks = (l.inner + lrnChunk - 1) / lrnChunk
	var f func(lo, hi int)
	switch pass {
	case dnn.Forward:
		l.x = a.floats("x", batch, l.c, l.inner)
		l.y = a.floats("y", batch, l.c, l.inner)
		l.scale = a.floats("scale", batch, l.c, l.inner)
		f = l.forward
	case dnn.BackwardData:
		l.x = a.floats("x", batch, l.c, l.inner)
		l.y = a.floats("y", batch, l.c, l.inner)
		l.scale = a.floats("scale", batch, l.c, l.inner)
		l.dy = a.floats("dy", batch, l.c, l.inner)
		l.dx = a.floats("dx", batch, l.c, l.inner)
		l.t = a.floats("t", batch, l.c, l.inner)
		a.then(func() { l.forward(0, l.batch*l.chunks) })
		f = l.backward
	default:
		return nil, unsupportedPass(d.Op, pass)
	}
	return func(p *pool) { p.For(l.batch*l.chunks, 1, f) }, nil
}

// span is the positions of unit u: sample b, offsets [lo, hi) of a plane.
func (l *lrn) span(u int) (b, lo, hi int) {
	b, k := u/l.chunks, u%l.chunks
	return b, k * lrnChunk, min((k+1)*lrnChunk, l.inner)
}

// at is the slice of positions [lo, hi) of channel c of sample b in s.
func (l *lrn) at(s []float32, b, c, lo, hi int) []float32 {
	o := (b*l.c + c) * l.inner
	return s[o+lo : o+hi]
}

func (l *lrn) forward(ulo, uhi int) {
	for u := ulo; u < uhi; u++ {
		b, lo, hi := l.span(u)
		for c := range l.c {
			sc := l.at(l.scale, b, c, lo, hi)
			clear(sc)
			for cc := max(0, c-l.size/2); cc <= min(l.c-1, c+(l.size-1)/2); cc++ {
				for i, v := range l.at(l.x, b, cc, lo, hi) {
					sc[i] += v * v
				}
			}
			x, y := l.at(l.x, b, c, lo, hi), l.at(l.y, b, c, lo, hi)
			for i, v := range sc {
				s := lrnK + lrnAlpha/float32(l.size)*v
				sc[i] = s
				y[i] = x[i] * float32(math.Pow(float64(s), -lrnBeta))
			}
		}
	}
}

// backward: dx_c = dy_c·s_c^−β − 2αβ/size·x_c·Σ dy_c′·y_c′/s_c′ over the
// channels c′ whose window holds c.
func (l *lrn) backward(ulo, uhi int) {
	coef := float32(2 * lrnAlpha * lrnBeta / float64(l.size))
	for u := ulo; u < uhi; u++ {
		b, lo, hi := l.span(u)
		for c := range l.c {
			t, dy, y, sc := l.at(l.t, b, c, lo, hi), l.at(l.dy, b, c, lo, hi), l.at(l.y, b, c, lo, hi), l.at(l.scale, b, c, lo, hi)
			for i := range t {
				t[i] = dy[i] * y[i] / sc[i]
			}
		}
		for c := range l.c {
			dx, dy, x, sc := l.at(l.dx, b, c, lo, hi), l.at(l.dy, b, c, lo, hi), l.at(l.x, b, c, lo, hi), l.at(l.scale, b, c, lo, hi)
			for i := range dx {
				dx[i] = dy[i] * float32(math.Pow(float64(sc[i]), -lrnBeta))
			}
			for cc := max(0, c-(l.size-1)/2); cc <= min(l.c-1, c+l.size/2); cc++ {
				for i, tv := range l.at(l.t, b, cc, lo, hi) {
					dx[i] -= coef * x[i] * tv
				}
			}
		}
	}
}
