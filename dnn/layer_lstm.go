package dnn

import "fmt"

// lstm is a stack of LSTM layers over a sequence.
type lstm struct {
	in            Shape
	hidden, depth int
}

// Describe: input [T, D], output [T, hidden]; attributes hidden and layers.
func (l *lstm) Describe() Desc {
	return Desc{Op: OpLSTM, In: []Shape{l.in}, Out: l.Out(), Attr: Attrs{AttrHidden: l.hidden, AttrLayers: l.depth}}
}

func (l *lstm) Op() Op { return OpLSTM }

func (l *lstm) Out() Shape { return Shape{l.in[0], l.hidden} }

func (l *lstm) Key() string {
	return fmt.Sprintf("lstm in=%v hidden=%d layers=%d", l.in, l.hidden, l.depth)
}

// layerParams is the parameter count of layer i.
func (l *lstm) layerParams(i int) int64 {
	h := int64(l.hidden)
	return 4*h*(int64(l.layerIn(i))+h) + 8*h
}

func (l *lstm) layerIn(i int) int {
	if i == 0 {
		return l.in[1]
	}
	return l.hidden
}

func (l *lstm) Params() int64 {
	var p int64
	for i := range l.depth {
		p += l.layerParams(i)
	}
	return p
}

func (l *lstm) Work(batch int, p Pass, prec Precision) Work {
	if p == Update {
		return updateWork(l.Params())
	}
	n := float64(l.in[0]) * float64(batch)
	h := float64(l.hidden)
	g := 4 * h
	sz := prec.Size()
	v := func(x float64) Bytes { return Bytes(x) * sz }
	w := Work{Matrix: true}
	for i := range l.depth {
		d := float64(l.layerIn(i))
		gemm := 2 * n * g * (d + h)
		wts := v(float64(l.layerParams(i)))
		switch p {
		case Forward:
			w.FLOPs += Flops(gemm + lstmCellFlops*n*h)
			w.Read += v(n*(d+h)) + wts + v(n*(g+h))
			w.Written += v(n*g) + v(2*n*h)
		case BackwardData:
			w.FLOPs += Flops(gemm + lstmCellFlops*n*h)
			w.Read += v(n*(g+3*h)) + v(n*g) + wts
			w.Written += v(n*(g+h)) + v(n*(d+h))
		case BackwardWeights:
			w.FLOPs += Flops(gemm + n*g)
			w.Read += v(n * (g + d + h))
			w.Written += wts
		}
	}
	return w
}
