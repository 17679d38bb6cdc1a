package profiler

import (
	"slices"
	"testing"

	"github.com/wb-sim/wb/dnn"
)

// TestIterationSteps: forward passes in graph order, then the backward
// passes in reverse graph order (data before weights within a layer),
// then the updates; no pass without work; no data gradient of a layer that
// reads only the network's input.
func TestIterationSteps(t *testing.T) {
	n, err := dnn.Model("resnet18-cifar")
	if err != nil {
		t.Fatal(err)
	}
	all := []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights, dnn.Update}
	steps := iterationSteps(n, 2, all, dnn.FP32)
	phase := func(p dnn.Pass) int {
		switch p {
		case dnn.Forward:
			return 0
		case dnn.Update:
			return 2
		}
		return 1
	}
	counts := map[dnn.Pass]int{}
	for i, s := range steps {
		node, p := &n.Nodes[s[0]], dnn.Pass(s[1])
		counts[p]++
		if w := node.Layer.Work(2, p, dnn.FP32); w.FLOPs == 0 && w.Bytes() == 0 {
			t.Errorf("step %d: %s %v does no work", i, node.Name, p)
		}
		if p == dnn.BackwardData && !slices.ContainsFunc(node.Inputs, func(i int) bool { return i >= 0 }) {
			t.Errorf("step %d: data gradient of %s, which reads the input", i, node.Name)
		}
		if i == 0 {
			continue
		}
		prev, pp := steps[i-1][0], dnn.Pass(steps[i-1][1])
		switch {
		case phase(pp) > phase(p):
			t.Errorf("step %d: %v after %v", i, p, pp)
		case phase(pp) == phase(p) && phase(p) == 1 && prev < s[0]:
			t.Errorf("step %d: backward of node %d after node %d: want reverse order", i, s[0], prev)
		case phase(pp) == phase(p) && phase(p) != 1 && prev >= s[0]:
			t.Errorf("step %d: node %d after node %d: want graph order", i, s[0], prev)
		case phase(p) == 1 && phase(pp) == 1 && prev == s[0] && !(pp == dnn.BackwardData && p == dnn.BackwardWeights):
			t.Errorf("step %d: %v after %v of the same node", i, p, pp)
		}
	}
	for _, p := range all {
		if counts[p] == 0 {
			t.Errorf("no %v step", p)
		}
	}
	if fwd := iterationSteps(n, 2, []dnn.Pass{dnn.Forward}, dnn.FP32); len(fwd) != counts[dnn.Forward] {
		t.Errorf("forward only: %d steps, want %d", len(fwd), counts[dnn.Forward])
	}

	// the recommendation job's encoder reads the noise on the input: no
	// data gradient, as autograd computes none
	rec, err := dnn.Model("recommendation")
	if err != nil {
		t.Fatal(err)
	}
	var bwd []string
	for _, s := range iterationSteps(rec, 2, all, dnn.FP32) {
		if dnn.Pass(s[1]) == dnn.BackwardData {
			bwd = append(bwd, rec.Nodes[s[0]].Name)
		}
	}
	if !slices.Equal(bwd, []string{"decoder", "tanh"}) {
		t.Errorf("recommendation's data gradients: %v", bwd)
	}
}
