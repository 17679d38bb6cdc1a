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

// TestEASYSpanningEstimate: EASY backfills a job only if it ends by the
// head's reservation on the nodes this placement gives it, across nodes
// its RunSpanning time. Job 3 (4 GPUs, one node) waits for job 1's node
// (reserved at 100); job 4 would end by then within a node (2 + 90) but
// the placement splits it (2 + 150), and then the head would not fit at
// 100: job 4 must wait, and job 3 start at 100 as reserved.
func TestEASYSpanningEstimate(t *testing.T) {
	jobs := []Job{
		gpuJob(1, 0, 100, 1, Request{CPU: 1000, Mem: 1024, GPUs: 3}),
		gpuJob(2, 0, 1000, 1, Request{CPU: 1000, Mem: 1024, GPUs: 3}),
		gpuJob(3, 1, 10, 1, Request{CPU: 1000, Mem: 1024, GPUs: 4}),
		spanJob(4, 2, 2, 90, 150),
	}
	r, err := Simulate(twoV100(), jobs, build(t, Spec{Backfill: "easy", Estimate: "exact"}))
	if err != nil {
		t.Fatal(err)
	}
	if j := &r.Jobs[2]; j.Start != 100 {
		t.Errorf("head started at %d, reserved for 100", j.Start)
	}
	if j := &r.Jobs[3]; j.Start != 110 || j.End-j.Start != 90 || NodesTouched(j.Slots) != 1 {
		t.Errorf("job 4 started at %d, ran %d on %d nodes; want 110, 90 on one node", j.Start, j.End-j.Start, NodesTouched(j.Slots))
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
