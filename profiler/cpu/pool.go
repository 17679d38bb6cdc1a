package cpu

import (
	"fmt"
	"math"

	"github.com/wb-sim/wb/dnn"
)

// pooling is max, average or global average pooling over [C, H, W]
// planes.
type pooling struct {
	op                     dnn.Op
	h, w, ho, wo, k, s, pd int
	x, y, dy, dx           []float32
	argmax                 []int32 // max pooling's backward: each output's input offset in its plane
}

func prepPool(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	if len(d.In) != 1 || len(d.In[0]) != 3 {
		return nil, fmt.Errorf("%s wants one [C, H, W] input, got %v", d.Op, d.In)
	}
	in := d.In[0]
	pl := &pooling{op: d.Op, h: in[1], w: in[2], ho: 1, wo: 1}
	if d.Op != dnn.OpGlobalAvgPool {
		v, err := descInts(d, dnn.AttrK, dnn.AttrStride, dnn.AttrPad)
		if err != nil {
			return nil, err
		}
		if len(d.Out) != 3 || v[0] < 1 || v[1] < 1 {
			return nil, fmt.Errorf("%s: output %v, attributes %v", d.Op, d.Out, d.Attr)
		}
		pl.k, pl.s, pl.pd = v[0], v[1], v[2]
		pl.ho, pl.wo = d.Out[1], d.Out[2]
	}
	planes := batch * in[0]
	pin, pout := pl.h*pl.w, pl.ho*pl.wo
	var f func(lo, hi int)
	switch pass {
	case dnn.Forward:
		pl.x, pl.y = a.floats("x", batch, in[0], pin), a.floats("y", batch, in[0], pout)
		f = pl.forward
	case dnn.BackwardData:
		pl.dy, pl.dx = a.floats("dy", batch, in[0], pout), a.floats("dx", batch, in[0], pin)
		if d.Op == dnn.OpMaxPool {
			pl.x = a.floats("x", batch, in[0], pin)
			pl.argmax = a.int32s("argmax", batch, in[0], pout)
			a.then(func() { pl.maxArg(0, planes) })
		}
		f = pl.backward
	default:
		return nil, unsupportedPass(d.Op, pass)
	}
	grain := grainFor(pin)
	return func(p *pool) { p.For(planes, grain, f) }, nil
}

// window is the rows or columns [lo, hi) of the input that output o's
// window covers inside an input of n.
func (pl *pooling) window(o, n int) (lo, hi int) {
	lo = o*pl.s - pl.pd
	return max(lo, 0), min(lo+pl.k, n)
}

func (pl *pooling) forward(lo, hi int) {
	pin, pout := pl.h*pl.w, pl.ho*pl.wo
	for q := lo; q < hi; q++ {
		x, y := pl.x[q*pin:][:pin], pl.y[q*pout:][:pout]
		if pl.op == dnn.OpGlobalAvgPool {
			var s float32
			for _, v := range x {
				s += v
			}
			y[0] = s / float32(pin)
			continue
		}
		div := 1 / float32(pl.k*pl.k)
		for oh := range pl.ho {
			h0, h1 := pl.window(oh, pl.h)
			for ow := range pl.wo {
				w0, w1 := pl.window(ow, pl.w)
				if pl.op == dnn.OpMaxPool {
					m := float32(math.Inf(-1))
					for ih := h0; ih < h1; ih++ {
						for _, v := range x[ih*pl.w+w0 : ih*pl.w+w1] {
							m = max(m, v)
						}
					}
					y[oh*pl.wo+ow] = m
					continue
				}
				var s float32
				for ih := h0; ih < h1; ih++ {
					for _, v := range x[ih*pl.w+w0 : ih*pl.w+w1] {
						s += v
					}
				}
				y[oh*pl.wo+ow] = s * div
			}
		}
	}
}

// maxArg sets the argmax of every output of planes [lo, hi), as max
// pooling's forward pass saves it in training.
func (pl *pooling) maxArg(lo, hi int) {
	pin, pout := pl.h*pl.w, pl.ho*pl.wo
	for q := lo; q < hi; q++ {
		x, arg := pl.x[q*pin:][:pin], pl.argmax[q*pout:][:pout]
		for oh := range pl.ho {
			h0, h1 := pl.window(oh, pl.h)
			for ow := range pl.wo {
				w0, w1 := pl.window(ow, pl.w)
				best, m := h0*pl.w+w0, float32(math.Inf(-1))
				for ih := h0; ih < h1; ih++ {
					for iw := w0; iw < w1; iw++ {
						if v := x[ih*pl.w+iw]; v > m {
							best, m = ih*pl.w+iw, v
						}
					}
				}
				arg[oh*pl.wo+ow] = int32(best)
			}
		}
	}
}

func (pl *pooling) backward(lo, hi int) {
	pin, pout := pl.h*pl.w, pl.ho*pl.wo
	for q := lo; q < hi; q++ {
		dx, dy := pl.dx[q*pin:][:pin], pl.dy[q*pout:][:pout]
		switch pl.op {
		case "globalavgpool":
			g := dy[0] / float32(pin)
			for i := range dx {
				dx[i] = g
			}
		case "maxpool":
			clear(dx)
			for i, a := range pl.argmax[q*pout:][:pout] {
				dx[a] += dy[i]
			}
		default:
			clear(dx)
			div := 1 / float32(pl.k*pl.k)
			for oh := range pl.ho {
				h0, h1 := pl.window(oh, pl.h)
				for ow := range pl.wo {
					w0, w1 := pl.window(ow, pl.w)
					g := dy[oh*pl.wo+ow] * div
					for ih := h0; ih < h1; ih++ {
						row := dx[ih*pl.w+w0 : ih*pl.w+w1]
						for i := range row {
							row[i] += g
						}
					}
				}
			}
		}
	}
}
