package dnn

import (
	"errors"
	"fmt"
)

// T is a tensor while a network is built: the output of a node.
type T struct {
	node  int // -1: the network's input
	shape Shape
	bad   bool // made by a layer that failed: later layers skip it
}

// Shape is the tensor's per-sample shape.
func (t T) Shape() Shape { return t.shape }

// Builder builds a network layer by layer. Shape errors are collected, each
// naming its layer, and returned by Build; a layer that reads the output of
// a failed layer is skipped, so one mistake gives one error.
type Builder struct {
	net   Network
	names map[string]bool
	errs  []error
}

// Bounds of what a network may hold, so that no count overflows: MaxElems
// values per sample in a tensor and parameters in a layer (2⁴⁰, about 10¹²),
// MaxFLOPs per sample in a layer's forward pass (2⁶⁰, about 10¹⁸).
const (
	MaxElems = 1 << 40
	MaxFLOPs = 1 << 60
)

// elems is a shape's number of values in floating point, which does not
// wrap where Elems would.
func elems(s Shape) float64 {
	n := 1.0
	for _, d := range s {
		n *= float64(d)
	}
	return n
}

// NewBuilder starts a network whose samples have the given shape, and
// returns the input tensor.
func NewBuilder(name string, input Shape) (*Builder, T) {
	b := &Builder{net: Network{Name: name, Input: input}, names: map[string]bool{}}
	x := T{node: -1, shape: input}
	for _, d := range input {
		if d <= 0 {
			b.errs = append(b.errs, fmt.Errorf("%s: input shape %v has a dimension ≤ 0", name, input))
			x.bad = true
			break
		}
	}
	if e := elems(input); !x.bad && e > MaxElems {
		b.errs = append(b.errs, fmt.Errorf("%s: input shape %v has %.4g values per sample, more than %d", name, input, e, int64(MaxElems)))
		x.bad = true
	}
	return b, x
}

// Constructor makes a layer from its input shapes, or says why it cannot.
type Constructor func(in []Shape) (Layer, error)

// Add appends a layer named name, made by mk from the inputs' shapes, and
// returns its output.
func (b *Builder) Add(name string, mk Constructor, inputs ...T) T {
	if b.names[name] {
		b.errs = append(b.errs, fmt.Errorf("%s: layer %s: name used twice", b.net.Name, name))
		return T{bad: true}
	}
	b.names[name] = true
	shapes := make([]Shape, len(inputs))
	ids := make([]int, len(inputs))
	for i, x := range inputs {
		if x.bad {
			return T{bad: true}
		}
		shapes[i], ids[i] = x.shape, x.node
	}
	l, err := mk(shapes)
	if err != nil {
		b.errs = append(b.errs, fmt.Errorf("%s: layer %s: %w", b.net.Name, name, err))
		return T{bad: true}
	}
	for _, d := range l.Out() {
		if d <= 0 {
			b.errs = append(b.errs, fmt.Errorf("%s: layer %s: output shape %v has a dimension ≤ 0", b.net.Name, name, l.Out()))
			return T{bad: true}
		}
	}
	if err := bounded(l); err != nil {
		b.errs = append(b.errs, fmt.Errorf("%s: layer %s: %w", b.net.Name, name, err))
		return T{bad: true}
	}
	b.net.Nodes = append(b.net.Nodes, Node{Name: name, Layer: l, Inputs: ids})
	return T{node: len(b.net.Nodes) - 1, shape: l.Out()}
}

// Build returns the network, or every shape error met.
func (b *Builder) Build() (*Network, error) {
	if len(b.errs) > 0 {
		return nil, errors.Join(b.errs...)
	}
	if len(b.net.Nodes) == 0 {
		return nil, fmt.Errorf("%s: no layers", b.net.Name)
	}
	n := b.net
	return &n, nil
}

// one checks that a layer has one input.
func one(in []Shape) (Shape, error) {
	if len(in) != 1 {
		return nil, fmt.Errorf("takes one input, got %d", len(in))
	}
	return in[0], nil
}

// bounded says whether a layer's output, parameters and work are within
// the network bounds: past them a count would overflow (a parameter count
// that wrapped is caught by its work, which is computed in floating point
// and is at least the parameters).
func bounded(l Layer) error {
	if e := elems(l.Out()); e > MaxElems {
		return fmt.Errorf("output shape %v has %.4g values per sample, more than %d", l.Out(), e, int64(MaxElems))
	}
	if p := l.Params(); p < 0 || p > MaxElems {
		return fmt.Errorf("%d parameters: want 0 to %d", p, int64(MaxElems))
	}
	if f := l.Work(1, Forward, FP32).FLOPs; !(f >= 0 && f <= MaxFLOPs) {
		return fmt.Errorf("%.4g FLOPs per sample forward: want 0 to %.4g", f, float64(MaxFLOPs))
	}
	return nil
}
