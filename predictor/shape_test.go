package predictor

import (
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// TestShapeOf checks the matrix products of each pass against the im2col
// view worked out by hand.
func TestShapeOf(t *testing.T) {
	n, err := dnn.Model("resnet50")
	if err != nil {
		t.Fatal(err)
	}
	var conv1, fc, gap, maxpool dnn.Desc
	for _, node := range n.Nodes {
		switch node.Name {
		case "conv1":
			conv1 = node.Layer.(dnn.Describer).Describe()
		case "fc":
			fc = node.Layer.(dnn.Describer).Describe()
		case "avgpool":
			gap = node.Layer.(dnn.Describer).Describe()
		case "maxpool":
			maxpool = node.Layer.(dnn.Describer).Describe()
		}
	}
	// pooling windows: the 3×3 max pooling's 9 values, the global
	// average's 7×7 plane (its k is the plane already)
	if w := ShapeOf(maxpool, 2, dnn.Forward).Window; w != 9 {
		t.Errorf("maxpool window %v, want 9", w)
	}
	if gap.Op != dnn.OpGlobalAvgPool {
		t.Fatalf("resnet50's avgpool is %q", gap.Op)
	}
	if w := ShapeOf(gap, 2, dnn.Forward).Window; w != 49 {
		t.Errorf("global average pooling window %v, want 49", w)
	}
	if conv1.Op != "conv2d" || fc.Op != "linear" {
		t.Fatalf("conv1 %q, fc %q: resnet50's layer names changed", conv1.Op, fc.Op)
	}
	type mnk struct{ M, N, K, G float64 }
	// conv1: 3×224×224 → 64×112×112, 7×7 stride 2; batch 2.
	m := 2.0 * 112 * 112
	for _, c := range []struct {
		d    dnn.Desc
		p    dnn.Pass
		want mnk
	}{
		{conv1, dnn.Forward, mnk{m, 64, 3 * 49, 1}},
		{conv1, dnn.BackwardData, mnk{m, 3 * 49, 64, 1}},
		{conv1, dnn.BackwardWeights, mnk{64, 3 * 49, m, 1}},
		{conv1, dnn.Update, mnk{}},
		{fc, dnn.Forward, mnk{2, 1000, 2048, 1}},
		{fc, dnn.BackwardData, mnk{2, 2048, 1000, 1}},
		{fc, dnn.BackwardWeights, mnk{1000, 2048, 2, 1}},
	} {
		s := ShapeOf(c.d, 2, c.p)
		if got := (mnk{s.M, s.N, s.K, s.G}); got != c.want || !s.Known {
			t.Errorf("%s %v: M, N, K, G = %v, want %v", c.d.Op, c.p, got, c.want)
		}
	}
	s := ShapeOf(conv1, 2, dnn.Forward)
	if s.Window != 49 || s.Stride != 2 || s.Cin != 3 || s.Cout != 64 || s.In != 2*3*224*224 || s.Out != 2*64*112*112 {
		t.Errorf("conv1 geometry %+v", s)
	}
	// A batched matmul: attention scores [8 heads × 32×64]·[64×32].
	mm := dnn.Desc{Op: "matmul", In: []dnn.Shape{{8, 32, 64}, {8, 32, 64}}, Out: dnn.Shape{8, 32, 32},
		Attr: dnn.Attrs{"g": 8, "m": 32, "k": 64, "n": 32, "transb": 1}}
	if s := ShapeOf(mm, 4, dnn.Forward); s.M != 32 || s.N != 32 || s.K != 64 || s.G != 32 {
		t.Errorf("matmul %+v, want 32×32×64 ×32", s)
	}
	// Elementwise layers have no product.
	relu := dnn.Desc{Op: "relu", In: []dnn.Shape{{4, 5}}, Out: dnn.Shape{4, 5}, Attr: dnn.Attrs{}}
	if s := ShapeOf(relu, 3, dnn.Forward); s.M != 0 || s.In != 60 || s.Out != 60 || !s.Known {
		t.Errorf("relu %+v", s)
	}
}

// TestRecordShape checks that training rows find their layer in the zoo by
// model, layer name and key, and that a key of another definition finds
// nothing.
func TestRecordShape(t *testing.T) {
	d, err := LookupDevice("v100")
	if err != nil {
		t.Fatal(err)
	}
	r := profiler.Record{Model: "resnet50", Layer: "conv1", Op: "conv2d", Pass: "fwd", Batch: 2, Precision: "fp32",
		Status: profiler.OK, Median: profiler.Some(1e-3), Predicted: profiler.Some(1e-3), FLOPs: 1, Bytes: 1}
	n, _ := dnn.Model("resnet50")
	r.Key = n.Nodes[0].Layer.Key()
	if n.Nodes[0].Name != "conv1" {
		t.Fatalf("first node %q", n.Nodes[0].Name)
	}
	fr, err := RecordFeatures(&r, d)
	if err != nil {
		t.Fatal(err)
	}
	if !fr.Shape.Known || fr.Shape.N != 64 {
		t.Errorf("shape %+v, want conv1's", fr.Shape)
	}
	r.Key = "conv2d of some other resnet50"
	if fr, _ := RecordFeatures(&r, d); fr.Shape.Known {
		t.Error("a row whose key differs from the zoo layer's got its shape")
	}
}
