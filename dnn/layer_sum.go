package dnn

import "fmt"

// sum is the elementwise sum of inputs of one shape (a residual add).
type sum struct {
	shape Shape
	n     int
}

// Describe: n inputs of the output's shape.
func (l *sum) Describe() Desc {
	in := make([]Shape, l.n)
	for i := range in {
		in[i] = l.shape
	}
	return Desc{Op: OpAdd, In: in, Out: l.shape, Attr: Attrs{}}
}

func (l *sum) Op() Op { return OpAdd }

func (l *sum) Out() Shape { return l.shape }

func (l *sum) Params() int64 { return 0 }

func (l *sum) Key() string { return fmt.Sprintf("add n=%d shape=%v", l.n, l.shape) }

func (l *sum) Work(batch int, p Pass, prec Precision) Work {
	if p != Forward {
		return Work{}
	}
	v := float64(l.shape.Elems()) * float64(batch)
	return Work{FLOPs: Flops(v * float64(l.n-1)), Read: Bytes(v*float64(l.n)) * prec.Size(), Written: Bytes(v) * prec.Size()}
}
