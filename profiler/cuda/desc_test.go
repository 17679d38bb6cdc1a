package cuda

import (
	"fmt"
	"math"
	"testing"

	"github.com/wb-sim/wb/dnn"
)

// zooLayers calls f with every distinct layer (by key) of the zoo that
// describes itself as one of ops.
func zooLayers(t *testing.T, f func(name string, l dnn.Layer, d dnn.Desc), ops ...string) int {
	t.Helper()
	seen := map[string]bool{}
	for _, e := range dnn.Zoo() {
		net, err := e.Build()
		if err != nil {
			t.Fatalf("%s: %v", e.Name, err)
		}
		for _, n := range net.Nodes {
			dl, ok := n.Layer.(dnn.Describer)
			if !ok || seen[n.Layer.Key()] {
				continue
			}
			d := dl.Describe()
			for _, op := range ops {
				if string(d.Op) == op {
					seen[n.Layer.Key()] = true
					f(e.Name+"/"+n.Name, n.Layer, d)
				}
			}
		}
	}
	return len(seen)
}

// closeTo compares FLOP counts, products of integers below 2⁵³ computed
// in float64 in dnn: a relative 1e-12 allows for their rounding.
func closeTo(a, b float64) bool { return math.Abs(a-b) <= 1e-12*math.Max(math.Abs(a), math.Abs(b)) }

func TestConvForZoo(t *testing.T) {
	const batch = 3
	n := zooLayers(t, func(name string, l dnn.Layer, d dnn.Desc) {
		for _, prec := range dnn.Precisions {
			c, err := ConvFor(d, batch, prec)
			if err != nil {
				t.Errorf("%s %s: %v", name, prec, err)
				return
			}
			y := c.YDims()
			if y[0] != batch || int(y[1]) != d.Out[0] || int(y[2]) != d.Out[1] || int(y[3]) != d.Out[2] {
				t.Errorf("%s: output dims %v, described %v", name, y, d.Out)
			}
			x, w, yn := c.Elems()
			if x != batch*d.In[0].Elems() || yn != batch*d.Out.Elems() || w*int64(c.Groups) != int64(c.K)*int64(c.C)*int64(c.R)*int64(c.S) {
				t.Errorf("%s: elements x %d w %d y %d", name, x, w, yn)
			}
			if prec != dnn.FP32 {
				continue
			}
			// The convolution's FLOPs and the bias's adds (forward) or sums
			// (weights' gradient), one per output value, are dnn's; the bias
			// has a buffer of K values in the passes that touch it.
			for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights} {
				flops := 2 * float64(yn) * float64(w/int64(c.K))
				var bias int64
				for _, b := range c.Buffers(pass) {
					if b.Name == "b" || b.Name == "db" {
						bias = b.Elems
					}
				}
				if c.Bias && pass != dnn.BackwardData {
					flops += float64(yn)
					if bias != int64(c.K) {
						t.Errorf("%s %s: bias of %d values, want %d", name, pass, bias, c.K)
					}
				} else if bias != 0 {
					t.Errorf("%s %s: a bias buffer without a bias", name, pass)
				}
				if want := float64(l.Work(batch, pass, prec).FLOPs); !closeTo(flops, want) {
					t.Errorf("%s %s: %g FLOPs, dnn says %g", name, pass, flops, want)
				}
			}
		}
	}, "conv2d")
	if n < 10 {
		t.Errorf("only %d convolutions in the zoo", n)
	}
}

