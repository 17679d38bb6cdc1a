package gpu

import (
	"path/filepath"
	"testing"

	"github.com/wb-sim/wb/datasets/neusight"
)

// TestNodeKernel maps the nodes of GPT-2 Large's graph (V100, batch 4,
// sequence 1024) to the kernels the op model times.
func TestNodeKernel(t *testing.T) {
	nodes, err := neusight.ReadGraph(filepath.Join(bundledDir(t), "labels", "Tesla_V100-PCIE-32GB", "gpt2_large-inf-1024-4.csv.gz"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Kernel{}
	for _, n := range nodes {
		if k, ok := NodeKernel(n); ok {
			got[n.Name] = k
		}
	}
	for name, want := range map[string]Kernel{
		"addmm":                {Op: "linear", Batch: 1, M: 4096, K: 1280, N: 3840, Bias: true},
		"matmul":               {Op: "bmm", Batch: 80, M: 1024, K: 64, N: 1024},
		"softmax":              {Op: "softmax", Rows: 81920, Width: 1024},
		"truediv":              {Op: "divu", Rows: 81920, Width: 1024, Inputs: 1, Outputs: 1},
		"where":                {Op: "add", Rows: 81920, Width: 1024, Inputs: 1, Outputs: 1},
		"add_10":               {Op: "add", Rows: 4096, Width: 1280, Inputs: 2, Outputs: 1},
		"tanh":                 {Op: "tanh", Rows: 4096, Width: 5120, Inputs: 1, Outputs: 1},
		"transformer_h_0_ln_1": {Op: "ln", Rows: 4096, Width: 1280},
		"lm_head":              {Op: "linear", Batch: 1, M: 4096, K: 1280, N: 50257},
	} {
		if k, ok := got[name]; !ok || k != want {
			t.Errorf("%s: %+v (%v), want %+v", name, k, ok, want)
		}
	}
	// views, copies, embeddings and dropout are not mapped
	for _, name := range []string{"view", "transformer_wte", "transformer_drop", "size", "contiguous"} {
		if k, ok := got[name]; ok {
			t.Errorf("%s mapped to %+v", name, k)
		}
	}
}

// TestValidateNodes: each GPU's kernel-bound nodes are scored by the model
// train gives for that GPU and the label's network.
func TestValidateNodes(t *testing.T) {
	d := bundledData(t)
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	gpus, asked := map[string]bool{}, 0
	scores, err := ValidateNodes(d.Dir, d.Samples, d.Specs, func(g, network string) (*Model, error) {
		gpus[g] = true
		asked++
		return m, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(gpus) != 5 || asked <= len(gpus) {
		t.Errorf("models asked for %v (%d times), want the five GPUs with labels, a model per network", gpus, asked)
	}
	fams := map[string]int{}
	for _, s := range scores {
		fams[s.Family] += s.N
		if s.N < 1 || !(s.MAPE >= 0) || s.Within < 0 || s.Within > 100 || !(s.Median > 0) {
			t.Errorf("%+v", s)
		}
	}
	// in sample the V100's elementwise nodes are timed within a few percent
	for _, s := range scores {
		if s.GPU == "Tesla_V100-PCIE-32GB" && s.Family == "elementwise" && !(s.MAPE < 15) {
			t.Errorf("V100 elementwise in sample: %+v", s)
		}
	}
	for _, f := range []string{"linear", "bmm", "softmax", "ln", "elementwise"} {
		if fams[f] == 0 {
			t.Errorf("no %s node scored (%v)", f, fams)
		}
	}
}
