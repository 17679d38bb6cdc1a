package dnn

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/wb-sim/wb/internal/registry"
)

// ZooEntry is a model of the zoo.
type ZooEntry struct {
	// Name is how the CLI and experiment configs name the model.
	Name string
	// Description says what the model is and whose definition it follows.
	Description string
	// Input describes the default input the model is built for.
	Input string
	// Batch is a usual per-GPU training batch, the default for profiling.
	Batch int
	// Build builds the network.
	Build func() (*Network, error)
}

// Zoo lists the models wb knows, vision models first. Each file of models
// contributes a function returning its entries; the list is built anew on
// every call.
func Zoo() []ZooEntry {
	return append(visionZoo(), nlpZoo()...)
}

// Model builds the zoo's model called name. "gemm:N" is a one-layer
// network, an N×N linear layer on N features: at batch B its forward pass
// is a B×N×N matrix product, the microbenchmark of a device's GEMM rate.
// "sweep:OP:N[:SEED]" is N layers of random shapes (SweepPrefix).
func Model(name string) (*Network, error) {
	if n, ok := strings.CutPrefix(name, "gemm:"); ok {
		size, err := strconv.Atoi(n)
		if err != nil || size <= 0 || size > 1<<20 {
			return nil, fmt.Errorf("model %q: want gemm:N with N a positive size", name)
		}
		b, x := NewBuilder(name, Shape{size})
		b.Linear("gemm", x, size, false)
		return b.Build()
	}
	if IsSweep(name) {
		return sweepModel(name)
	}
	r, err := zooIndex()
	if err != nil {
		return nil, err
	}
	e, err := r.Lookup(name)
	if err != nil {
		return nil, err
	}
	return e.Build()
}

// zooIndex is the zoo as a registry, built once: a model listed twice is
// an error from then on.
var zooIndex = sync.OnceValues(func() (*registry.Registry[ZooEntry], error) {
	r := registry.New[ZooEntry]("model")
	for _, e := range Zoo() {
		if err := r.Register(e.Name, e); err != nil {
			return nil, fmt.Errorf("dnn: the zoo: %w", err)
		}
	}
	return r, nil
})

// ModelNames lists the names of the zoo's models, sorted.
func ModelNames() []string {
	if r, err := zooIndex(); err == nil {
		return r.Names()
	}
	var names []string
	for _, e := range Zoo() {
		names = append(names, e.Name)
	}
	slices.Sort(names)
	return slices.Compact(names)
}