func TestConvStridesAndTypes(t *testing.T) {
	d := dnn.Desc{Op: "conv2d", In: []dnn.Shape{{64, 56, 56}}, Out: dnn.Shape{128, 28, 28},
		Attr: dnn.Attrs{"out": 128, "kh": 3, "kw": 3, "stride": 2, "ph": 1, "pw": 1, "dilation": 1, "groups": 2, "bias": 0}}
	c, err := ConvFor(d, 8, dnn.BF16)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := c.XStrides(), [4]int32{64 * 56 * 56, 56 * 56, 56, 1}; got != want {
		t.Errorf("x strides %v, want %v", got, want)
	}
	if got, want := c.WDims(), [4]int32{128, 32, 3, 3}; got != want {
		t.Errorf("filter dims %v, want %v", got, want)
	}
	if c.DataType != cudnnDataBFloat16 || c.ComputeType != cudnnDataFloat || c.MathType != cudnnTensorOpMath {
		t.Errorf("bf16 types %d %d %d", c.DataType, c.ComputeType, c.MathType)
	}
	for _, tc := range []struct {
		prec             dnn.Precision
		data, comp, math int32
	}{
		{dnn.FP32, cudnnDataFloat, cudnnDataFloat, cudnnFMAMath},
		{dnn.TF32, cudnnDataFloat, cudnnDataFloat, cudnnDefaultMath},
		{dnn.FP16, cudnnDataHalf, cudnnDataFloat, cudnnTensorOpMath},
	} {
		c, _ := ConvFor(d, 1, tc.prec)
		if c.DataType != tc.data || c.ComputeType != tc.comp || c.MathType != tc.math {
			t.Errorf("%s: types %d %d %d, want %d %d %d", tc.prec, c.DataType, c.ComputeType, c.MathType, tc.data, tc.comp, tc.math)
		}
	}
	bad := d
	bad.Out = dnn.Shape{128, 27, 28}
	if _, err := ConvFor(bad, 1, dnn.FP32); err == nil {
		t.Error("a wrong output shape was accepted")
	}
}

// checkGemm checks a product's dimensions against its operands and its
// cuBLASLt form against cuBLASLt's rules.
func checkGemm(t *testing.T, name string, g Gemm) {
	t.Helper()
	opDims := func(o Operand) (int, int) {
		if o.Trans {
			return o.Cols, o.Rows
		}
		return o.Rows, o.Cols
	}
	ar, ac := opDims(g.A)
	br, bc := opDims(g.B)
	if ar != g.M || ac != g.K || br != g.K || bc != g.N || g.C.Trans || g.C.Rows != g.M || g.C.Cols != g.N {
		t.Errorf("%s %s: M %d N %d K %d, op(A) %d×%d, op(B) %d×%d, C %d×%d", name, g.Name, g.M, g.N, g.K, ar, ac, br, bc, g.C.Rows, g.C.Cols)
	}
	lt := g.Lt()
	ltDims := func(l LtLayout, op int32) (uint64, uint64) {
		if op == cublasOpT {
			return l.Cols, l.Rows
		}
		return l.Rows, l.Cols
	}
	lar, lac := ltDims(lt.A, lt.TransA)
	lbr, lbc := ltDims(lt.B, lt.TransB)
	if lar != lt.M || lac != lt.K || lbr != lt.K || lbc != lt.N || lt.C.Rows != lt.M || lt.C.Cols != lt.N {
		t.Errorf("%s %s: cuBLASLt m %d n %d k %d, op(A) %d×%d, op(B) %d×%d, C %d×%d", name, g.Name, lt.M, lt.N, lt.K, lar, lac, lbr, lbc, lt.C.Rows, lt.C.Cols)
	}
	for _, l := range []LtLayout{lt.A, lt.B, lt.C} {
		if l.Ld < int64(l.Rows) || l.Batch != int32(g.Batch) || (g.Batch > 1 && l.Stride != int64(l.Rows*l.Cols)) {
			t.Errorf("%s %s: layout %+v", name, g.Name, l)
		}
	}
}

