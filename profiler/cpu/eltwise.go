package cpu

import (
	"fmt"
	"math"

	"github.com/wb-sim/wb/dnn"
)

// leakySlope is the leaky ReLU's slope: CycleGAN's 0.2.
const leakySlope = 0.2

// gelu's tanh approximation: 0.5x(1 + tanh(√(2/π)(x + 0.044715x³))).
const (
	geluC = 0.7978845608028654 // √(2/π)
	geluA = 0.044715
)

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// activation is y = f(x) forward; backward, dx = dy·f′, from x or, for
// sigmoid and tanh, from y.
func activation(op dnn.Op, x float32) float32 {
	v := float64(x)
	switch op {
	case dnn.OpReLU:
		return max(x, 0)
	case dnn.OpLeakyReLU:
		if x < 0 {
			return leakySlope * x
		}
		return x
	case dnn.OpGELU:
		return float32(0.5 * v * (1 + math.Tanh(geluC*(v+geluA*v*v*v))))
	case dnn.OpSigmoid:
		return float32(sigmoid(v))
	case dnn.OpTanh:
		return float32(math.Tanh(v))
	case dnn.OpSiLU:
		return float32(v * sigmoid(v))
	}
	panic("cpu: unknown activation " + op)
}

// activationGrad is dy·f′ given t, which is x, or y for sigmoid and tanh.
func activationGrad(op dnn.Op, t, dy float32) float32 {
	v := float64(t)
	switch op {
	case dnn.OpReLU:
		if t > 0 {
			return dy
		}
		return 0
	case dnn.OpLeakyReLU:
		if t < 0 {
			return leakySlope * dy
		}
		return dy
	case dnn.OpGELU:
		u := geluC * (v + geluA*v*v*v)
		th := math.Tanh(u)
		d := 0.5*(1+th) + 0.5*v*(1-th*th)*geluC*(1+3*geluA*v*v)
		return float32(float64(dy) * d)
	case dnn.OpSigmoid:
		return dy * t * (1 - t)
	case dnn.OpTanh:
		return dy * (1 - t*t)
	case dnn.OpSiLU:
		s := sigmoid(v)
		return float32(float64(dy) * s * (1 + v*(1-s)))
	}
	panic("cpu: unknown activation " + op)
}

// activationFrom says whether an activation's backward reads y (else x).
func activationFromY(op dnn.Op) bool { return op == dnn.OpSigmoid || op == dnn.OpTanh }

func prepActivation(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	if len(d.In) != 1 {
		return nil, fmt.Errorf("%s takes one input, got %d", d.Op, len(d.In))
	}
	per := int(d.In[0].Elems())
	n := batch * per // valid once the arena has allocated batch×per values
	op := d.Op
	var f func(lo, hi int)
	switch pass {
	case dnn.Forward:
		x, y := a.floats("x", batch, per), a.floats("y", batch, per)
		switch op { // the common ones without a call per value
		case dnn.OpReLU:
			f = func(lo, hi int) {
				y := y[lo:hi]
				for i, v := range x[lo:hi] {
					y[i] = max(v, 0)
				}
			}
		default:
			f = func(lo, hi int) {
				y := y[lo:hi]
				for i, v := range x[lo:hi] {
					y[i] = activation(op, v)
				}
			}
		}
	case dnn.BackwardData:
		saved := "x"
		if activationFromY(op) {
			saved = "y"
		}
		t, dy, dx := a.floats(saved, batch, per), a.floats("dy", batch, per), a.floats("dx", batch, per)
		f = func(lo, hi int) {
			dx, dy := dx[lo:hi], dy[lo:hi]
			for i, v := range t[lo:hi] {
				dx[i] = activationGrad(op, v, dy[i])
			}
		}
		if saved == "y" && op == dnn.OpSigmoid {
			a.then(func() { // sigmoid's outputs lie in (0, 1)
				for i, v := range t {
					t[i] = 0.5 + 0.49*v
				}
			})
		}
	default:
		return nil, unsupportedPass(op, pass)
	}
	return func(p *pool) { p.For(n, 4096, f) }, nil
}

// dropoutP is the probability of the dropout kernels; the work does not
// depend on it.
const dropoutP = 0.1

// dropoutKeep is whether value i is kept: a splitmix64 hash of its index,
// compared with p, so that the mask is the same on every run and in every
// partition of the loop.
func dropoutKeep(i int) bool {
	z := uint64(i)*0x9e3779b97f4a7c15 + fillSeed
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return float64(z>>11)/(1<<53) >= dropoutP
}

