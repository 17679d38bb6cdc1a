package scheduler

import (
	"slices"
	"testing"
)

// Placements that keep state (gpu-clustering's tags, round-robin's cursor)
// or draw (random) against the engine's checks of what fits (a reviewer's
// property hunt: 720,000 random simulations).

// A gang that gpu-clustering places on the empty cluster is not refused on
// arrival because the tags of a job running then steer its what-if
// placement on the empty cluster.
func TestStatefulGangFitsEmpty(t *testing.T) {
	c := &Cluster{Name: "c", Nodes: []Node{
		{Name: "n0", CPU: 8000, Mem: 8192, GPUs: 2, Model: "V100"},
		{Name: "n1", CPU: 2000, Mem: 8192, GPUs: 1, Model: "V100"}}}
	first := Job{ID: 1, Run: 100, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 4000, GPUs: 1}}}}
	for _, at := range []Time{1, 200} {
		gang := Job{ID: 2, Submit: at, Run: 10, Tasks: []Task{
			{Replicas: 1, Request: Request{CPU: 1000, GPUs: 1}},
			{Replicas: 1, Request: Request{CPU: 1000, GPUs: 2}}}}
		s, err := DefaultParts().Build(Spec{Placement: "gpu-clustering"})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Simulate(c, []Job{first, gang}, s)
		if err != nil {
			t.Fatal(err)
		}
		g := res.Jobs[1]
		want := max(at, 100) // the gang needs n0's two GPUs, which the first job holds one of to t = 100
		if g.Status != Done || g.Start != want {
			t.Errorf("gang submitted at %d: status %v, start %d; want done at %d", at, g.Status, g.Start, want)
		}
	}
}

// Under EASY, a head the placement cannot place even with every running
// job ended (round-robin's cursor moved by a backfilled job) holds nothing
// back: the jobs behind it that fit start, rather than the cluster idling
// to the end with all of them unschedulable.
func TestEASYUnreservableHead(t *testing.T) {
	c := &Cluster{Name: "c", Nodes: []Node{
		{Name: "n0", CPU: 4000, Mem: 4096, GPUs: 2, Model: "V100"},
		{Name: "n1", CPU: 4000, Mem: 4096, GPUs: 1, Model: "V100"}}}
	jobs := []Job{
		{ID: 1, Submit: 0, Run: 10, UserEstimate: 10, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 100, GPUs: 2}}}},
		{ID: 2, Submit: 1, Run: 5, UserEstimate: 5, Tasks: []Task{
			{Replicas: 1, Request: Request{CPU: 100, GPUs: 1}}, {Replicas: 1, Request: Request{CPU: 100, GPUs: 2}}}},
		{ID: 3, Submit: 2, Run: 1, UserEstimate: 1, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 100}}}},
		{ID: 4, Submit: 20, Run: 1, UserEstimate: 1, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 100}}}}}
	res := simulateSpec(t, c, jobs, Spec{Placement: "round-robin", Backfill: "easy"})
	if j := res.Jobs[3]; j.Status != Done || j.Start != 20 {
		t.Errorf("job 4, alone on an idle cluster at 20: status %v, start %d; want done at 20", j.Status, j.Start)
	}
	if j := res.Jobs[2]; j.Status != Done {
		t.Errorf("job 3: status %v; want done", j.Status)
	}
}

// gpusSeen records the GPU counts EstimateOn is asked about.
type gpusSeen struct{ seen []int }

func (*gpusSeen) Name() string         { return "gpus-seen" }
func (*gpusSeen) Estimate(j *Job) Time { return j.Run }
func (g *gpusSeen) EstimateOn(j *Job, _ string, gpus int) Time {
	g.seen = append(g.seen, gpus)
	return j.Run
}

