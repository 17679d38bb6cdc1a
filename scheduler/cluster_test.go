package scheduler

import (
	"math"
	"testing"
)

func gpuCluster(nodes ...Node) *Cluster { return &Cluster{Name: "test", Nodes: nodes} }

func gpuJob(id int64, submit, run Time, replicas int, r Request) Job {
	return Job{ID: id, Submit: submit, Run: run, Tasks: []Task{{Replicas: replicas, Request: r}}}
}

func TestGPUCluster(t *testing.T) {
	twoByFour := gpuCluster(
		Node{Name: "a", CPU: 32000, Mem: 65536, GPUs: 4, Model: "T4"},
		Node{Name: "b", CPU: 32000, Mem: 65536, GPUs: 4, Model: "V100"},
	)
	tests := []struct {
		name      string
		cluster   *Cluster
		placement string
		backfill  string
		jobs      []Job
		want      map[int64]Time  // start times
		nodes     map[int64][]int // nodes of each replica, where asserted
		unsched   []int64
	}{
		{
			// Job 2 needs two replicas of 4 GPUs: with one GPU of node a
			// taken by job 1 it cannot start at all (gang), though node b
			// is free; it starts when job 1 ends.
			name: "gang waits for all replicas", cluster: twoByFour, placement: "first-fit", backfill: "none",
			jobs: []Job{
				gpuJob(1, 0, 100, 1, Request{CPU: 1000, GPUs: 1}),
				gpuJob(2, 1, 10, 2, Request{CPU: 1000, GPUs: 4}),
			},
			want:  map[int64]Time{1: 0, 2: 100},
			nodes: map[int64][]int{2: {0, 1}},
		},
		{
			// Two 500-milli pods share GPU 0 of node a; a 600-milli pod
			// does not fit beside them there and takes GPU 1.
			name: "gpu sharing", cluster: twoByFour, placement: "first-fit", backfill: "none",
			jobs: []Job{
				gpuJob(1, 0, 100, 1, Request{CPU: 1000, GPUs: 1, GPUMilli: 500}),
				gpuJob(2, 0, 100, 1, Request{CPU: 1000, GPUs: 1, GPUMilli: 500}),
				gpuJob(3, 0, 100, 1, Request{CPU: 1000, GPUs: 1, GPUMilli: 600}),
			},
			want:  map[int64]Time{1: 0, 2: 0, 3: 0},
			nodes: map[int64][]int{1: {0}, 2: {0}, 3: {0}},
		},
		{
			// First-fit would take node a (T4); the model constraint sends
			// the pod to node b.
			name: "gpu model constraint", cluster: twoByFour, placement: "first-fit", backfill: "none",
			jobs: []Job{
				gpuJob(1, 0, 100, 1, Request{CPU: 1000, GPUs: 1, Models: []string{"V100", "A100"}}),
			},
			want:  map[int64]Time{1: 0},
			nodes: map[int64][]int{1: {1}},
		},
		{
			// Job 1 asks for a model the cluster lacks and job 2 for more
			// GPUs than a node has: both are reported unschedulable and
			// job 3 still runs.
			name: "unschedulable jobs", cluster: twoByFour, placement: "best-fit", backfill: "easy",
			jobs: []Job{
				gpuJob(1, 0, 100, 1, Request{CPU: 1000, GPUs: 1, Models: []string{"H100"}}),
				gpuJob(2, 0, 100, 1, Request{CPU: 1000, GPUs: 8}),
				gpuJob(3, 5, 100, 1, Request{CPU: 1000, GPUs: 2}),
			},
			want:    map[int64]Time{3: 5},
			unsched: []int64{1, 2},
		},
		{
			// Job 1 takes 3 of node b's 4 GPUs. Best-fit puts job 2 (any
			// model) beside it on b, which it leaves fullest; first-fit
			// would take node a.
			name: "best-fit packs", cluster: twoByFour, placement: "best-fit", backfill: "none",
			jobs: []Job{
				gpuJob(1, 0, 100, 1, Request{CPU: 1000, GPUs: 3, Models: []string{"V100"}}),
				gpuJob(2, 1, 100, 1, Request{CPU: 1000, GPUs: 1}),
			},
			want:  map[int64]Time{1: 0, 2: 1},
			nodes: map[int64][]int{1: {1}, 2: {1}},
		},
		{
			// Round-robin moves on after each placement.
			name: "round-robin spreads", cluster: twoByFour, placement: "round-robin", backfill: "none",
			jobs: []Job{
				gpuJob(1, 0, 100, 1, Request{CPU: 1000, GPUs: 1}),
				gpuJob(2, 1, 100, 1, Request{CPU: 1000, GPUs: 1}),
				gpuJob(3, 2, 100, 1, Request{CPU: 1000, GPUs: 1}),
			},
			want:  map[int64]Time{1: 0, 2: 1, 3: 2},
			nodes: map[int64][]int{1: {0}, 2: {1}, 3: {0}},
		},
		{
			// Tetris: a CPU-heavy pod aligns with the node whose CPU is
			// free (b), not the one whose CPU is nearly used up (a).
			name: "tetris aligns demand and free resources", placement: "tetris", backfill: "none",
			cluster: gpuCluster(
				Node{Name: "a", CPU: 32000, Mem: 65536, GPUs: 4, Model: "T4"},
				Node{Name: "b", CPU: 32000, Mem: 65536, GPUs: 4, Model: "T4"},
			),
			jobs: []Job{
				gpuJob(1, 0, 100, 1, Request{CPU: 24000, Mem: 1024, GPUs: 0, Models: nil}),
				gpuJob(2, 1, 100, 1, Request{CPU: 4000, Mem: 1024}),
			},
			want:  map[int64]Time{1: 0, 2: 1},
			nodes: map[int64][]int{1: {0}, 2: {1}},
		},
		{
			// EASY on nodes: job 2 (8 GPUs, two replicas) is the head;
			// job 3 (1 GPU, 10 s) ends before the shadow time (100).
			name: "easy on gpu nodes", cluster: twoByFour, placement: "first-fit", backfill: "easy",
			jobs: []Job{
				gpuJob(1, 0, 100, 1, Request{CPU: 1000, GPUs: 2}),
				gpuJob(2, 1, 10, 2, Request{CPU: 1000, GPUs: 4}),
				gpuJob(3, 2, 10, 1, Request{CPU: 1000, GPUs: 1}),
				gpuJob(4, 3, 500, 1, Request{CPU: 1000, GPUs: 1}),
			},
			// job 4 (ends 503 > 100) would take a GPU job 2 needs at 100.
			want: map[int64]Time{1: 0, 2: 100, 3: 2, 4: 110},
		},
		{
			name: "conservative on gpu nodes", cluster: twoByFour, placement: "first-fit", backfill: "conservative",
			jobs: []Job{
				gpuJob(1, 0, 100, 1, Request{CPU: 1000, GPUs: 2}),
				gpuJob(2, 1, 10, 2, Request{CPU: 1000, GPUs: 4}),
				gpuJob(3, 2, 10, 1, Request{CPU: 1000, GPUs: 1}),
				gpuJob(4, 3, 500, 1, Request{CPU: 1000, GPUs: 1}),
			},
			want: map[int64]Time{1: 0, 2: 100, 3: 2, 4: 110},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Simulate(tt.cluster, tt.jobs, build(t, Spec{Placement: tt.placement, Backfill: tt.backfill, Estimate: "exact"}))
			if err != nil {
				t.Fatal(err)
			}
			got := starts(r)
			for id, w := range tt.want {
				if got[id] != w {
					t.Errorf("job %d starts at %d, want %d (all: %v)", id, got[id], w, got)
				}
			}
			for _, j := range r.Jobs {
				if want, ok := tt.nodes[j.ID]; ok {
					var nodes []int
					for _, s := range j.Slots {
						nodes = append(nodes, int(s.Node))
					}
					if !equalInts(nodes, want) {
						t.Errorf("job %d on nodes %v, want %v", j.ID, nodes, want)
					}
				}
			}
			var unsched []int64
			for _, j := range r.Jobs {
				if j.Status == Unschedulable {
					unsched = append(unsched, j.ID)
				}
			}
			if len(unsched) != len(tt.unsched) || r.Summary.Unschedulable != len(tt.unsched) {
				t.Errorf("unschedulable %v (summary %d), want %v", unsched, r.Summary.Unschedulable, tt.unsched)
			}
		})
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func TestSharedGPUSlot(t *testing.T) {
	c := gpuCluster(Node{Name: "a", CPU: 8000, Mem: 8192, GPUs: 2, Model: "T4"})
	jobs := []Job{
		gpuJob(1, 0, 10, 1, Request{CPU: 1000, GPUs: 1, GPUMilli: 700}),
		gpuJob(2, 0, 10, 1, Request{CPU: 1000, GPUs: 1, GPUMilli: 300}),
		gpuJob(3, 0, 10, 1, Request{CPU: 1000, GPUs: 1, GPUMilli: 400}),
	}
	r, err := Simulate(c, jobs, build(t, Spec{}))
	if err != nil {
		t.Fatal(err)
	}
	// 700 on GPU 0; 300 fills GPU 0 exactly (tightest fit); 400 on GPU 1.
	want := []int8{0, 0, 1}
	for i, j := range r.Jobs {
		if j.Slots[0].Shared != want[i] {
			t.Errorf("job %d on GPU %d, want %d", j.ID, j.Slots[0].Shared, want[i])
		}
	}
}

func TestBadClusterAndJobs(t *testing.T) {
	s := build(t, Spec{})
	if _, err := Simulate(&Cluster{Name: "empty"}, nil, s); err == nil {
		t.Error("cluster without nodes accepted")
	}
	bad := []Job{{ID: 1, Submit: -5, Run: 10, Tasks: []Task{{Replicas: 1, Request: Request{CPU: 1000}}}}}
	if _, err := Simulate(NewPool("p", 4), bad, s); err == nil {
		t.Error("negative submit time accepted")
	}
	dup := poolJobs(pj{1, 0, 1, 1, 0}, pj{1, 0, 1, 1, 0})
	if _, err := Simulate(NewPool("p", 4), dup, s); err == nil {
		t.Error("duplicate job accepted")
	}
}

// TestUnschedulableOutsideSpan: a job the cluster can never start (16 GPUs
// on nodes of 4) counts in unschedulable, not in the makespan or the
// utilisation: its submit at 0 had stretched the span of the one job that
// ran (100 s on 4 of 8 GPUs from 1,000) to 1,100 s, at 4.5% of the GPUs.
func TestUnschedulableOutsideSpan(t *testing.T) {
	c := gpuCluster(
		Node{Name: "a", CPU: 32000, Mem: 65536, GPUs: 4, Model: "V100"},
		Node{Name: "b", CPU: 32000, Mem: 65536, GPUs: 4, Model: "V100"},
	)
	jobs := []Job{
		gpuJob(1, 0, 100, 1, Request{CPU: 1000, GPUs: 16}),
		gpuJob(2, 1000, 100, 1, Request{CPU: 1000, GPUs: 4}),
	}
	r, err := Simulate(c, jobs, build(t, Spec{Placement: "first-fit", Backfill: "none", Estimate: "exact"}))
	if err != nil {
		t.Fatal(err)
	}
	if s := r.Summary; s.Unschedulable != 1 || s.Completed != 1 || s.Makespan != 100 || math.Abs(s.UtilGPU-0.5) > 1e-9 {
		t.Errorf("unschedulable %d, completed %d, makespan %d, GPU utilisation %.4f; want 1, 1, 100, 0.5",
			s.Unschedulable, s.Completed, s.Makespan, s.UtilGPU)
	}
}
