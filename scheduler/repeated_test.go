package scheduler

import (
	"testing"
)

// TestRepeatedIDs: two jobs of one ID, submitted at different times (the
// API takes them), run to the end: the running list told them apart by
// expected end and ID alone, so finishing one deleted the other, and the
// simulation panicked (conservative: no reservation in the empty pool;
// history: finishing a job not running). Each job ends once, at its run
// time after its start.
func TestRepeatedIDs(t *testing.T) {
	for _, c := range []struct {
		name string
		cl   *Cluster
		jobs []Job
		sp   Spec
	}{
		{"conservative", NewPool("p", 4), poolJobs(
			pj{id: 1, submit: 0, procs: 1, run: 10, estimate: 20}, // expected end 20, ends at 10
			pj{id: 1, submit: 5, procs: 2, run: 30, estimate: 15}, // expected end 20 too, ends at 35
			pj{id: 2, submit: 12, procs: 4, run: 5, estimate: 5},
			pj{id: 3, submit: 12, procs: 1, run: 5, estimate: 5},
		), Spec{Backfill: "conservative"}},
		{"history", NewPool("p", 10), func() []Job {
			job := func(id int64, submit, run, est Time, user string) Job {
				return Job{ID: id, User: user, Submit: submit, Run: run, UserEstimate: est, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 1000}}}}
			}
			return []Job{job(100, 0, 2, 2, "a"), job(101, 0, 2, 2, "a"), job(1, 3, 5, 50, "a"), job(1, 4, 30, 1, "b")}
		}(), Spec{Estimate: "history"}},
	} {
		res, err := Simulate(c.cl, c.jobs, build(t, c.sp))
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if len(res.Jobs) != len(c.jobs) {
			t.Fatalf("%s: %d results for %d jobs", c.name, len(res.Jobs), len(c.jobs))
		}
		for _, r := range res.Jobs {
			if r.Status != Done || r.End-r.Start != r.Run || r.Start < r.Submit {
				t.Errorf("%s: job %d (submit %d): %v, ran %d to %d, run %d", c.name, r.ID, r.Submit, r.Status, r.Start, r.End, r.Run)
			}
		}
	}
}

// TestRunOnGPUSlots: a job's run time (Job.RunOn, Job.RunSpanning) and
// its estimate are those of the nodes its GPUs lie on: its CPU-only
// replica (a parameter server) landing on a K80 node made a job whose one
// GPU is a V100 run at the K80's pace, or its across-nodes time.
func TestRunOnGPUSlots(t *testing.T) {
	c := &Cluster{Name: "c", Nodes: []Node{
		{Name: "v100", CPU: 1000, Mem: 1024, GPUs: 1, Model: "V100"},
		{Name: "k80", CPU: 4000, Mem: 4096, GPUs: 1, Model: "K80"},
	}}
	j := Job{ID: 1, Submit: 0, Run: 100, RunOn: map[string]Time{"v100": 50, "k80": 200},
		RunSpanning: map[string]Time{"v100": 400, "k80": 800},
		Tasks: []Task{
			{Replicas: 1, Request: Request{CPU: 1000, Mem: 512, GPUs: 1, Models: []string{"V100"}}}, // the worker
			{Replicas: 1, Request: Request{CPU: 2000, Mem: 512}},                                    // its parameter server
		}}
	for _, sp := range []Spec{{Estimate: "exact"}, {Estimate: "exact", Placement: "fastest"}} {
		res, err := Simulate(c, []Job{j}, build(t, sp))
		if err != nil {
			t.Fatal(err)
		}
		r := res.Jobs[0]
		if NodesTouched(r.Slots) != 2 {
			t.Fatalf("%v: slots %+v: the case is not tested (its replicas on one node)", sp, r.Slots)
		}
		if r.End-r.Start != 50 || r.Estimate != 50 {
			t.Errorf("%v: ran %d, estimate %d; want the V100's 50", sp, r.End-r.Start, r.Estimate)
		}
	}
	// two GPUs on two nodes do span them: the across-nodes time of the
	// slower model
	two := j
	two.Tasks = []Task{{Replicas: 2, Request: Request{CPU: 500, Mem: 256, GPUs: 1}}}
	res, err := Simulate(c, []Job{two}, build(t, Spec{Estimate: "exact"}))
	if err != nil {
		t.Fatal(err)
	}
	if r := res.Jobs[0]; r.End-r.Start != 800 {
		t.Errorf("two GPUs on two nodes: ran %d, want the K80's across-nodes 800", r.End-r.Start)
	}
}