// fastest ranks a pooled share of 1.5 GPUs by the GPU count the engine
// times it on when it starts (2: Slot.GPUs rounds a pool's share up).
func TestFastestPooledGPUs(t *testing.T) {
	c := &Cluster{Name: "c", Nodes: []Node{
		{Name: "p0", CPU: 8000, Mem: 8192, PoolGPUs: 4, Model: "V100"},
		{Name: "p1", CPU: 8000, Mem: 8192, PoolGPUs: 4, Model: "K80"}}}
	rec := &gpusSeen{}
	_, err := Simulate(c, []Job{{ID: 1, Run: 10, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 1000, GPUs: 1, GPUMilli: 1500}}}}},
		Scheduler{Order: FIFO{}, Backfill: NoBackfill{}, Placement: Fastest{}, Estimator: rec})
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.seen) == 0 || slices.ContainsFunc(rec.seen, func(n int) bool { return n != 2 }) {
		t.Errorf("EstimateOn asked about %v GPUs; want 2 every time", rec.seen)
	}
}

// A sequence refuses the genetic algorithm on a cluster that pools its
// GPUs, as Simulate does, rather than finding that nothing fits.
func TestSequenceGAOnPool(t *testing.T) {
	p, err := DefaultParts().Placements.New("ga")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := NewSequence(NewGPUPool("pai", 8, 64), p); err == nil {
		t.Error("NewSequence took ga on a GPU pool")
	}
}

// A gang a deterministic placement does not place on the empty cluster
// (gpu-packing here), though first-fit does, is unschedulable on arrival,
// counted as the placement's refusal, and holds back no job behind it
// (a first-fit fallback for every placement had queued it for good, every
// job behind it unschedulable under no backfilling).
func TestDeterministicRefusal(t *testing.T) {
	c := &Cluster{Name: "c", Nodes: []Node{
		{Name: "n0", CPU: 4000, Mem: 2048, GPUs: 1, Model: "V100"},
		{Name: "n1", CPU: 2000, Mem: 3072, GPUs: 3, Model: "V100"}}}
	jobs := []Job{
		{ID: 1, Run: 10, UserEstimate: 10, Tasks: []Task{
			{Replicas: 1, Request: Request{CPU: 2000, Mem: 512}},
			{Replicas: 2, Request: Request{CPU: 2000, Mem: 512, GPUs: 1}}}},
		{ID: 2, Submit: 1, Run: 10, UserEstimate: 10, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 100}}}},
		{ID: 3, Submit: 2, Run: 10, UserEstimate: 10, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 100}}}},
	}
	for _, bf := range []string{"none", "easy", "conservative"} {
		r := simulateSpec(t, c, jobs, Spec{Placement: "gpu-packing", Backfill: bf})
		if sm := r.Summary; sm.Completed != 2 || sm.Unschedulable != 1 || sm.PlacementRefused != 1 {
			t.Errorf("%s: %d completed, %d unschedulable, %d refused by the placement; want 2, 1, 1", bf, sm.Completed, sm.Unschedulable, sm.PlacementRefused)
		}
	}
}

// Under EASY, gpu-clustering reserves for a gang at the running jobs' end
// (the cluster then idle, no tags) rather than finding no shadow and
// letting every later job start ahead of it.
func TestEASYClusteringReserves(t *testing.T) {
	c := &Cluster{Name: "c", Nodes: []Node{
		{Name: "n0", CPU: 8000, Mem: 8192, GPUs: 2, Model: "V100"},
		{Name: "n1", CPU: 2000, Mem: 8192, GPUs: 1, Model: "V100"}}}
	jobs := []Job{
		{ID: 1, Run: 100, UserEstimate: 100, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 4000, GPUs: 1}}}},
		{ID: 2, Submit: 1, Run: 10, UserEstimate: 10, Tasks: []Task{
			{Replicas: 1, Request: Request{CPU: 1000, GPUs: 1}},
			{Replicas: 1, Request: Request{CPU: 1000, GPUs: 2}}}},
	}
	for k := range 20 {
		jobs = append(jobs, Job{ID: int64(3 + k), Submit: Time(2 + 50*k), Run: 100, UserEstimate: 100,
			Tasks: []Task{{Replicas: 1, Request: Request{CPU: 4000, GPUs: 1}}}})
	}
	r := simulateSpec(t, c, jobs, Spec{Placement: "gpu-clustering", Backfill: "easy"})
	if g := r.Jobs[1]; g.Status != Done || g.Start != 100 {
		t.Errorf("gang: %v at %d (passed over %d times); want done at 100, when the first job ends", g.Status, g.Start, g.PassedOver)
	}
}

