package scheduler

import (
	"math"
	"strings"
	"testing"
)

func TestHistoryEstimates(t *testing.T) {
	h := &History{}
	job := func(id int64, user string, run, est Time) *Job {
		return &Job{ID: id, User: user, Run: run, UserEstimate: est}
	}
	// Fewer than two completed jobs: the user's estimate (or the run time).
	if e := h.Estimate(job(1, "a", 50, 1000)); e != 1000 {
		t.Errorf("no history: %d, want the user estimate 1000", e)
	}
	h.Observe(job(1, "a", 100, 1000), 0, 100)
	h.Observe(job(2, "a", 301, 1000), 0, 301)
	h.Observe(job(3, "b", 10, 0), 0, 10)
	// Mean of the last two run times, (100 + 301) / 2 = 200.5 → 201.
	if e := h.Estimate(job(4, "a", 7, 1000)); e != 201 {
		t.Errorf("history: %d, want 201", e)
	}
	// Never above the job's own estimate.
	if e := h.Estimate(job(5, "a", 7, 150)); e != 150 {
		t.Errorf("capped: %d, want 150", e)
	}
	// The newest two: 301 and 501.
	h.Observe(job(6, "a", 501, 1000), 0, 501)
	if e := h.Estimate(job(7, "a", 7, 1000)); e != 401 {
		t.Errorf("history after a third job: %d, want 401", e)
	}
	if e := h.Reestimate(job(8, "a", 900, 1000), 401, 402); e != 1000 {
		t.Errorf("re-estimate %d, want the user estimate 1000", e)
	}
	// Jobs of no user ("": SWF's user -1, a Gavel job) are no one's
	// history: each keeps its own estimate however many have ended.
	h.Observe(job(9, "", 100, 0), 0, 100)
	h.Observe(job(10, "", 100, 0), 0, 100)
	if e := h.Estimate(job(11, "", 900, 1000)); e != 1000 {
		t.Errorf("a job of no user after two others: %d, want its own estimate 1000", e)
	}
}

func TestNoisy(t *testing.T) {
	j := &Job{ID: 42, Run: 1000}
	n := &Noisy{}
	if err := n.Configure(Args{"sigma": 0.5}, Run{Seed: 7}); err != nil {
		t.Fatal(err)
	}
	a, b := n.Estimate(j), n.Estimate(j)
	if a != b || a == 1000 {
		t.Errorf("estimates %d and %d: want one value, not the exact 1000", a, b)
	}
	// Over many jobs log(estimate/run) has mean 0 and deviation σ; 4
	// standard errors of 10,000 draws: 0.02 and 0.014.
	var sum, sq float64
	const n0 = 10000
	for i := range n0 {
		e := n.Estimate(&Job{ID: int64(i), Run: 100000})
		x := math.Log(float64(e) / 100000)
		sum += x
		sq += x * x
	}
	mean := sum / n0
	sd := math.Sqrt(sq/n0 - mean*mean)
	if math.Abs(mean) > 0.02 || math.Abs(sd-0.5) > 0.014 {
		t.Errorf("log error mean %.4f, sd %.4f; want 0 and 0.5", mean, sd)
	}
	if err := (&Noisy{}).Configure(Args{"sigma": -1}, Run{}); err == nil {
		t.Error("negative sigma accepted")
	}
	if err := (&Noisy{}).Configure(Args{"sigam": 0.5}, Run{}); err == nil || !strings.Contains(err.Error(), "noisy estimate: arguments sigam=0.5: sigam is not a setting of noisy estimate (its settings: sigma)") {
		t.Errorf("a misspelt argument: %v", err)
	}
	if err := (&Noisy{}).Configure(Args{"sigma": "high"}, Run{}); err == nil {
		t.Error("a sigma that is not a number was accepted")
	}
	z := &Noisy{}
	z.Configure(nil, Run{})
	if z.Estimate(j) != 1000 {
		t.Error("sigma 0 is not exact")
	}
}

