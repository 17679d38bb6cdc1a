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

type conv2d struct {
	c        Conv
	in, out  Shape
	kh, kw   int
	ph, pw   int
	params   int64
	macsPerS float64 // per sample
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

func (l *conv2d) Op() string    { return "conv2d" }
func (l *conv2d) Out() Shape    { return l.out }
func (l *conv2d) Params() int64 { return l.params }
func (l *conv2d) Key() string {
	c := l.c
	pad := fmt.Sprint(l.ph)
	if l.ph != l.pw {
		pad = fmt.Sprintf("%dx%d", l.ph, l.pw)
	}
	return fmt.Sprintf("conv2d in=%v out=%d k=%dx%d s=%d p=%s d=%d g=%d bias=%v", l.in, c.Out, l.kh, l.kw, c.Stride, pad, c.Dilation, c.Groups, c.Bias)
}

func (l *conv2d) Work(batch int, p Pass, prec Precision) Work {
	return gemmWork(batch, p, prec, l.macsPerS, l.in.Elems(), l.out.Elems(), l.params, l.c.Bias)
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

type linear struct {
	in, out Shape
	k, n    int
	bias    bool
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

func (l *linear) Op() string { return "linear" }
func (l *linear) Out() Shape { return l.out }
func (l *linear) Params() int64 {
	p := int64(l.k) * int64(l.n)
	if l.bias {
		p += int64(l.n)
	}
	return p
}
func (l *linear) Key() string { return fmt.Sprintf("linear in=%v out=%d bias=%v", l.in, l.n, l.bias) }
func (l *linear) Work(batch int, p Pass, prec Precision) Work {
	rows := l.in.Elems() / int64(l.k)
	return gemmWork(batch, p, prec, float64(rows)*float64(l.k)*float64(l.n), l.in.Elems(), l.out.Elems(), l.Params(), l.bias)
}

// elementwise is a layer whose work is proportional to its values:
// activations, dropout, normalisation.
type elementwise struct {
	op     string
	shape  Shape
	params int64
	// per value: FLOPs, and values read and written, forward and backward
	// (data); backward-weights is folded into backward-data.
	fwdFlops, fwdRead, fwdWrite float64
	bwdFlops, bwdRead, bwdWrite float64
}

func (l *elementwise) Op() string    { return l.op }
func (l *elementwise) Out() Shape    { return l.shape }
func (l *elementwise) Params() int64 { return l.params }
func (l *elementwise) Key() string   { return fmt.Sprintf("%s shape=%v", l.op, l.shape) }
func (l *elementwise) Work(batch int, p Pass, prec Precision) Work {
	n := float64(l.shape.Elems()) * float64(batch)
	sz := prec.Size()
	switch p {
	case Forward:
		return Work{FLOPs: Flops(l.fwdFlops * n), Read: Bytes(l.fwdRead*n)*sz + Bytes(l.params)*sz, Written: Bytes(l.fwdWrite*n) * sz}
	case BackwardData:
		w := Work{FLOPs: Flops(l.bwdFlops * n), Read: Bytes(l.bwdRead*n)*sz + Bytes(l.params)*sz, Written: Bytes(l.bwdWrite*n) * sz}
		if l.params > 0 {
			w.Written += Bytes(l.params) * sz // the parameters' gradients
		}
		return w
	case Update:
		if l.params > 0 {
			return updateWork(l.params)
		}
	}
	return Work{}
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
		return &elementwise{op: fn, shape: s, fwdFlops: f[0], fwdRead: 1, fwdWrite: 1, bwdFlops: f[1], bwdRead: 2, bwdWrite: 1}, nil
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
		return &elementwise{op: "batchnorm", shape: s, params: 2 * int64(s[0]),
			fwdFlops: 7, fwdRead: 2, fwdWrite: 1, bwdFlops: 10, bwdRead: 4, bwdWrite: 1}, nil
	}, x)
}

// pool is max or average pooling over [C, H, W].
type pool struct {
	op            string
	in, out       Shape
	k, stride, pd int
}

// MaxPool adds k×k max pooling.
func (b *Builder) MaxPool(name string, x T, k, stride, pad int) T {
	return b.Add(name, func(in []Shape) (Layer, error) { return newPool("maxpool", in, k, stride, pad) }, x)
}

// AvgPool adds k×k average pooling.
func (b *Builder) AvgPool(name string, x T, k, stride, pad int) T {
	return b.Add(name, func(in []Shape) (Layer, error) { return newPool("avgpool", in, k, stride, pad) }, x)
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
		return &pool{op: "globalavgpool", in: s, out: Shape{s[0]}, k: s[1] * s[2], stride: 1}, nil
	}, x)
}

func newPool(op string, in []Shape, k, stride, pad int) (Layer, error) {
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

func (l *pool) Op() string    { return l.op }
func (l *pool) Out() Shape    { return l.out }
func (l *pool) Params() int64 { return 0 }
func (l *pool) Key() string {
	return fmt.Sprintf("%s in=%v k=%d s=%d p=%d", l.op, l.in, l.k, l.stride, l.pd)
}
func (l *pool) Work(batch int, p Pass, prec Precision) Work {
	b := float64(batch)
	in, out := float64(l.in.Elems())*b, float64(l.out.Elems())*b
	window := float64(l.k)
	if l.op != "globalavgpool" {
		window = float64(l.k * l.k)
	}
	sz := prec.Size()
	switch p {
	case Forward:
		return Work{FLOPs: Flops(out * window), Read: Bytes(in) * sz, Written: Bytes(out) * sz}
	case BackwardData:
		// Max: route each gradient to its argmax; average: spread it.
		return Work{FLOPs: Flops(in), Read: Bytes(out) * sz * 2, Written: Bytes(in) * sz}
	}
	return Work{}
}

// sum is the elementwise sum of inputs of one shape (a residual add).
type sum struct {
	shape Shape
	n     int
}

// Sum adds the elementwise sum of its inputs, which must have one shape
// (a residual connection). Its backward pass passes the gradient through
// unchanged, which costs nothing.
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

func (l *sum) Op() string    { return "add" }
func (l *sum) Out() Shape    { return l.shape }
func (l *sum) Params() int64 { return 0 }
func (l *sum) Key() string   { return fmt.Sprintf("add n=%d shape=%v", l.n, l.shape) }
func (l *sum) Work(batch int, p Pass, prec Precision) Work {
	if p != Forward {
		return Work{}
	}
	v := float64(l.shape.Elems()) * float64(batch)
	return Work{FLOPs: Flops(v * float64(l.n-1)), Read: Bytes(v*float64(l.n)) * prec.Size(), Written: Bytes(v) * prec.Size()}
}

// reshape changes the shape without moving data.
type reshape struct {
	in, out Shape
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

func (l *reshape) Op() string                     { return "reshape" }
func (l *reshape) Out() Shape                     { return l.out }
func (l *reshape) Params() int64                  { return 0 }
func (l *reshape) Key() string                    { return fmt.Sprintf("reshape %v→%v", l.in, l.out) }
func (l *reshape) Work(int, Pass, Precision) Work { return Work{} }
