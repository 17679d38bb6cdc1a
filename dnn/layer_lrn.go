package dnn

import "fmt"

// lrn is cross-channel local response normalisation (Krizhevsky et al.,
// 2012): each value is divided by (k + α/n·Σx²)^β over n neighbouring
// channels.
type lrn struct {
	shape Shape
	size  int
}

// Describe: attribute size (the channels of the window).
func (l *lrn) Describe() Desc {
	return Desc{Op: OpLRN, In: []Shape{l.shape}, Out: l.shape, Attr: Attrs{AttrSize: l.size}}
}

func (l *lrn) Op() Op { return OpLRN }

func (l *lrn) Out() Shape { return l.shape }

func (l *lrn) Params() int64 { return 0 }

func (l *lrn) Key() string { return fmt.Sprintf("lrn shape=%v size=%d", l.shape, l.size) }

func (l *lrn) Work(batch int, p Pass, prec Precision) Work {
	n := float64(l.shape.Elems()) * float64(batch)
	sz := prec.Size()
	w := float64(2 * l.size)
	switch p {
	case Forward:
		return Work{FLOPs: Flops((w + 7) * n), Read: Bytes(n) * sz, Written: Bytes(n) * sz}
	case BackwardData:
		return Work{FLOPs: Flops((w + 9) * n), Read: Bytes(3*n) * sz, Written: Bytes(n) * sz}
	}
	return Work{}
}
