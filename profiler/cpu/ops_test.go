package cpu

import (
	"math"
	"testing"

	"github.com/wb-sim/wb/dnn"
)

func TestLinear(t *testing.T) {
	for _, bias := range []bool{false, true} {
		t.Run(name("bias=", bias), func(t *testing.T) {
			// [2, 5] per sample: 2 rows of 5 features each.
			l := layerOf(t, dnn.Shape{2, 5}, func(b *dnn.Builder, x dnn.T) { b.Linear("fc", x, 3, bias) })
			const batch, k, n = 3, 5, 3
			rows := batch * 2

			fwd := prepRun(t, l, batch, dnn.Forward)
			x, wt := f64(buf(t, fwd, "x")), f64(buf(t, fwd, "wt"))
			y, abs := make([]float64, rows*n), make([]float64, rows*n)
			for r := range rows {
				for j := range n {
					for i := range k {
						y[r*n+j] += x[r*k+i] * wt[i*n+j]
						abs[r*n+j] += math.Abs(x[r*k+i] * wt[i*n+j])
					}
					if bias {
						bv := float64(buf(t, fwd, "b")[j])
						y[r*n+j] += bv
						abs[r*n+j] += math.Abs(bv)
					}
				}
			}
			checkClose(t, "y", buf(t, fwd, "y"), y, dotTol(k, abs))

			bd := prepRun(t, l, batch, dnn.BackwardData)
			dy, wt := f64(buf(t, bd, "dy")), f64(buf(t, bd, "wt"))
			dx, abs := make([]float64, rows*k), make([]float64, rows*k)
			for r := range rows {
				for i := range k {
					for j := range n {
						dx[r*k+i] += dy[r*n+j] * wt[i*n+j]
						abs[r*k+i] += math.Abs(dy[r*n+j] * wt[i*n+j])
					}
				}
			}
			checkClose(t, "dx", buf(t, bd, "dx"), dx, dotTol(n, abs))

			bw := prepRun(t, l, batch, dnn.BackwardWeights)
			dy, x = f64(buf(t, bw, "dy")), f64(buf(t, bw, "x"))
			dw, abs := make([]float64, k*n), make([]float64, k*n)
			db, dbAbs := make([]float64, n), make([]float64, n)
			for r := range rows {
				for j := range n {
					for i := range k {
						dw[i*n+j] += x[r*k+i] * dy[r*n+j]
						abs[i*n+j] += math.Abs(x[r*k+i] * dy[r*n+j])
					}
					db[j] += dy[r*n+j]
					dbAbs[j] += math.Abs(dy[r*n+j])
				}
			}
			checkClose(t, "dwt", buf(t, bw, "dwt"), dw, dotTol(rows, abs))
			if bias {
				checkClose(t, "db", buf(t, bw, "db"), db, dotTol(rows, dbAbs))
			}
		})
	}
}

func TestMatMul(t *testing.T) {
	const g, m, k, n = 2, 3, 4, 5
	for _, transB := range []bool{false, true} {
		t.Run(name("transB=", transB), func(t *testing.T) {
			bShape := dnn.Shape{g, k, n}
			if transB {
				bShape = dnn.Shape{g, n, k}
			}
			l := layerOf(t, dnn.Shape{g, m, k}, func(b *dnn.Builder, x dnn.T) {
				y := b.Reshape("b", b.Linear("fc", b.Flatten("flat", x), int(bShape.Elems()), false), bShape)
				b.MatMul("mm", x, y, transB)
			})
			// bAt is B[p][r][c] of op(B) = [k, n].
			bAt := func(bm []float64, p, r, c int) float64 {
				if transB {
					return bm[(p*n+c)*k+r]
				}
				return bm[(p*k+r)*n+c]
			}
			const batch = 2
			count := batch * g
			forward := func(a, bm []float64) []float64 {
				c := make([]float64, count*m*n)
				for p := range count {
					for i := range m {
						for j := range n {
							for r := range k {
								c[(p*m+i)*n+j] += a[(p*m+i)*k+r] * bAt(bm, p, r, j)
							}
						}
					}
				}
				return c
			}
			fwd := prepRun(t, l, batch, dnn.Forward)
			a, bm := f64(buf(t, fwd, "a")), f64(buf(t, fwd, "b"))
			// Values in [−1, 1): k products sum to at most k in magnitude.
			checkClose(t, "c", buf(t, fwd, "c"), forward(a, bm), func(int) float64 { return (k + 2) * u32 * k })

			bwd := prepRun(t, l, batch, dnn.BackwardData)
			a, bm, dc := f64(buf(t, bwd, "a")), f64(buf(t, bwd, "b")), f64(buf(t, bwd, "dc"))
			da := fdGrad(func(a []float64) []float64 { return forward(a, bm) }, a, dc)
			db := fdGrad(func(bm []float64) []float64 { return forward(a, bm) }, bm, dc)
			checkClose(t, "da", buf(t, bwd, "da"), da, relTol(1e-5, da))
			checkClose(t, "db", buf(t, bwd, "db"), db, relTol(1e-5, db))
		})
	}
}

