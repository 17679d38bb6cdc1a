package gavelcheck

import (
	"testing"

	"github.com/wb-sim/wb/datasets/gavel"
	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
)

// TestGavelJobsFitMemory: every job type Gavel measured alone on one GPU
// ran there, so the floor wb warns by (its weights three times for SGD
// with momentum, and the activations its backward needs, dnn.Kept) must
// fit that GPU's memory.
func TestGavelJobsFitMemory(t *testing.T) {
	tp := bundledThroughputs(t)
	checked := 0
	for g, name := range predictor.GavelDevices {
		dev, err := predictor.LookupDevice(name)
		if err != nil {
			t.Fatal(err)
		}
		for k, th := range tp[g] {
			model, batch := gavel.ZooModel(k.JobType)
			if k.ScaleFactor != 1 || th.Solo <= 0 || model == "" {
				continue
			}
			net, err := dnn.Model(model)
			if err != nil {
				t.Fatal(err)
			}
			need := 3*float64(net.Params())*4 + net.Kept(batch, dnn.FP32)
			if need > dev.MemBytes {
				t.Errorf("%s ran alone on Gavel's %s, but %.1f GiB are counted of its %.1f GiB", k.JobType, g, need/(1<<30), dev.MemBytes/(1<<30))
			}
			checked++
		}
	}
	if checked != 78 {
		t.Errorf("%d job types checked, want the 78 measured alone on the three GPUs", checked)
	}
}
