package scheduler

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/wb-sim/wb/scheduler/internal/reference"
)

// withEstimates gives every job the PAI simulator's estimate columns:
// its run time scaled by 0.5, 1 and 1.5 and offset by a fraction of a
// second, for the table estimators.
func withEstimates(jobs []Job) {
	for i := range jobs {
		run := float64(jobs[i].Run)
		jobs[i].Estimates = map[string]float64{"user_dur": run*0.5 + 0.25, "group_dur": run, "group_gpu_dur": run*1.5 + 0.75}
	}
}

// randomPAIJobs draws a PAI-simulator workload: IDs in submit order, many
// submit, duration and estimate ties, estimates that differ by less than a
// second, shares of a GPU, gangs, CPU-only jobs.
func randomPAIJobs(r *rand.Rand, n int, gpus, cores int) []Job {
	jobs := make([]Job, n)
	t := Time(0)
	gpuPct := []int64{0, 10, 25, 50, 50, 100, 100, 150, 200, 250, 400, 800}
	cpuPct := []int64{0, 50, 100, 200, 400, 800, 1200}
	for i := range jobs {
		if r.IntN(3) > 0 {
			t += Time(r.IntN(30))
		}
		g := gpuPct[r.IntN(len(gpuPct))]
		c := cpuPct[r.IntN(len(cpuPct))]
		if g == 0 && c == 0 {
			c = 100
		}
		inst := []int{1, 1, 1, 2, 4}[r.IntN(5)]
		for int64(inst)*g > int64(gpus)*100 || int64(inst)*c > int64(cores)*100 {
			inst = 1
			g, c = min(g, 100), min(c, 100)
		}
		req := Request{CPU: MilliCPU(c) * 10}
		switch {
		case g > 0 && g < 100:
			req.GPUs, req.GPUMilli = 1, MilliGPU(g)*10
		case g%100 != 0: // one and a half GPUs, as one quantity of the pool
			req.GPUs, req.GPUMilli = 1, MilliGPU(g)*10
		case g >= 100:
			req.GPUs = int(g / 100)
		}
		est := []float64{0, 30, 30.25, 30.5, 31, 120, 119.9}[r.IntN(7)] + float64(r.IntN(3))*0.125
		jobs[i] = Job{ID: int64(i), User: fmt.Sprint("u", r.IntN(5)), Submit: t, Run: Time(1 + r.IntN(200)),
			Tasks: []Task{{Replicas: inst, Request: req}}, Estimates: map[string]float64{"user_dur": est}}
		if r.IntN(4) == 0 {
			jobs[i].Run = Time(1 + r.IntN(3)) // duration ties
		}
	}
	return jobs
}

// TestGreedyAgainstPAISimulator compares wb's greedy rule on a GPU pool
// job by job with an independent, tick-by-tick implementation of the PAI
// v2020 simulator's loop (internal/reference), for its FIFO, SJF and
// estimate-ordered (SJU) policies, on random workloads full of ties.
func TestGreedyAgainstPAISimulator(t *testing.T) {
	type policy struct {
		spec Spec
		key  func(j *Job) float64
	}
	policies := map[string]policy{
		"FIFO": {Spec{Order: "fifo", Estimate: "exact"}, func(j *Job) float64 { return float64(j.Submit) }},
		"SJF":  {Spec{Order: "sjf", Estimate: "exact"}, func(j *Job) float64 { return float64(j.Run) }},
		"SJU":  {Spec{Order: "sjf", Estimate: "user-dur"}, func(j *Job) float64 { return j.Estimates["user_dur"] }},
	}
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 23))
		gpus, cores := 1+r.IntN(24), 1+r.IntN(200)
		jobs := randomPAIJobs(r, 150, gpus, cores)
		for name, p := range policies {
			p.spec.Backfill = "greedy"
			ref := make([]reference.PAIJob, len(jobs))
			for i := range jobs {
				j := &jobs[i]
				req := &j.Tasks[0].Request
				ref[i] = reference.PAIJob{ID: j.ID, Submit: int64(j.Submit), Duration: int64(j.Run),
					GPU: int64(req.GPUTotal() / 10), CPU: int64(req.CPU / 10), Inst: int64(j.Tasks[0].Replicas), Key: p.key(j)}
			}
			want, err := reference.PAISimulate(ref, int64(gpus)*100, int64(cores)*100)
			if err != nil {
				t.Fatal(err)
			}
			res, err := Simulate(NewGPUPool("pai", gpus, cores), jobs, build(t, p.spec))
			if err != nil {
				t.Fatal(err)
			}
			got := starts(res)
			for i, j := range jobs {
				if got[j.ID] != Time(want[i]) {
					t.Fatalf("seed %d, %s on %d GPUs and %d cores: job %d starts at %d, the PAI simulator's loop says %d",
						seed, name, gpus, cores, j.ID, got[j.ID], want[i])
				}
			}
		}
	}
}

