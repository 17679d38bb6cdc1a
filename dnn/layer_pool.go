package dnn

import "fmt"

// pool is max or average pooling over [C, H, W].
type pool struct {
	op            Op
	in, out       Shape
	k, stride, pd int
}

// Describe: attributes k (window side; the whole plane for global
// pooling), stride, pad.
func (l *pool) Describe() Desc {
	return Desc{Op: l.op, In: []Shape{l.in}, Out: l.out, Attr: Attrs{AttrK: l.k, AttrStride: l.stride, AttrPad: l.pd}}
}

func (l *pool) Op() Op { return l.op }

func (l *pool) Out() Shape { return l.out }

func (l *pool) Params() int64 { return 0 }

func (l *pool) Key() string {
	return fmt.Sprintf("%s in=%v k=%d s=%d p=%d", l.op, l.in, l.k, l.stride, l.pd)
}

func (l *pool) Work(batch int, p Pass, prec Precision) Work {
	b := float64(batch)
	in, out := float64(l.in.Elems())*b, float64(l.out.Elems())*b
	window := float64(l.k)
	if l.op != OpGlobalAvgPool {
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
