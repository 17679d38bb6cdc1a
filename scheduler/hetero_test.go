package scheduler

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// speedEstimator is a stand-in for the predictor's "model" estimate: it
// ignores RunOn and predicts Run scaled by a per-model slowdown (k80 three
// times slower than v100), divided over the GPUs.
type speedEstimator struct {
	calls *[]string // "model/gpus" of every EstimateOn, when set
}

func (speedEstimator) Name() string { return "speed" }

func (speedEstimator) Estimate(j *Job) Time { return j.Run }

func (e speedEstimator) EstimateOn(j *Job, model string, gpus int) Time {
	if e.calls != nil {
		*e.calls = append(*e.calls, fmt.Sprintf("%s/%d", model, gpus))
	}
	f := map[string]Time{"k80": 3, "t4": 2, "v100": 1}[model]
	if f == 0 {
		f = 5
	}
	return f * j.Run
}

func heteroParts() *Parts {
	p := DefaultParts()
	if err := p.Estimators.Register("speed", func() Estimator { return speedEstimator{} }); err != nil {
		panic(err)
	}
	return p
}

func buildHetero(t testing.TB, sp Spec) Scheduler {
	t.Helper()
	s, err := heteroParts().Build(sp)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// k80v100 is two 4-GPU K80 nodes (0, 1) then two 4-GPU V100 nodes (2, 3).
func k80v100() *Cluster {
	return gpuCluster(
		Node{Name: "k0", CPU: 32000, Mem: 65536, GPUs: 4, Model: "K80"},
		Node{Name: "k1", CPU: 32000, Mem: 65536, GPUs: 4, Model: "K80"},
		Node{Name: "v0", CPU: 32000, Mem: 65536, GPUs: 4, Model: "V100"},
		Node{Name: "v1", CPU: 32000, Mem: 65536, GPUs: 4, Model: "V100"},
	)
}

// dlJob is a job that runs three times longer on a K80 than on a V100.
func dlJob(id int64, submit Time, replicas, gpus int) Job {
	j := gpuJob(id, submit, 100, replicas, Request{CPU: 1000, Mem: 1024, GPUs: gpus})
	j.RunOn = map[string]Time{"k80": 300, "v100": 100}
	j.Model, j.Batch, j.Steps = "resnet18-cifar", 128, 100
	return j
}

func nodesOf(r *JobResult) []int {
	var n []int
	for _, s := range r.Slots {
		n = append(n, int(s.Node))
	}
	return n
}

func TestFastestRegistered(t *testing.T) {
	if !slices.Contains(DefaultParts().Placements.Names(), "fastest") {
		t.Fatal("fastest is not in DefaultParts")
	}
	s := build(t, Spec{Placement: "fastest", Estimate: "exact"})
	r, err := Simulate(k80v100(), []Job{dlJob(1, 0, 1, 1)}, s)
	if err != nil {
		t.Fatal(err)
	}
	if r.Parts.Placement != "fastest" || r.Scheduler != "fifo+none+fastest+exact" {
		t.Errorf("parts %+v, scheduler %q", r.Parts, r.Scheduler)
	}
}

// TestFastestPrefersFasterModel: first-fit takes the first node, a K80;
// fastest takes the V100, where the job is predicted, and runs, faster.
func TestFastestPrefersFasterModel(t *testing.T) {
	for _, est := range []string{"exact", "speed"} {
		for _, tc := range []struct {
			placement string
			node      int
			end       Time
		}{{"first-fit", 0, 300}, {"fastest", 2, 100}} {
			name := tc.placement + "/" + est
			r, err := Simulate(k80v100(), []Job{dlJob(1, 0, 1, 1)}, buildHetero(t, Spec{Placement: tc.placement, Estimate: est}))
			if err != nil {
				t.Fatal(name, err)
			}
			j := &r.Jobs[0]
			if got := nodesOf(j); !reflect.DeepEqual(got, []int{tc.node}) {
				t.Errorf("%s: nodes %v, want [%d]", name, got, tc.node)
			}
			if j.End != tc.end {
				t.Errorf("%s: ends at %d, want %d", name, j.End, tc.end)
			}
		}
	}
}

// TestFastestFallsBackWhenFull: with both V100 nodes taken, fastest does
// not wait for them but uses a K80 now.
func TestFastestFallsBackWhenFull(t *testing.T) {
	jobs := []Job{dlJob(1, 0, 1, 4), dlJob(2, 0, 1, 4), dlJob(3, 5, 1, 1)}
	for _, bf := range []string{"none", "easy", "conservative"} {
		r, err := Simulate(k80v100(), jobs, buildHetero(t, Spec{Placement: "fastest", Backfill: bf, Estimate: "speed"}))
		if err != nil {
			t.Fatal(err)
		}
		want := [][]int{{2}, {3}, {0}}
		for i := range r.Jobs {
			if got := nodesOf(&r.Jobs[i]); !reflect.DeepEqual(got, want[i]) {
				t.Errorf("%s: job %d on nodes %v, want %v", bf, r.Jobs[i].ID, got, want[i])
			}
		}
		if j := r.Jobs[2]; j.Start != 5 || j.End != 305 || j.Estimate != 300 {
			t.Errorf("%s: job 3 start %d end %d estimate %d, want 5, 305, 300 (a K80)", bf, j.Start, j.End, j.Estimate)
		}
	}
}

// TestFastestGangOneModel: a 2-replica gang of 2 GPUs each. With 2 V100
// GPUs free (job 1, pinned to V100 by its request, holds the other 6)
// replica by replica it would split over a V100 and a K80 and run at the
// K80's pace anyway; fastest keeps it on one model: the K80s. With 4 V100
// GPUs free it goes to the V100s, on one node (best-fit on ties).
func TestFastestGangOneModel(t *testing.T) {
	blocker := func(gpus int) Job {
		j := gpuJob(1, 0, 1000, 1, Request{CPU: 1000, GPUs: gpus, Models: []string{"V100"}})
		return j
	}
	c := gpuCluster(
		Node{Name: "k0", CPU: 32000, Mem: 65536, GPUs: 4, Model: "K80"},
		Node{Name: "k1", CPU: 32000, Mem: 65536, GPUs: 4, Model: "K80"},
		Node{Name: "v0", CPU: 32000, Mem: 65536, GPUs: 8, Model: "V100"},
	)
	for _, tc := range []struct {
		blocked int
		nodes   []int
		end     Time
		est     Time
	}{{6, []int{0, 0}, 301, 300}, {4, []int{2, 2}, 101, 100}} {
		var calls []string
		s := buildHetero(t, Spec{Placement: "fastest", Estimate: "speed"})
		s.Estimator = speedEstimator{calls: &calls}
		r, err := Simulate(c, []Job{blocker(tc.blocked), dlJob(2, 1, 2, 2)}, s)
		if err != nil {
			t.Fatal(err)
		}
		j := &r.Jobs[1]
		if got := nodesOf(j); !reflect.DeepEqual(got, tc.nodes) {
			t.Errorf("%d V100 GPUs taken: gang on nodes %v, want %v", tc.blocked, got, tc.nodes)
		}
		if j.End != tc.end || j.Estimate != tc.est {
			t.Errorf("%d V100 GPUs taken: gang ends %d estimate %d, want %d, %d", tc.blocked, j.End, j.Estimate, tc.end, tc.est)
		}
		// The models are ranked with the GPUs the gang will hold.
		if !slices.Contains(calls, "k80/4") || !slices.Contains(calls, "v100/4") {
			t.Errorf("estimates asked for %v, want k80/4 and v100/4 among them", calls)
		}
	}

	// Replica by replica (first-fit on the V100-first cluster) the gang
	// splits: the comparison shows what the gang rule prevents.
	c2 := gpuCluster(c.Nodes[2], c.Nodes[0], c.Nodes[1])
	r, err := Simulate(c2, []Job{blocker(6), dlJob(2, 1, 2, 2)}, buildHetero(t, Spec{Placement: "first-fit", Estimate: "speed"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := nodesOf(&r.Jobs[1]); !reflect.DeepEqual(got, []int{0, 1}) || r.Jobs[1].End != 301 {
		t.Errorf("first-fit gang on %v ending %d, want split [0 1] ending 301", got, r.Jobs[1].End)
	}
}

// TestFastestWithoutPlacementEstimator: with the user estimate, which for
// jobs of one run time wherever they run does not depend on the GPUs,
// fastest is first-fit for GPU replicas.
func TestFastestWithoutPlacementEstimator(t *testing.T) {
	for seed := range uint64(5) {
		r := rand.New(rand.NewPCG(seed, 7))
		c := randomCluster(r)
		jobs := randomGPUJobs(r, 100, false)
		for i := range jobs {
			jobs[i].Tasks[0].Request.CPU = max(jobs[i].Tasks[0].Request.CPU, 1000)
			if jobs[i].Tasks[0].Request.GPUs == 0 {
				jobs[i].Tasks[0].Request.GPUs = 1 // CPU-only replicas go best-fit
			}
		}
		a, err := Simulate(c, jobs, build(t, Spec{Placement: "fastest", Backfill: "easy"}))
		if err != nil {
			t.Fatal(err)
		}
		b, err := Simulate(c, jobs, build(t, Spec{Placement: "first-fit", Backfill: "easy"}))
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a.Jobs, b.Jobs) {
			t.Fatalf("seed %d: fastest without a placement estimator differs from first-fit", seed)
		}
	}
}

// TestFastestDoesNotChangeState: Rank and ChooseFor leave the state as it
// was and give the same answer twice.
func TestFastestDoesNotChangeState(t *testing.T) {
	c := k80v100()
	m := &sim{cl: c}
	j := dlJob(1, 0, 2, 2)
	if err := m.load([]Job{j}); err != nil {
		t.Fatal(err)
	}
	s := &m.st
	before := slices.Clone(s.free)
	ctx := &JobContext{Job: m.jobs[0].Job, Est: speedEstimator{}, GPUs: 4, names: m.models}
	p := Fastest{}
	r1 := p.Rank(s, ctx, nil)
	r2 := p.Rank(s, ctx, nil)
	n1 := p.ChooseFor(s, &m.asksOf(&m.jobs[0])[0], ctx)
	n2 := p.ChooseFor(s, &m.asksOf(&m.jobs[0])[0], ctx)
	if !reflect.DeepEqual(r1, r2) || n1 != n2 || !reflect.DeepEqual(before, s.free) {
		t.Fatalf("rank %v / %v, choose %d / %d, state changed: %v", r1, r2, n1, n2, !reflect.DeepEqual(before, s.free))
	}
	if len(r1) != 2 || r1[0] != ctx.ModelOf(s, 2) || r1[1] != ctx.ModelOf(s, 0) || n1 != 2 {
		t.Fatalf("rank %v, choose %d: want v100 then k80, node 2", r1, n1)
	}
	if ctx.ModelName(s, 0) != "k80" || ctx.ModelName(s, 3) != "v100" {
		t.Fatalf("model names %q, %q", ctx.ModelName(s, 0), ctx.ModelName(s, 3))
	}
}

// heteroJobs is randomGPUJobs with run times per model: T4 slower than
// V100 by a random factor (sometimes equal, sometimes faster).
func heteroJobs(r *rand.Rand, n int, shared bool) []Job {
	jobs := randomGPUJobs(r, n, shared)
	for i := range jobs {
		if r.IntN(4) == 0 {
			continue
		}
		run := jobs[i].Run
		jobs[i].RunOn = map[string]Time{"v100": run, "t4": max(1, run*Time(r.IntN(4))/2)}
	}
	return jobs
}

// withPlacedRun returns r with each job's Run replaced by its run time on
// the nodes it got (Job.RunOn, the slowest model's), as the simulator runs
// it: JobResult.Run is the job's nominal Run, which checkSchedule would
// otherwise compare End - Start with.
func withPlacedRun(c *Cluster, jobs []Job, r *Result) *Result {
	byID := map[int64]*Job{}
	for i := range jobs {
		byID[jobs[i].ID] = &jobs[i]
	}
	out := *r
	out.Jobs = slices.Clone(r.Jobs)
	for i := range out.Jobs {
		jr := &out.Jobs[i]
		run := Time(-1)
		for _, s := range jr.Slots {
			if t, ok := byID[jr.ID].RunOn[strings.ToLower(c.Nodes[s.Node].Model)]; ok {
				run = max(run, t)
			}
		}
		if run >= 0 {
			jr.Run = run
		}
	}
	return &out
}

// TestPropertyFastest: the schedule invariants hold for fastest on random
// heterogeneous workloads under every backfill rule, and two runs agree.
func TestPropertyFastest(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 9))
		c := randomCluster(r)
		jobs := heteroJobs(r, 150, seed%2 == 1)
		for _, bf := range []string{"none", "easy", "conservative"} {
			for _, est := range []string{"exact", "speed", "user"} {
				for _, order := range []string{"fifo", "sjf"} {
					name := fmt.Sprintf("seed%d/%s/%s/%s", seed, bf, est, order)
					sp := Spec{Backfill: bf, Placement: "fastest", Estimate: est, Order: order}
					res, err := Simulate(c, jobs, buildHetero(t, sp))
					if err != nil {
						t.Fatal(name, err)
					}
					checkSchedule(t, c, jobs, withPlacedRun(c, jobs, res))
					if seed%8 > 1 {
						continue // (the second run for a fourth of the seeds, shared GPUs or not: it doubled the test's time)
					}
					res2, _ := Simulate(c, jobs, buildHetero(t, sp))
					if !reflect.DeepEqual(res, res2) {
						t.Fatalf("%s: two runs differ", name)
					}
				}
			}
		}
	}
}

