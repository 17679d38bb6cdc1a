package dnn

import (
	"fmt"
)

// updateWork is the update pass of a layer with p parameters (see the
// package documentation).
func updateWork(p int64) Work {
	n := float64(p)
	return Work{FLOPs: Flops(4 * n), Read: Bytes(3*n) * masterSize, Written: Bytes(2*n) * masterSize}
}

// Conv is a 2-D convolution's configuration. Zero Stride and Dilation mean
// 1, zero Groups means 1; KernelW zero means square. Pad pads both
// dimensions; when PadH or PadW is set, they pad height and width instead
// (Inception's 1×7 kernels are padded 0×3).
type Conv struct {
	Out              int
	Kernel, KernelW  int
	Stride, Pad      int
	PadH, PadW       int
	Dilation, Groups int
	Bias             bool
}

// Conv2D adds a 2-D convolution over a [C, H, W] input.
func (b *Builder) Conv2D(name string, x T, c Conv) T {
	return b.Add(name, func(in []Shape) (Layer, error) { return newConv2D(in, c) }, x)
}

func newConv2D(in []Shape, c Conv) (Layer, error) {
	s, err := one(in)
	if err != nil {
		return nil, err
	}
	if len(s) != 3 {
		return nil, fmt.Errorf("conv2d wants a [C, H, W] input, got %v", s)
	}
	if c.Stride == 0 {
		c.Stride = 1
	}
	if c.Dilation == 0 {
		c.Dilation = 1
	}
	if c.Groups == 0 {
		c.Groups = 1
	}
	kh, kw := c.Kernel, c.KernelW
	if kw == 0 {
		kw = kh
	}
	ph, pw := c.Pad, c.Pad
	if c.PadH != 0 || c.PadW != 0 {
		ph, pw = c.PadH, c.PadW
	}
	switch {
	case c.Out <= 0 || kh <= 0 || kw <= 0 || c.Stride < 0 || ph < 0 || pw < 0 || c.Dilation < 0:
		return nil, fmt.Errorf("conv2d: out %d, kernel %d×%d, stride %d, pad %d×%d, dilation %d: want positive sizes", c.Out, kh, kw, c.Stride, ph, pw, c.Dilation)
	case c.Groups < 0:
		return nil, fmt.Errorf("conv2d: %d groups: want a positive count", c.Groups)
	case s[0]%c.Groups != 0 || c.Out%c.Groups != 0:
		return nil, fmt.Errorf("conv2d: %d groups do not divide %d input and %d output channels", c.Groups, s[0], c.Out)
	}
	ho := (s[1]+2*ph-c.Dilation*(kh-1)-1)/c.Stride + 1
	wo := (s[2]+2*pw-c.Dilation*(kw-1)-1)/c.Stride + 1
	if ho <= 0 || wo <= 0 {
		return nil, fmt.Errorf("conv2d: kernel %d×%d (dilation %d) larger than the padded input %d×%d", kh, kw, c.Dilation, s[1]+2*ph, s[2]+2*pw)
	}
	l := &conv2d{c: c, in: s, out: Shape{c.Out, ho, wo}, kh: kh, kw: kw, ph: ph, pw: pw}
	cin := int64(s[0] / c.Groups)
	l.params = int64(c.Out) * cin * int64(kh*kw)
	if c.Bias {
		l.params += int64(c.Out)
	}
	l.macsPerS = float64(c.Out) * float64(ho*wo) * float64(cin) * float64(kh*kw)
	return l, nil
}

// gemmWork is the work of a layer that is a matrix product per sample
// (convolution, linear): macs multiply-adds per sample, in and out values
// per sample, params weights.
func gemmWork(batch int, p Pass, prec Precision, macs float64, in, out, params int64, bias bool) Work {
	b := float64(batch)
	sz := prec.Size()
	act := func(n int64) Bytes { return Bytes(float64(n)*b) * sz }
	w := Bytes(params) * sz
	switch p {
	case Forward:
		f := 2 * macs * b
		if bias {
			f += float64(out) * b
		}
		return Work{FLOPs: Flops(f), Read: act(in) + w, Written: act(out), Matrix: true}
	case BackwardData:
		return Work{FLOPs: Flops(2 * macs * b), Read: act(out) + w, Written: act(in), Matrix: true}
	case BackwardWeights:
		f := 2 * macs * b
		if bias {
			f += float64(out) * b
		}
		return Work{FLOPs: Flops(f), Read: act(out) + act(in), Written: w, Matrix: true}
	case Update:
		return updateWork(params)
	}
	return Work{}
}

// Linear adds a fully connected layer on the last dimension of its input
// ([..., K] → [..., N]).
func (b *Builder) Linear(name string, x T, out int, bias bool) T {
	return b.Add(name, func(in []Shape) (Layer, error) { return newLinear(in, out, bias) }, x)
}

func newLinear(in []Shape, out int, bias bool) (*linear, error) {
	s, err := one(in)
	if err != nil {
		return nil, err
	}
	if len(s) == 0 || out <= 0 {
		return nil, fmt.Errorf("linear: input %v, %d outputs", s, out)
	}
	o := append(Shape(nil), s...)
	o[len(o)-1] = out
	return &linear{in: s, out: o, k: s[len(s)-1], n: out, bias: bias}, nil
}