// naiveActivation is f(x) in float64.
func naiveActivation(op dnn.Op, x float64) float64 {
	switch op {
	case dnn.OpReLU:
		return max(x, 0)
	case dnn.OpLeakyReLU:
		if x < 0 {
			return 0.2 * x
		}
		return x
	case dnn.OpGELU:
		return 0.5 * x * (1 + math.Tanh(math.Sqrt(2/math.Pi)*(x+0.044715*x*x*x)))
	case dnn.OpSigmoid:
		return sigmoid64(x)
	case dnn.OpTanh:
		return math.Tanh(x)
	case dnn.OpSiLU:
		return x * sigmoid64(x)
	}
	panic(op)
}

// elementwiseLayer builds an elementwise layer of the zoo by op name.
func elementwiseLayer(t *testing.T, op dnn.Op, in dnn.Shape) dnn.Layer {
	t.Helper()
	switch op {
	case dnn.OpLeakyReLU, dnn.OpInstanceNorm, dnn.OpNormalize:
		// CycleGAN's and Recoder's layers, described at small shapes.
		return describedLayer(op, in, in, nil)
	}
	return layerOf(t, in, func(b *dnn.Builder, x dnn.T) {
		switch op {
		case dnn.OpBatchNorm:
			b.BatchNorm("bn", x)
		case dnn.OpLayerNorm:
			b.LayerNorm("ln", x)
		default:
			b.Activation("act", x, string(op))
		}
	})
}

// TestActivations checks each activation's forward against its float64
// definition (a few float32 roundings: 1e-6 of the largest value) and its
// backward against central differences of that definition (1e-5: float32
// rounding of the derivative's few operations).
func TestActivations(t *testing.T) {
	for _, op := range []dnn.Op{dnn.OpReLU, dnn.OpGELU, dnn.OpSigmoid, dnn.OpTanh, dnn.OpSiLU, dnn.OpLeakyReLU} {
		t.Run(string(op), func(t *testing.T) {
			l := elementwiseLayer(t, op, dnn.Shape{3, 5, 7})
			const batch = 2
			fwd := prepRun(t, l, batch, dnn.Forward)
			x := f64(buf(t, fwd, "x"))
			apply := func(x []float64) []float64 {
				y := make([]float64, len(x))
				for i, v := range x {
					y[i] = naiveActivation(op, v)
				}
				return y
			}
			y := apply(x)
			checkClose(t, "y", buf(t, fwd, "y"), y, relTol(1e-6, y))

			bwd := prepRun(t, l, batch, dnn.BackwardData)
			dy := f64(buf(t, bwd, "dy"))
			if activationFromY(op) {
				// The kernel reads y: the reference differentiates at x = f⁻¹(y).
				ys := f64(buf(t, bwd, "y"))
				x = make([]float64, len(ys))
				for i, v := range ys {
					if op == dnn.OpTanh {
						x[i] = math.Atanh(v)
					} else {
						x[i] = math.Log(v / (1 - v))
					}
				}
			} else {
				x = f64(buf(t, bwd, "x"))
			}
			dx := fdGrad(apply, x, dy)
			checkClose(t, "dx", buf(t, bwd, "dx"), dx, relTol(1e-5, dx))
		})
	}
}

