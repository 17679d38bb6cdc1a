package scheduler

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// pj is a job on a processor pool: id, submit, processors, run, user
// estimate (0: none).
type pj struct {
	id            int64
	submit, procs int64
	run, estimate int64
}

func poolJobs(specs ...pj) []Job {
	jobs := make([]Job, len(specs))
	for i, s := range specs {
		jobs[i] = Job{
			ID: s.id, User: "u", Submit: Time(s.submit), Run: Time(s.run), UserEstimate: Time(s.estimate),
			Tasks: []Task{{Replicas: 1, Request: Request{CPU: MilliCPU(s.procs) * MilliPerCore}}},
		}
	}
	return jobs
}

func build(t testing.TB, sp Spec) Scheduler {
	t.Helper()
	s, err := DefaultParts().Build(sp)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// starts maps job id to start time.
func starts(r *Result) map[int64]Time {
	out := map[int64]Time{}
	for _, j := range r.Jobs {
		out[j.ID] = j.Start
	}
	return out
}

// TestPoolHandComputed checks every backfill rule on small cases worked out
// by hand on a pool of 10 processors. Estimates are the users' (field 9).
func TestPoolHandComputed(t *testing.T) {
	tests := []struct {
		name     string
		backfill string
		order    string
		jobs     []pj
		want     map[int64]Time
	}{
		{
			// J2 (8) cannot start next to J1 (6): FCFS makes J3 wait
			// behind it; J2 starts at 100, J3 when J2 ends at 110.
			name: "fcfs blocks behind the head", backfill: "none",
			jobs: []pj{{1, 0, 6, 100, 100}, {2, 1, 8, 10, 10}, {3, 2, 4, 50, 50}},
			want: map[int64]Time{1: 0, 2: 100, 3: 110},
		},
		{
			// Shadow = 100 (J1's end); J3 ends at 2+50 = 52 ≤ 100.
			name: "easy backfills by the shadow rule", backfill: "easy",
			jobs: []pj{{1, 0, 6, 100, 100}, {2, 1, 8, 10, 10}, {3, 2, 4, 50, 50}},
			want: map[int64]Time{1: 0, 2: 100, 3: 2},
		},
		{
			// Shadow 100, extra = 10 − 8 = 2. J3 (2 procs, ends 502 > 100)
			// fits in the extra. At t=3 J4 (2 procs) would fit now, but
			// extra = (2 + 6) − 8 = 0: it would delay J2, so it waits;
			// J2 runs 100–110, then J4 starts.
			name: "easy extra rule and a refused candidate", backfill: "easy",
			jobs: []pj{{1, 0, 6, 100, 100}, {2, 1, 8, 10, 10}, {3, 2, 2, 500, 500}, {4, 3, 2, 500, 500}},
			want: map[int64]Time{1: 0, 2: 100, 3: 2, 4: 110},
		},
		{
			// J1 outlives its estimate (100) and runs to 200. At t=150 its
			// expected end is now+1 = 151 = shadow; extra = 10 − 8 = 2.
			// J4 (est 1) ends by 151: shadow rule. J3 (2 procs, ends 160)
			// fits in the extra. J2 starts when J1 really ends.
			name: "easy with an overrunning job", backfill: "easy",
			jobs: []pj{{1, 0, 6, 200, 100}, {2, 1, 8, 10, 10}, {3, 150, 2, 10, 10}, {4, 150, 2, 1, 1}},
			want: map[int64]Time{1: 0, 2: 200, 3: 150, 4: 150},
		},
		{
			// At t=50 J1's completion frees the pool before J2 arrives,
			// so J2 starts at once.
			name: "completion and arrival at the same time", backfill: "easy",
			jobs: []pj{{1, 0, 10, 50, 50}, {2, 50, 10, 5, 5}},
			want: map[int64]Time{1: 0, 2: 50},
		},
		{
			// J1 (run 0) starts and ends at 0; a second round at t=0 frees
			// its processors and starts J2.
			name: "zero run time frees in another round", backfill: "none",
			jobs: []pj{{1, 0, 10, 0, 5}, {2, 0, 10, 5, 5}},
			want: map[int64]Time{1: 0, 2: 0},
		},
		{
			// J2 (8) is reserved at 100, J3 (9) at 110 (after J2). EASY
			// protects only the head: J4 (2 procs, 3+200 > 100) fits in
			// extra = 10 − 8 = 2 and delays J3 to J4's end at 203.
			name: "easy delays the second job", backfill: "easy",
			jobs: []pj{{1, 0, 6, 100, 100}, {2, 1, 8, 10, 10}, {3, 2, 9, 100, 100}, {4, 3, 2, 200, 200}},
			want: map[int64]Time{1: 0, 2: 100, 3: 203, 4: 3},
		},
		{
			// Conservative reserves J3 over [110, 210) with 1 processor
			// left, so J4 (2 procs for 200 s) cannot start now; its
			// earliest reservation is J3's end, 210.
			name: "conservative protects every reservation", backfill: "conservative",
			jobs: []pj{{1, 0, 6, 100, 100}, {2, 1, 8, 10, 10}, {3, 2, 9, 100, 100}, {4, 3, 2, 200, 200}},
			want: map[int64]Time{1: 0, 2: 100, 3: 110, 4: 210},
		},
		{
			// Profile at t=3: [3,100) 4 free, [100,110) 2 (J2 reserved),
			// [110,...) 10 − 9 = 1 (J3). J4 (2 procs for 50 s) fits [3,53).
			name: "conservative backfills into a hole", backfill: "conservative",
			jobs: []pj{{1, 0, 6, 100, 100}, {2, 1, 8, 10, 10}, {3, 2, 9, 100, 100}, {4, 3, 2, 50, 50}},
			want: map[int64]Time{1: 0, 2: 100, 3: 110, 4: 3},
		},
		{
			// SJF by estimate: at t=100 both J2 (est 50) and J3 (est 10)
			// wait; J3 goes first although it came later.
			name: "sjf serves the shortest estimate first", backfill: "none", order: "sjf",
			jobs: []pj{{1, 0, 10, 100, 100}, {2, 1, 10, 50, 50}, {3, 2, 10, 10, 10}},
			want: map[int64]Time{1: 0, 2: 110, 3: 100},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Simulate(NewPool("p", 10), poolJobs(tt.jobs...), build(t, Spec{Backfill: tt.backfill, Order: tt.order}))
			if err != nil {
				t.Fatal(err)
			}
			got := starts(r)
			for id, w := range tt.want {
				if got[id] != w {
					t.Errorf("job %d starts at %d, want %d (all: %v)", id, got[id], w, got)
				}
			}
		})
	}
}