// Activation functions: FLOPs per value forward and backward, as counted
// by wb (transcendentals count as several operations: an exp or tanh is
// taken as 4, matching the polynomial evaluations libraries use).
var activations = map[string][2]float64{
	"relu":    {1, 1},
	"gelu":    {14, 18}, // tanh approximation: ~8 mul/add + tanh; backward re-evaluates it
	"sigmoid": {5, 3},
	"tanh":    {5, 3},
	"silu":    {7, 8},
}

// Activation adds an activation function ("relu", "gelu", "sigmoid",
// "tanh", "silu") applied to every value.
func (b *Builder) Activation(name string, x T, fn string) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		f, ok := activations[fn]
		if !ok {
			return nil, fmt.Errorf("unknown activation %q (known: gelu, relu, sigmoid, silu, tanh)", fn)
		}
		// Forward reads x, writes y; backward reads dy and x (or y), writes dx.
		return &elementwise{op: Op(fn), shape: s, fwdFlops: f[0], fwdRead: 1, fwdWrite: 1, bwdFlops: f[1], bwdRead: 2, bwdWrite: 1}, nil
	}, x)
}

// ReLU adds a rectified linear unit.
func (b *Builder) ReLU(name string, x T) T { return b.Activation(name, x, "relu") }

// BatchNorm adds training-mode batch normalisation over the channels (the
// first dimension) of its input: 2 parameters per channel. Forward reads
// the input twice (statistics, then normalisation); backward reads the
// gradient and the input twice (the reductions for the input's and the
// parameters' gradients, then the input's gradient).
func (b *Builder) BatchNorm(name string, x T) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if len(s) == 0 {
			return nil, fmt.Errorf("batchnorm on a scalar")
		}
		return &elementwise{op: OpBatchNorm, shape: s, params: 2 * int64(s[0]),
			fwdFlops: 7, fwdRead: 2, fwdWrite: 1, bwdFlops: 10, bwdRead: 4, bwdWrite: 1}, nil
	}, x)
}

// MaxPool adds k×k max pooling.
func (b *Builder) MaxPool(name string, x T, k, stride, pad int) T {
	return b.Add(name, func(in []Shape) (Layer, error) { return newPool(OpMaxPool, in, k, stride, pad) }, x)
}

// AvgPool adds k×k average pooling.
func (b *Builder) AvgPool(name string, x T, k, stride, pad int) T {
	return b.Add(name, func(in []Shape) (Layer, error) { return newPool(OpAvgPool, in, k, stride, pad) }, x)
}

// GlobalAvgPool adds average pooling over the whole H×W plane: [C, H, W] →
// [C].
func (b *Builder) GlobalAvgPool(name string, x T) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if len(s) != 3 {
			return nil, fmt.Errorf("global pooling wants a [C, H, W] input, got %v", s)
		}
		return &pool{op: OpGlobalAvgPool, in: s, out: Shape{s[0]}, k: s[1] * s[2], stride: 1}, nil
	}, x)
}

func newPool(op Op, in []Shape, k, stride, pad int) (Layer, error) {
	s, err := one(in)
	if err != nil {
		return nil, err
	}
	if len(s) != 3 {
		return nil, fmt.Errorf("%s wants a [C, H, W] input, got %v", op, s)
	}
	if stride == 0 {
		stride = k
	}
	if k <= 0 || stride <= 0 || pad < 0 || 2*pad > k {
		return nil, fmt.Errorf("%s: kernel %d, stride %d, pad %d", op, k, stride, pad)
	}
	ho := (s[1]+2*pad-k)/stride + 1
	wo := (s[2]+2*pad-k)/stride + 1
	if ho <= 0 || wo <= 0 {
		return nil, fmt.Errorf("%s: kernel %d larger than the padded input %d×%d", op, k, s[1]+2*pad, s[2]+2*pad)
	}
	return &pool{op: op, in: s, out: Shape{s[0], ho, wo}, k: k, stride: stride, pd: pad}, nil
}

// Sum adds the elementwise sum of its inputs, which must have one shape
// (a residual connection). Its backward pass passes the gradient through
// unchanged, which costs nothing. Autograd's sum of the two gradients of a
// tensor that two layers read (a residual block's input) is counted
// nowhere: one add of the tensor per extra reader, 16 in resnet50's
// backward (9% of its bytes), 48 in bert-base's (5%).
func (b *Builder) Sum(name string, xs ...T) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		if len(in) < 2 {
			return nil, fmt.Errorf("sum of %d inputs", len(in))
		}
		for _, s := range in[1:] {
			if s.String() != in[0].String() {
				return nil, fmt.Errorf("sum of shapes %v and %v", in[0], s)
			}
		}
		return &sum{shape: in[0], n: len(in)}, nil
	}, xs...)
}

// Flatten adds a reshape of the input to one dimension (free).
func (b *Builder) Flatten(name string, x T) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		return &reshape{in: s, out: Shape{int(s.Elems())}}, nil
	}, x)
}

// Reshape adds a view of the input with another shape of as many values
// (free).
func (b *Builder) Reshape(name string, x T, to Shape) T {
	return b.Add(name, func(in []Shape) (Layer, error) {
		s, err := one(in)
		if err != nil {
			return nil, err
		}
		if s.Elems() != to.Elems() {
			return nil, fmt.Errorf("reshape of %v (%d values) to %v (%d)", s, s.Elems(), to, to.Elems())
		}
		return &reshape{in: s, out: append(Shape(nil), to...)}, nil
	}, x)
}
