package predictor

import (
	"math"
	"testing"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/scheduler"
)

func TestModelEstimator(t *testing.T) {
	e := &ModelEstimator{}
	j := &scheduler.Job{ID: 1, Run: 999, Model: "resnet50", Batch: 64, Steps: 1000,
		Tasks: []scheduler.Task{{Replicas: 2, Request: scheduler.Request{GPUs: 1}}}}
	n, _ := dnn.Model("resnet50")
	v100, _ := LookupDevice("v100")
	k80, _ := LookupDevice("k80")
	p2, _ := Predict(n, v100, Options{Batch: 64, GPUs: 2})
	p1, _ := Predict(n, k80, Options{Batch: 64, GPUs: 1})
	// Before placement: the reference V100 with one GPU per replica. Steps
	// are per GPU, as Gavel counts them: 1,000 steps on 2 GPUs are 500
	// data-parallel iterations (Gavel's throughput of ResNet-50 at batch 64
	// on two V100s, 7.92 steps/s, is 1.8 × its 4.39 on one).
	if got, want := e.Estimate(j), scheduler.Time(math.Ceil(500*p2.Iteration)); got != want {
		t.Errorf("estimate %d, want %d (500 iterations on 2 GPUs)", got, want)
	}
	if got, want := e.EstimateOn(j, "K80", 1), scheduler.Time(math.Ceil(1000*p1.Iteration)); got != want {
		t.Errorf("on one K80: %d, want %d", got, want)
	}
	// Jobs without a model, or on an unknown GPU: the user estimate.
	plain := &scheduler.Job{Run: 77, UserEstimate: 100}
	if got := e.EstimateOn(plain, "v100", 1); got != 100 {
		t.Errorf("no model: %d, want the user estimate 100", got)
	}
	if got := e.EstimateOn(j, "tpu-v4", 1); got != 999 {
		t.Errorf("unknown GPU: %d, want the run time 999", got)
	}
}

// TestModelEstimatorInSimulation: on a cluster of one K80 node and one V100
// node, a job's estimate follows the GPUs it is placed on, and its run
// time follows RunOn.
func TestModelEstimatorInSimulation(t *testing.T) {
	c := &scheduler.Cluster{Name: "het", Nodes: []scheduler.Node{
		{Name: "k", CPU: 8000, Mem: 65536, GPUs: 1, Model: "K80"},
		{Name: "v", CPU: 8000, Mem: 65536, GPUs: 1, Model: "V100"},
	}}
	job := func(id int64) scheduler.Job {
		return scheduler.Job{ID: id, Run: 10, Model: "resnet18-cifar", Batch: 128, Steps: 100,
			RunOn: map[string]scheduler.Time{"k80": 300, "v100": 100},
			Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: 1000, GPUs: 1}}}}
	}
	s, err := scheduler.DefaultParts().Build(scheduler.Spec{})
	if err != nil {
		t.Fatal(err)
	}
	s.Estimator = &ModelEstimator{}
	r, err := scheduler.Simulate(c, []scheduler.Job{job(1), job(2)}, s)
	if err != nil {
		t.Fatal(err)
	}
	// First-fit: job 1 on the K80 (runs 300 s), job 2 on the V100 (100 s).
	if r.Jobs[0].End != 300 || r.Jobs[1].End != 100 {
		t.Errorf("ends %d and %d, want 300 (K80) and 100 (V100)", r.Jobs[0].End, r.Jobs[1].End)
	}
	if r.Jobs[0].Estimate <= r.Jobs[1].Estimate {
		t.Errorf("estimates %d (K80) and %d (V100): the K80 should be predicted slower", r.Jobs[0].Estimate, r.Jobs[1].Estimate)
	}
}

func BenchmarkModelEstimate(b *testing.B) {
	e := &ModelEstimator{}
	j := &scheduler.Job{Model: "resnet50", Batch: 64, Steps: 1000, Tasks: []scheduler.Task{{Replicas: 4, Request: scheduler.Request{GPUs: 1}}}}
	e.EstimateOn(j, "p100", 4)
	for b.Loop() {
		e.EstimateOn(j, "p100", 4)
	}
}

// TestScalesByTableName: a device scale given for the table's name of a
// GPU applies under the GPU's other names too (a plan's cluster may call
// the K80 GK210), and not to another GPU.
func TestScalesByTableName(t *testing.T) {
	e := &ModelEstimator{Scales: map[string]float64{"k80": 2}}
	plain := &ModelEstimator{}
	pred := func(e *ModelEstimator, dev string) float64 {
		p, err := e.Prediction("resnet50", dev, 32, 1)
		if err != nil {
			t.Fatal(err)
		}
		return p.Iteration
	}
	k80, gk210 := pred(e, "k80"), pred(e, "gk210")
	if k80 != gk210 {
		t.Errorf("scaled: k80 %v s, gk210 %v s: want the same GPU's time", k80, gk210)
	}
	if k80 == pred(plain, "k80") {
		t.Errorf("the scale did nothing: %v s", k80)
	}
	if v, w := pred(e, "v100-sxm2"), pred(plain, "v100"); v != w {
		t.Errorf("v100-sxm2 %v s with the K80's scale, v100 %v s without: want the same", v, w)
	}
}

// TestJobGPUs: a job's GPUs are what its placement holds, as EstimateOn
// is told (a share of a GPU one a replica), not its replicas (which agree
// only at one GPU a replica).
func TestJobGPUs(t *testing.T) {
	for _, c := range []struct {
		tasks []scheduler.Task
		want  int
	}{
		{[]scheduler.Task{{Replicas: 2, Request: scheduler.Request{GPUs: 4}}}, 8},
		{[]scheduler.Task{{Replicas: 3, Request: scheduler.Request{GPUs: 1}}}, 3},
		{[]scheduler.Task{{Replicas: 3, Request: scheduler.Request{GPUs: 1, GPUMilli: 500}}}, 3},
		{[]scheduler.Task{{Replicas: 2, Request: scheduler.Request{CPU: 1000}}}, 2},
	} {
		if got := JobGPUs(&scheduler.Job{Tasks: c.tasks}); got != c.want {
			t.Errorf("%+v: %d GPUs, want %d", c.tasks, got, c.want)
		}
	}
}
