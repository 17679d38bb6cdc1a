package cpu

import (
	"fmt"
	"math"

	"github.com/wb-sim/wb/dnn"
)

// lstmLayer holds one layer's buffers; every sequence buffer is
// time-major, [T, B, ·], and the weights are stored transposed: wih
// [D_l, 4H], whh [H, 4H], gates in PyTorch's order i, f, g, o.
type lstmLayer struct {
	in                 int // D_l
	wih, whh, bih, bhh []float32
	h0, c0             []float32 // initial states [B, H]
	gates              []float32 // [T, B, 4H]: pre-activations, then (saved) activations
	c, h               []float32 // [T, B, H]
	dg                 []float32 // [T, B, 4H]: the gates' pre-activation gradients
	dwih, dwhh         []float32
	dbih, dbhh         []float32
	dxs                []float32 // [T, B, D_l]: the input's gradient
}

// lstm is a prepared stack of LSTM layers.
type lstm struct {
	t, b, d, hid int
	layers       []*lstmLayer
	x, dy        []float32 // the input [T, B, D]; the last layer's output gradient
	dh, dc       []float32 // backward: the gradients carried to the previous step, [B, H]
	inT, hpT     []float32 // backward-weights: the layer's input, [D_l, T·B], and previous hidden states, [H, T·B], transposed

	l, step                                int // the layer and step being run
	biasF, cellF, cellBackF, zeroF, biasGF func(lo, hi int)
	inTF, hpTF                             func(lo, hi int)
	rowGrain                               int
}

func prepLSTM(a *arena, d dnn.Desc, batch int, pass dnn.Pass) (func(*pool), error) {
	v, err := descInts(d, dnn.AttrHidden, dnn.AttrLayers)
	if err != nil {
		return nil, err
	}
	if len(d.In) != 1 || len(d.In[0]) != 2 || v[0] < 1 || v[1] < 1 {
		return nil, fmt.Errorf("lstm of %v, hidden %d, layers %d", d.In, v[0], v[1])
	}
	s := &lstm{t: d.In[0][0], b: batch, d: d.In[0][1], hid: v[0]}
	hid, g := s.hid, 4*s.hid
	s.layers = make([]*lstmLayer, v[1])
	for i := range s.layers {
		s.layers[i] = &lstmLayer{in: s.d}
		if i > 0 {
			s.layers[i].in = hid
		}
	}
	s.rowGrain = grainFor(g)
	top := len(s.layers) - 1
	switch pass {
	case dnn.Forward:
		s.x = a.floats("x", s.t, batch, s.d)
		for i, ly := range s.layers {
			ly.wih, ly.whh = a.floats(fmt.Sprintf("wih%d", i), ly.in, g), a.floats(fmt.Sprintf("whh%d", i), hid, g)
			ly.bih, ly.bhh = a.floats(fmt.Sprintf("bih%d", i), g), a.floats(fmt.Sprintf("bhh%d", i), g)
			ly.h0, ly.c0 = a.floats(fmt.Sprintf("h0_%d", i), batch, hid), a.floats(fmt.Sprintf("c0_%d", i), batch, hid)
			ly.gates = a.floats(fmt.Sprintf("gates%d", i), s.t, batch, g)
			ly.c = a.floats(fmt.Sprintf("c%d", i), s.t, batch, hid)
			name := fmt.Sprintf("h%d", i)
			if i == top {
				name = "y"
			}
			ly.h = a.floats(name, s.t, batch, hid)
		}
		s.biasF, s.cellF = s.biasRows, s.cell
		return s.forward, nil
	case dnn.BackwardData:
		s.dy = a.floats("dy", s.t, batch, hid)
		s.dh, s.dc = a.floats("dh", batch, hid), a.floats("dc", batch, hid)
		for i, ly := range s.layers {
			ly.wih, ly.whh = a.floats(fmt.Sprintf("wih%d", i), ly.in, g), a.floats(fmt.Sprintf("whh%d", i), hid, g)
			ly.c0 = a.floats(fmt.Sprintf("c0_%d", i), batch, hid)
			ly.gates = a.floats(fmt.Sprintf("gates%d", i), s.t, batch, g)
			ly.c = a.floats(fmt.Sprintf("c%d", i), s.t, batch, hid)
			ly.dg = a.floats(fmt.Sprintf("dg%d", i), s.t, batch, g)
			name := fmt.Sprintf("dx%d", i)
			if i == 0 {
				name = "dx"
			}
			ly.dxs = a.floats(name, s.t, batch, ly.in)
			a.then(func() { // saved activations: σ in (0, 1) for i, f, o; tanh in (−1, 1) for g
				for r := 0; r < len(ly.gates); r += g {
					for j := range g {
						if j/hid != 2 {
							ly.gates[r+j] = 0.5 + 0.49*ly.gates[r+j]
						}
					}
				}
			})
		}
		s.cellBackF, s.zeroF = s.cellBack, s.zeroCarry
		return s.backwardData, nil
	case dnn.BackwardWeights:
		s.x = a.floats("x", s.t, batch, s.d)
		for i, ly := range s.layers {
			ly.h0 = a.floats(fmt.Sprintf("h0_%d", i), batch, hid)
			ly.h = a.floats(fmt.Sprintf("h%d", i), s.t, batch, hid)
			ly.dg = a.floats(fmt.Sprintf("dg%d", i), s.t, batch, g)
			ly.dwih, ly.dwhh = a.floats(fmt.Sprintf("dwih%d", i), ly.in, g), a.floats(fmt.Sprintf("dwhh%d", i), hid, g)
			ly.dbih, ly.dbhh = a.floats(fmt.Sprintf("dbih%d", i), g), a.floats(fmt.Sprintf("dbhh%d", i), g)
		}
		s.inT = a.floats("inT", max(s.d, hid), s.t, batch)
		s.hpT = a.floats("hpT", hid, s.t, batch)
		s.biasGF, s.inTF, s.hpTF = s.biasGrad, s.transposeIn, s.transposePrev
		return s.backwardWeights, nil
	}
	return nil, unsupportedPass(d.Op, pass)
}

