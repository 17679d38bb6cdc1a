package dnn

import "fmt"

// matmul is a batched product of two activations.
type matmul struct {
	a, bs, out Shape
	transB     bool
	g, m, k, n int64 // per sample: g products of m×k by k×n
}

// Describe: inputs A [..., M, K] and B [..., K, N] (or [..., N, K] with
// transb); attributes g (the products per sample: the leading dimensions'
// size), m, k, n and transb (0 or 1).
func (l *matmul) Describe() Desc {
	return Desc{Op: OpMatMul, In: []Shape{l.a, l.bs}, Out: l.out, Attr: Attrs{
		AttrG: int(l.g), AttrM: int(l.m), AttrK: int(l.k), AttrN: int(l.n), AttrTransB: b2i(l.transB),
	}}
}

func (l *matmul) Op() Op { return OpMatMul }

func (l *matmul) Out() Shape { return l.out }

func (l *matmul) Params() int64 { return 0 }

func (l *matmul) Key() string {
	return fmt.Sprintf("matmul a=%v b=%v transB=%v", l.a, l.bs, l.transB)
}

func (l *matmul) Work(batch int, p Pass, prec Precision) Work {
	bt := float64(batch) * float64(l.g)
	sz := prec.Size()
	flops := 2 * bt * float64(l.m) * float64(l.k) * float64(l.n)
	a := Bytes(bt*float64(l.m)*float64(l.k)) * sz
	c := Bytes(bt*float64(l.k)*float64(l.n)) * sz
	out := Bytes(bt*float64(l.m)*float64(l.n)) * sz
	switch p {
	case Forward:
		return Work{FLOPs: Flops(flops), Read: a + c, Written: out, Matrix: true}
	case BackwardData:
		return Work{FLOPs: Flops(2 * flops), Read: 2*out + a + c, Written: a + c, Matrix: true}
	}
	return Work{}
}