// simulateSpec runs jobs on c under the scheduler spec names, failing the
// test where it cannot be built or run.
func simulateSpec(t *testing.T, c *Cluster, jobs []Job, spec Spec) *Result {
	t.Helper()
	s, err := DefaultParts().Build(spec)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Simulate(c, jobs, s)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// With the head reserved on the idle cluster (gpu-clustering), EASY's
// what-ifs for later jobs ask about that idle cluster too: a CPU-only job
// that leaves the gang its GPUs starts at once, as under best-fit.
func TestEASYIdleWhatIfs(t *testing.T) {
	c := &Cluster{Name: "c", Nodes: []Node{
		{Name: "n0", CPU: 8000, Mem: 8192, GPUs: 2, Model: "V100"},
		{Name: "n1", CPU: 2000, Mem: 8192, GPUs: 1, Model: "V100"},
		{Name: "n2", CPU: 8000, Mem: 8192}}}
	jobs := []Job{
		{ID: 1, Run: 100, UserEstimate: 100, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 4000, GPUs: 1}}}},
		{ID: 2, Submit: 1, Run: 10, UserEstimate: 10, Tasks: []Task{
			{Replicas: 1, Request: Request{CPU: 1000, GPUs: 1}},
			{Replicas: 1, Request: Request{CPU: 1000, GPUs: 2}}}},
		{ID: 3, Submit: 2, Run: 1000, UserEstimate: 1000, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 1000}}}},
	}
	for _, p := range []string{"best-fit", "gpu-clustering"} {
		r := simulateSpec(t, c, jobs, Spec{Placement: p, Backfill: "easy"})
		if g, j := r.Jobs[1], r.Jobs[2]; g.Start != 100 || j.Start != 2 {
			t.Errorf("%s: gang at %d, CPU job at %d; want 100 and 2", p, g.Start, j.Start)
		}
	}
}

// cursorPlacement is round-robin under another name: a placement of one's
// own with memory (a Committer).
type cursorPlacement struct{ RoundRobin }

func (*cursorPlacement) Name() string { return "my-cursor" }

// A gang a placement with memory refuses on arrival is queued whatever the
// placement's type, as under the built-in round-robin.
func TestCursorOfOnesOwn(t *testing.T) {
	c := &Cluster{Name: "c", Nodes: []Node{
		{Name: "n0", CPU: 4000, Mem: 4096, GPUs: 1, Model: "V100"},
		{Name: "n1", CPU: 4000, Mem: 4096, GPUs: 2, Model: "V100"},
		{Name: "n2", CPU: 4000, Mem: 4096, GPUs: 1, Model: "V100"}}}
	jobs := []Job{
		{ID: 1, Run: 10, UserEstimate: 10, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 100, GPUs: 1}}}},
		{ID: 2, Submit: 20, Run: 10, UserEstimate: 10, Tasks: []Task{
			{Replicas: 1, Request: Request{CPU: 100, GPUs: 1}}, {Replicas: 1, Request: Request{CPU: 100, GPUs: 2}}}},
		{ID: 3, Submit: 30, Run: 10, UserEstimate: 10, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 100, GPUs: 1}}}},
	}
	var starts []Time
	for _, p := range []Placement{&RoundRobin{}, &cursorPlacement{}} {
		r, err := Simulate(c, jobs, Scheduler{Order: FIFO{}, Backfill: EASY{}, Placement: p, Estimator: User{}})
		if err != nil {
			t.Fatal(err)
		}
		if r.Summary.PlacementRefused != 0 {
			t.Errorf("%s: %d gangs refused", p.Name(), r.Summary.PlacementRefused)
		}
		starts = append(starts, r.Jobs[1].Start)
	}
	if starts[0] != starts[1] || starts[0] < 0 {
		t.Errorf("the gang starts at %d under round-robin, %d under a cursor of one's own", starts[0], starts[1])
	}
}