// input is layer l's input sequence: x, or the layer below's output.
func (s *lstm) input(l int) []float32 {
	if l == 0 {
		return s.x
	}
	return s.layers[l-1].h
}

func (s *lstm) forward(p *pool) {
	n, g := s.t*s.b, 4*s.hid
	for s.l = range s.layers {
		ly := s.layers[s.l]
		p.For(n, s.rowGrain, s.biasF)
		gemm(p, false, false, n, g, ly.in, 1, s.input(s.l), ly.in, ly.wih, g, 1, ly.gates, g)
		for s.step = range s.t {
			prev := ly.h0
			if s.step > 0 {
				prev = ly.h[(s.step-1)*s.b*s.hid:]
			}
			gemm(p, false, false, s.b, g, s.hid, 1, prev, s.hid, ly.whh, g, 1, ly.gates[s.step*s.b*g:], g)
			p.For(s.b, s.rowGrain, s.cellF)
		}
	}
}

// biasRows sets rows [lo, hi) of the current layer's gates to b_ih + b_hh.
func (s *lstm) biasRows(lo, hi int) {
	ly, g := s.layers[s.l], 4*s.hid
	for r := lo; r < hi; r++ {
		row := ly.gates[r*g : (r+1)*g]
		for j := range row {
			row[j] = ly.bih[j] + ly.bhh[j]
		}
	}
}

// cell runs the cell of the current layer and step for samples [lo, hi):
// i, f, o = σ(·), g = tanh(·), c = f⊙c′ + i⊙g, h = o⊙tanh(c), keeping the
// activations in place of the pre-activations.
func (s *lstm) cell(lo, hi int) {
	ly, hid, g := s.layers[s.l], s.hid, 4*s.hid
	for b := lo; b < hi; b++ {
		r := s.step*s.b + b
		gt := ly.gates[r*g : (r+1)*g]
		cp := ly.c0[b*hid : (b+1)*hid]
		if s.step > 0 {
			cp = ly.c[(r-s.b)*hid:][:hid]
		}
		c, h := ly.c[r*hid:(r+1)*hid], ly.h[r*hid:(r+1)*hid]
		for j := range hid {
			i := float32(sigmoid(float64(gt[j])))
			f := float32(sigmoid(float64(gt[hid+j])))
			gg := float32(math.Tanh(float64(gt[2*hid+j])))
			o := float32(sigmoid(float64(gt[3*hid+j])))
			gt[j], gt[hid+j], gt[2*hid+j], gt[3*hid+j] = i, f, gg, o
			c[j] = f*cp[j] + i*gg
			h[j] = o * float32(math.Tanh(float64(c[j])))
		}
	}
}

