package scheduler

import "testing"

// twoV100 is two 4-GPU V100 nodes.
func twoV100() *Cluster {
	return gpuCluster(
		Node{Name: "v0", CPU: 32000, Mem: 65536, GPUs: 4, Model: "V100"},
		Node{Name: "v1", CPU: 32000, Mem: 65536, GPUs: 4, Model: "V100"},
	)
}

// spanJob is a data-parallel job of replicas one-GPU replicas that runs
// within (on one node) or across nodes (Job.RunSpanning, longer).
func spanJob(id int64, submit Time, replicas int, within, across Time) Job {
	j := gpuJob(id, submit, within, replicas, Request{CPU: 1000, Mem: 1024, GPUs: 1})
	j.RunOn = map[string]Time{"v100": within}
	j.RunSpanning = map[string]Time{"v100": across}
	return j
}

// TestRunSpanning: a job whose replicas lie on more than one node runs its
// RunSpanning time, and the exact estimate knows it (EstimateSpanning);
// on one node it runs RunOn's. Two jobs of 3 GPUs leave one GPU on each
// node: job 3's two replicas are split over both; job 4, after job 1 has
// ended, fits one node.
func TestRunSpanning(t *testing.T) {
	jobs := []Job{
		gpuJob(1, 0, 100, 1, Request{CPU: 1000, Mem: 1024, GPUs: 3}),
		gpuJob(2, 0, 1000, 1, Request{CPU: 1000, Mem: 1024, GPUs: 3}),
		spanJob(3, 1, 2, 90, 150),
		spanJob(4, 2, 2, 90, 150),
	}
	r, err := Simulate(twoV100(), jobs, build(t, Spec{Estimate: "exact"}))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		id              int64
		start, run, est Time
		nodes           int
	}{{3, 1, 150, 150, 2}, {4, 100, 90, 90, 1}} {
		j := &r.Jobs[tc.id-1]
		if j.Start != tc.start || j.End-j.Start != tc.run || j.Run != tc.run || j.Estimate != tc.est || NodesTouched(j.Slots) != tc.nodes {
			t.Errorf("job %d: start %d, ran %d (%d), estimate %d, on %d nodes; want %d, %d, %d, %d nodes",
				tc.id, j.Start, j.End-j.Start, j.Run, j.Estimate, NodesTouched(j.Slots), tc.start, tc.run, tc.est, tc.nodes)
		}
	}
}

// TestBackfillSpanningEstimate: EASY backfills a job only if it ends by the
// head's reservation on the nodes this placement gives it, across nodes its
// RunSpanning time, and conservative backfilling reserves it that long.
// Job 3 (4 GPUs, one node) waits for job 1's node (reserved at 100); job 4
// would end by then within a node (2 + 90) but the placement splits it
// (2 + 150), and then the head would not fit at 100: job 4 must wait, and
// job 3 start at 100 as reserved.
func TestBackfillSpanningEstimate(t *testing.T) {
	jobs := []Job{
		gpuJob(1, 0, 100, 1, Request{CPU: 1000, Mem: 1024, GPUs: 3}),
		gpuJob(2, 0, 1000, 1, Request{CPU: 1000, Mem: 1024, GPUs: 3}),
		gpuJob(3, 1, 10, 1, Request{CPU: 1000, Mem: 1024, GPUs: 4}),
		spanJob(4, 2, 2, 90, 150),
	}
	for _, bf := range []string{"easy", "conservative"} {
		r, err := Simulate(twoV100(), jobs, build(t, Spec{Backfill: bf, Estimate: "exact"}))
		if err != nil {
			t.Fatal(err)
		}
		if j := &r.Jobs[2]; j.Start != 100 {
			t.Errorf("%s: head started at %d, reserved for 100", bf, j.Start)
		}
		if j := &r.Jobs[3]; j.Start != 110 || j.End-j.Start != 90 || NodesTouched(j.Slots) != 1 {
			t.Errorf("%s: job 4 started at %d, ran %d on %d nodes; want 110, 90 on one node", bf, j.Start, j.End-j.Start, NodesTouched(j.Slots))
		}
	}
}

