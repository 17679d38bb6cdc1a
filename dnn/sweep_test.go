package dnn

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func TestSweep(t *testing.T) {
	for _, op := range SweepOps {
		name := "sweep:" + op + ":300"
		n, err := Model(name)
		if err != nil {
			t.Fatal(err)
		}
		if n.Name != name || !IsSweep(n.Name) {
			t.Errorf("%s: network named %q", name, n.Name)
		}
		again, err := Model(name)
		if err != nil {
			t.Fatal(err)
		}
		other, err := Model(name + ":2")
		if err != nil {
			t.Fatal(err)
		}
		seed1, err := Model(name + ":1")
		if err != nil {
			t.Fatal(err)
		}
		keys, keys2, keys1 := nodeKeys(n), nodeKeys(other), nodeKeys(seed1)
		distinct := map[string]bool{}
		var layers int
		for i, node := range n.Nodes {
			if node.Layer.Op() == "source" {
				// A free source, read by the next layer only.
				if len(node.Inputs) != 1 || node.Inputs[0] != -1 {
					t.Fatalf("%s: source %d reads %v", name, i, node.Inputs)
				}
				for _, p := range []Pass{Forward, BackwardData, BackwardWeights, Update} {
					if w := node.Layer.Work(8, p, FP32); w.FLOPs != 0 || w.Bytes() != 0 {
						t.Fatalf("%s: source %d does work in %v: %+v", name, i, p, w)
					}
				}
				readers := 0
				for _, o := range n.Nodes {
					for _, in := range o.Inputs {
						if in == i {
							readers++
						}
					}
				}
				if readers != 1 {
					t.Fatalf("%s: source %d read by %d layers", name, i, readers)
				}
				continue
			}
			layers++
			// Its own sources, just before it: one, a product's two, or
			// a concatenation's two to four.
			want := []int{i - 1}
			switch op {
			case "matmul":
				want = []int{i - 2, i - 1}
			case "concat":
				if n := len(node.Inputs); n >= 2 && n <= 4 {
					want = want[:0]
					for j := n; j > 0; j-- {
						want = append(want, i-j)
					}
				}
			}
			if string(node.Layer.Op()) != op || !slices.Equal(node.Inputs, want) {
				t.Fatalf("%s: node %d is %s reading %v, want %s reading %v", name, i, node.Layer.Op(), node.Inputs, op, want)
			}
			for j, in := range want {
				if got := inputShape(t, node.Layer, j); !slices.Equal(n.Nodes[in].Layer.Out(), got) {
					t.Fatalf("%s: node %d reads %v from a source of %v", name, i, got, n.Nodes[in].Layer.Out())
				}
			}
			// The draws' cap: forward work of one sample, 1.5e8 FLOPs
			// as the draw counts them (a second LSTM layer's input is
			// counted D wide, not H: up to 1.5× more).
			limit := 1.6e8
			if op == "lstm" {
				limit = 2.4e8
			}
			w := node.Layer.Work(1, Forward, FP32)
			if f := w.FLOPs; f < 0 || float64(f) > limit || (f == 0 && w.Bytes() == 0) {
				t.Errorf("%s: %s: %g forward FLOPs a sample, %g bytes", name, node.Layer.Key(), float64(f), float64(w.Bytes()))
			}
			// the vision ops' cap: 2^20 values a sample in
			switch op {
			case "batchnorm", "maxpool", "avgpool", "globalavgpool", "concat":
				var in int64
				for j := range want {
					in += inputShape(t, node.Layer, j).Elems()
				}
				if in > 1<<20 {
					t.Errorf("%s: %s: %d values in a sample", name, node.Layer.Key(), in)
				}
			}
			distinct[node.Layer.Key()] = true
		}
		if layers != 300 {
			t.Errorf("%s: %d layers", name, layers)
		}
		// a few row-wise draws of one row repeat, and the vision ops'
		// small maps
		floor := 285
		if f, ok := map[string]int{"batchnorm": 240, "globalavgpool": 240, "maxpool": 270, "avgpool": 270}[op]; ok {
			floor = f
		}
		if len(distinct) < floor {
			t.Errorf("%s: only %d distinct shapes of 300", name, len(distinct))
		}
		if !slices.Equal(keys, nodeKeys(again)) {
			t.Fatalf("%s built twice differs", name)
		}
		if !slices.Equal(keys, keys1) {
			t.Errorf("%s differs from %s:1 (seed 1 is the default)", name, name)
		}
		if slices.Equal(keys, keys2) {
			t.Errorf("%s and %s:2 drew the same shapes", name, name)
		}
	}
}

