package scheduler_test

import (
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"

	"go.yaml.in/yaml/v3"

	"github.com/wb-sim/wb/scheduler"
)

// lastFit is a placement written outside the package: each replica on the
// highest-numbered node that holds it.
type lastFit struct{}

func (lastFit) Name() string { return "last-fit" }

func (lastFit) Choose(s *scheduler.State, a *scheduler.Ask) int {
	for i := s.Len() - 1; i >= 0; i-- {
		if s.Fits(i, a) {
			return i
		}
	}
	return -1
}

// nthFit is a placement with an argument, written outside the package:
// each replica on the node after the first skip that hold it (the last
// that does when fewer hold it). Its Configure decodes its own argument.
type nthFit struct{ skip int }

func (*nthFit) Name() string { return "nth-fit" }

func (f *nthFit) Configure(args scheduler.Args, _ scheduler.Run) error {
	var a struct {
		Skip int `yaml:"skip"`
	}
	if err := args.Decode("nth-fit", &a); err != nil {
		return err
	}
	if a.Skip < 0 {
		return fmt.Errorf("nth-fit: skip %d is negative", a.Skip)
	}
	f.skip = a.Skip
	return nil
}

func (f *nthFit) Choose(s *scheduler.State, a *scheduler.Ask) int {
	found, k := -1, 0
	for i := 0; i < s.Len(); i++ {
		if s.Fits(i, a) {
			if found = i; k == f.skip {
				break
			}
			k++
		}
	}
	return found
}

// aggressive is a backfill rule written outside the package: start every
// queued job that fits now, in queue order, with no reservation for the
// head.
type aggressive struct{}

func (aggressive) Name() string { return "aggressive" }

func (aggressive) Backfill(p *scheduler.Pass) {
	for i := 1; i < p.Len(); i++ {
		p.Start(i)
	}
}

// probe records what a pass shows a rule, then starts what fits as
// aggressive does.
type probe struct{ seen *[]string }

func (probe) Name() string { return "probe" }

func (r probe) Backfill(p *scheduler.Pass) {
	end := scheduler.Time(-1)
	p.Running(func(e scheduler.Time, _ *scheduler.Job) bool { end = e; return false })
	*r.seen = append(*r.seen, fmt.Sprintf("t=%d head=%d first end=%d", p.Now(), p.Job(0).Job.ID, end))
	aggressive{}.Backfill(p)
	for i := 1; i < p.Len(); i++ {
		if p.Started(i) && p.Start(i) {
			*r.seen = append(*r.seen, "started twice")
		}
	}
}

// TestPluginsFromOutside: a placement and a backfill rule, each one type
// in a file outside package scheduler and one Register call, run in a
// simulation and change it as they should.
func TestPluginsFromOutside(t *testing.T) {
	parts := scheduler.DefaultParts()
	if err := parts.Placements.Register("last-fit", func() scheduler.Placement { return lastFit{} }); err != nil {
		t.Fatal(err)
	}
	if err := parts.Backfills.Register("aggressive", func() scheduler.Backfill { return scheduler.RuleBackfill(aggressive{}) }); err != nil {
		t.Fatal(err)
	}
	if err := parts.Backfills.Register("easy", func() scheduler.Backfill { return scheduler.EASY{} }); err == nil {
		t.Error("a second easy was registered")
	}

	// Pool of 4: job 1 holds 3 processors for 10 s; job 2 (4 processors)
	// heads the queue from t=1; job 3 (1 processor, 100 s) arrives at t=2.
	// EASY keeps it back (it would delay job 2's reservation at t=10); the
	// aggressive rule starts it at once.
	job := func(id, submit, procs, run int) scheduler.Job {
		return scheduler.Job{ID: int64(id), Submit: scheduler.Time(submit), Run: scheduler.Time(run),
			Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: scheduler.MilliCPU(procs) * scheduler.MilliPerCore}}}}
	}
	jobs := []scheduler.Job{job(1, 0, 3, 10), job(2, 1, 4, 10), job(3, 2, 1, 100)}
	start3 := map[string]scheduler.Time{}
	for _, bf := range []string{"easy", "aggressive"} {
		s, err := parts.Build(scheduler.Spec{Backfill: bf, Estimate: "exact"})
		if err != nil {
			t.Fatal(err)
		}
		r, err := scheduler.Simulate(scheduler.NewPool("p", 4), jobs, s)
		if err != nil {
			t.Fatal(err)
		}
		if r.Parts.Backfill != bf {
			t.Errorf("ran %q, want %q", r.Parts.Backfill, bf)
		}
		start3[bf] = r.Jobs[2].Start
	}
	var seen []string
	if err := parts.Backfills.Register("probe", func() scheduler.Backfill { return scheduler.RuleBackfill(probe{&seen}) }); err != nil {
		t.Fatal(err)
	}
	s, err := parts.Build(scheduler.Spec{Backfill: "probe", Estimate: "exact"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scheduler.Simulate(scheduler.NewPool("p", 4), jobs, s); err != nil {
		t.Fatal(err)
	}
	if len(seen) == 0 || seen[0] != "t=2 head=2 first end=10" || slices.Contains(seen, "started twice") {
		t.Errorf("the pass showed the rule %q", seen)
	}
	if start3["aggressive"] != 2 || start3["easy"] < 10 {
		t.Errorf("job 3 starts at %d under aggressive (want 2), %d under easy (want ≥ 10)", start3["aggressive"], start3["easy"])
	}

	// Three GPU nodes: last-fit puts a one-GPU job on the last.
	c := &scheduler.Cluster{Name: "g"}
	for _, n := range []string{"a", "b", "c"} {
		c.Nodes = append(c.Nodes, scheduler.Node{Name: n, CPU: 8000, Mem: 1024, GPUs: 2, Model: "V100"})
	}
	s, err = parts.Build(scheduler.Spec{Placement: "last-fit"})
	if err != nil {
		t.Fatal(err)
	}
	g := []scheduler.Job{{ID: 1, Run: 5, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: 1000, GPUs: 1}}}}}
	r, err := scheduler.Simulate(c, g, s)
	if err != nil {
		t.Fatal(err)
	}
	if n := r.Jobs[0].Slots[0].Node; n != 2 {
		t.Errorf("last-fit placed on node %d, want 2", n)
	}

	// A placement with an argument, which it decodes itself; a part
	// without arguments refuses them.
	if err := parts.Placements.Register("nth-fit", func() scheduler.Placement { return &nthFit{} }); err != nil {
		t.Fatal(err)
	}
	s, err = parts.Build(scheduler.Spec{Placement: "nth-fit", PlacementArgs: scheduler.Args{"skip": 1}})
	if err != nil {
		t.Fatal(err)
	}
	if r, err = scheduler.Simulate(c, g, s); err != nil || r.Jobs[0].Slots[0].Node != 1 {
		t.Errorf("nth-fit with skip 1: %v, node %d, want 1", err, r.Jobs[0].Slots[0].Node)
	}
	for _, bad := range []struct {
		sp   scheduler.Spec
		want string
	}{
		{scheduler.Spec{Placement: "nth-fit", PlacementArgs: scheduler.Args{"skp": 1}}, "nth-fit: arguments skp=1: skp is not a setting of nth-fit (its settings: skip)"},
		{scheduler.Spec{Placement: "nth-fit", PlacementArgs: scheduler.Args{"skip": -2}}, "nth-fit: skip -2 is negative"},
		{scheduler.Spec{Placement: "last-fit", PlacementArgs: scheduler.Args{"skip": 1}}, "last-fit takes no arguments (given skip=1)"},
	} {
		if _, err := parts.Build(bad.sp); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("%+v: %v, want %q", bad.sp, err, bad.want)
		}
	}
}