// TestFastestEASYHeadGuarantee: with exact estimates, whole-GPU jobs of one
// task and FIFO, EASY never starts a head later than a shadow time it
// computed for it, with fastest placing on a two-model cluster.
func TestFastestEASYHeadGuarantee(t *testing.T) {
	for seed := range uint64(20) {
		r := rand.New(rand.NewPCG(seed, 10))
		c, jobs := randomCluster(r), randomGPUJobs(r, 200, false)
		shadows := map[int64]Time{}
		h := &hooks{shadow: func(j *Job, s Time) {
			if old, ok := shadows[j.ID]; !ok || s < old {
				shadows[j.ID] = s
			}
		}}
		res, err := simulate(c, jobs, build(t, Spec{Backfill: "easy", Placement: "fastest", Estimate: "exact"}), h)
		if err != nil {
			t.Fatal(err)
		}
		checkSchedule(t, c, jobs, withPlacedRun(c, jobs, res))
		if len(shadows) == 0 {
			t.Fatalf("seed %d: no head was ever blocked; the workload tests nothing", seed)
		}
		for _, j := range res.Jobs {
			if s, ok := shadows[j.ID]; ok && j.Start > s {
				t.Errorf("seed %d: job %d starts at %d, after its shadow time %d", seed, j.ID, j.Start, s)
			}
		}
	}
}

