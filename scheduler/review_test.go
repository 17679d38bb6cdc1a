package scheduler

import (
	"math"
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
