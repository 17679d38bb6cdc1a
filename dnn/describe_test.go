package dnn

import (
	"maps"
	"slices"
	"testing"
)

// checkDescribes checks that every layer of n describes itself, with its
// op, its output shape and the shapes of the nodes it reads.
func checkDescribes(t *testing.T, n *Network) {
	t.Helper()
	for i, node := range n.Nodes {
		d, ok := node.Layer.(Describer)
		if !ok {
			t.Errorf("%s: layer %s (%T, op %s) does not implement Describer", n.Name, node.Name, node.Layer, node.Layer.Op())
			continue
		}
		desc := d.Describe()
		if desc.Op != node.Layer.Op() {
			t.Errorf("%s: layer %s: Describe's op %q, Op() %q", n.Name, node.Name, desc.Op, node.Layer.Op())
		}
		if desc.Out.String() != node.Layer.Out().String() {
			t.Errorf("%s: layer %s: Describe's output %v, Out() %v", n.Name, node.Name, desc.Out, node.Layer.Out())
		}
		if desc.Attr == nil {
			t.Errorf("%s: layer %s: nil attributes", n.Name, node.Name)
		}
		if len(desc.In) != len(node.Inputs) {
			t.Errorf("%s: layer %s: Describe names %d inputs, the node reads %d", n.Name, node.Name, len(desc.In), len(node.Inputs))
			continue
		}
		for j, src := range node.Inputs {
			want := n.Input
			if src >= 0 {
				if src >= i {
					t.Fatalf("%s: layer %s reads a later node %d", n.Name, node.Name, src)
				}
				want = n.Nodes[src].Layer.Out()
			}
			if desc.In[j].String() != want.String() {
				t.Errorf("%s: layer %s: input %d described as %v, the node reads %v", n.Name, node.Name, j, desc.In[j], want)
			}
		}
	}
}

// TestZooDescribes checks every layer of every zoo model, and of the Paleo
// imports (which name layers the zoo does not use, such as LRN).
func TestZooDescribes(t *testing.T) {
	for _, e := range Zoo() {
		t.Run(e.Name, func(t *testing.T) {
			n, err := e.Build()
			if err != nil {
				t.Fatal(err)
			}
			checkDescribes(t, n)
		})
	}
	for _, f := range []string{"alex_v2.json", "inception_v3.json", "vgg16.json"} {
		t.Run(f, func(t *testing.T) { checkDescribes(t, readPaleoFile(t, f)) })
	}
}

// TestDescribeAttrs checks the attributes of the layers described in
// describe_more.go.
func TestDescribeAttrs(t *testing.T) {
	b, x := NewBuilder("attrs", Shape{3, 8, 8})
	b.LRN("lrn", x, 5)
	b.Concat("concat", x, x)
	upsample(b, "up", x, 2)
	zeroPad(b, "pad", x, 1, 0, 2, 3)
	seq := b.Reshape("seq", x, Shape{12, 16})
	b.Softmax("softmax", seq)
	b.softmax("scores", b.Reshape("square", x, Shape{3, 8, 8}), true, true)
	b.Dropout("dropout", seq, 0.1)
	b.MatMul("matmul", seq, seq, true)
	b.LSTM("lstm", seq, 7, 2)
	b.SelectToken("select", seq, 3)
	b.TiedLinear("tied", seq, 5, true)
	ids := b.Flatten("ids", x)
	b.Embedding("embed", ids, 100, 4)
	b.lookup("frozen", ids, 10, 4, frozenTable)
	b.lookup("tiedtable", ids, 10, 4, tiedTable)
	n, err := b.Build()
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]Attrs{
		"lrn":       {"size": 5},
		"concat":    {},
		"up":        {"f": 2},
		"pad":       {"left": 1, "right": 0, "top": 2, "bottom": 3},
		"softmax":   {"scaled": 0, "causal": 0},
		"scores":    {"scaled": 1, "causal": 1},
		"dropout":   {},
		"matmul":    {"g": 1, "m": 12, "k": 16, "n": 12, "transb": 1},
		"lstm":      {"hidden": 7, "layers": 2},
		"select":    {},
		"tied":      {"k": 16, "n": 5, "bias": 1, "tied": 1},
		"embed":     {"vocab": 100, "dim": 4, "tied": 0, "frozen": 0},
		"frozen":    {"vocab": 10, "dim": 4, "tied": 0, "frozen": 1},
		"tiedtable": {"vocab": 10, "dim": 4, "tied": 1, "frozen": 0},
	}
	checkDescribes(t, n)
	seen := 0
	for _, node := range n.Nodes {
		w, ok := want[node.Name]
		if !ok {
			continue
		}
		seen++
		got := node.Layer.(Describer).Describe().Attr
		if !maps.Equal(got, w) {
			keys := slices.Sorted(maps.Keys(got))
			t.Errorf("%s: attributes %v (keys %v), want %v", node.Name, got, keys, w)
		}
	}
	if seen != len(want) {
		t.Errorf("checked %d layers, want %d", seen, len(want))
	}
}