// refuseBig is a defective placement: it refuses every replica asking
// more than one processor, though the empty cluster holds it.
type refuseBig struct{}

func (refuseBig) Name() string { return "refuse-big" }

func (refuseBig) Choose(s *scheduler.State, a *scheduler.Ask) int {
	if a.CPU > scheduler.MilliPerCore {
		return -1
	}
	for i := 0; i < s.Len(); i++ {
		if s.Fits(i, a) {
			return i
		}
	}
	return -1
}

// A placement that never places a job the empty cluster fits is an error
// naming it and the job, not a job counted as unschedulable.
func TestPlacementDefectIsAnError(t *testing.T) {
	parts := scheduler.DefaultParts()
	if err := parts.Placements.Register("refuse-big", func() scheduler.Placement { return refuseBig{} }); err != nil {
		t.Fatal(err)
	}
	build := func() scheduler.Scheduler {
		s, err := parts.Build(scheduler.Spec{Placement: "refuse-big", Estimate: "exact"})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	job := func(id, procs int) scheduler.Job {
		return scheduler.Job{ID: int64(id), Submit: scheduler.Time(id), Run: 10,
			Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: scheduler.MilliCPU(procs) * scheduler.MilliPerCore}}}}
	}
	jobs := []scheduler.Job{job(1, 1), job(2, 2), job(3, 9), job(4, 1)}
	c := &scheduler.Cluster{Name: "c", Nodes: []scheduler.Node{{Name: "n", CPU: 4 * scheduler.MilliPerCore, Mem: 1024}}}
	_, err := scheduler.Simulate(c, jobs, build())
	if err == nil || !strings.Contains(err.Error(), "placement refuse-big left job 2 queued at the end, though the empty cluster fits it") {
		t.Errorf("Simulate: %v", err)
	}
	_, err = scheduler.Stream(c, &jobList{jobs: jobs}, build(), discard{})
	if err == nil || !strings.Contains(err.Error(), "job 2") {
		t.Errorf("Stream: %v", err)
	}
	// job 3 (9 processors) fits no node: unschedulable, no error
	r, err := scheduler.Simulate(c, []scheduler.Job{job(1, 1), job(3, 9)}, build())
	if err != nil || r.Summary.Unschedulable != 1 {
		t.Errorf("%v, %+v", err, r)
	}
}

// jobList yields its jobs in order; discard drops what a stream emits.
type jobList struct{ jobs []scheduler.Job }

func (l *jobList) Next() (*scheduler.Job, error) {
	if len(l.jobs) == 0 {
		return nil, io.EOF
	}
	j := &l.jobs[0]
	l.jobs = l.jobs[1:]
	return j, nil
}

type discard struct{}

func (discard) Job(*scheduler.JobResult) error { return nil }
func (discard) Sample(*scheduler.Sample) error { return nil }

// A gang's fit is the placement's own choices: a random placement that
// finds a place for it on arrival and none at the end leaves it
// unschedulable, not an error.
func TestRandomGangNotAnError(t *testing.T) {
	c := &scheduler.Cluster{Name: "g", Nodes: []scheduler.Node{
		{Name: "a", CPU: 8000, Mem: 1024, GPUs: 4, Model: "V100"},
		{Name: "b", CPU: 8000, Mem: 1024, GPUs: 1, Model: "V100"},
	}}
	gang := scheduler.Job{ID: 1, Submit: 0, Run: 10, Tasks: []scheduler.Task{
		{Replicas: 1, Request: scheduler.Request{CPU: 1000, GPUs: 1}},
		{Replicas: 1, Request: scheduler.Request{CPU: 1000, GPUs: 4}},
	}}
	for seed := range uint64(40) {
		s, err := scheduler.DefaultParts().Build(scheduler.Spec{Placement: "random", Estimate: "exact", Seed: seed})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := scheduler.Simulate(c, []scheduler.Job{gang}, s); err != nil {
			t.Errorf("seed %d: %v", seed, err)
		}
	}
}

