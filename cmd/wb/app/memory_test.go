package app

import (
	"strings"
	"testing"

	"github.com/wb-sim/wb/dnn"
)

// TestWarnMemory: a model whose floor exceeds the GPU's memory is warned
// about, naming the model, the GPU, each part and both totals; one that
// fits within 3% of the GPU's memory is noted; one that fits with room,
// or a GPU of unknown memory, is neither.
func TestWarnMemory(t *testing.T) {
	for _, c := range []struct {
		m    memoryFloor
		have float64
		want string
	}{
		{memoryFloor{Precision: dnn.FP32, Weights: 25 << 30, Activations: 512 << 20}, 8 << 30,
			"llama on the Tesla P4 needs at least 25.5 GiB (fp32 weights 25.0 GiB and activations its largest kernel holds 512 MiB), more than its 8.0 GiB"},
		{memoryFloor{Precision: dnn.FP16, Weights: 1 << 20, Gradients: 1 << 20, Momentum: 300 << 10, Activations: 9 << 30, PerGPU: 512}, 8 << 30,
			"needs at least 9.0 GiB (fp16 weights 1 MiB, their gradients 1 MiB, SGD's momentum 300 KiB and activations its backward pass needs kept 9.0 GiB (512 samples per GPU))"},
		{memoryFloor{Precision: dnn.FP32, Weights: 7 << 30}, 8 << 30, ""},
		// one that fits within 3% is noted, not warned of
		{memoryFloor{Precision: dnn.FP32, Weights: 8 << 30}, 8 << 30,
			"note: llama on the Tesla P4 needs at least 8.0 GiB of its 8.0 GiB, within 3%: CUDA sees less than a datasheet's memory"},
		{memoryFloor{Precision: dnn.FP32, Weights: 7.7 * (1 << 30)}, 8 << 30, ""},
		{memoryFloor{Precision: dnn.FP32, Weights: 53.9e9}, 0, ""},
	} {
		m := newMemoryFloor(c.m, c.have)
		if (m.Fits == nil) != (c.have == 0) || m.Fits != nil && *m.Fits != (c.want == "" || strings.HasPrefix(c.want, "note:")) {
			t.Errorf("%+v: fits %v", m, m.Fits)
		}
		var b strings.Builder
		warnMemory(&b, "llama", "Tesla P4", m)
		if got := b.String(); (c.want == "") != (got == "") || !strings.Contains(got, c.want) {
			t.Errorf("%+v: %q, want %q", m, got, c.want)
		}
	}
}

// TestSize: the largest unit of which the rounded figure is at least 1.
func TestSize(t *testing.T) {
	for b, want := range map[float64]string{
		0: "0 KiB", 300 << 10: "300 KiB", 1023.7 * (1 << 10): "1 MiB", 512 << 20: "512 MiB",
		1023.7 * (1 << 20): "1.0 GiB", 80 << 30: "80.0 GiB",
	} {
		if got := size(b); got != want {
			t.Errorf("size(%g) = %q, want %q", b, got, want)
		}
	}
}
