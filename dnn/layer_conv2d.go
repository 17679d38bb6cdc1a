package dnn

import "fmt"

type conv2d struct {
	c        Conv
	in, out  Shape
	kh, kw   int
	ph, pw   int
	params   int64
	macsPerS float64 // per sample
}

// Describe: attributes out, kh, kw, stride, ph, pw, dilation, groups,
// bias (0 or 1).
func (l *conv2d) Describe() Desc {
	return Desc{Op: OpConv2D, In: []Shape{l.in}, Out: l.out, Attr: Attrs{
		AttrOut: l.c.Out, AttrKH: l.kh, AttrKW: l.kw, AttrStride: l.c.Stride, AttrPH: l.ph, AttrPW: l.pw,
		AttrDilation: l.c.Dilation, AttrGroups: l.c.Groups, AttrBias: b2i(l.c.Bias),
	}}
}

func (l *conv2d) Op() Op { return OpConv2D }

func (l *conv2d) Out() Shape { return l.out }

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
