package experiments

import (
	"math"
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/predictor/gpu"
	"github.com/wb-sim/wb/scheduler"
)

// TestModelEstimatorUsesGPUOpModel: the "model" estimate every config can
// name times a job's layers with the shipped GPU op model (not the
// analytical path alone) on the GPU it is placed on, with the host cost
// and the device scales fitted with that model (the K80's kernels twice
// as long).
func TestModelEstimatorUsesGPUOpModel(t *testing.T) {
	e, err := Parts().Estimators.New("model")
	if err != nil {
		t.Fatal(err)
	}
	pe, ok := e.(scheduler.PlacementEstimator)
	if !ok {
		t.Fatalf("model estimator %T does not estimate per placement", e)
	}
	m, err := gpu.Shipped()
	if err != nil {
		t.Fatal(err)
	}
	n, err := dnn.Model("resnet50")
	if err != nil {
		t.Fatal(err)
	}
	j := &scheduler.Job{ID: 1, Run: 999, Model: "resnet50", Batch: 64, Steps: 1000,
		Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{GPUs: 1}}}}
	// the V100's chip (its PCIe board) was learned: its level is the
	// model's residual, not a scale (which would count it twice); the
	// K80's never was
	scales := gpu.DeviceScalesFor(m)
	if _, ok := scales["v100"]; ok || scales["k80"] != gpu.DeviceScales["k80"] {
		t.Errorf("scales %v: want the K80's alone", scales)
	}
	// Gavel's GPU names, timed as the GPUs Gavel measured (its p100 the PCIe card)
	for _, dev := range []string{"v100", "p100", "k80"} {
		d, err := predictor.LookupDevice(predictor.GavelDevices[dev])
		if err != nil {
			t.Fatal(err)
		}
		withOps, err := predictor.Predict(n, d, predictor.Options{Batch: 64, Layers: m, KernelOverhead: gpu.HostOverhead, DeviceScale: scales[dev]})
		if err != nil {
			t.Fatal(err)
		}
		analytical, err := predictor.Predict(n, d, predictor.Options{Batch: 64})
		if err != nil {
			t.Fatal(err)
		}
		want := scheduler.Time(math.Ceil(1000 * withOps.Iteration))
		if got := pe.EstimateOn(j, dev, 1); got != want {
			t.Errorf("%s: estimate %d s, want %d s (the op model's iteration × 1000 steps)", dev, got, want)
		}
		if dev == "k80" {
			unscaled, err := predictor.Predict(n, d, predictor.Options{Batch: 64, Layers: m, KernelOverhead: gpu.HostOverhead})
			if err != nil {
				t.Fatal(err)
			}
			if r := withOps.Iteration / unscaled.Iteration; r < 0.9*gpu.DeviceScales[dev] || r > gpu.DeviceScales[dev] {
				t.Errorf("k80: %.4g s scaled, %.4g s not: want nearly × %.2f (the host floor is not scaled)", withOps.Iteration, unscaled.Iteration, gpu.DeviceScales[dev])
			}
		}
		if math.Abs(withOps.Iteration/analytical.Iteration-1) < 0.01 {
			t.Errorf("%s: op model %.4g s equals the analytical %.4g s: layers not timed by it", dev, withOps.Iteration, analytical.Iteration)
		}
	}
}
