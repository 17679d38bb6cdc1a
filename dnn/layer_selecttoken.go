package dnn

import "fmt"

// selectToken picks one position of a sequence.
type selectToken struct {
	in Shape
}

// Describe: input [T, D], output [D]; no attributes. The position is not
// kept, as the work does not depend on it: a backend may select any.
func (l *selectToken) Describe() Desc {
	return Desc{Op: OpSelect, In: []Shape{l.in}, Out: l.Out(), Attr: Attrs{}}
}

func (l *selectToken) Op() Op { return OpSelect }

func (l *selectToken) Out() Shape { return Shape{l.in[1]} }

func (l *selectToken) Params() int64 { return 0 }

func (l *selectToken) Key() string { return fmt.Sprintf("select in=%v", l.in) }

func (l *selectToken) Work(batch int, p Pass, prec Precision) Work {
	d := Bytes(float64(l.in[1])*float64(batch)) * prec.Size()
	switch p {
	case Forward:
		return Work{Read: d, Written: d}
	case BackwardData:
		return Work{Read: d, Written: d * Bytes(l.in[0])}
	}
	return Work{}
}