// TestEASYHeadGuaranteeHeterogeneous: the guarantee holds when run times
// depend on the GPU model (Job.RunOn), because a backfill candidate is
// checked against the shadow time with its exact estimate on the GPUs the
// candidate would get, not its estimate before placement.
func TestEASYHeadGuaranteeHeterogeneous(t *testing.T) {
	for _, pl := range []string{"first-fit", "best-fit", "fastest"} {
		for seed := range uint64(20) {
			r := rand.New(rand.NewPCG(seed, 11))
			c, jobs := randomCluster(r), heteroJobs(r, 200, false)
			shadows := map[int64]Time{}
			h := &hooks{shadow: func(j *Job, s Time) {
				if old, ok := shadows[j.ID]; !ok || s < old {
					shadows[j.ID] = s
				}
			}}
			res, err := simulate(c, jobs, build(t, Spec{Backfill: "easy", Placement: pl, Estimate: "exact"}), h)
			if err != nil {
				t.Fatal(err)
			}
			checkSchedule(t, c, jobs, res)
			if len(shadows) == 0 {
				t.Fatalf("%s seed %d: no head was ever blocked; the workload tests nothing", pl, seed)
			}
			for _, j := range res.Jobs {
				if s, ok := shadows[j.ID]; ok && j.Start > s {
					t.Errorf("%s seed %d: job %d starts at %d, after its shadow time %d", pl, seed, j.ID, j.Start, s)
				}
			}
		}
	}
}