// naiveNorm normalises x ([batch][c][inner]) over groups: per channel
// across the batch (batchnorm), per sample and channel (instancenorm), per
// row of the last dimension (layernorm, with γ and β per column), or to
// unit L2 norm per row (normalize).
func naiveNorm(op dnn.Op, x []float64, batch, c, inner int, gamma, beta []float64) []float64 {
	y := make([]float64, len(x))
	norm := func(idx []int, param func(j int) (float64, float64)) {
		var s, ss float64
		for _, i := range idx {
			s += x[i]
			ss += x[i] * x[i]
		}
		n := float64(len(idx))
		if op == dnn.OpNormalize {
			for _, i := range idx {
				y[i] = x[i] / max(math.Sqrt(ss), 1e-12)
			}
			return
		}
		mean := s / n
		var v float64
		for _, i := range idx {
			v += (x[i] - mean) * (x[i] - mean)
		}
		rstd := 1 / math.Sqrt(v/n+1e-5)
		for j, i := range idx {
			g, b := param(j)
			y[i] = (x[i]-mean)*rstd*g + b
		}
	}
	one := func(int) (float64, float64) { return 1, 0 }
	switch op {
	case dnn.OpBatchNorm:
		for ch := range c {
			var idx []int
			for b := range batch {
				for i := range inner {
					idx = append(idx, (b*c+ch)*inner+i)
				}
			}
			norm(idx, func(int) (float64, float64) { return gamma[ch], beta[ch] })
		}
	case dnn.OpInstanceNorm:
		for p := range batch * c {
			idx := make([]int, inner)
			for i := range idx {
				idx[i] = p*inner + i
			}
			norm(idx, one)
		}
	default: // rows of the last dimension, inner values each
		for r := range batch * c {
			idx := make([]int, inner)
			for i := range idx {
				idx[i] = r*inner + i
			}
			if op == dnn.OpLayerNorm {
				norm(idx, func(j int) (float64, float64) { return gamma[j], beta[j] })
			} else {
				norm(idx, one)
			}
		}
	}
	return y
}

// TestNorms checks the normalisations' forward against a float64
// two-pass reference (tolerance 1e-4 of the largest value: the kernels
// accumulate the statistics of up to 70 values in float64 but normalise
// in float32, and 1/√(var+ε) amplifies the rounding of a small variance)
// and their backward against central differences of it (1e-3: the
// backward's sums of up to 70 float32 terms, amplified as forward).
func TestNorms(t *testing.T) {
	tests := []struct {
		op           dnn.Op
		shape        dnn.Shape
		c, inner     int // per sample: groups and values per group as naiveNorm takes them
		gamma, param string
	}{
		{"batchnorm", dnn.Shape{3, 5, 7}, 3, 35, "gamma", "dgamma"},
		{"batchnorm", dnn.Shape{6}, 6, 1, "gamma", "dgamma"},
		{"instancenorm", dnn.Shape{3, 4, 5}, 3, 20, "", ""},
		{"layernorm", dnn.Shape{4, 6}, 4, 6, "gamma", "dgamma"},
		{"normalize", dnn.Shape{12}, 1, 12, "", ""},
	}
	for _, tt := range tests {
		t.Run(name(tt.op, tt.shape), func(t *testing.T) {
			l := elementwiseLayer(t, tt.op, tt.shape)
			c, inner := tt.c, tt.inner
			const batch = 3
			fwd := prepRun(t, l, batch, dnn.Forward)
			var gamma, beta []float64
			if tt.gamma != "" {
				gamma, beta = f64(buf(t, fwd, "gamma")), f64(buf(t, fwd, "beta"))
			}
			y := naiveNorm(tt.op, f64(buf(t, fwd, "x")), batch, c, inner, gamma, beta)
			checkClose(t, "y", buf(t, fwd, "y"), y, relTol(1e-4, y))

			bwd := prepRun(t, l, batch, dnn.BackwardData)
			if tt.gamma != "" {
				gamma, beta = f64(buf(t, bwd, "gamma")), f64(buf(t, bwd, "beta"))
			}
			x, dy := f64(buf(t, bwd, "x")), f64(buf(t, bwd, "dy"))
			dx := fdGrad(func(x []float64) []float64 { return naiveNorm(tt.op, x, batch, c, inner, gamma, beta) }, x, dy)
			checkClose(t, "dx", buf(t, bwd, "dx"), dx, relTol(1e-3, dx))
			if tt.param != "" {
				dg := fdGrad(func(g []float64) []float64 { return naiveNorm(tt.op, x, batch, c, inner, g, beta) }, gamma, dy)
				db := fdGrad(func(b []float64) []float64 { return naiveNorm(tt.op, x, batch, c, inner, gamma, b) }, beta, dy)
				checkClose(t, "dgamma", buf(t, bwd, "dgamma"), dg, relTol(1e-3, dg))
				checkClose(t, "dbeta", buf(t, bwd, "dbeta"), db, relTol(1e-3, db))
			}
		})
	}
}