func prepDropout(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	per := int(d.Out.Elems())
	n := batch * per
	const scale = 1 / (1 - dropoutP)
	var f func(lo, hi int)
	switch pass {
	case dnn.Forward:
		x, y, mask := a.floats("x", batch, per), a.floats("y", batch, per), a.bytes("mask", batch, per)
		f = func(lo, hi int) {
			for i := lo; i < hi; i++ {
				var m uint8
				if dropoutKeep(i) {
					m = 1
				}
				mask[i] = m
				y[i] = x[i] * float32(m) * scale
			}
		}
	case dnn.BackwardData:
		dy, dx, mask := a.floats("dy", batch, per), a.floats("dx", batch, per), a.bytes("mask", batch, per)
		a.then(func() {
			for i := range mask {
				if dropoutKeep(i) {
					mask[i] = 1
				}
			}
		})
		f = func(lo, hi int) {
			dx := dx[lo:hi]
			m := mask[lo:hi]
			for i, v := range dy[lo:hi] {
				dx[i] = v * float32(m[i]) * scale
			}
		}
	default:
		return nil, unsupportedPass(d.Op, pass)
	}
	return func(p *pool) { p.For(n, 4096, f) }, nil
}

// softmaxScale is the attention scale of a scaled softmax: 1/√64, the
// head width of the zoo's transformers.
const softmaxScale = 0.125

func prepSoftmax(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	s := d.Out
	if len(s) == 0 {
		return nil, fmt.Errorf("softmax on a scalar")
	}
	cols := s[len(s)-1]
	per := int(s.Elems()) / cols // rows per sample
	rows := batch * per
	scale := float32(1)
	if d.Attr[dnn.AttrScaled] == 1 {
		scale = softmaxScale
	}
	causal := d.Attr[dnn.AttrCausal] == 1
	// valid is the number of leading columns of row r the mask keeps.
	valid := func(r int) int {
		if causal {
			return r%cols + 1
		}
		return cols
	}
	var f func(lo, hi int)
	switch pass {
	case dnn.Forward:
		x, y := a.floats("x", batch, per, cols), a.floats("y", batch, per, cols)
		f = func(lo, hi int) {
			for r := lo; r < hi; r++ {
				xr, yr := x[r*cols:(r+1)*cols], y[r*cols:(r+1)*cols]
				v := valid(r)
				m := float32(math.Inf(-1))
				for _, t := range xr[:v] {
					m = max(m, t*scale)
				}
				var sum float64
				for j, t := range xr[:v] {
					e := math.Exp(float64(t*scale - m))
					yr[j] = float32(e)
					sum += e
				}
				inv := float32(1 / sum)
				for j := range yr[:v] {
					yr[j] *= inv
				}
				clear(yr[v:])
			}
		}
	case dnn.BackwardData:
		y, dy, dx := a.floats("y", batch, per, cols), a.floats("dy", batch, per, cols), a.floats("dx", batch, per, cols)
		a.then(func() { // probabilities: positive, summing to 1 over the kept columns
			for r := range rows {
				yr := y[r*cols : (r+1)*cols]
				v := valid(r)
				var sum float32
				for j := range yr[:v] {
					yr[j] = 1.5 + yr[j]
					sum += yr[j]
				}
				for j := range yr[:v] {
					yr[j] /= sum
				}
				clear(yr[v:])
			}
		})
		f = func(lo, hi int) {
			for r := lo; r < hi; r++ {
				yr, dyr, dxr := y[r*cols:(r+1)*cols], dy[r*cols:(r+1)*cols], dx[r*cols:(r+1)*cols]
				var dot float32
				for j, t := range yr {
					dot += t * dyr[j]
				}
				for j, t := range yr {
					dxr[j] = scale * t * (dyr[j] - dot)
				}
			}
		}
	default:
		return nil, unsupportedPass(d.Op, pass)
	}
	return func(p *pool) { p.For(rows, grainFor(cols), f) }, nil
}

func prepAdd(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	if pass != dnn.Forward {
		return nil, unsupportedPass(d.Op, pass)
	}
	if len(d.In) < 2 {
		return nil, fmt.Errorf("add of %d inputs", len(d.In))
	}
	per := int(d.Out.Elems())
	n := batch * per
	xs := make([][]float32, len(d.In))
	for i := range xs {
		xs[i] = a.floats(fmt.Sprintf("x%d", i), batch, per)
	}
	y := a.floats("y", batch, per)
	f := func(lo, hi int) {
		y := y[lo:hi]
		copy(y, xs[0][lo:hi])
		for _, x := range xs[1:] {
			for i, v := range x[lo:hi] {
				y[i] += v
			}
		}
	}
	return func(p *pool) { p.For(n, 4096, f) }, nil
}