// TestHistoryInSimulation: with history estimates EASY plans with the
// prediction, and a job that outlives its prediction is re-estimated at its
// user estimate at the next event, which moves the shadow time.
func TestHistoryInSimulation(t *testing.T) {
	// User u's jobs 1 and 2 run 10 s (estimates 1000). Job 3 (6 procs,
	// runs 500) arrives at 20, when u's last two runs were 10 and 10: it is
	// predicted at 10 s. Job 4 (8 procs) blocks behind it; job 5 (4 procs,
	// predicted 10 s) cannot backfill at 22: the shadow is job 3's expected
	// end 30, 22 + 10 > 30, and extra = 10 − 8 = 2 < 4. Job 6 arrives at 40:
	// job 3 has outlived its 10 s and is re-estimated at 1000, so the shadow
	// is 1020 and job 5 (40 + 10 ≤ 1020) starts at 40. Without the
	// re-estimate (the EASY contract's now + 1) the shadow would be 41 and
	// job 5 would wait for job 4, until 530.
	jobs := poolJobs(
		pj{1, 0, 1, 10, 1000}, pj{2, 0, 1, 10, 1000},
		pj{3, 20, 6, 500, 1000}, pj{4, 21, 8, 10, 1000}, pj{5, 22, 4, 100, 1000},
		pj{6, 40, 1, 5, 1000},
	)
	for i := range jobs {
		jobs[i].User = "u"
	}
	r, err := Simulate(NewPool("p", 10), jobs, build(t, Spec{Backfill: "easy", Estimate: "history"}))
	if err != nil {
		t.Fatal(err)
	}
	est := map[int64]Time{}
	for _, j := range r.Jobs {
		est[j.ID] = j.Estimate
	}
	if est[1] != 1000 || est[3] != 1000 || est[5] != 10 {
		t.Errorf("estimates %v: want 1000 for job 1 (no history), 1000 for job 3 (re-estimated), 10 for job 5", est)
	}
	if got := starts(r); got[5] != 40 || got[4] != 520 {
		t.Errorf("starts %v: want job 5 at 40, job 4 at 520", got)
	}
}

// TestKillLimits: a job is killed at its user estimate, or at k × the
// estimate it started with, and the next job starts when it is killed.
func TestKillLimits(t *testing.T) {
	jobs := poolJobs(pj{1, 0, 10, 500, 100}, pj{2, 1, 10, 50, 50})
	tests := []struct {
		spec  Spec
		start Time // of job 2
		st    Status
	}{
		{Spec{}, 500, Done},
		{Spec{KillAtUserLimit: true}, 100, Killed},
		{Spec{KillFactor: 3}, 300, Killed},                        // 3 × the user estimate 100
		{Spec{KillFactor: 3, KillAtUserLimit: true}, 100, Killed}, // the shorter limit
		{Spec{KillFactor: 2, Estimate: "exact"}, 500, Done},       // 2 × 500 is past the run
	}
	for _, tt := range tests {
		r, err := Simulate(NewPool("p", 10), jobs, build(t, tt.spec))
		if err != nil {
			t.Fatal(err)
		}
		if got := starts(r)[2]; got != tt.start || r.Jobs[0].Status != tt.st {
			t.Errorf("%+v: job 2 starts at %d (job 1 %v), want %d (%v)", tt.spec, got, r.Jobs[0].Status, tt.start, tt.st)
		}
		if killed := r.Summary.Killed; (tt.st == Killed) != (killed == 1) {
			t.Errorf("%+v: %d killed", tt.spec, killed)
		}
	}
	if _, err := DefaultParts().Build(Spec{KillFactor: 0.5}); err == nil {
		t.Error("kill factor 0.5 accepted")
	}

	// user-mean knows nothing of a new user's first job (estimate 0): the
	// factor leaves it to run; the user's second job, estimated at the
	// first's 500 s, is killed at 2 × 500
	jobs = poolJobs(pj{1, 0, 10, 500, 100}, pj{2, 600, 10, 1500, 100})
	r, err := Simulate(NewPool("p", 10), jobs, build(t, Spec{KillFactor: 2, Estimate: "user-mean"}))
	if err != nil {
		t.Fatal(err)
	}
	if r.Jobs[0].Status != Done || r.Jobs[1].Status != Killed || r.Jobs[1].End != 1600 {
		t.Errorf("%+v", r.Jobs)
	}
}

