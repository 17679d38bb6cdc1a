package dnn

import "fmt"

// dropout zeroes values at random during training.
type dropout struct {
	shape Shape
}

// Describe: no attributes; the probability is not kept, as the work does
// not depend on it.
func (l *dropout) Describe() Desc {
	return Desc{Op: OpDropout, In: []Shape{l.shape}, Out: l.shape, Attr: Attrs{}}
}

func (l *dropout) Op() Op { return OpDropout }

func (l *dropout) Out() Shape { return l.shape }

func (l *dropout) Params() int64 { return 0 }

func (l *dropout) Key() string { return fmt.Sprintf("dropout shape=%v", l.shape) }

func (l *dropout) Work(batch int, p Pass, prec Precision) Work {
	n := float64(l.shape.Elems()) * float64(batch)
	sz := prec.Size()
	switch p {
	case Forward:
		return Work{FLOPs: Flops(2 * n), Read: Bytes(n) * sz, Written: Bytes(n)*sz + Bytes(n)*maskSize}
	case BackwardData:
		return Work{FLOPs: Flops(n), Read: Bytes(n)*sz + Bytes(n)*maskSize, Written: Bytes(n) * sz}
	}
	return Work{}
}