// TestGangBlockedNotAnError: a gang that a placement with memory (round-
// robin's cursor, random's draws) fit on arrival and splits otherwise
// later holds the jobs behind it back; under every backfill the run ends
// with them unschedulable, not in a panic (conservative found no
// reservation in the empty cluster) nor an error naming the placement.
func TestGangBlockedNotAnError(t *testing.T) {
	c := &scheduler.Cluster{Name: "g", Nodes: []scheduler.Node{
		{Name: "a", CPU: 8000, Mem: 1024, GPUs: 4, Model: "V100"},
		{Name: "b", CPU: 8000, Mem: 1024, GPUs: 1, Model: "V100"},
	}}
	jobs := []scheduler.Job{
		{ID: 0, Submit: 0, Run: 100, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: 1000, GPUs: 1}}}},
		{ID: 1, Submit: 1, Run: 10, Tasks: []scheduler.Task{
			{Replicas: 1, Request: scheduler.Request{CPU: 1000, GPUs: 1}},
			{Replicas: 1, Request: scheduler.Request{CPU: 1000, GPUs: 4}},
		}},
		{ID: 2, Submit: 2, Run: 10, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: 1000}}}},
		{ID: 3, Submit: 3, Run: 10, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: 1000}}}},
	}
	for _, placement := range []string{"round-robin", "random"} {
		for _, backfill := range []string{"none", "easy", "conservative"} {
			for seed := range uint64(20) {
				s, err := scheduler.DefaultParts().Build(scheduler.Spec{Placement: placement, Backfill: backfill, Estimate: "exact", Seed: seed})
				if err != nil {
					t.Fatal(err)
				}
				r, err := scheduler.Simulate(c, jobs, s)
				if err != nil {
					t.Errorf("%s, %s, seed %d: %v", placement, backfill, seed, err)
					continue
				}
				if n := r.Summary.Completed + r.Summary.Unschedulable; n != len(jobs) {
					t.Errorf("%s, %s, seed %d: %d of %d jobs accounted for", placement, backfill, seed, n, len(jobs))
				}
			}
		}
	}
}

// worstFree is a placement written carelessly, from s.Free instead of
// s.Fits: each replica on the node with the most free GPU milli and room
// for its processors, whatever the GPU models the replica allows.
type worstFree struct{}

func (worstFree) Name() string { return "worst-free" }

func (worstFree) Choose(s *scheduler.State, a *scheduler.Ask) int {
	best, most := -1, scheduler.MilliGPU(-1)
	for i := 0; i < s.Len(); i++ {
		if f := s.Free(i); f.CPU >= a.CPU && f.GPU > most {
			best, most = i, f.GPU
		}
	}
	return best
}

// fixedNode is a placement that puts every replica on one node, whether
// it fits or not (or exists).
type fixedNode int

func (fixedNode) Name() string { return "fixed" }

func (n fixedNode) Choose(*scheduler.State, *scheduler.Ask) int { return int(n) }

// gpuOf is a placement that shares GPU gpu of the first node that fits.
type gpuOf struct {
	lastFit
	gpu int
}

func (g gpuOf) ChooseGPU(*scheduler.State, int, *scheduler.Ask) int { return g.gpu }

// batchAt is a batch placement that puts every replica of the first
// waiting job on one node.
type batchAt struct {
	lastFit
	node int32
}

func (b batchAt) PlaceBatch(_ *scheduler.State, _ []scheduler.Waiting, nodes []int32) {
	for k := range nodes {
		nodes[k] = -1
	}
	nodes[0] = b.node
}