// TestUserMean: the mean of the user's last 10 run times, rounded up; 0
// for a user with none, so that under SJF a new user's job goes first.
func TestUserMean(t *testing.T) {
	u := &UserMean{}
	a := &Job{ID: 1, User: "a", Run: 100}
	if e := u.Estimate(a); e != 0 {
		t.Errorf("no history: %d", e)
	}
	for i := range 12 {
		u.Observe(&Job{User: "a"}, 0, Time(10*(i+1))) // 10, 20, … 120
	}
	// the last ten: 30 … 120, mean 75
	if e := u.Estimate(a); e != 75 {
		t.Errorf("after 12 jobs: %d, want 75", e)
	}
	u.Observe(&Job{User: "b"}, 5, 7)
	u.Observe(&Job{User: "b"}, 0, 3)
	if e := u.Estimate(&Job{User: "b"}); e != 3 { // (2 + 3) / 2 rounded up
		t.Errorf("b: %d, want 3", e)
	}
	// under SJF, a job of a user without history is served before the
	// rest of the queue
	// old's job 1 ends at 10 (old's mean: 10); job 5 holds the pool from
	// 11 to 111 while old's job 2 (estimate 10) and new's job 3 (estimate
	// 0) queue
	jobs := poolJobs(pj{id: 1, submit: 0, procs: 4, run: 10}, pj{id: 5, submit: 11, procs: 4, run: 100},
		pj{id: 2, submit: 12, procs: 4, run: 30}, pj{id: 3, submit: 13, procs: 4, run: 40})
	jobs[0].User, jobs[1].User, jobs[2].User, jobs[3].User = "old", "z", "old", "new"
	r, err := Simulate(NewPool("p", 4), jobs, build(t, Spec{Order: "sjf", Estimate: "user-mean"}))
	if err != nil {
		t.Fatal(err)
	}
	if s := starts(r); s[3] != 111 || s[2] != 151 {
		t.Errorf("starts %v: the new user's job 3 should start first, at 111", s)
	}
}

// TestTableEstimateRequire: a job without the column is refused, saying
// where the column comes from: the user's from wb dataset pai-sim, the
// group ones from it with --groups.
func TestTableEstimateRequire(t *testing.T) {
	j := &Job{ID: 7}
	if err := (TableEstimate{Part: "user-dur", Column: "user_dur"}).Require(j); err == nil || !strings.Contains(err.Error(), "job 7: estimate user-dur needs the trace's user_dur column") || strings.Contains(err.Error(), "--groups") {
		t.Errorf("user_dur: %v", err)
	}
	if err := (TableEstimate{Part: "group-dur", Column: "group_dur"}).Require(j); err == nil || !strings.Contains(err.Error(), "--groups") {
		t.Errorf("group_dur: %v", err)
	}
	j.Estimates = map[string]float64{"user_dur": 3}
	if err := (TableEstimate{Part: "user-dur", Column: "user_dur"}).Require(j); err != nil {
		t.Errorf("with the column: %v", err)
	}
}

// TestExactCappedAtUserLimit: where jobs are killed at their user
// estimate, an estimate past it (exact's run time) is held to it, so that
// EASY's shadow is the kill, not the run (a reviewer's find: job 3
// backfilled into a shadow 50 s too long and job 2 waited until 82).
func TestExactCappedAtUserLimit(t *testing.T) {
	jobs := poolJobs(pj{1, 0, 8, 100, 50}, pj{2, 1, 10, 10, 10}, pj{3, 2, 2, 80, 80})
	r, err := Simulate(NewPool("p", 10), jobs, build(t, Spec{Backfill: "easy", Estimate: "exact", KillAtUserLimit: true}))
	if err != nil {
		t.Fatal(err)
	}
	est := map[int64]Time{}
	for _, j := range r.Jobs {
		est[j.ID] = j.Estimate
	}
	if got := starts(r); got[2] != 50 || got[3] != 60 || est[1] != 50 {
		t.Errorf("starts %v, estimates %v: want job 2 at 50 (job 1 killed then), job 3 after it at 60, job 1 estimated 50", got, est)
	}
}