// TestLRN checks LRN against PyTorch's definition (tolerances as
// TestNorms').
func TestLRN(t *testing.T) {
	const size, batch = 3, 2
	s := dnn.Shape{5, 2, 3}
	l := layerOf(t, s, func(b *dnn.Builder, x dnn.T) { b.LRN("lrn", x, size) })
	c, inner := s[0], s[1]*s[2]
	naive := func(x []float64) []float64 {
		y := make([]float64, len(x))
		for b := range batch {
			for ch := range c {
				for i := range inner {
					var ss float64
					for cc := ch - size/2; cc <= ch+(size-1)/2; cc++ {
						if cc >= 0 && cc < c {
							v := x[(b*c+cc)*inner+i]
							ss += v * v
						}
					}
					j := (b*c+ch)*inner + i
					// Scale the inputs up so that the normalisation matters.
					y[j] = x[j] / math.Pow(1+1e-4/size*ss, 0.75)
				}
			}
		}
		return y
	}
	fwd := prepare(t, l, batch, dnn.Forward)
	x := buf(t, fwd, "x")
	for i := range x {
		x[i] *= 60
	}
	runOnce(t, fwd)
	y := naive(f64(x))
	checkClose(t, "y", buf(t, fwd, "y"), y, relTol(1e-5, y))

	bwd := prepare(t, l, batch, dnn.BackwardData)
	copy(buf(t, bwd, "x"), x)
	// The saved output and scale of the forward pass.
	copy(buf(t, bwd, "y"), buf(t, fwd, "y"))
	copy(buf(t, bwd, "scale"), buf(t, fwd, "scale"))
	runOnce(t, bwd)
	dx := fdGrad(naive, f64(x), f64(buf(t, bwd, "dy")))
	checkClose(t, "dx", buf(t, bwd, "dx"), dx, relTol(1e-4, dx))
}

// TestSoftmax checks softmax, plain and with the attention scale and
// causal mask, forward against the definition (1e-6: a few float32
// roundings per value) and backward against central differences (1e-5).
func TestSoftmax(t *testing.T) {
	gpt, err := dnn.GPT2("g", 1, 16, 2, 5)
	if err != nil {
		t.Fatal(err)
	}
	var fused dnn.Layer
	for _, node := range gpt.Nodes {
		if node.Layer.Op() == "softmax" {
			fused = node.Layer
		}
	}
	plain := layerOf(t, dnn.Shape{3, 6}, func(b *dnn.Builder, x dnn.T) { b.Softmax("sm", x) })
	for _, tt := range []struct {
		name          string
		l             dnn.Layer
		scale         float64
		causal        bool
		rowsPer, cols int
	}{
		{"plain", plain, 1, false, 3, 6},
		{"scaled causal", fused, 0.125, true, 2 * 5, 5},
	} {
		t.Run(tt.name, func(t *testing.T) {
			const batch = 2
			naive := func(x []float64) []float64 {
				y := make([]float64, len(x))
				for r := range batch * tt.rowsPer {
					v := tt.cols
					if tt.causal {
						v = r%tt.cols + 1
					}
					var s float64
					for j := range v {
						y[r*tt.cols+j] = math.Exp(tt.scale * x[r*tt.cols+j])
						s += y[r*tt.cols+j]
					}
					for j := range v {
						y[r*tt.cols+j] /= s
					}
				}
				return y
			}
			fwd := prepRun(t, tt.l, batch, dnn.Forward)
			y := naive(f64(buf(t, fwd, "x")))
			checkClose(t, "y", buf(t, fwd, "y"), y, relTol(1e-6, y))

			// Backward reads y: run it on the forward's output and compare
			// with differences at the forward's input.
			bwd := prepare(t, tt.l, batch, dnn.BackwardData)
			copy(buf(t, bwd, "y"), buf(t, fwd, "y"))
			runOnce(t, bwd)
			dx := fdGrad(naive, f64(buf(t, fwd, "x")), f64(buf(t, bwd, "dy")))
			checkClose(t, "dx", buf(t, bwd, "dx"), dx, relTol(1e-5, dx))
		})
	}
}

