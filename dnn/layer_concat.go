package dnn

import "strings"

// concat joins inputs along their first dimension (channels).
type concat struct {
	in  []Shape
	out Shape
}

// Describe: the inputs' shapes, joined along their first dimension; no
// attributes.
func (l *concat) Describe() Desc {
	in := make([]Shape, len(l.in))
	copy(in, l.in)
	return Desc{Op: OpConcat, In: in, Out: l.out, Attr: Attrs{}}
}

func (l *concat) Op() Op { return OpConcat }

func (l *concat) Out() Shape { return l.out }

func (l *concat) Params() int64 { return 0 }

func (l *concat) Key() string {
	parts := make([]string, len(l.in))
	for i, s := range l.in {
		parts[i] = s.String()
	}
	return "concat in=" + strings.Join(parts, ",")
}

func (l *concat) Work(batch int, p Pass, prec Precision) Work {
	if p != Forward && p != BackwardData {
		return Work{}
	}
	v := Bytes(float64(l.out.Elems())*float64(batch)) * prec.Size()
	return Work{Read: v, Written: v}
}
