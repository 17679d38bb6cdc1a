package experiments

import (
	"fmt"
	"sync"

	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/predictor/gpu"
	"github.com/wb-sim/wb/scheduler"
)

// gpuModelEstimator is the "model" estimate with options o: the shipped
// GPU op model times the layers, with the host cost and device scales
// fitted with it (gpu.HostOverhead, gpu.DeviceScales; a GPU whose chip the
// model learned takes its residual, not a scale: gpu.ShippedScales).
func gpuModelEstimator(o predictor.Options) (*predictor.ModelEstimator, error) {
	m, err := gpu.ShippedMemo()
	if err != nil {
		return nil, err
	}
	scales, err := gpu.ShippedScales()
	if err != nil {
		return nil, err
	}
	o.Layers, o.KernelOverhead = m, gpu.HostOverhead
	e := &predictor.ModelEstimator{Options: o, Scales: scales}
	addGavelDevices(e)
	return e, nil
}

// addGavelDevices names Gavel's GPUs in e as Gavel's: its "p100" the PCIe
// card (predictor.GavelDevices).
func addGavelDevices(e *predictor.ModelEstimator) {
	for name, dev := range predictor.GavelDevices {
		if dev == name {
			continue
		}
		d, err := predictor.LookupDevice(dev)
		if err != nil {
			panic("experiments: Gavel's " + name + ": " + err.Error()) // the device table's own entry: a build defect
		}
		if e.Devices == nil {
			e.Devices = map[string]*predictor.Device{}
		}
		e.Devices[name] = d
	}
}

// registered are the functions RegisterParts took, in order.
var (
	registeredMu sync.Mutex
	registered   []func(*scheduler.Parts) error
)

// RegisterParts adds parts of one's own to those every command and config
// can name (Parts): f registers them (parts.Placements.Register(name,
// constructor), ...), and configs then select them by name, with their
// settings under placement_args, backfill_args, order_args or
// estimate_args (docs/writing-a-policy.md). Call it from an init function
// in a package that cmd/wb imports. f is tried at once on the parts as
// they stand, and its error (a name already taken) returned; a function
// that failed is not kept.
func RegisterParts(f func(*scheduler.Parts) error) error {
	registeredMu.Lock()
	defer registeredMu.Unlock()
	p, err := builtinParts()
	if err == nil {
		for _, g := range registered {
			if err = g(p); err != nil {
				break
			}
		}
	}
	if err != nil {
		return fmt.Errorf("experiments: the parts registered before: %w", err)
	}
	if err := f(p); err != nil {
		return fmt.Errorf("experiments: %w", err)
	}
	registered = append(registered, f)
	return nil
}

// Parts returns the scheduler parts every command and config can name:
// the scheduler package's, and the "model" runtime estimate of deep-
// learning jobs from the predictor, its layers timed on GPUs by the
// shipped GPU op model (learned from NeuSight's measured ops; see
// predictor/gpu) and the rest analytical, under the host floor, with the
// host cost and device scales fitted with that model to Gavel's measured
// iterations (gpu.HostOverhead, gpu.DeviceScales, but for a GPU whose chip
// the model learned: gpu.ShippedScales); then the parts of
// one's own that RegisterParts added, in the order they were registered.
// Each call makes fresh registries.
func Parts() *scheduler.Parts {
	p, err := builtinParts()
	if err != nil {
		panic("experiments: " + err.Error()) // wb's own names: a build defect
	}
	registeredMu.Lock()
	defer registeredMu.Unlock()
	for _, f := range registered {
		if err := f(p); err != nil {
			panic("experiments: " + err.Error()) // each succeeded on these parts when registered
		}
	}
	return p
}

// builtinParts is wb's own parts: the scheduler package's and "model".
func builtinParts() (*scheduler.Parts, error) {
	p := scheduler.DefaultParts()
	err := p.Estimators.Register("model", func() scheduler.Estimator {
		e, err := gpuModelEstimator(predictor.Options{})
		if err != nil {
			panic("experiments: " + err.Error()) // embedded in the binary: a build defect
		}
		return e
	})
	return p, err
}