// TestDropout checks that dropout keeps a share of the values near
// 1 − p, scales them by 1/(1 − p), and that backward applies the same
// mask.
func TestDropout(t *testing.T) {
	l := layerOf(t, dnn.Shape{100, 50}, func(b *dnn.Builder, x dnn.T) { b.Dropout("drop", x, 0.3) })
	const batch = 4
	fwd := prepRun(t, l, batch, dnn.Forward)
	x, y, mask := buf(t, fwd, "x"), buf(t, fwd, "y"), fwd.u8["mask"]
	kept := 0
	for i, m := range mask {
		want := 0.0
		if m == 1 {
			kept++
			want = float64(x[i]) / (1 - dropoutP)
		}
		// One float32 product and its rounding.
		if math.Abs(float64(y[i])-want) > 2*u32*math.Abs(want) {
			t.Fatalf("y[%d] = %g, x %g, mask %d", i, y[i], x[i], m)
		}
	}
	// Binomial(20000, 0.9): standard deviation ≈ 42; allow 6 of them.
	n := float64(len(mask))
	if share := float64(kept); math.Abs(share-0.9*n) > 6*math.Sqrt(n*0.09) {
		t.Errorf("kept %d of %d values, want about %.0f", kept, len(mask), 0.9*n)
	}
	bwd := prepRun(t, l, batch, dnn.BackwardData)
	dy, dx := buf(t, bwd, "dy"), buf(t, bwd, "dx")
	for i, m := range bwd.u8["mask"] {
		if m != mask[i] {
			t.Fatalf("backward mask[%d] = %d, forward %d", i, m, mask[i])
		}
		want := float64(m) * float64(dy[i]) / (1 - dropoutP)
		if math.Abs(float64(dx[i])-want) > 2*u32*math.Abs(want) {
			t.Fatalf("dx[%d] = %g, want %g", i, dx[i], want)
		}
	}
}

// TestAdd checks a sum of three inputs (three float32 additions).
func TestAdd(t *testing.T) {
	l := layerOf(t, dnn.Shape{4, 5}, func(b *dnn.Builder, x dnn.T) { b.Sum("add", x, b.ReLU("r", x), b.ReLU("r2", x)) })
	k := prepRun(t, l, 3, dnn.Forward)
	x0, x1, x2 := buf(t, k, "x0"), buf(t, k, "x1"), buf(t, k, "x2")
	want := make([]float64, len(x0))
	for i := range want {
		want[i] = float64(x0[i]) + float64(x1[i]) + float64(x2[i])
	}
	checkClose(t, "y", buf(t, k, "y"), want, func(int) float64 { return 4 * u32 * 3 })
}

