package dnn

import "fmt"

// tiedLinear is a linear layer whose weight belongs to another layer.
type tiedLinear struct {
	linear
}

// Describe: linear's attributes (k, n, bias) and tied = 1: the weight is
// another layer's, so Params counts the bias only.
func (l *tiedLinear) Describe() Desc {
	d := l.linear.Describe()
	d.Attr[AttrTied] = 1
	return d
}

func (l *tiedLinear) Params() int64 {
	if l.bias {
		return int64(l.n)
	}
	return 0
}

func (l *tiedLinear) Key() string {
	return fmt.Sprintf("linear in=%v out=%d bias=%v tied", l.in, l.n, l.bias)
}

func (l *tiedLinear) Work(batch int, p Pass, prec Precision) Work {
	if p == Update {
		return updateWork(l.Params())
	}
	return l.linear.Work(batch, p, prec)
}
