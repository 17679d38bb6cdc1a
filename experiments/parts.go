package experiments

import (
	"sync"

	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/predictor/gpu"
	"github.com/wb-sim/wb/scheduler"
)

// shippedGPUModel is wb's GPU op model, decoded once.
var shippedGPUModel = sync.OnceValues(gpu.Shipped)

// Parts returns the scheduler parts every command and config can name:
// the scheduler package's, and the "model" runtime estimate of deep-
// learning jobs from the predictor, its layers timed on GPUs by the
// shipped GPU op model (learned from NeuSight's measured ops; see
// predictor/gpu) and the rest analytical, under the host floor, with the
// host cost and device scales fitted with that model to Gavel's measured
// iterations (gpu.HostOverhead, gpu.DeviceScales).
func Parts() *scheduler.Parts {
	p := scheduler.DefaultParts()
	if err := p.Estimators.Register("model", func() scheduler.Estimator {
		m, err := shippedGPUModel()
		if err != nil {
			panic("experiments: " + err.Error()) // embedded in the binary: a build defect
		}
		return &predictor.ModelEstimator{Options: predictor.Options{Layers: m, KernelOverhead: gpu.HostOverhead}, Scales: gpu.DeviceScales}
	}); err != nil {
		panic("experiments: " + err.Error())
	}
	return p
}