// TestMoves checks the layers that move data (concat, select, upsample,
// pad) against direct references, exactly: they copy, or sum at most 4
// values (upsample's backward, within 4 roundings).
func TestMoves(t *testing.T) {
	type ref func(x [][]float64) []float64
	const batch = 2
	// CycleGAN's up-sampling and padding, at small shapes.
	up := describedLayer("upsample", dnn.Shape{2, 3, 2}, dnn.Shape{2, 6, 4}, dnn.Attrs{dnn.AttrF: 2})
	pad := describedLayer("pad", dnn.Shape{2, 3, 4}, dnn.Shape{2, 4, 5}, dnn.Attrs{dnn.AttrLeft: 1, dnn.AttrRight: 0, dnn.AttrTop: 1, dnn.AttrBottom: 0})
	tests := []struct {
		name string
		l    dnn.Layer
		ref  ref
	}{
		{"concat", layerOf(t, dnn.Shape{2, 3, 2}, func(b *dnn.Builder, x dnn.T) {
			b.Concat("cat", x, b.Conv2D("c", x, dnn.Conv{Out: 3, Kernel: 1}))
		}), func(x [][]float64) []float64 {
			var y []float64
			for b := range batch {
				y = append(y, x[0][b*12:(b+1)*12]...)
				y = append(y, x[1][b*18:(b+1)*18]...)
			}
			return y
		}},
		{"select", layerOf(t, dnn.Shape{4, 3}, func(b *dnn.Builder, x dnn.T) { b.SelectToken("sel", x, 0) }),
			func(x [][]float64) []float64 {
				var y []float64
				for b := range batch {
					y = append(y, x[0][b*12:b*12+3]...)
				}
				return y
			}},
		{"upsample", up, func(x [][]float64) []float64 {
			s := up.Describe().In[0]
			c, h, w := s[0], s[1], s[2]
			y := make([]float64, 0, batch*c*4*h*w)
			for q := range batch * c {
				for oh := range 2 * h {
					for ow := range 2 * w {
						y = append(y, x[0][q*h*w+(oh/2)*w+ow/2])
					}
				}
			}
			return y
		}},
		{"pad", pad, func(x [][]float64) []float64 {
			d := pad.Describe()
			c, h, w := d.In[0][0], d.In[0][1], d.In[0][2]
			top, left, wo := d.Attr[dnn.AttrTop], d.Attr[dnn.AttrLeft], d.Out[2]
			y := make([]float64, batch*c*d.Out[1]*wo)
			for q := range batch * c {
				for ih := range h {
					for iw := range w {
						y[(q*d.Out[1]+ih+top)*wo+iw+left] = x[0][(q*h+ih)*w+iw]
					}
				}
			}
			return y
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			nin := len(tt.l.(dnn.Describer).Describe().In)
			fwd := prepRun(t, tt.l, batch, dnn.Forward)
			ins := make([][]float64, nin)
			for i := range ins {
				n := "x"
				if nin > 1 {
					n = name("x", i)
				}
				ins[i] = f64(buf(t, fwd, n))
			}
			y := tt.ref(ins)
			checkClose(t, "y", buf(t, fwd, "y"), y, func(int) float64 { return 0 })

			bwd := prepRun(t, tt.l, batch, dnn.BackwardData)
			dy := f64(buf(t, bwd, "dy"))
			for i := range ins {
				dx := fdGrad(func(x []float64) []float64 {
					all := append([][]float64(nil), ins...)
					all[i] = x
					return tt.ref(all)
				}, ins[i], dy)
				n := "dx"
				if nin > 1 {
					n = name("dx", i)
				}
				// Copies, or float32 sums of 4 values (upsample).
				checkClose(t, n, buf(t, bwd, n), dx, relTol(8*u32, dx))
			}
		})
	}
}

// TestPooling checks pooling forward against the direct definition (max:
// exact; average: a float32 sum of 9 values) and backward against central
// differences (max pooling's random values have no ties, so it is
// differentiable there).
func TestPooling(t *testing.T) {
	tests := []struct {
		name string
		add  func(b *dnn.Builder, x dnn.T)
	}{
		{"max 3/2 pad1", func(b *dnn.Builder, x dnn.T) { b.MaxPool("p", x, 3, 2, 1) }},
		{"max 2/2", func(b *dnn.Builder, x dnn.T) { b.MaxPool("p", x, 2, 2, 0) }},
		{"avg 3/1 pad1", func(b *dnn.Builder, x dnn.T) { b.AvgPool("p", x, 3, 1, 1) }},
		{"avg 5/3", func(b *dnn.Builder, x dnn.T) { b.AvgPool("p", x, 5, 3, 0) }},
		{"global", func(b *dnn.Builder, x dnn.T) { b.GlobalAvgPool("p", x) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := dnn.Shape{2, 7, 8}
			l := layerOf(t, in, tt.add)
			d := l.(dnn.Describer).Describe()
			const batch = 2
			c, h, w := in[0], in[1], in[2]
			ho, wo := 1, 1
			k, s, pd := h, 1, 0
			kw := w
			if d.Op != dnn.OpGlobalAvgPool {
				ho, wo, k, s, pd, kw = d.Out[1], d.Out[2], d.Attr[dnn.AttrK], d.Attr[dnn.AttrStride], d.Attr[dnn.AttrPad], d.Attr[dnn.AttrK]
			}
			naive := func(x []float64) []float64 {
				y := make([]float64, batch*c*ho*wo)
				for q := range batch * c {
					for oh := range ho {
						for ow := range wo {
							m, sum := math.Inf(-1), 0.0
							for i := range k {
								for j := range kw {
									ih, iw := oh*s-pd+i, ow*s-pd+j
									if ih < 0 || ih >= h || iw < 0 || iw >= w {
										continue
									}
									v := x[(q*h+ih)*w+iw]
									m, sum = max(m, v), sum+v
								}
							}
							if d.Op == dnn.OpMaxPool {
								y[(q*ho+oh)*wo+ow] = m
							} else {
								y[(q*ho+oh)*wo+ow] = sum / float64(k*kw)
							}
						}
					}
				}
				return y
			}
			fwd := prepRun(t, l, batch, dnn.Forward)
			y := naive(f64(buf(t, fwd, "x")))
			checkClose(t, "y", buf(t, fwd, "y"), y, relTol(float64(h*w)*u32, y))

			bwd := prepRun(t, l, batch, dnn.BackwardData)
			x := f64(buf(t, fwd, "x"))
			if d.Op == dnn.OpMaxPool {
				x = f64(buf(t, bwd, "x"))
			}
			dx := fdGrad(naive, x, f64(buf(t, bwd, "dy")))
			checkClose(t, "dx", buf(t, bwd, "dx"), dx, relTol(1e-6, dx))
		})
	}
}