// TestConservativeModelEstimate: a conservative reservation lasts the job's
// run time on the GPU model its placement gives it (Job.RunOn), not the
// fastest model's it queued with. Job 1 holds the V100 node until 1000 and
// job 2 three K80s until 50, where the head, job 3, is reserved the whole
// K80 node. Job 4 takes 40 s on a V100 and 120 s on the K80 its placement
// gives it: by its estimate it would end before 50, by its run on the K80
// it would delay the head; it must wait until the head is done (60).
func TestConservativeModelEstimate(t *testing.T) {
	c := gpuCluster(
		Node{Name: "v0", CPU: 32000, Mem: 65536, GPUs: 4, Model: "V100"},
		Node{Name: "k0", CPU: 32000, Mem: 65536, GPUs: 4, Model: "K80"},
	)
	job := func(id int64, submit Time, gpus int, k80, v100 Time) Job {
		j := gpuJob(id, submit, min(k80, v100), 1, Request{CPU: 1000, Mem: 1024, GPUs: gpus})
		j.RunOn = map[string]Time{"k80": k80, "v100": v100}
		return j
	}
	jobs := []Job{job(1, 0, 4, 1000, 1000), job(2, 0, 3, 50, 50), job(3, 1, 4, 10, 10), job(4, 2, 1, 120, 40)}
	r, err := Simulate(c, jobs, build(t, Spec{Backfill: "conservative", Estimate: "exact"}))
	if err != nil {
		t.Fatal(err)
	}
	if j := &r.Jobs[2]; j.Start != 50 {
		t.Errorf("head started at %d, reserved for 50", j.Start)
	}
	if j := &r.Jobs[3]; j.Start != 60 || j.End-j.Start != 120 {
		t.Errorf("job 4 started at %d and ran %d; want 60 and 120 (on the K80)", j.Start, j.End-j.Start)
	}
}

// TestNodesTouched counts distinct nodes, above and below the map's
// threshold.
func TestNodesTouched(t *testing.T) {
	for _, tc := range []struct {
		nodes []int32
		want  int
	}{{nil, 0}, {[]int32{3}, 1}, {[]int32{0, 1, 0, 1}, 2}, {make([]int32, 40), 1}, {append(make([]int32, 20), 1, 2), 3}} {
		slots := make([]Slot, len(tc.nodes))
		for i, n := range tc.nodes {
			slots[i].Node = n
		}
		if got := NodesTouched(slots); got != tc.want {
			t.Errorf("nodes %v: %d, want %d", tc.nodes, got, tc.want)
		}
	}
}

// TestConservativeFasterPlacementReserved: a longer window tried for a
// slower placement that then finds a faster one reserves what that one
// runs, not the window: no job starts later than its first reservation
// with exact estimates (a reviewer's find: job 1 was reserved [90, 210)
// on the V100, where it runs 40 s, and job 2, reserved at 190, started at
// 230).
func TestConservativeFasterPlacementReserved(t *testing.T) {
	c := gpuCluster(
		Node{Name: "t4", CPU: 32000, Mem: 65536, GPUs: 2, Model: "T4"},
		Node{Name: "v100", CPU: 32000, Mem: 65536, GPUs: 1, Model: "V100"},
	)
	job := func(id int64, submit Time, gpus int, v100 Time) Job {
		j := gpuJob(id, submit, v100, 1, Request{CPU: 1000, Mem: 1024, GPUs: gpus})
		j.RunOn = map[string]Time{"t4": 3 * v100, "v100": v100}
		return j
	}
	jobs := []Job{job(1, 20, 1, 40), job(2, 40, 1, 40), job(3, 30, 1, 100), job(4, 30, 2, 20), job(5, 0, 1, 90), job(6, 10, 1, 40), job(7, 10, 2, 20)}
	first := map[int64]Time{}
	h := &hooks{reserve: func(j *Job, at Time) {
		if _, ok := first[j.ID]; !ok {
			first[j.ID] = at
		}
	}}
	r, err := simulate(c, jobs, build(t, Spec{Backfill: "conservative", Placement: "best-fit", Estimate: "exact"}), h)
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range r.Jobs {
		if at, ok := first[j.ID]; ok && j.Start > at {
			t.Errorf("job %d starts at %d, after its first reservation %d", j.ID, j.Start, at)
		}
	}
	if len(first) == 0 {
		t.Fatal("no job was reserved: the case tests nothing")
	}
}
