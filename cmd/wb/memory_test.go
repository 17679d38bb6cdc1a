package main

import (
	"strings"
	"testing"

	"github.com/wb-sim/wb/dnn"
)

// TestWarnMemory: a model whose floor exceeds the GPU's memory is warned
// about, naming the model, the GPU, each part and both totals; one that
// fits, or a GPU of unknown memory, is not.
func TestWarnMemory(t *testing.T) {
	for _, c := range []struct {
		m    memoryFloor
		have float64
		want string
	}{
		{memoryFloor{Precision: dnn.FP32, Weights: 25 << 30, Activations: 512 << 20}, 8 << 30,
			"llama on the Tesla P4: fp32 weights 25.0 GiB, activations its largest kernel holds 512 MiB take at least 25.5 GiB, more than its 8.0 GiB"},
		{memoryFloor{Precision: dnn.FP16, Weights: 1 << 20, Gradients: 1 << 20, Momentum: 1 << 20, Activations: 9 << 30, PerGPU: 512}, 8 << 30,
			"fp16 weights 1 MiB, their gradients 1 MiB, SGD's momentum 1 MiB, activations its backward pass needs kept 9.0 GiB (512 samples per GPU) take at least 9.0 GiB"},
		{memoryFloor{Precision: dnn.FP32, Weights: 7 << 30}, 8 << 30, ""},
		{memoryFloor{Precision: dnn.FP32, Weights: 8 << 30}, 8 << 30, ""},
		{memoryFloor{Precision: dnn.FP32, Weights: 53.9e9}, 0, ""},
	} {
		m := newMemoryFloor(c.m, c.have)
		if m.Fits != (c.want == "") {
			t.Errorf("%+v: fits %v", m, m.Fits)
		}
		var b strings.Builder
		warnMemory(&b, "llama", "Tesla P4", m)
		if got := b.String(); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", m, got, c.want)
		}
	}
}
