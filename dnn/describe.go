package dnn

// Desc describes a layer to a backend that runs it: its op, its inputs'
// and output's per-sample shapes, and its integer attributes, named per op
// (documented on each layer's Describe).
type Desc struct {
	Op   Op
	In   []Shape
	Out  Shape
	Attr Attrs
}

// Describer is a layer that can describe itself to a backend. Every layer
// of the zoo is one.
type Describer interface {
	Describe() Desc
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

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
