package dnn

import "fmt"

type linear struct {
	in, out Shape
	k, n    int
	bias    bool
}

// Describe: attributes k (input features), n (output features), bias.
func (l *linear) Describe() Desc {
	return Desc{Op: OpLinear, In: []Shape{l.in}, Out: l.out, Attr: Attrs{AttrK: l.k, AttrN: l.n, AttrBias: b2i(l.bias)}}
}

func (l *linear) Op() Op { return OpLinear }

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