func TestGemmsForZoo(t *testing.T) {
	const batch = 2
	n := zooLayers(t, func(name string, l dnn.Layer, d dnn.Desc) {
		for _, pass := range []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights} {
			gs, err := GemmsFor(d, batch, pass, dnn.FP32)
			if err != nil {
				t.Errorf("%s %s: %v", name, pass, err)
				continue
			}
			// Every buffer has one size, and the inputs and outputs
			// have the layer's.
			size := map[string]int64{}
			flops := 0.0
			for _, g := range gs {
				checkGemm(t, name, g)
				for _, o := range []Operand{g.A, g.B, g.C} {
					e := o.Elems() * int64(g.Batch)
					if s, ok := size[o.Buf]; ok && s != e {
						t.Errorf("%s %s: buffer %s of %d and %d values", name, pass, o.Buf, s, e)
					}
					size[o.Buf] = e
				}
				flops += 2 * float64(g.M) * float64(g.N) * float64(g.K) * float64(g.Batch)
			}
			in, out := batch*d.In[0].Elems(), batch*d.Out.Elems()
			switch d.Op {
			case dnn.OpLinear:
				for buf, want := range map[string]int64{"x": in, "dx": in, "y": out, "dy": out, "w": int64(d.Attr[dnn.AttrK] * d.Attr[dnn.AttrN]), "dw": int64(d.Attr[dnn.AttrK] * d.Attr[dnn.AttrN])} {
					if got, ok := size[buf]; ok && got != want {
						t.Errorf("%s %s: %s has %d values, want %d", name, pass, buf, got, want)
					}
				}
			case dnn.OpMatMul:
				for buf, want := range map[string]int64{"a": in, "da": in, "b": batch * d.In[1].Elems(), "db": batch * d.In[1].Elems(), "c": out, "dc": out} {
					if got, ok := size[buf]; ok && got != want {
						t.Errorf("%s %s: %s has %d values, want %d", name, pass, buf, got, want)
					}
				}
			}
			// The bias: its add (forward, the product's epilogue) and its
			// gradient's sum (weights, a reduction after the product), one
			// per output value; its buffer one value per output feature.
			for _, g := range gs {
				if g.Bias == BiasNone {
					continue
				}
				flops += float64(out)
				if want := int64(d.Attr[dnn.AttrN]); g.BiasElems() != want || d.Op != dnn.OpLinear || d.Attr[dnn.AttrBias] != 1 {
					t.Errorf("%s %s: bias %s of %d values, want %d", name, pass, g.BiasBuf, g.BiasElems(), want)
				}
			}
			want := float64(l.Work(batch, pass, dnn.FP32).FLOPs)
			if !closeTo(flops, want) {
				t.Errorf("%s %s: %g FLOPs in %d products, dnn says %g", name, pass, flops, len(gs), want)
			}
		}
	}, "linear", "matmul")
	if n < 5 {
		t.Errorf("only %d linear and matmul layers in the zoo", n)
	}
}

func TestGemmTypes(t *testing.T) {
	d := dnn.Desc{Op: "linear", In: []dnn.Shape{{128, 768}}, Out: dnn.Shape{128, 3072}, Attr: dnn.Attrs{"k": 768, "n": 3072, "bias": 1}}
	for _, tc := range []struct {
		prec                 dnn.Precision
		data, scale, compute int32
	}{
		{dnn.FP32, cudaR32F, cudaR32F, cublasCompute32F},
		{dnn.TF32, cudaR32F, cudaR32F, cublasCompute32FFastTF32},
		{dnn.FP16, cudaR16F, cudaR32F, cublasCompute32F},
		{dnn.BF16, cudaR16BF, cudaR32F, cublasCompute32F},
	} {
		gs, err := GemmsFor(d, 4, dnn.Forward, tc.prec)
		if err != nil || len(gs) != 1 {
			t.Fatalf("%s: %v %v", tc.prec, gs, err)
		}
		g := gs[0]
		if g.DataType != tc.data || g.ScaleType != tc.scale || g.ComputeType != tc.compute {
			t.Errorf("%s: types %d %d %d", tc.prec, g.DataType, g.ScaleType, g.ComputeType)
		}
		// Y[512, 3072] = X[512, 768]·Wᵀ: cuBLASLt computes Yᵀ = W·Xᵀ
		// column-major, W's layout 768 × 3072 (ld 768) transposed.
		lt := g.Lt()
		if lt.M != 3072 || lt.N != 512 || lt.K != 768 || lt.TransA != cublasOpT || lt.TransB != cublasOpN ||
			lt.A.Ld != 768 || lt.B.Ld != 768 || lt.C.Ld != 3072 || lt.ABuf != "w" || lt.BBuf != "x" || lt.CBuf != "y" {
			t.Errorf("%s: cuBLASLt problem %+v", tc.prec, lt)
		}
	}
}

