package dnn

import (
	"fmt"
	"strings"
)

// Every layer type describes itself to backends.
var (
	_ Describer = (*conv2d)(nil)
	_ Describer = (*linear)(nil)
	_ Describer = (*tiedLinear)(nil)
	_ Describer = (*elementwise)(nil)
	_ Describer = (*pool)(nil)
	_ Describer = (*sum)(nil)
	_ Describer = (*reshape)(nil)
	_ Describer = (*concat)(nil)
	_ Describer = (*lrn)(nil)
	_ Describer = (*embedding)(nil)
	_ Describer = (*softmax)(nil)
	_ Describer = (*dropout)(nil)
	_ Describer = (*matmul)(nil)
	_ Describer = (*lstm)(nil)
	_ Describer = (*selectToken)(nil)
	_ Describer = (*resize)(nil)
)

// Describe: the inputs' shapes, joined along their first dimension; no
// attributes.
func (l *concat) Describe() Desc {
	in := make([]Shape, len(l.in))
	copy(in, l.in)
	return Desc{Op: "concat", In: in, Out: l.out, Attr: map[string]int{}}
}

// Describe: attribute size (the channels of the window).
func (l *lrn) Describe() Desc {
	return Desc{Op: "lrn", In: []Shape{l.shape}, Out: l.shape, Attr: map[string]int{"size": l.size}}
}

// Describe: input [T] of token ids, output [T, dim]; attributes vocab,
// dim, tied (1: the table is trained but owned by another layer) and
// frozen (1: the table is fixed and has no gradient).
func (l *embedding) Describe() Desc {
	return Desc{Op: "embedding", In: []Shape{{l.tokens}}, Out: l.Out(), Attr: map[string]int{
		"vocab": l.vocab, "dim": l.dim,
		"tied": b2i(l.table == tiedTable), "frozen": b2i(l.table == frozenTable),
	}}
}

// Describe: softmax over the last dimension; attributes scaled (1: fused
// with the attention scale) and causal (1: fused with a causal mask over
// square [..., T, T] scores).
func (l *softmax) Describe() Desc {
	return Desc{Op: "softmax", In: []Shape{l.shape}, Out: l.shape, Attr: map[string]int{
		"scaled": b2i(l.scaled), "causal": b2i(l.causal),
	}}
}

// Describe: no attributes; the probability is not kept, as the work does
// not depend on it.
func (l *dropout) Describe() Desc {
	return Desc{Op: "dropout", In: []Shape{l.shape}, Out: l.shape, Attr: map[string]int{}}
}

// Describe: inputs A [..., M, K] and B [..., K, N] (or [..., N, K] with
// transb); attributes g (the products per sample: the leading dimensions'
// size), m, k, n and transb (0 or 1).
func (l *matmul) Describe() Desc {
	return Desc{Op: "matmul", In: []Shape{l.a, l.bs}, Out: l.out, Attr: map[string]int{
		"g": int(l.g), "m": int(l.m), "k": int(l.k), "n": int(l.n), "transb": b2i(l.transB),
	}}
}

// Describe: input [T, D], output [T, hidden]; attributes hidden and layers.
func (l *lstm) Describe() Desc {
	return Desc{Op: "lstm", In: []Shape{l.in}, Out: l.Out(), Attr: map[string]int{"hidden": l.hidden, "layers": l.depth}}
}

// Describe: input [T, D], output [D]; no attributes. The position is not
// kept, as the work does not depend on it: a backend may select any.
func (l *selectToken) Describe() Desc {
	return Desc{Op: "select", In: []Shape{l.in}, Out: l.Out(), Attr: map[string]int{}}
}

// Describe: linear's attributes (k, n, bias) and tied = 1: the weight is
// another layer's, so Params counts the bias only.
func (l *tiedLinear) Describe() Desc {
	d := l.linear.Describe()
	d.Attr["tied"] = 1
	return d
}

// Describe: op "upsample" with attribute f (the factor of both sides), or
// op "pad" with attributes left, right, top and bottom (the zero columns
// and rows added).
func (l *resize) Describe() Desc {
	d := Desc{Op: l.op, In: []Shape{l.in}, Out: l.out, Attr: map[string]int{}}
	switch l.op {
	case "upsample":
		d.Attr["f"] = l.out[1] / l.in[1]
	case "pad":
		// zeroPad keeps the sides in the key only: "pad in=... l=L r=R t=T b=B".
		var left, right, top, bottom int
		_, rest, ok := strings.Cut(l.key, " l=")
		if _, err := fmt.Sscanf(rest, "%d r=%d t=%d b=%d", &left, &right, &top, &bottom); !ok || err != nil {
			panic(fmt.Sprintf("dnn: pad key %q does not name its sides", l.key))
		}
		d.Attr["left"], d.Attr["right"], d.Attr["top"], d.Attr["bottom"] = left, right, top, bottom
	}
	return d
}