func (s *lstm) backwardData(p *pool) {
	n, g := s.t*s.b, 4*s.hid
	for s.l = len(s.layers) - 1; s.l >= 0; s.l-- {
		ly := s.layers[s.l]
		p.For(s.b, s.rowGrain, s.zeroF)
		for s.step = s.t - 1; s.step >= 0; s.step-- {
			p.For(s.b, s.rowGrain, s.cellBackF)
			gemm(p, false, true, s.b, s.hid, g, 1, ly.dg[s.step*s.b*g:], g, ly.whh, g, 0, s.dh, s.hid)
		}
		gemm(p, false, true, n, ly.in, g, 1, ly.dg, g, ly.wih, g, 0, ly.dxs, ly.in)
	}
}

func (s *lstm) zeroCarry(lo, hi int) {
	clear(s.dh[lo*s.hid : hi*s.hid])
	clear(s.dc[lo*s.hid : hi*s.hid])
}

// cellBack is the cell's backward for samples [lo, hi) of the current
// layer and step: from dh (the output's gradient plus the one carried from
// the next step) and the carried dc, the gates' pre-activation gradients
// and the dc carried to the previous step.
func (s *lstm) cellBack(lo, hi int) {
	ly, hid, g := s.layers[s.l], s.hid, 4*s.hid
	dout := s.dy
	if s.l < len(s.layers)-1 {
		dout = s.layers[s.l+1].dxs
	}
	for b := lo; b < hi; b++ {
		r := s.step*s.b + b
		gt, dg := ly.gates[r*g:(r+1)*g], ly.dg[r*g:(r+1)*g]
		cp := ly.c0[b*hid : (b+1)*hid]
		if s.step > 0 {
			cp = ly.c[(r-s.b)*hid:][:hid]
		}
		c := ly.c[r*hid : (r+1)*hid]
		do, dh, dc := dout[r*hid:(r+1)*hid], s.dh[b*hid:(b+1)*hid], s.dc[b*hid:(b+1)*hid]
		for j := range hid {
			i, f, gg, o := gt[j], gt[hid+j], gt[2*hid+j], gt[3*hid+j]
			tc := float32(math.Tanh(float64(c[j])))
			h := do[j] + dh[j]
			dcj := dc[j] + h*o*(1-tc*tc)
			dg[j] = dcj * gg * i * (1 - i)
			dg[hid+j] = dcj * cp[j] * f * (1 - f)
			dg[2*hid+j] = dcj * i * (1 - gg*gg)
			dg[3*hid+j] = h * tc * o * (1 - o)
			dc[j] = dcj * f
		}
	}
}

// backwardWeights computes, per layer, dW_ih = inputᵀ·dG and dW_hh =
// h_prevᵀ·dG, the transposes made explicitly (see transposeCols), where
// h_prev is h0 then the layer's outputs shifted by one step, and the
// biases' gradients.
func (s *lstm) backwardWeights(p *pool) {
	n, g := s.t*s.b, 4*s.hid
	for s.l = range s.layers {
		ly := s.layers[s.l]
		p.For(ly.in, grainFor(n), s.inTF)
		p.For(s.hid, grainFor(n), s.hpTF)
		gemm(p, false, false, ly.in, g, n, 1, s.inT, n, ly.dg, g, 0, ly.dwih, g)
		gemm(p, false, false, s.hid, g, n, 1, s.hpT, n, ly.dg, g, 0, ly.dwhh, g)
		p.For(g, grainFor(n), s.biasGF)
	}
}

// transposeIn writes columns [lo, hi) of the current layer's input as rows
// of inT.
func (s *lstm) transposeIn(lo, hi int) {
	l := s.layers[s.l]
	transposeCols(s.input(s.l), l.in, s.inT, s.t*s.b, s.t*s.b, lo, hi)
}

// transposePrev writes columns [lo, hi) of the previous hidden states (h0,
// then the outputs of steps 0 to T−2) as rows of hpT.
func (s *lstm) transposePrev(lo, hi int) {
	l, n := s.layers[s.l], s.t*s.b
	transposeCols(l.h0, s.hid, s.hpT, n, s.b, lo, hi)
	transposeCols(l.h, s.hid, s.hpT[s.b:], n, n-s.b, lo, hi)
}

// biasGrad sums columns [lo, hi) of the current layer's gate gradients
// into both biases' gradients.
func (s *lstm) biasGrad(lo, hi int) {
	ly, g := s.layers[s.l], 4*s.hid
	db := ly.dbih[lo:hi]
	clear(db)
	for r := range s.t * s.b {
		for j, v := range ly.dg[r*g+lo : r*g+hi] {
			db[j] += v
		}
	}
	copy(ly.dbhh[lo:hi], db)
}