// TestTableEstimates: each estimate-ordered policy serves, among jobs
// waiting together, the one its column says is shortest, comparing the
// column's values as written where they round to the same second; a job
// without the column is refused with a clear error.
func TestTableEstimates(t *testing.T) {
	// One GPU; job 0 holds it from 0 to 10 while jobs 1–3 queue.
	job := func(id int64, submit Time, est map[string]float64) Job {
		return Job{ID: id, Submit: submit, Run: 10, Estimates: est,
			Tasks: []Task{{Replicas: 1, Request: Request{GPUs: 1}}}}
	}
	jobs := []Job{
		job(0, 0, map[string]float64{"user_dur": 1, "group_dur": 1, "group_gpu_dur": 1}),
		job(1, 1, map[string]float64{"user_dur": 50.75, "group_dur": 20, "group_gpu_dur": 7.5}),
		job(2, 2, map[string]float64{"user_dur": 50.25, "group_dur": 30, "group_gpu_dur": 7.5}),
		job(3, 3, map[string]float64{"user_dur": 60, "group_dur": 10, "group_gpu_dur": 8}),
	}
	// Hand-computed: the order of jobs 1–3 after job 0 ends at 10, each
	// running 10 s.
	want := map[string][]Time{
		"user-dur":      {0, 20, 10, 30}, // 50.25 < 50.75 (both 51 s rounded up) < 60
		"group-dur":     {0, 20, 30, 10}, // 10 < 20 < 30
		"group-gpu-dur": {0, 10, 20, 30}, // 7.5 = 7.5 (submit order) < 8
	}
	for est, w := range want {
		res, err := Simulate(NewGPUPool("one", 1, 0), jobs, build(t, Spec{Order: "sjf", Backfill: "greedy", Estimate: est}))
		if err != nil {
			t.Fatal(err)
		}
		got := starts(res)
		for id, s := range w {
			if got[int64(id)] != s {
				t.Errorf("%s: job %d starts at %d, want %d", est, id, got[int64(id)], s)
			}
		}
	}
	if e := (TableEstimate{Column: "user_dur"}).Estimate(&jobs[1]); e != 51 {
		t.Errorf("user_dur 50.75 plans as %d s, want 51 (rounded up)", e)
	}
	jobs[2].Estimates = nil
	_, err := Simulate(NewGPUPool("one", 1, 0), jobs, build(t, Spec{Order: "sjf", Estimate: "group-dur"}))
	if want := "job 2: estimate group-dur needs the trace's group_dur column"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("a job without the column: err %v, want %q", err, want)
	}
	jobs[2].Estimates = map[string]float64{"group_dur": math.NaN()}
	if _, err := Simulate(NewGPUPool("one", 1, 0), jobs, build(t, Spec{Order: "sjf", Estimate: "group-dur"})); err == nil {
		t.Error("a NaN estimate was accepted")
	}
}

// TestGPUPoolPlacements: a GPU pool is one node, so every placement
// places where first-fit does (but ga, which also chooses which waiting
// jobs start), and the pool's capacity is conserved.
func TestGPUPoolPlacements(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 7))
	jobs := randomPAIJobs(r, 200, 8, 64)
	c := NewGPUPool("pai", 8, 64)
	first, err := Simulate(c, jobs, build(t, Spec{Backfill: "greedy"}))
	if err != nil {
		t.Fatal(err)
	}
	checkSchedule(t, c, jobs, first)
	want := starts(first)
	for _, name := range DefaultParts().Placements.Names() {
		if name == "ga" {
			continue
		}
		res, err := Simulate(c, jobs, build(t, Spec{Backfill: "greedy", Placement: name}))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		for id, s := range starts(res) {
			if s != want[id] {
				t.Fatalf("%s: job %d starts at %d, first-fit at %d", name, id, s, want[id])
			}
		}
	}
	if err := (&Cluster{Nodes: []Node{{Name: "x", GPUs: 2, PoolGPUs: 4}}}).Validate(); err == nil {
		t.Error("a node with both GPUs and a pool was accepted")
	}
	if err := NewGPUPool("big", MaxPoolGPUs+5, 1).Validate(); err == nil {
		t.Error("a pool past MaxPoolGPUs was accepted")
	}
	// One and a half GPUs as one quantity: a pool holds it, GPU nodes never.
	half := []Job{{ID: 1, Run: 10, Tasks: []Task{{Replicas: 1, Request: Request{GPUs: 1, GPUMilli: 1500}}}}}
	nodes := &Cluster{Name: "n", Nodes: []Node{{Name: "a", CPU: 8000, GPUs: 8, Model: "V100"}}}
	res, err := Simulate(nodes, half, build(t, Spec{}))
	if err != nil || res.Jobs[0].Status != Unschedulable {
		t.Fatalf("1.5 GPUs as one quantity on GPU nodes: %v; want unschedulable", err)
	}
	res, err = Simulate(NewGPUPool("p", 2, 0), half, build(t, Spec{}))
	if err != nil || res.Jobs[0].Status != Done || res.Jobs[0].GPU != 1500 || res.Jobs[0].GPUs != 2 {
		t.Errorf("1.5 GPUs on a pool of 2: %v, %+v", err, res.Jobs[0])
	}
	bad := Job{ID: 2, Run: 1, Tasks: []Task{{Replicas: 1, Request: Request{GPUs: 2, GPUMilli: 1500}}}}
	if err := bad.Validate(); err == nil {
		t.Error("1,500 milli per GPU of 2 GPUs was accepted")
	}
}