// TestEmbedding checks the gather (exact: a copy) and the dense gradient
// of the table (float32 sums of the few rows of a token).
func TestEmbedding(t *testing.T) {
	const vocab, dim, tokens, batch = 7, 5, 6, 3
	l := layerOf(t, dnn.Shape{tokens}, func(b *dnn.Builder, x dnn.T) { b.Embedding("emb", x, vocab, dim) })
	fwd := prepRun(t, l, batch, dnn.Forward)
	ids, table := fwd.i64["ids"], buf(t, fwd, "table")
	want := make([]float64, 0, batch*tokens*dim)
	for _, id := range ids {
		if id < 0 || id >= vocab {
			t.Fatalf("id %d outside the vocabulary of %d", id, vocab)
		}
		want = append(want, f64(table[id*dim:(id+1)*dim])...)
	}
	checkClose(t, "y", buf(t, fwd, "y"), want, func(int) float64 { return 0 })

	bw := prepRun(t, l, batch, dnn.BackwardWeights)
	ids, dy := bw.i64["ids"], f64(buf(t, bw, "dy"))
	dt := make([]float64, vocab*dim)
	for i, id := range ids {
		for j := range dim {
			dt[int(id)*dim+j] += dy[i*dim+j]
		}
	}
	n := batch * tokens
	checkClose(t, "dtable", buf(t, bw, "dtable"), dt, func(int) float64 { return float64(n) * u32 * float64(n) })
}

// TestUpdate checks SGD with momentum on every parameter: v ← 0.9v + g,
// w ← w − 10⁻³v, two float32 operations each.
func TestUpdate(t *testing.T) {
	l := layerOf(t, dnn.Shape{30}, func(b *dnn.Builder, x dnn.T) { b.Linear("fc", x, 20, true) })
	k := prepare(t, l, 1, dnn.Update)
	w0, v0, g := f64(buf(t, k, "w")), f64(buf(t, k, "v")), f64(buf(t, k, "g"))
	if len(w0) != int(l.Params()) {
		t.Fatalf("%d weights, the layer has %d parameters", len(w0), l.Params())
	}
	runOnce(t, k)
	v, w := make([]float64, len(w0)), make([]float64, len(w0))
	for i := range w0 {
		v[i] = 0.9*v0[i] + g[i]
		w[i] = w0[i] - 1e-3*v[i]
	}
	checkClose(t, "v", buf(t, k, "v"), v, relTol(4*u32, v))
	checkClose(t, "w", buf(t, k, "w"), w, relTol(4*u32, w))
}

// TestFillZero: fillZero clears every value, in blocks of zeroBlock and a
// remainder, and nothing past its slice.
func TestFillZero(t *testing.T) {
	for _, n := range []int{0, 1, zeroBlock - 1, zeroBlock, 2*zeroBlock + 37} {
		s := make([]float32, n+1)
		for i := range s {
			s[i] = float32(i + 1)
		}
		fillZero(s[:n])
		for i := range n {
			if s[i] != 0 {
				t.Fatalf("n %d: value %d is %v", n, i, s[i])
			}
		}
		if s[n] != float32(n+1) {
			t.Errorf("n %d: the value past the slice was changed to %v", n, s[n])
		}
	}
}
