package scheduler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// TestReviewedEdges: GA on a GPU pool is refused (its chromosome has no
// devices to put replicas on); GPU-model constraints ignore case, as run
// times by model do; a kill factor or a noisy estimate far past the
// horizon is clamped to it, never wrapped into a negative time.
func TestReviewedEdges(t *testing.T) {
	build := func(sp Spec) Scheduler {
		t.Helper()
		s, err := DefaultParts().Build(sp)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	job := func(id int64, run, est Time, req Request) Job {
		return Job{ID: id, Submit: 0, Run: run, UserEstimate: est, Tasks: []Task{{Replicas: 1, Request: req}}}
	}
	_, err := Simulate(NewGPUPool("p", 8, 64), []Job{job(1, 100, 100, Request{CPU: 1000, Mem: 1024, GPUs: 1})},
		build(Spec{Order: "fifo", Backfill: "none", Placement: "ga", Estimate: "exact"}))
	if err == nil || !strings.Contains(err.Error(), "placement ga places replicas on GPU devices") {
		t.Errorf("ga on a GPU pool: %v", err)
	}

	c := gpuCluster(Node{Name: "n", CPU: 8000, Mem: 8192, GPUs: 2, Model: "v100"})
	req := Request{CPU: 1000, Mem: 1024, GPUs: 1, Models: []string{"V100"}}
	res, err := Simulate(c, []Job{job(1, 100, 100, req)}, build(Spec{Order: "fifo", Backfill: "none", Placement: "first-fit", Estimate: "exact"}))
	if err != nil || res.Jobs[0].Status != Done {
		t.Errorf("a V100 job on v100 nodes: %v, %+v", err, res)
	}

	res, err = Simulate(c, []Job{job(1, 100, 50, Request{CPU: 1000, Mem: 1024, GPUs: 1})},
		build(Spec{Order: "fifo", Backfill: "none", Placement: "first-fit", Estimate: "user", KillFactor: 1e300}))
	if err != nil || res.Jobs[0].Status != Done || res.Jobs[0].End != 100 {
		t.Errorf("kill factor 1e300: %v, %+v", err, res)
	}
	if _, err := DefaultParts().Build(Spec{Order: "fifo", Backfill: "none", Placement: "first-fit", Estimate: "exact", KillFactor: math.Inf(1)}); err == nil {
		t.Error("an infinite kill factor: accepted")
	}

	var jobs []Job
	for i := range 2000 {
		jobs = append(jobs, job(int64(i), 100000, 100000, Request{CPU: 1, Mem: 1}))
	}
	if _, err := Simulate(NewPool("p", 1<<20), jobs, build(Spec{Order: "fifo", Backfill: "easy", Placement: "first-fit", Estimate: "noisy",
		EstimateArgs: Args{"sigma": 10.0}})); err != nil {
		t.Errorf("noisy estimates of σ 10: %v", err)
	}
}

// TestOwnPartsChangeNoJob: no part of this package changes a job it is
// handed, so that Simulate, which copies the jobs only for a part from
// outside the package, leaves the caller's jobs as they were with every
// registered part.
func TestOwnPartsChangeNoJob(t *testing.T) {
	c := &Cluster{Name: "c"}
	for i := range 4 {
		c.Nodes = append(c.Nodes, Node{Name: fmt.Sprint(i), CPU: 16000, Mem: 65536, GPUs: 4, Model: []string{"K80", "V100"}[i%2]})
	}
	r := rand.New(rand.NewPCG(3, 4))
	var jobs []Job
	for i := range 40 {
		req := Request{CPU: MilliCPU(1+r.IntN(4)) * 1000, Mem: 1024, GPUs: r.IntN(3)}
		if r.IntN(3) == 0 {
			req.GPUs, req.GPUMilli = 1, MilliGPU(100*(1+r.IntN(9)))
		}
		run := Time(10 + r.IntN(200))
		jobs = append(jobs, Job{ID: int64(i), User: fmt.Sprint("u", i%3), Submit: Time(3 * i), Run: run, UserEstimate: 2 * run,
			RunOn: map[string]Time{"k80": 2 * run, "v100": run}, Tasks: []Task{{Replicas: 1 + r.IntN(2), Request: req}}})
	}
	withEstimates(jobs)
	before := slices.Clone(jobs)
	p := DefaultParts()
	var specs []Spec
	for _, n := range p.Orders.Names() {
		specs = append(specs, Spec{Order: n, Backfill: "easy"})
	}
	for _, n := range p.Backfills.Names() {
		specs = append(specs, Spec{Backfill: n, Estimate: "exact"})
	}
	for _, n := range p.Placements.Names() {
		specs = append(specs, Spec{Backfill: "conservative", Placement: n, Estimate: "exact"})
	}
	for _, n := range p.Estimators.Names() {
		sp := Spec{Backfill: "easy", Placement: "fastest", Estimate: n}
		if n == "noisy" {
			sp.EstimateArgs = Args{"sigma": 0.5}
		}
		specs = append(specs, sp)
	}
	for _, sp := range specs {
		s := build(t, sp)
		if m := newSim(c, s); m.copyJobs {
			t.Fatalf("%s: the jobs are copied for the package's own parts", sp)
		}
		if _, err := Simulate(c, jobs, s); err != nil {
			t.Fatalf("%s: %v", sp, err)
		}
		if !reflect.DeepEqual(jobs, before) {
			t.Fatalf("%s changed the jobs", sp)
		}
	}
}