// TestPlacementAnswerChecked: a placement's answer is taken only where
// the replica fits: a node out of range, or one where the replica does
// not fit (its capacity, its GPU model, a pooled ask on GPU devices, a
// gang not held whole), or a GPU that does not hold a share, is an error
// of Simulate and Stream naming the placement, the job and the node, not
// a panic nor a replica on GPUs its job excludes.
func TestPlacementAnswerChecked(t *testing.T) {
	gpuJob := func(id int64, gpus int, milli scheduler.MilliGPU, models ...string) scheduler.Job {
		return scheduler.Job{ID: id, Submit: scheduler.Time(id), Run: 10, Tasks: []scheduler.Task{{Replicas: 1,
			Request: scheduler.Request{CPU: 1000, GPUs: gpus, GPUMilli: milli, Models: models}}}}
	}
	node := func(name string, gpus, pool int, model string) scheduler.Node {
		return scheduler.Node{Name: name, CPU: 4000, Mem: 1024, GPUs: gpus, PoolGPUs: pool, Model: model}
	}
	v100t4 := &scheduler.Cluster{Name: "c", Nodes: []scheduler.Node{node("v", 2, 0, "V100"), node("t", 4, 0, "T4")}}
	k80v100 := &scheduler.Cluster{Name: "c", Nodes: []scheduler.Node{node("k", 2, 0, "K80"), node("v", 2, 0, "V100")}}
	devPool := &scheduler.Cluster{Name: "c", Nodes: []scheduler.Node{node("dev", 4, 0, "V100"), node("pool", 0, 4, "V100")}}
	cpuJob := func(id int64) scheduler.Job {
		return scheduler.Job{ID: id, Submit: 0, Run: 10, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: 3000}}}}
	}
	gang := scheduler.Job{ID: 4, Run: 10, Tasks: []scheduler.Task{{Replicas: 2, Request: scheduler.Request{CPU: 1000, GPUs: 2}}}}
	for _, c := range []struct {
		name        string
		p           scheduler.Placement
		backfill    string
		consolidate bool
		cl          *scheduler.Cluster
		jobs        []scheduler.Job
		want        string
	}{
		{"model", worstFree{}, "none", false, v100t4, []scheduler.Job{gpuJob(1, 1, 0, "V100")},
			`placement worst-free (job 1) chose node 1 for a replica, where it does not fit: the node's GPU model is not one the replica allows; node 1 is "t", of T4 GPUs`},
		{"model, conservative", worstFree{}, "conservative", false, v100t4, []scheduler.Job{gpuJob(1, 2, 0), gpuJob(2, 1, 0, "V100"), gpuJob(3, 1, 0, "V100")},
			`placement worst-free (job 3) chose node 1 for a replica, where it does not fit: the node's GPU model is not one the replica allows`},
		{"node 0", fixedNode(0), "easy", false, k80v100, []scheduler.Job{gpuJob(1, 1, 0, "v100")},
			`placement fixed (job 1) chose node 0 for a replica, where it does not fit: the node's GPU model is not one the replica allows; node 0 is "k", of K80 GPUs`},
		{"pooled ask", fixedNode(0), "none", false, devPool, []scheduler.Job{gpuJob(1, 1, 1500)},
			`placement fixed (job 1) chose node 0 for a replica, where it does not fit: it asks 1500 milli of GPU as one quantity, which only a GPU pool holds`},
		{"over capacity", fixedNode(0), "none", false, k80v100, []scheduler.Job{cpuJob(1), cpuJob(2)},
			`placement fixed (job 2) chose node 0 for a replica, where it does not fit: it asks 3000 milli-cores and 1000 are free`},
		{"out of range", fixedNode(2), "none", false, k80v100, []scheduler.Job{cpuJob(1)},
			`placement fixed (job 1) chose node 2 for a replica, and the cluster's nodes are 0 to 1`},
		{"gang", fixedNode(0), "none", true, v100t4, []scheduler.Job{gang},
			`placement fixed (job 4) chose node 0 for a gang of 2 replicas, where it does not fit: the node does not hold the whole gang of 4 GPUs`},
		{"GPU", gpuOf{gpu: 5}, "none", false, v100t4, []scheduler.Job{gpuJob(1, 1, 500)},
			`placement last-fit (job 1) chose GPU 5 of node 1 for a share of 500 milli, and the node's GPUs are 0 to 3`},
		{"batch", batchAt{node: 7}, "none", false, v100t4, []scheduler.Job{gpuJob(1, 1, 0)},
			`placement last-fit (job 1) chose node 7 for a replica, and the cluster's nodes are 0 to 1`},
		// below -1 is no node in a batch's answer as in Choose's (it was
		// read as -1, the job left queued to the end)
		{"batch below -1", batchAt{node: -5}, "none", false, v100t4, []scheduler.Job{gpuJob(1, 1, 0)},
			`placement last-fit (job 1) answered -5 for a replica: want a node, 0 to 1, or -1 where none fits`},
	} {
		s := scheduler.Scheduler{Order: scheduler.FIFO{}, Backfill: scheduler.NoBackfill{}, Placement: c.p, Estimator: scheduler.Exact{}, Consolidate: c.consolidate}
		switch c.backfill {
		case "easy":
			s.Backfill = scheduler.EASY{}
		case "conservative":
			s.Backfill = scheduler.Conservative{}
		}
		_, err := scheduler.Simulate(c.cl, c.jobs, s)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Simulate: %v\nwant %s", c.name, err, c.want)
		}
		_, err = scheduler.Stream(c.cl, &jobList{jobs: c.jobs}, s, discard{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Stream: %v\nwant %s", c.name, err, c.want)
		}
	}
}

// boom is a part of every kind that panics where it is told to.
type boom struct{ in string }

func (boom) Name() string { return "boom" }

func (b boom) Choose(s *scheduler.State, a *scheduler.Ask) int {
	if b.in == "choose" {
		var none []int
		return none[s.Len()] // index out of range
	}
	return lastFit{}.Choose(s, a)
}

func (b boom) Estimate(j *scheduler.Job) scheduler.Time {
	if b.in == "estimate" && j.ID == 2 {
		panic("no estimate for job 2")
	}
	return j.Run
}

func (b boom) Backfill(p *scheduler.Pass) {
	if b.in == "backfill" {
		panic(fmt.Errorf("cannot backfill at %d", p.Now()))
	}
}

// boomTracker panics when a replica of its second job is placed.
type boomTracker struct{ boom }

func (boomTracker) Placed(sl *scheduler.Slot) {
	if sl.CPU == 2000 {
		panic("tracker full")
	}
}
func (boomTracker) Released(*scheduler.Slot) {}

// TestPartPanicIsAnError: a part that panics ends Simulate and Stream with
// an error naming the part and, where the parts were being asked about
// one, the job; a panic of the engine's own is not caught.
func TestPartPanicIsAnError(t *testing.T) {
	job := func(id int64, procs scheduler.MilliCPU) scheduler.Job {
		return scheduler.Job{ID: id, Submit: scheduler.Time(id), Run: 10, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: procs}}}}
	}
	jobs := []scheduler.Job{job(1, 3000), job(2, 2000), job(3, 3000), job(4, 1000)}
	c := &scheduler.Cluster{Name: "c", Nodes: []scheduler.Node{{Name: "a", CPU: 4000, Mem: 1024}, {Name: "b", CPU: 4000, Mem: 1024}}}
	for _, k := range []struct {
		s    scheduler.Scheduler
		want string
	}{
		{scheduler.Scheduler{Order: scheduler.FIFO{}, Backfill: scheduler.EASY{}, Placement: boom{"choose"}, Estimator: scheduler.Exact{}},
			"scheduler fifo+easy+boom+exact: placement boom (job 1) panicked: runtime error: index out of range [2] with length 0"},
		{scheduler.Scheduler{Order: scheduler.FIFO{}, Backfill: scheduler.EASY{}, Placement: lastFit{}, Estimator: boom{"estimate"}},
			"scheduler fifo+easy+last-fit+boom: estimator boom (job 2) panicked: no estimate for job 2"},
		{scheduler.Scheduler{Order: scheduler.FIFO{}, Backfill: scheduler.RuleBackfill(boom{"backfill"}), Placement: lastFit{}, Estimator: scheduler.Exact{}},
			"scheduler fifo+boom+last-fit+exact: backfill boom panicked: cannot backfill at 4"},
		{scheduler.Scheduler{Order: scheduler.FIFO{}, Backfill: scheduler.Conservative{}, Placement: boomTracker{}, Estimator: scheduler.Exact{}},
			"scheduler fifo+conservative+boom+exact: placement boom (job 2) panicked: tracker full"},
	} {
		// two nodes of 4 processors: job 3 does not fit beside jobs 1 and 2,
		// and job 4 queues behind it: the backfill rule runs at 4
		_, err := scheduler.Simulate(c, jobs, k.s)
		if err == nil || err.Error() != k.want {
			t.Errorf("Simulate: %v\nwant %s", err, k.want)
		}
		// the stack says where it was raised (the run file keeps it)
		if pp := (*scheduler.PartPanic)(nil); !errors.As(err, &pp) || !strings.Contains(string(pp.Stack), "plugin_test.go") {
			t.Errorf("Simulate: %v: no stack of the part's panic", err)
		}
		if _, err := scheduler.Stream(c, &jobList{jobs: jobs}, k.s, discard{}); err == nil || err.Error() != k.want {
			t.Errorf("Stream: %v\nwant %s", err, k.want)
		}
	}
}

