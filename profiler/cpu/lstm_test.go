package cpu

import (
	"fmt"
	"math"
	"testing"

	"github.com/wb-sim/wb/dnn"
)

// lstmParams are an LSTM stack's parameters and initial states in the
// kernel's layout (weights transposed, [D_l, 4H] and [H, 4H]).
type lstmParams struct {
	wih, whh, bih, bhh, h0, c0 [][]float64
}

// naiveLSTM runs the stack step by step in float64, PyTorch's equations:
// gates = x·W_ihᵀ + b_ih + h·W_hhᵀ + b_hh; i, f, o = σ, g = tanh;
// c = f·c + i·g; h = o·tanh(c). x is [T, B, D]; it returns the top layer's
// h, [T, B, H].
func naiveLSTM(x []float64, p lstmParams, t, b, d, hid int) []float64 {
	in, din := x, d
	for l := range p.wih {
		out := make([]float64, t*b*hid)
		h := append([]float64(nil), p.h0[l]...)
		c := append([]float64(nil), p.c0[l]...)
		for s := range t {
			for bi := range b {
				gates := make([]float64, 4*hid)
				for j := range 4 * hid {
					v := p.bih[l][j] + p.bhh[l][j]
					for k := range din {
						v += in[(s*b+bi)*din+k] * p.wih[l][k*4*hid+j]
					}
					for k := range hid {
						v += h[bi*hid+k] * p.whh[l][k*4*hid+j]
					}
					gates[j] = v
				}
				for j := range hid {
					i, f := sigmoid64(gates[j]), sigmoid64(gates[hid+j])
					g, o := math.Tanh(gates[2*hid+j]), sigmoid64(gates[3*hid+j])
					c[bi*hid+j] = f*c[bi*hid+j] + i*g
					out[(s*b+bi)*hid+j] = o * math.Tanh(c[bi*hid+j])
				}
			}
			copy(h, out[s*b*hid:(s+1)*b*hid])
		}
		in, din = out, hid
	}
	return in
}

// TestLSTM checks the forward pass against naiveLSTM (1e-5 of the largest
// value: float32 sums of D + H + 2 terms and float64 transcendentals
// rounded to float32), and both backward passes, run on the forward's
// saved gates and states, against central differences of naiveLSTM with
// respect to the input and to every parameter (1e-4: float32 rounding
// accumulated through 4 steps and 2 layers).
func TestLSTM(t *testing.T) {
	const steps, d, hid, layers, batch = 4, 3, 5, 2, 2
	l := layerOf(t, dnn.Shape{steps, d}, func(b *dnn.Builder, x dnn.T) { b.LSTM("lstm", x, hid, layers) })
	fwd := prepRun(t, l, batch, dnn.Forward)
	var p lstmParams
	for i := range layers {
		p.wih = append(p.wih, f64(buf(t, fwd, fmt.Sprint("wih", i))))
		p.whh = append(p.whh, f64(buf(t, fwd, fmt.Sprint("whh", i))))
		p.bih = append(p.bih, f64(buf(t, fwd, fmt.Sprint("bih", i))))
		p.bhh = append(p.bhh, f64(buf(t, fwd, fmt.Sprint("bhh", i))))
		p.h0 = append(p.h0, f64(buf(t, fwd, fmt.Sprint("h0_", i))))
		p.c0 = append(p.c0, f64(buf(t, fwd, fmt.Sprint("c0_", i))))
	}
	x := f64(buf(t, fwd, "x"))
	f := func([]float64) []float64 { return naiveLSTM(x, p, steps, batch, d, hid) }
	y := f(nil)
	checkClose(t, "y", buf(t, fwd, "y"), y, relTol(1e-5, y))

	bd := prepare(t, l, batch, dnn.BackwardData)
	for i := range layers {
		for _, n := range []string{"wih", "whh", "gates", "c"} {
			copy(buf(t, bd, fmt.Sprint(n, i)), buf(t, fwd, fmt.Sprint(n, i)))
		}
		copy(buf(t, bd, fmt.Sprint("c0_", i)), buf(t, fwd, fmt.Sprint("c0_", i)))
	}
	runOnce(t, bd)
	dy := f64(buf(t, bd, "dy"))
	dx := fdGrad(func(x []float64) []float64 { return naiveLSTM(x, p, steps, batch, d, hid) }, x, dy)
	checkClose(t, "dx", buf(t, bd, "dx"), dx, relTol(1e-4, dx))

	bw := prepare(t, l, batch, dnn.BackwardWeights)
	copy(buf(t, bw, "x"), buf(t, fwd, "x"))
	for i := range layers {
		out := fmt.Sprint("h", i)
		if i == layers-1 {
			copy(buf(t, bw, out), buf(t, fwd, "y"))
		} else {
			copy(buf(t, bw, out), buf(t, fwd, out))
		}
		copy(buf(t, bw, fmt.Sprint("h0_", i)), buf(t, fwd, fmt.Sprint("h0_", i)))
		copy(buf(t, bw, fmt.Sprint("dg", i)), buf(t, bd, fmt.Sprint("dg", i)))
	}
	runOnce(t, bw)
	for i := range layers {
		for _, c := range []struct {
			name  string
			param []float64
		}{{"dwih", p.wih[i]}, {"dwhh", p.whh[i]}, {"dbih", p.bih[i]}, {"dbhh", p.bhh[i]}} {
			want := fdGrad(f, c.param, dy)
			checkClose(t, fmt.Sprint(c.name, i), buf(t, bw, fmt.Sprint(c.name, i)), want, relTol(1e-4, want))
		}
	}
}