// nodeKeys are the keys of a network's nodes, in order.
func nodeKeys(n *Network) []string {
	keys := make([]string, len(n.Nodes))
	for i, node := range n.Nodes {
		keys[i] = node.Layer.Key()
	}
	return keys
}

// inputShape is the per-sample shape of input j a sweep layer was built
// for, read back from its key: "in=[…]" (conv2d: [C×H×W]), a row-wise op's
// "shape=[…]", a product's "a=[…]" and "b=[…]".
func inputShape(t *testing.T, l Layer, j int) Shape {
	t.Helper()
	k := l.Key()
	if l.Op() == OpConcat { // "concat in=[…],[…]"
		_, list, _ := strings.Cut(k, "in=")
		parts := strings.Split(list, ",")
		if j >= len(parts) {
			t.Fatalf("key %q has no input %d", k, j)
		}
		k, j = "concat in="+parts[j], 0
	}
	if l.Op() == OpEmbedding { // "embedding tokens=T …"
		var tokens, vocab, dim int
		if _, err := fmt.Sscanf(k, "embedding tokens=%d vocab=%d dim=%d", &tokens, &vocab, &dim); err != nil {
			t.Fatalf("key %q: %v", k, err)
		}
		return Shape{tokens}
	}
	var rest string
	var ok bool
	for _, field := range [][]string{{"in=[", "shape=[", "a=["}, {"b=["}}[j] {
		if _, rest, ok = strings.Cut(k, " "+field); ok {
			break
		}
	}
	dims, _, ok2 := strings.Cut(rest, "]")
	if !ok || !ok2 {
		t.Fatalf("key %q has no input %d", k, j)
	}
	var s Shape
	for _, f := range strings.Split(dims, "×") {
		d, err := strconv.Atoi(f)
		if err != nil {
			t.Fatalf("key %q: %v", k, err)
		}
		s = append(s, d)
	}
	return s
}

func TestSweepRanges(t *testing.T) {
	// The draws reach both ends of their ranges over a few thousand layers:
	// products as wide as a 50,000-word head and as thin as one row.
	n, err := Model("sweep:linear:3000")
	if err != nil {
		t.Fatal(err)
	}
	var minK, maxN, plain, seq = 1 << 30, 0, 0, 0
	for _, node := range n.Nodes {
		if node.Layer.Op() != "linear" {
			continue
		}
		in := inputShape(t, node.Layer, 0)
		minK = min(minK, in[len(in)-1])
		maxN = max(maxN, node.Layer.Out()[len(node.Layer.Out())-1])
		if len(in) == 1 {
			plain++
		} else {
			seq++
		}
	}
	if minK > 20 || maxN < 40000 {
		t.Errorf("narrowest input %d, widest output %d: want ≤ 20 and ≥ 40000", minK, maxN)
	}
	if plain < 1000 || seq < 1000 {
		t.Errorf("%d plain inputs and %d sequences of 3000", plain, seq)
	}
}

func TestSweepNames(t *testing.T) {
	for _, bad := range []string{
		"sweep:", "sweep:linear", "sweep:linear:0", "sweep:linear:x", "sweep:linear:-3",
		"sweep:linear:10001", "sweep:relu:10", "sweep:linear:10:x", "sweep:linear:10:-1",
		"sweep:linear:10:1:2",
	} {
		_, err := Model(bad)
		if err == nil {
			t.Errorf("%s accepted", bad)
			continue
		}
		if !strings.Contains(err.Error(), "sweep:OP:N[:SEED]") {
			t.Errorf("%s: error does not say what a sweep's name is: %v", bad, err)
		}
	}
	if IsSweep("resnet50") || !IsSweep("sweep:lstm:5") {
		t.Error("IsSweep")
	}
}

// FuzzSweepName: any name either builds a network whose layers all have
// positive shapes, or is refused with an error; nothing panics.
func FuzzSweepName(f *testing.F) {
	for _, s := range []string{"sweep:linear:3", "sweep:lstm:2:7", "sweep:conv2d:1:0", "sweep:x:1", "sweep::", "sweep:linear:1:18446744073709551615"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		if !IsSweep(name) {
			name = SweepPrefix + name
		}
		n, err := Model(name)
		if err != nil {
			return
		}
		if len(n.Nodes) == 0 || len(n.Nodes) > 3*maxSweepLayers {
			t.Fatalf("%s: %d nodes", name, len(n.Nodes))
		}
		for _, node := range n.Nodes {
			for _, d := range node.Layer.Out() {
				if d <= 0 {
					t.Fatalf("%s: %s has output %v", name, node.Layer.Key(), node.Layer.Out())
				}
			}
		}
	})
}