// shrinker is last-fit that, against Placement's contract, changes the
// ask it is given once it has answered: to no GPUs and no processors (and
// a share to 1 milli).
type shrinker struct{ lastFit }

func (shrinker) Choose(s *scheduler.State, a *scheduler.Ask) int {
	i := lastFit{}.Choose(s, a)
	a.GPUs, a.CPU = 0, 0
	return i
}

func (shrinker) ChooseGPU(_ *scheduler.State, _ int, a *scheduler.Ask) int {
	a.Milli = 1
	return -1
}

// firstWaiting is a batch placement that places the first waiting job
// (of one replica) last-fit and, with shrink, then changes every waiting
// job's asks and replica counts.
type firstWaiting struct {
	lastFit
	shrink bool
}

func (b firstWaiting) PlaceBatch(s *scheduler.State, w []scheduler.Waiting, nodes []int32) {
	for k := range nodes {
		nodes[k] = -1
	}
	nodes[0] = int32(lastFit{}.Choose(s, &w[0].Asks[0]))
	if b.shrink {
		for k := range w {
			w[k].Asks[0].GPUs, w[k].Asks[0].CPU = 0, 0
			w[k].Reps[0] = 0
		}
	}
}

// TestAskEditedByPlacement: a placement that changes the ask it is given
// (Choose, ChooseGPU, or the waiting jobs' asks and replica counts in
// PlaceBatch) changes nothing the engine takes: the schedule is that of
// the same placement without the change, and no GPU is counted twice (it
// was: every job started at once on GPUs it did not take, util_gpu 1.95).
func TestAskEditedByPlacement(t *testing.T) {
	c := &scheduler.Cluster{Name: "c", Nodes: []scheduler.Node{
		{Name: "a", CPU: 4000, Mem: 1024, GPUs: 2, Model: "V100"}, {Name: "b", CPU: 4000, Mem: 1024, GPUs: 2, Model: "V100"}}}
	var jobs []scheduler.Job
	for id := range int64(6) {
		req := scheduler.Request{CPU: 1000, GPUs: 2}
		if id%2 == 1 {
			req = scheduler.Request{CPU: 1000, GPUs: 1, GPUMilli: 600}
		}
		jobs = append(jobs, scheduler.Job{ID: id, Run: 10, Tasks: []scheduler.Task{{Replicas: 1, Request: req}}})
	}
	sim := func(p scheduler.Placement) *scheduler.Result {
		t.Helper()
		r, err := scheduler.Simulate(c, jobs, scheduler.Scheduler{Order: scheduler.FIFO{}, Backfill: scheduler.EASY{}, Placement: p, Estimator: scheduler.Exact{}})
		if err != nil {
			t.Fatalf("%T: %v", p, err)
		}
		return r
	}
	for _, p := range []struct{ edits, keeps scheduler.Placement }{
		{shrinker{}, lastFit{}}, {firstWaiting{shrink: true}, firstWaiting{}},
	} {
		r, want := sim(p.edits), sim(p.keeps)
		if r.Summary.UtilGPU > 1 {
			t.Errorf("%T: util_gpu %g", p.edits, r.Summary.UtilGPU)
		}
		for k := range r.Jobs {
			if g, w := r.Jobs[k], want.Jobs[k]; g.Start != w.Start || !slices.Equal(g.Slots, w.Slots) {
				t.Errorf("%T: job %d starts at %d on %v, want %d on %v", p.edits, g.ID, g.Start, g.Slots, w.Start, w.Slots)
			}
		}
	}
}

// lastGPU is a JobPlacement, last-fit preferring the first node's GPU
// model, that also chooses a share's GPU: the highest-numbered that
// holds it.
type lastGPU struct{ lastFit }

func (lastGPU) Rank(s *scheduler.State, c *scheduler.JobContext, dst []scheduler.ModelSet) []scheduler.ModelSet {
	return append(dst, c.ModelOf(s, 0))
}

func (lastGPU) ChooseFor(s *scheduler.State, a *scheduler.Ask, _ *scheduler.JobContext) int {
	return lastFit{}.Choose(s, a)
}

func (lastGPU) ChooseGPU(s *scheduler.State, i int, a *scheduler.Ask) int {
	for g := s.GPUCount(i) - 1; g >= 0; g-- {
		if s.GPUFree(i, g) >= a.Milli {
			return g
		}
	}
	return -1
}

