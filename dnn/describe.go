package dnn

// Desc describes a layer to a backend that runs it: its op, its inputs'
// and output's per-sample shapes, and its integer attributes, named per op
// (documented on each layer's Describe).
type Desc struct {
	Op   string
	In   []Shape
	Out  Shape
	Attr map[string]int
}

// Describer is a layer that can describe itself to a backend. Every layer
// of the zoo is one.
type Describer interface {
	Describe() Desc
}

// Describe: attributes out, kh, kw, stride, ph, pw, dilation, groups,
// bias (0 or 1).
func (l *conv2d) Describe() Desc {
	return Desc{Op: "conv2d", In: []Shape{l.in}, Out: l.out, Attr: map[string]int{
		"out": l.c.Out, "kh": l.kh, "kw": l.kw, "stride": l.c.Stride, "ph": l.ph, "pw": l.pw,
		"dilation": l.c.Dilation, "groups": l.c.Groups, "bias": b2i(l.c.Bias),
	}}
}

// Describe: attributes k (input features), n (output features), bias.
func (l *linear) Describe() Desc {
	return Desc{Op: "linear", In: []Shape{l.in}, Out: l.out, Attr: map[string]int{"k": l.k, "n": l.n, "bias": b2i(l.bias)}}
}

// Describe: the op is the activation's name or "batchnorm"; no attributes.
func (l *elementwise) Describe() Desc {
	return Desc{Op: l.op, In: []Shape{l.shape}, Out: l.shape, Attr: map[string]int{}}
}

// Describe: attributes k (window side; the whole plane for global
// pooling), stride, pad.
func (l *pool) Describe() Desc {
	return Desc{Op: l.op, In: []Shape{l.in}, Out: l.out, Attr: map[string]int{"k": l.k, "stride": l.stride, "pad": l.pd}}
}

// Describe: n inputs of the output's shape.
func (l *sum) Describe() Desc {
	in := make([]Shape, l.n)
	for i := range in {
		in[i] = l.shape
	}
	return Desc{Op: "add", In: in, Out: l.shape, Attr: map[string]int{}}
}

// Describe: no attributes; a reshape moves no data.
func (l *reshape) Describe() Desc {
	return Desc{Op: "reshape", In: []Shape{l.in}, Out: l.out, Attr: map[string]int{}}
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