// TestUserEstimateAbsentIsExactOnMixes: on a cluster of two GPU models a
// job with no user estimate is estimated as exact estimates it, on the
// GPUs it got (the user estimate took the job's nominal run time and
// backfilled a K80 job as if it ran at V100 speed), and so is a noisy
// estimate of σ 0: the schedules are the same.
func TestUserEstimateAbsentIsExactOnMixes(t *testing.T) {
	for seed := range uint64(10) {
		r := rand.New(rand.NewPCG(seed, 11))
		c := randomCluster(r)
		jobs := heteroJobs(r, 150, false)
		for i := range jobs {
			jobs[i].UserEstimate = 0
			if jobs[i].RunOn == nil { // a run time per model, as Gavel's jobs have
				jobs[i].RunOn = map[string]Time{"v100": jobs[i].Run, "t4": jobs[i].Run}
			}
		}
		for _, bf := range []string{"easy", "conservative"} {
			for _, place := range []string{"first-fit", "fastest"} {
				exact, err := Simulate(c, jobs, build(t, Spec{Backfill: bf, Placement: place, Estimate: "exact"}))
				if err != nil {
					t.Fatal(err)
				}
				for _, sp := range []Spec{
					{Backfill: bf, Placement: place, Estimate: "user"},
					{Backfill: bf, Placement: place, Estimate: "noisy", EstimateArgs: Args{"sigma": 0.0}},
				} {
					got, err := Simulate(c, jobs, build(t, sp))
					if err != nil {
						t.Fatal(err)
					}
					for i := range got.Jobs {
						if g, e := got.Jobs[i], exact.Jobs[i]; g.Start != e.Start || g.End != e.End {
							t.Fatalf("seed %d, %s/%s/%s: job %d runs %d–%d, with exact estimates %d–%d", seed, bf, place, sp.Estimate, g.ID, g.Start, g.End, e.Start, e.End)
						}
					}
				}
			}
		}
	}
}