// TestGPUChooserWithJob: a placement that places with the job in view
// (JobPlacement) and chooses a share's GPU (GPUChooser) has its GPU
// choice taken, on the path of a ranked group of models and on the
// cluster as a whole (it was never asked: a share took the tightest GPU,
// 0).
func TestGPUChooserWithJob(t *testing.T) {
	c := &scheduler.Cluster{Name: "c", Nodes: []scheduler.Node{
		{Name: "v", CPU: 4000, Mem: 1024, GPUs: 4, Model: "V100"}, {Name: "k", CPU: 4000, Mem: 1024, GPUs: 4, Model: "K80"}}}
	share := func(id int64, models ...string) scheduler.Job {
		return scheduler.Job{ID: id, Run: 10, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: 1000, GPUs: 1, GPUMilli: 500, Models: models}}}}
	}
	// job 1 goes to the V100s, the group Rank gives; job 2, K80 only, to
	// the cluster as a whole
	jobs := []scheduler.Job{share(1), share(2, "K80")}
	for _, backfill := range []scheduler.Backfill{scheduler.NoBackfill{}, scheduler.Conservative{}} {
		r, err := scheduler.Simulate(c, jobs, scheduler.Scheduler{Order: scheduler.FIFO{}, Backfill: backfill, Placement: lastGPU{}, Estimator: scheduler.Exact{}})
		if err != nil {
			t.Fatal(err)
		}
		for k, want := range []scheduler.Slot{{Node: 0, Shared: 3, Milli: 500, CPU: 1000}, {Node: 1, Shared: 3, Milli: 500, CPU: 1000}} {
			if got := r.Jobs[k].Slots[0]; got != want {
				t.Errorf("%s: job %d on %+v, want %+v", backfill.Name(), r.Jobs[k].ID, got, want)
			}
		}
	}
}

// shortener is an estimator that, against its contract, shortens the job
// it is handed to a second, and renames it.
type shortener struct{}

func (shortener) Name() string { return "shortener" }

func (shortener) Estimate(j *scheduler.Job) scheduler.Time {
	j.Run, j.Name = 1, "shortened"
	return 1
}

// TestJobsNotChanged: Simulate leaves the caller's jobs as they were,
// whatever a part does to the jobs it is handed (an estimator that set
// Run changed the caller's job).
func TestJobsNotChanged(t *testing.T) {
	var jobs []scheduler.Job
	for id := range int64(4) {
		jobs = append(jobs, scheduler.Job{ID: id, Submit: 10 - scheduler.Time(id), Run: 100, Name: "j",
			Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: 1000}}}})
	}
	before := slices.Clone(jobs)
	s := scheduler.Scheduler{Order: scheduler.FIFO{}, Backfill: scheduler.EASY{}, Placement: scheduler.FirstFit{}, Estimator: shortener{}}
	if _, err := scheduler.Simulate(scheduler.NewPool("p", 1), jobs, s); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(jobs, before) {
		t.Errorf("jobs changed:\n%+v\nwere\n%+v", jobs, before)
	}
}