func TestBoundedSlowdown(t *testing.T) {
	tests := []struct {
		wait, run Time
		want      float64
	}{
		{0, 100, 1},
		{100, 100, 2},
		{5, 1, 1},       // (5+1)/10 < 1
		{95, 5, 10},     // (95+5)/10
		{30, 0, 3},      // run 0 is bounded by 10 s
		{1000, 10, 101}, // (1000+10)/10
	}
	for _, tt := range tests {
		if got := BoundedSlowdown(tt.wait, tt.run); got != tt.want {
			t.Errorf("BoundedSlowdown(%d, %d) = %v, want %v", tt.wait, tt.run, got, tt.want)
		}
	}
}

func TestUnknownPartsListed(t *testing.T) {
	_, err := DefaultParts().Build(Spec{Backfill: "easey", Placement: "worst-fit"})
	want := `unknown backfill "easey" (known: conservative, easy, greedy, none)` + "\n" +
		`unknown placement "worst-fit" (known: ` + strings.Join(DefaultParts().Placements.Names(), ", ") + `)`
	if err == nil || err.Error() != want {
		t.Fatalf("error = %v, want %q", err, want)
	}
}

func TestRegistryRefusesDuplicates(t *testing.T) {
	r := NewRegistry[Order]("queue order")
	if err := r.Register("fifo", func() Order { return FIFO{} }); err != nil {
		t.Fatal(err)
	}
	if err := r.Register("fifo", func() Order { return SJF{} }); err == nil {
		t.Fatal("second registration of fifo accepted")
	}
}

