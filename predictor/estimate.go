package predictor

import (
	"math"
	"strings"
	"sync"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/scheduler"
)

// ModelEstimator is the scheduler's "model" runtime estimate for deep-
// learning jobs: the job's iterations times the predicted iteration time of
// its Model at its Batch per GPU, data parallel over the GPUs it runs on,
// on their GPU model. Job.Steps counts steps per GPU, as Gavel does (its
// throughput of a job on N GPUs is the steps of all N per second), so a
// job on N GPUs runs Steps/N data-parallel iterations. Before a job is placed it is estimated on Reference with
// as many GPUs as it has replicas; when it starts, on the GPUs it got.
// Jobs without a model fall back to the user estimate.
type ModelEstimator struct {
	// Reference is the device of estimates before placement; default v100.
	Reference string
	// Options are the prediction's settings (precision, combine,
	// corrector); Batch and GPUs come from the job.
	Options Options
	// Devices, when set, are GPUs by name (lower case), looked up before
	// the table: one read from a spec sheet, or the GPU a name stands for
	// in a trace's own vocabulary (Gavel's "p100", see GavelDevices).
	Devices map[string]*Device
	// Scales, when set, are Options.DeviceScale by device name (lower
	// case), the name asked for or the table's name of the device it
	// stands for (a scale for "k80" is GK210's too); a device it does not
	// name keeps Options.DeviceScale.
	Scales map[string]float64

	mu    sync.Mutex
	cache map[modelKey]float64 // iteration seconds; NaN: cannot predict
}

type modelKey struct {
	model, device string
	batch, gpus   int
}

var (
	_ scheduler.Estimator          = (*ModelEstimator)(nil)
	_ scheduler.PlacementEstimator = (*ModelEstimator)(nil)
)

// nets caches the zoo's networks by name for every estimator.
var nets sync.Map

// Name implements scheduler.Estimator.
func (*ModelEstimator) Name() string { return "model" }

// Estimate implements scheduler.Estimator.
func (e *ModelEstimator) Estimate(j *scheduler.Job) scheduler.Time {
	ref := e.Reference
	if ref == "" {
		ref = "v100"
	}
	if t, ok := e.Predict(j, ref, JobGPUs(j)); ok {
		return t
	}
	return scheduler.User{}.Estimate(j)
}

// JobGPUs is the GPUs j holds once placed, as EstimateOn is told them
// (scheduler.JobGPUs: a share of a GPU one, each replica's), or its
// replicas where it asks for none. Estimate took the replicas for the
// GPUs, which agree only at one GPU a replica, as Gavel's jobs are (a
// reviewer's reading).
func JobGPUs(j *scheduler.Job) int {
	if n := scheduler.JobGPUs(j); n > 0 {
		return n
	}
	return j.Replicas()
}

// EstimateOn implements scheduler.PlacementEstimator: a job the predictor
// cannot time is estimated as the user estimate estimates it there (its
// run time on these GPUs, where it has no user estimate).
func (e *ModelEstimator) EstimateOn(j *scheduler.Job, model string, gpus int) scheduler.Time {
	if t, ok := e.Predict(j, model, gpus); ok {
		return t
	}
	return scheduler.User{}.EstimateOn(j, model, gpus)
}

// Predict is the job's predicted run time on gpus GPUs of model (a device
// of the table, LookupDevice), or false when the job has no model, steps
// or batch, or the model or device is unknown.
func (e *ModelEstimator) Predict(j *scheduler.Job, model string, gpus int) (scheduler.Time, bool) {
	if j.Model == "" || j.Steps <= 0 || j.Batch <= 0 || gpus <= 0 {
		return 0, false
	}
	it := e.iteration(modelKey{j.Model, strings.ToLower(model), j.Batch, gpus})
	if math.IsNaN(it) {
		return 0, false
	}
	t := math.Ceil(float64(j.Steps) / float64(gpus) * it)
	if !(t <= float64(scheduler.MaxTime)) {
		return 0, false
	}
	return scheduler.Time(t), true
}

// iteration is the predicted iteration time, cached; NaN when the model or
// device is unknown.
func (e *ModelEstimator) iteration(k modelKey) float64 {
	e.mu.Lock()
	defer e.mu.Unlock()
	if v, ok := e.cache[k]; ok {
		return v
	}
	if e.cache == nil {
		e.cache = map[modelKey]float64{}
	}
	v := math.NaN()
	if p, err := e.Prediction(k.model, k.device, k.batch, k.gpus); err == nil {
		v = p.Iteration
	}
	e.cache[k] = v
	return v
}

// Prediction is the estimator's whole prediction of the zoo model at
// batch per GPU on gpus GPUs of device (lower case; Devices, then the
// table), with its Options and the device's scale (Scales): what Predict
// times a job by, not cached.
func (e *ModelEstimator) Prediction(model, device string, batch, gpus int) (*Prediction, error) {
	n, err := network(model)
	if err != nil {
		return nil, err
	}
	d, err := e.Device(device)
	if err != nil {
		return nil, err
	}
	o := e.Options
	o.Batch, o.GPUs = batch, gpus
	if s, ok := e.Scales[device]; ok {
		o.DeviceScale = s
	} else if s, ok := e.Scales[d.Name]; ok {
		o.DeviceScale = s // another name of the table's GPU (gk210: the k80)
	}
	return Predict(n, d, o)
}

// Device is the device a prediction on device is made for: the
// estimator's own (Devices) by that name, else the device table's.
func (e *ModelEstimator) Device(device string) (*Device, error) {
	if d, ok := e.Devices[device]; ok {
		return d, nil
	}
	return LookupDevice(device)
}

// Untimed names the work of the zoo model's iteration that no prediction
// times (dnn.Network.Untimed: A3C's Atari emulator): where it is not "",
// the model's predicted run times are lower bounds. "" for a model the zoo
// lacks.
func Untimed(model string) string {
	n, err := network(model)
	if err != nil {
		return ""
	}
	return n.Untimed
}

func network(name string) (*dnn.Network, error) {
	if n, ok := nets.Load(name); ok {
		return n.(*dnn.Network), nil
	}
	n, err := dnn.Model(name)
	if err != nil {
		return nil, err
	}
	actual, _ := nets.LoadOrStore(name, n)
	return actual.(*dnn.Network), nil
}