// TestSchedulerUsedOnce: a scheduler from Build (or a copy of it) is
// refused a second simulation, streamed or not, which would have started
// from what its parts remember of the first (round-robin's cursor went on
// from where the first left it); a failed check does not use it, and a
// scheduler put together by hand is not checked.
func TestSchedulerUsedOnce(t *testing.T) {
	c := &scheduler.Cluster{Name: "c", Nodes: []scheduler.Node{{Name: "a", CPU: 4000, Mem: 1024}, {Name: "b", CPU: 4000, Mem: 1024}}}
	jobs := []scheduler.Job{{ID: 1, Run: 10, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: 1000}}}}}
	s, err := scheduler.DefaultParts().Build(scheduler.Spec{Placement: "round-robin"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := scheduler.Simulate(&scheduler.Cluster{Name: "empty"}, jobs, s); err == nil {
		t.Fatal("an empty cluster: accepted")
	}
	r, err := scheduler.Simulate(c, jobs, s)
	if err != nil || r.Jobs[0].Slots[0].Node != 0 {
		t.Fatalf("first simulation: %v", err)
	}
	const want = "scheduler fifo+none+round-robin+user: already used by a simulation, which its parts remember (round-robin's cursor, random's draws, an estimator's history): build a fresh one (Parts.Build) for each simulation"
	if _, err := scheduler.Simulate(c, jobs, s); err == nil || err.Error() != want {
		t.Errorf("second simulation: %v", err)
	}
	copied := s
	copied.Estimator = scheduler.Exact{}
	if _, err := scheduler.Stream(c, &jobList{jobs: jobs}, copied, discard{}); err == nil || !strings.Contains(err.Error(), "already used by a simulation") {
		t.Errorf("streamed, a copy: %v", err)
	}
	byHand := scheduler.Scheduler{Order: scheduler.FIFO{}, Backfill: scheduler.NoBackfill{}, Placement: scheduler.FirstFit{}, Estimator: scheduler.Exact{}}
	for range 2 {
		if _, err := scheduler.Simulate(c, jobs, byHand); err != nil {
			t.Errorf("by hand: %v", err)
		}
	}
}

// drawer is a placement written outside the package that draws in every
// Choose (through a Random of its own) and says so when says is set.
type drawer struct {
	r    *scheduler.Random
	says bool
}

func (drawer) Name() string { return "drawer" }

func (d drawer) Choose(s *scheduler.State, a *scheduler.Ask) int { return d.r.Choose(s, a) }

func (d drawer) ChooseGPU(s *scheduler.State, i int, a *scheduler.Ask) int {
	return d.r.ChooseGPU(s, i, a)
}

func (d drawer) ChoosesAtRandom() bool { return d.says }

// TestRandomChooserOutside: a placement from outside the package that
// draws in Choose and says so (RandomChooser) gets, under conservative
// backfilling, the schedule Random gets from the same draws: every job
// reserved, every window placed afresh (the engine knew Random only by its
// type, and took its shortcuts for any other).
func TestRandomChooserOutside(t *testing.T) {
	c := &scheduler.Cluster{Name: "c"}
	for i := range 4 {
		c.Nodes = append(c.Nodes, scheduler.Node{Name: fmt.Sprint(i), CPU: 16000, Mem: 65536, GPUs: 4, Model: "V100"})
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var jobs []scheduler.Job
	for id := range int64(120) {
		req := scheduler.Request{CPU: 1000 * scheduler.MilliCPU(1+rng.IntN(4)), GPUs: 1 + rng.IntN(4)}
		if rng.IntN(3) == 0 {
			req.GPUs, req.GPUMilli = 1, scheduler.MilliGPU(100*(1+rng.IntN(9)))
		}
		jobs = append(jobs, scheduler.Job{ID: id, Submit: scheduler.Time(id * 5), Run: scheduler.Time(10 + rng.IntN(300)),
			Tasks: []scheduler.Task{{Replicas: 1 + rng.IntN(2), Request: req}}})
	}
	run := func(p scheduler.Placement) []scheduler.JobResult {
		t.Helper()
		r, err := scheduler.Simulate(c, jobs, scheduler.Scheduler{Order: scheduler.FIFO{}, Backfill: scheduler.Conservative{}, Placement: p, Estimator: scheduler.Exact{}})
		if err != nil {
			t.Fatal(err)
		}
		return r.Jobs
	}
	draws := func() *scheduler.Random { return scheduler.NewRandom(rand.New(rand.NewPCG(7, 8))) }
	want := run(draws())
	got := run(drawer{r: draws(), says: true})
	for k := range want {
		if got[k].Start != want[k].Start || !slices.Equal(got[k].Slots, want[k].Slots) {
			t.Fatalf("job %d starts at %d on %v, Random's at %d on %v", want[k].ID, got[k].Start, got[k].Slots, want[k].Start, want[k].Slots)
		}
	}
	// the shortcuts change the draws here: the test can tell
	if quiet := run(drawer{r: draws()}); slices.EqualFunc(quiet, want, func(a, b scheduler.JobResult) bool { return a.Start == b.Start && slices.Equal(a.Slots, b.Slots) }) {
		t.Error("a drawer that does not say it draws gets Random's schedule too")
	}
}

// TestSequenceAnswerChecked: the FGD replay's Sequence takes a
// placement's answer only where the replica fits, as the simulator does:
// a node out of range or one the replica does not fit, from Choose or
// from a batch placement, and a panic in the placement's methods, are
// errors naming the placement and the replica, not a panic nor a replica
// silently left unplaced.
func TestSequenceAnswerChecked(t *testing.T) {
	c := &scheduler.Cluster{Name: "c", Nodes: []scheduler.Node{
		{Name: "k", CPU: 4000, Mem: 1024, GPUs: 2, Model: "K80"}, {Name: "v", CPU: 4000, Mem: 1024, GPUs: 2, Model: "V100"}}}
	for _, tc := range []struct {
		name string
		p    scheduler.Placement
		req  scheduler.Request
		want string
	}{
		{"model", fixedNode(0), scheduler.Request{CPU: 1000, GPUs: 1, Models: []string{"V100"}},
			"placement fixed (replica 1 of the sequence) chose node 0 for a replica, where it does not fit: the node's GPU model is not one the replica allows"},
		{"out of range", fixedNode(5), scheduler.Request{CPU: 1000},
			"placement fixed (replica 1 of the sequence) chose node 5 for a replica, and the cluster's nodes are 0 to 1"},
		{"batch", batchAt{node: 7}, scheduler.Request{CPU: 1000},
			"placement last-fit (replica 1 of the sequence) chose node 7 for a replica, and the cluster's nodes are 0 to 1"},
		{"panic", boom{in: "choose"}, scheduler.Request{CPU: 1000},
			"placement boom (replica 1 of the sequence) panicked: runtime error: index out of range"},
	} {
		q, err := scheduler.NewSequence(c, tc.p)
		if err != nil {
			t.Fatal(err)
		}
		_, ok, err := q.Place(tc.req)
		if ok || err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: placed %v, %v\nwant %s", tc.name, ok, err, tc.want)
		}
	}
	// a good answer, and a replica that fits nowhere: no error
	q, err := scheduler.NewSequence(c, lastFit{})
	if err != nil {
		t.Fatal(err)
	}
	if sl, ok, err := q.Place(scheduler.Request{CPU: 1000, GPUs: 2}); !ok || err != nil || sl.Node != 1 {
		t.Errorf("last-fit: node %d, %v, %v", sl.Node, ok, err)
	}
	if _, ok, err := q.Place(scheduler.Request{CPU: 1000, GPUs: 3}); ok || err != nil {
		t.Errorf("3 GPUs on nodes of 2: placed %v, %v", ok, err)
	}
}

// alwaysLess is a queue order that puts every job before every other,
// itself included: no strict weak order.
type alwaysLess struct{ scheduler.FIFO }

func (alwaysLess) Name() string                    { return "always-less" }
func (alwaysLess) Less(a, b *scheduler.Entry) bool { return true }

// TestOrderNotStrict: a queue order whose Less says a job comes before
// itself is an error naming it (it ran to the end with the queue in no
// order).
func TestOrderNotStrict(t *testing.T) {
	cl := &scheduler.Cluster{Name: "c", Nodes: []scheduler.Node{{Name: "n", CPU: 4000, Mem: 1024}}}
	jobs := []scheduler.Job{{ID: 1, Run: 10, Tasks: []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: 1000}}}}}
	s := scheduler.Scheduler{Order: alwaysLess{}, Backfill: scheduler.EASY{}, Placement: scheduler.FirstFit{}, Estimator: scheduler.Exact{}}
	want := "queue order always-less (job 1) puts a job before itself (its Less(a, a) is true)"
	if _, err := scheduler.Simulate(cl, jobs, s); err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Simulate: %v\nwant %s", err, want)
	}
}

// misnamed is a placement whose Name is not the name it is registered
// under; nilOrder's constructor makes nothing.
type misnamed struct{ lastFit }

func (misnamed) Name() string { return "other-name" }

// panicky panics in Configure.
type panicky struct{ lastFit }

func (*panicky) Configure(scheduler.Args, scheduler.Run) error { panic("configure boom") }