// TestEstimatorsUnmovedOnOneRunTime: for jobs of one run time wherever
// they run (no RunOn), the user, history and noisy estimates schedule as
// the nominal run time did before placement mattered: the estimate a job
// queued with stands when it starts (a history estimate was replaced by the
// history as it stood then).
func TestEstimatorsUnmovedOnOneRunTime(t *testing.T) {
	for seed := range uint64(5) {
		r := rand.New(rand.NewPCG(seed, 13))
		c := randomCluster(r)
		jobs := randomGPUJobs(r, 200, false)
		for i := range jobs {
			jobs[i].User = fmt.Sprint(i % 3)
			if i%2 == 0 {
				jobs[i].UserEstimate = 2 * max(jobs[i].Run, 1)
			}
		}
		for _, est := range []string{"user", "history"} {
			for _, bf := range []string{"easy", "conservative"} {
				sp := Spec{Backfill: bf, Estimate: est}
				got, err := Simulate(c, jobs, build(t, sp))
				if err != nil {
					t.Fatal(err)
				}
				// the same scheduler with its placement powers hidden
				s := build(t, sp)
				s.Estimator = plainEstimator{s.Estimator}
				want, err := Simulate(c, jobs, s)
				if err != nil {
					t.Fatal(err)
				}
				for i := range got.Jobs {
					if g, w := got.Jobs[i], want.Jobs[i]; g.Start != w.Start || g.End != w.End {
						t.Fatalf("seed %d, %s/%s: job %d runs %d–%d, without placement estimates %d–%d", seed, est, bf, g.ID, g.Start, g.End, w.Start, w.End)
					}
				}
			}
		}
	}
}

// plainEstimator hides an estimator's optional powers but observing and
// re-estimating.
type plainEstimator struct{ Estimator }

func (p plainEstimator) Observe(j *Job, start, end Time) {
	if o, ok := p.Estimator.(Observer); ok {
		o.Observe(j, start, end)
	}
}

func (p plainEstimator) Reestimate(j *Job, current, elapsed Time) Time {
	if r, ok := p.Estimator.(Reestimator); ok {
		return r.Reestimate(j, current, elapsed)
	}
	return current
}

// TestUnlistedModelRunsAtRun: a gang placed partly on a GPU model its job
// lists no run time for runs at the slowest of its GPUs' times, the
// unlisted model's being Run, as the exact estimate says it does (it ran
// at the listed model's pace alone).
func TestUnlistedModelRunsAtRun(t *testing.T) {
	c := gpuCluster(
		Node{Name: "k0", CPU: 32000, Mem: 65536, GPUs: 1, Model: "K80"},
		Node{Name: "v0", CPU: 32000, Mem: 65536, GPUs: 1, Model: "V100"},
	)
	j := Job{ID: 1, Run: 348, RunOn: map[string]Time{"v100": 237},
		Tasks: []Task{{Replicas: 2, Request: Request{CPU: 1000, Mem: 1024, GPUs: 1}}}}
	res, err := Simulate(c, []Job{j}, build(t, Spec{Estimate: "exact"}))
	if err != nil {
		t.Fatal(err)
	}
	if got := res.Jobs[0]; got.End-got.Start != 348 || got.Estimate != 348 {
		t.Errorf("ran %d s (estimate %d s) on a K80 and a V100: want 348 s, Run on the unlisted K80", got.End-got.Start, got.Estimate)
	}
}