func ExampleSimulate() {
	jobs := []Job{
		{ID: 1, Submit: 0, Run: 100, UserEstimate: 100, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 6000}}}},
		{ID: 2, Submit: 1, Run: 10, UserEstimate: 10, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 8000}}}},
		{ID: 3, Submit: 2, Run: 50, UserEstimate: 50, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 4000}}}},
	}
	s, _ := DefaultParts().Build(Spec{Backfill: "easy", Estimate: "user"})
	r, _ := Simulate(NewPool("example", 10), jobs, s)
	for _, j := range r.Jobs {
		fmt.Printf("job %d: wait %d s\n", j.ID, j.Wait)
	}
	fmt.Printf("mean bounded slowdown %.2f\n", r.Summary.MeanBSLD)
	// Output:
	// job 1: wait 0 s
	// job 2: wait 99 s
	// job 3: wait 0 s
	// mean bounded slowdown 4.30
}

// TestBounds: values past the simulator's bounds are refused with the bound
// (they once wrapped, or panicked in the engine), and values at the bounds
// simulate under every backfill rule without overflow.
func TestBounds(t *testing.T) {
	for _, c := range []struct {
		jobs []Job
		cl   *Cluster
		want string
	}{
		{poolJobs(pj{1, int64(MaxTime) + 1, 1, 10, 0}), NewPool("p", 10), "submit time 1125899906842625 s: past the simulator's horizon"},
		{poolJobs(pj{1, 0, 1, 1<<63 - 1, 0}), NewPool("p", 10), "run time 9223372036854775807 s: past"},
		{poolJobs(pj{1, 0, 1, 10, 1 << 60}), NewPool("p", 10), "user estimate"},
		{poolJobs(pj{1, 0, 1, 10, 0}), NewPool("p", 18446744073709552), "capacity cpu"},
		{poolJobs(pj{1, 0, 1, 10, 0}), &Cluster{Name: "c", Nodes: []Node{{Name: "n", CPU: 5e18}}}, "at most 1099511627776 of each"},
		{[]Job{{ID: 1, Tasks: []Task{{Replicas: 2000000000, Request: Request{CPU: 1}}}}}, NewPool("p", 10), "2000000000 replicas, at most"},
		{[]Job{{ID: 1, Run: 5, RunOn: map[string]Time{"v100": -3}, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 1}}}}}, NewPool("p", 10), "run time on v100 -3 s: want 0 to"},
		{[]Job{{ID: 1, Run: 5, RunOn: map[string]Time{"V100": 3}, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 1}}}}}, NewPool("p", 10), `run time on "V100": GPU model keys are lower case ("v100")`},
		{[]Job{{ID: 1, Run: 5, RunSpanning: map[string]Time{"k80": MaxTime + 1, "v100": 4}, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 1}}}}}, NewPool("p", 10), "run time across nodes on k80 1125899906842625 s: want 0 to"},
	} {
		_, err := Simulate(c.cl, c.jobs, build(t, Spec{Backfill: "easy"}))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v on %s: %v, want %q", c.jobs[0], c.cl.Name, err, c.want)
		}
	}
	for _, bf := range []string{"none", "easy", "conservative"} {
		jobs := poolJobs(pj{1, int64(MaxTime), 8, int64(MaxTime), int64(MaxTime)}, pj{2, int64(MaxTime), 8, int64(MaxTime), 0},
			pj{3, 0, 8, int64(MaxTime), int64(MaxTime)}, pj{4, 1, 2, 5, 5})
		r, err := Simulate(NewPool("p", 10), jobs, build(t, Spec{Backfill: bf, Estimate: "user"}))
		if err != nil {
			t.Fatalf("%s: %v", bf, err)
		}
		for _, j := range r.Jobs {
			if j.Start < 0 || j.End < j.Start || j.End > 4*MaxTime {
				t.Errorf("%s: job %d runs %d to %d", bf, j.ID, j.Start, j.End)
			}
		}
	}
}

