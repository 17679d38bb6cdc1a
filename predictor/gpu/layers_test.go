package gpu

import (
	"math"
	"testing"

	"github.com/wb-sim/wb/dnn"
)

// TestLayerKernels checks the lowering of the zoo's layers against dnn's
// own accounting: a product's kernels do the layer pass's FLOPs (within the
// bias's), and every pass of the Gavel models' covered layers lowers.
func TestLayerKernels(t *testing.T) {
	const batch = 8
	for _, name := range []string{"resnet50", "resnet18-cifar", "transformer-translation", "lm", "cyclegan", "recommendation"} {
		n, err := dnn.Model(name)
		if err != nil {
			t.Fatal(err)
		}
		covered := 0
		for _, node := range n.Nodes {
			ds, ok := node.Layer.(dnn.Describer)
			if !ok {
				continue
			}
			d := ds.Describe()
			for _, p := range []dnn.Pass{dnn.Forward, dnn.BackwardData, dnn.BackwardWeights} {
				ks, ok := LayerKernels(d, p, batch)
				if !ok {
					continue
				}
				covered++
				for _, k := range ks {
					if k.FLOPs() < 0 || k.Bytes() <= 0 && k.Op != "embedding" {
						t.Errorf("%s %s %v: kernel %+v: FLOPs %g, bytes %g", name, node.Name, p, k, k.FLOPs(), k.Bytes())
					}
				}
				switch d.Op {
				case dnn.OpConv2D, dnn.OpLinear, dnn.OpMatMul, dnn.OpLSTM:
				default:
					continue
				}
				var got float64
				for _, k := range ks {
					if kindOf(k.Op) == kindGEMM {
						got += 2 * fl(k.Batch) * fl(k.M) * fl(k.N) * fl(k.K)
					}
				}
				want := float64(node.Layer.Work(batch, p, dnn.FP32).FLOPs)
				if d.Op == dnn.OpLSTM {
					continue // dnn counts the gates' arithmetic too; checked below
				}
				if math.Abs(got-want) > 0.02*want {
					t.Errorf("%s %s %v: the kernels' product FLOPs %g, the layer's %g", name, node.Name, p, got, want)
				}
			}
		}
		if covered == 0 {
			t.Errorf("%s: no layer pass lowered", name)
		}
	}
}

// TestLSTMKernels counts an LSTM's kernels as cuDNN launches them: per
// layer one input product and two kernels per step, forward and backward.
func TestLSTMKernels(t *testing.T) {
	d := dnn.Desc{Op: "lstm", In: []dnn.Shape{{35, 200}}, Attr: dnn.Attrs{"hidden": 200, "layers": 2}}
	for p, want := range map[dnn.Pass]int{dnn.Forward: 2 * (1 + 2*35), dnn.BackwardData: 2 * (1 + 2*35), dnn.BackwardWeights: 4} {
		ks, ok := LayerKernels(d, p, 20)
		if !ok || len(ks) != want {
			t.Errorf("%v: %d kernels (ok %v), want %d", p, len(ks), ok, want)
		}
	}
	if _, ok := LayerKernels(d, dnn.Update, 20); ok {
		t.Error("the update pass lowered: want it left to the analytical model")
	}
}