// TestLinearBiasEpilogue: a linear layer's bias rides on cuBLASLt's BIAS
// epilogue in the forward product, one value per row of cuBLASLt's
// column-major D (Y's columns, the output features); the weights' product
// has no epilogue, its bias gradient (one value per row of dW, the output
// features) being a reduction after it, as eager PyTorch runs it; the
// data's product has none, and neither has a layer without a bias.
func TestLinearBiasEpilogue(t *testing.T) {
	d := dnn.Desc{Op: "linear", In: []dnn.Shape{{128, 768}}, Out: dnn.Shape{128, 3072}, Attr: dnn.Attrs{"k": 768, "n": 3072, "bias": 1}}
	for _, tc := range []struct {
		pass     dnn.Pass
		bias     BiasKind
		epilogue uint32
		buf      string
		len      uint64
		elems    int64
	}{
		{dnn.Forward, BiasAdd, ltEpilogueBias, "b", 3072, 3072},
		{dnn.BackwardData, BiasNone, ltEpilogueDefault, "", 0, 0},
		{dnn.BackwardWeights, BiasGrad, ltEpilogueDefault, "", 0, 3072},
	} {
		gs, err := GemmsFor(d, 4, tc.pass, dnn.BF16)
		if err != nil || len(gs) != 1 {
			t.Fatalf("%s: %v %v", tc.pass, gs, err)
		}
		g, lt := gs[0], gs[0].Lt()
		if g.Bias != tc.bias || lt.Epilogue != tc.epilogue || lt.BiasBuf != tc.buf || lt.BiasLen != tc.len || g.BiasElems() != tc.elems {
			t.Errorf("%s: bias %v, epilogue %d on %q of %d (%d)", tc.pass, g.Bias, lt.Epilogue, lt.BiasBuf, lt.BiasLen, g.BiasElems())
		}
		switch tc.bias {
		case BiasAdd:
			if lt.BiasLen != lt.M {
				t.Errorf("BIAS of %d values, D has %d rows", lt.BiasLen, lt.M)
			}
		case BiasGrad:
			// dY, 512 rows of 3072, is A, read transposed; dW its M × N.
			if g.A.Buf != "dy" || g.A.Rows != 512 || g.A.Cols != 3072 || g.K != 512 || g.M != 3072 || g.BiasBuf != "db" {
				t.Errorf("bias gradient of %s (%d×%d), k %d, m %d, into %q", g.A.Buf, g.A.Rows, g.A.Cols, g.K, g.M, g.BiasBuf)
			}
		}
		d0 := d
		d0.Attr = dnn.Attrs{dnn.AttrK: 768, dnn.AttrN: 3072, dnn.AttrBias: 0}
		gs, _ = GemmsFor(d0, 4, tc.pass, dnn.BF16)
		if gs[0].Bias != BiasNone || gs[0].Lt().Epilogue != ltEpilogueDefault {
			t.Errorf("%s without a bias: %+v", tc.pass, gs[0].Lt())
		}
	}
}

// TestBiasGradLaunches: the reduction PyTorch runs for a linear bias's
// gradient, after the weights' product: a thread per column,
// 64 rows a block, into a zeroed fp32 accumulator, cast for 16-bit
// precisions.
func TestBiasGradLaunches(t *testing.T) {
	ls := BiasGradLaunches(cudnnDataBFloat16, 512, 3072, "dy", "db_acc", "db")
	if len(ls) != 2 || ls[0].Kernel != "wb_bias_grad_bf16" || ls[0].Grid != [3]uint32{12, 8, 1} || fmt.Sprint(ls[0].Args) != "[dy db_acc 512 3072 64]" ||
		fmt.Sprint(ls[0].Zero) != "[db_acc]" || ls[1].Kernel != "wb_cast_f32_to_bf16" || fmt.Sprint(ls[1].Args) != "[db_acc db 3072]" {
		t.Errorf("bf16: %+v", ls)
	}
	if ls := BiasGradLaunches(cudnnDataFloat, 512, 3072, "dy", "db", "db"); len(ls) != 1 || ls[0].Kernel != "wb_bias_grad_f32" {
		t.Errorf("fp32: %+v", ls)
	}
}
