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
