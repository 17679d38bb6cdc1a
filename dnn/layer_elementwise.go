package dnn

import "fmt"

// elementwise is a layer whose work is proportional to its values:
// activations, dropout, normalisation.
type elementwise struct {
	op     Op
	shape  Shape
	params int64
	// per value: FLOPs, and values read and written, forward and backward
	// (data); backward-weights is folded into backward-data.
	fwdFlops, fwdRead, fwdWrite float64
	bwdFlops, bwdRead, bwdWrite float64
}

// Describe: the op is the activation's name or "batchnorm"; no attributes.
func (l *elementwise) Describe() Desc {
	return Desc{Op: l.op, In: []Shape{l.shape}, Out: l.shape, Attr: Attrs{}}
}

func (l *elementwise) Op() Op { return l.op }

func (l *elementwise) Out() Shape { return l.shape }

func (l *elementwise) Params() int64 { return l.params }

func (l *elementwise) Key() string { return fmt.Sprintf("%s shape=%v", l.op, l.shape) }

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