// TestConservativeHistoryOverrun (a reviewer's find): a history estimate
// gives a job past its estimate a new, later one, which hid the overrun
// from compression; the reservations made on its old end were kept, and a
// job reserved there started on processors it still held (20 of 10). The
// overrun voids them: job 4 starts when job 3 ends, as under EASY.
func TestConservativeHistoryOverrun(t *testing.T) {
	jobs := poolJobs(pj{1, 0, 1, 10, 10}, pj{2, 0, 1, 10, 10}, pj{3, 20, 10, 500, 1000}, pj{4, 25, 10, 100, 100}, pj{5, 30, 1, 10, 10})
	jobs[3].User, jobs[4].User = "v", "v" // (u's history is 10 s: job 3 is predicted to end at 30)
	c := NewPool("p", 10)
	for _, bf := range []string{"conservative", "easy"} {
		res, err := Simulate(c, jobs, build(t, Spec{Backfill: bf, Estimate: "history"}))
		if err != nil {
			t.Fatal(err)
		}
		checkSchedule(t, c, jobs, res)
		if s := starts(res); s[4] != 520 {
			t.Errorf("%s: job 4 starts at %d, want 520 (when job 3 ends)", bf, s[4])
		}
	}
}

// TestConservativeOneGPUNode (a reviewer's finds on a machine of GPUs):
// a job of no user estimate reserved for its run time, whose estimate
// shortened as it started (its GPU model's run time), ended at it: no
// compression followed, and the job reserved behind it waited on a time no
// event came at (left queued at the end); and beside ga, a reservation
// held over a batch start freed a GPU a job held a share of (GPU 1 at
// 2,000 milli). Every end compresses on such a machine, and a batch start
// voids the reservations.
func TestConservativeOneGPUNode(t *testing.T) {
	c := &Cluster{Name: "one", Nodes: []Node{{Name: "n0", CPU: 8000, Mem: 8192, GPUs: 1, Model: "V100"}}}
	req := Request{CPU: 1000, Mem: 1024, GPUs: 1}
	jobs := []Job{
		{ID: 1, Submit: 0, Run: 10, UserEstimate: 10, Tasks: []Task{{Replicas: 1, Request: req}}},
		{ID: 2, Submit: 1, Run: 100, RunOn: map[string]Time{"v100": 50}, Tasks: []Task{{Replicas: 1, Request: req}}},
		{ID: 3, Submit: 1, Run: 20, UserEstimate: 20, Tasks: []Task{{Replicas: 1, Request: req}}},
	}
	for _, est := range []string{"user", "exact"} {
		res, err := Simulate(c, jobs, build(t, Spec{Backfill: "conservative", Estimate: est}))
		if err != nil {
			t.Fatalf("%s: %v", est, err)
		}
		checkSchedule(t, c, jobs, res)
		if s := starts(res); s[3] != 60 {
			t.Errorf("%s: job 3 starts at %d, want 60 (when job 2 ends)", est, s[3])
		}
	}
	for seed := range uint64(60) {
		r := rand.New(rand.NewPCG(seed, 77))
		g := 1 + r.IntN(8)
		one := &Cluster{Name: "gpus", Nodes: []Node{{Name: "n0", CPU: 1 << 20, Mem: 1 << 30, GPUs: g, Model: "V100"}}}
		gj := randomGPUJobs(r, 60, true) // (shares of GPUs beside whole ones)
		for i := range gj {
			for k := range gj[i].Tasks {
				gj[i].Tasks[k].Request.GPUs = min(gj[i].Tasks[k].Request.GPUs, g)
			}
		}
		for _, pl := range []string{"ga", "first-fit"} {
			spec := Spec{Order: "sjf", Backfill: "conservative", Placement: pl, Estimate: "exact", Seed: seed}
			if pl == "ga" {
				spec.PlacementArgs = Args{"population": 4, "generations": 3}
			}
			res, err := Simulate(one, gj, build(t, spec))
			if err != nil {
				t.Fatalf("seed %d %s: %v", seed, pl, err)
			}
			checkSchedule(t, one, gj, res)
		}
	}
}
