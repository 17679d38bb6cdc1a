package dnn

import "fmt"

// softmax is an elementwise layer whose key also names its fused scale
// and mask.
type softmax struct {
	elementwise
	scaled, causal bool
}

// Describe: softmax over the last dimension; attributes scaled (1: fused
// with the attention scale) and causal (1: fused with a causal mask over
// square [..., T, T] scores).
func (l *softmax) Describe() Desc {
	return Desc{Op: OpSoftmax, In: []Shape{l.shape}, Out: l.shape, Attr: Attrs{
		AttrScaled: b2i(l.scaled), AttrCausal: b2i(l.causal),
	}}
}

func (l *softmax) Key() string {
	return fmt.Sprintf("softmax shape=%v scaled=%v causal=%v", l.shape, l.scaled, l.causal)
}