// TestRegisterAndBuildChecked: a registry refuses a nil constructor and a
// name a scheduler's name could not hold; Build names the part whose
// constructor makes nothing or panics, whose Name is not its registered
// name, or whose Configure panics, where each crashed or mislabelled
// results.
func TestRegisterAndBuildChecked(t *testing.T) {
	p := scheduler.DefaultParts()
	for _, c := range []struct {
		name string
		f    func() scheduler.Placement
		want string
	}{
		{"nil-ctor", nil, `placement "nil-ctor": the constructor is nil`},
		{"a+b", func() scheduler.Placement { return lastFit{} }, `placement "a+b": a part's name is lower-case letters`},
		{"Upper-Fit", func() scheduler.Placement { return lastFit{} }, `placement "Upper-Fit": a part's name is lower-case letters`},
		{"two words", func() scheduler.Placement { return lastFit{} }, `placement "two words": a part's name is lower-case`},
	} {
		if err := p.Placements.Register(c.name, c.f); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Register(%q): %v, want %s", c.name, err, c.want)
		}
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	must(p.Placements.Register("makes-nil", func() scheduler.Placement { return nil }))
	must(p.Placements.Register("ctor-panics", func() scheduler.Placement { panic("ctor boom") }))
	must(p.Placements.Register("misnamed", func() scheduler.Placement { return misnamed{} }))
	must(p.Placements.Register("last-fit", func() scheduler.Placement { return &panicky{} }))
	for _, c := range []struct{ placement, want string }{
		{"makes-nil", `placement "makes-nil": its constructor returned nil`},
		{"ctor-panics", `placement "ctor-panics": its constructor panicked: ctor boom`},
		{"misnamed", `placement "misnamed": its Name() is "other-name": a part's Name is the name it is registered under`},
		{"last-fit", `last-fit: Configure panicked: configure boom`},
	} {
		if _, err := p.Build(scheduler.Spec{Placement: c.placement}); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Build(%s): %v, want %s", c.placement, err, c.want)
		}
	}
}

// toggle is a setting that decodes itself: true, false or "auto" (true).
type toggle bool

func (t *toggle) UnmarshalYAML(n *yaml.Node) error {
	*t = n.Value == "auto" || n.Value == "true"
	return nil
}

// percent decodes a fraction as a whole percent.
type percent int

func (p *percent) UnmarshalYAML(n *yaml.Node) error {
	var f float64
	if err := n.Decode(&f); err != nil {
		return err
	}
	*p = percent(f * 100)
	return nil
}

// bounds decodes itself as a whole, requiring hi.
type bounds struct {
	Lo, Hi int
}

func (b *bounds) UnmarshalYAML(n *yaml.Node) error {
	var raw struct {
		Lo int  `yaml:"lo"`
		Hi *int `yaml:"hi"`
	}
	if err := n.Decode(&raw); err != nil {
		return err
	}
	if raw.Hi == nil {
		return errors.New("hi is required")
	}
	b.Lo, b.Hi = raw.Lo, *raw.Hi
	return nil
}

// TestArgsOwnTypes: a setting of a type that decodes itself is its own
// judge (the kinds' strictness refused "auto" for a toggle and a fraction
// for a percent), settings that decode themselves as a whole are decoded
// whole and say their own reason, and null leaves a pointer setting unset
// (a reviewer's find in this check's first form).
func TestArgsOwnTypes(t *testing.T) {
	var p struct {
		T toggle  `yaml:"t"`
		P percent `yaml:"p"`
		F *bool   `yaml:"f"`
	}
	if err := (scheduler.Args{"t": "auto", "p": 0.5, "f": nil}).Decode("part", &p); err != nil || !bool(p.T) || p.P != 50 || p.F != nil {
		t.Errorf("decoded %+v: %v", p, err)
	}
	var b bounds
	if err := (scheduler.Args{"lo": 1, "hi": 5}).Decode("part", &b); err != nil || b != (bounds{1, 5}) {
		t.Errorf("decoded %+v: %v", b, err)
	}
	if err := (scheduler.Args{"lo": 1}).Decode("part", &b); err == nil || !strings.Contains(err.Error(), "part: arguments lo=1: hi is required") {
		t.Errorf("hi missing: %v", err)
	}
}

// TestArgsStrict: a setting's value is held to its field's kind (a whole
// number without a fraction, true or false not a string), and each
// setting wrong is said on a line of its own with its name and what it
// wants, where YAML's decoder cut a fraction off, read "on" as true, and
// joined two type errors on one line naming neither setting.
func TestArgsStrict(t *testing.T) {
	type params struct {
		N     int      `yaml:"n"`
		Flag  bool     `yaml:"flag"`
		Names []string `yaml:"names"`
		X     float64  `yaml:"x"`
	}
	var p params
	if err := (scheduler.Args{"n": 2.0, "flag": true, "names": []any{"a"}, "x": 1}).Decode("part", &p); err != nil || p.N != 2 || !p.Flag || p.X != 1 {
		t.Fatalf("decoded %+v: %v", p, err)
	}
	for _, c := range []struct {
		args scheduler.Args
		want string
	}{
		{scheduler.Args{"n": 1.5}, "part: arguments n=1.5: n: 1.5: want a whole number"},
		{scheduler.Args{"n": 2.9999}, "n: 2.9999: want a whole number"},
		{scheduler.Args{"flag": "on"}, "flag: on: want true or false"},
		{scheduler.Args{"n": "x"}, "n: x: want a whole number"},
		{scheduler.Args{"names": "a"}, "names: a: want a list of strings"},
		{scheduler.Args{"n": "x", "flag": 1}, "part: arguments flag=1, n=x: flag: 1: want true or false\npart: arguments flag=1, n=x: n: x: want a whole number"},
	} {
		err := c.args.Decode("part", &params{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: %v\nwant %s", c.args, err, c.want)
		}
	}
}
