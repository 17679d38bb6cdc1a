package scheduler

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestConsolidate: two 4-GPU nodes, a 1-GPU job holding node 0's first
// GPU, then a gang of 4 replicas of one GPU. Replica by replica,
// first-fit splits it 3 + 1 over the nodes; consolidated, the placement
// (first-fit, best-fit, fastest alike) puts it whole on node 1. A gang no
// node holds whole (8 replicas) spreads as before, and a job of one
// replica, or of shared GPUs, is placed as before.
func TestConsolidate(t *testing.T) {
	c := gpuCluster(
		Node{Name: "a", CPU: 32000, Mem: 65536, GPUs: 4, Model: "V100"},
		Node{Name: "b", CPU: 32000, Mem: 65536, GPUs: 4, Model: "V100"},
	)
	blocker := gpuJob(1, 0, 1000, 1, Request{CPU: 1000, GPUs: 1})
	for _, tc := range []struct {
		placement   string
		consolidate bool
		want        []int
	}{
		{"first-fit", false, []int{0, 0, 0, 1}},
		{"first-fit", true, []int{1, 1, 1, 1}},
		{"best-fit", true, []int{1, 1, 1, 1}},
		{"fastest", true, []int{1, 1, 1, 1}},
		{"tetris", true, []int{1, 1, 1, 1}},
	} {
		for _, bf := range []string{"none", "easy", "conservative"} {
			s := buildHetero(t, Spec{Placement: tc.placement, Backfill: bf, Estimate: "speed", Consolidate: tc.consolidate})
			r, err := Simulate(c, []Job{blocker, dlJob(2, 1, 4, 1)}, s)
			if err != nil {
				t.Fatal(err)
			}
			if got := nodesOf(&r.Jobs[1]); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("%s, %s, consolidate %v: gang on nodes %v, want %v", tc.placement, bf, tc.consolidate, got, tc.want)
			}
		}
	}
	// no node holds 8: spread over both once the blocker ends
	s := buildHetero(t, Spec{Placement: "first-fit", Estimate: "speed", Consolidate: true})
	r, err := Simulate(c, []Job{blocker, dlJob(2, 1, 8, 1)}, s)
	if err != nil {
		t.Fatal(err)
	}
	if got := nodesOf(&r.Jobs[1]); !reflect.DeepEqual(got, []int{0, 0, 0, 0, 1, 1, 1, 1}) || r.Jobs[1].Start != 1000 {
		t.Errorf("a gang of 8 on nodes %v from %d, want both nodes from 1000", got, r.Jobs[1].Start)
	}
	// shares of a GPU are no gang: replica by replica, as without
	shares := gpuJob(2, 1, 100, 2, Request{CPU: 1000, GPUs: 1, GPUMilli: 500})
	for _, cons := range []bool{false, true} {
		r, err := Simulate(c, []Job{blocker, shares}, buildHetero(t, Spec{Placement: "first-fit", Consolidate: cons}))
		if err != nil {
			t.Fatal(err)
		}
		if got := nodesOf(&r.Jobs[1]); !reflect.DeepEqual(got, []int{0, 0}) {
			t.Errorf("consolidate %v: two half GPUs on nodes %v, want [0 0]", cons, got)
		}
	}
}

// TestConsolidateBatchRefused: a batch placement places a pass's jobs
// together, so consolidate is refused with it, by name.
func TestConsolidateBatchRefused(t *testing.T) {
	_, err := DefaultParts().Build(Spec{Placement: "ga", Consolidate: true})
	if err == nil || !strings.Contains(err.Error(), "consolidate: placement ga") {
		t.Errorf("ga with consolidate: %v", err)
	}
}

// TestPropertyConsolidate: on random clusters of 4- and 8-GPU nodes and
// random gangs, a consolidated schedule is valid (Simulate's own checks)
// and never splits a gang over nodes while one node had all the GPUs it
// needs free when it started: at its start, no node is left with as many
// free GPUs as the gang holds, counting the GPUs of jobs running then.
func TestPropertyConsolidate(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 11))
	for trial := range 40 {
		var nodes []Node
		for i := range 2 + rng.IntN(4) {
			nodes = append(nodes, Node{Name: string(rune('a' + i)), CPU: 64000, Mem: 1 << 20, GPUs: []int{4, 8}[rng.IntN(2)], Model: "V100"})
		}
		c := gpuCluster(nodes...)
		var jobs []Job
		for id := range 30 {
			reps := 1 + rng.IntN(6)
			jobs = append(jobs, gpuJob(int64(id+1), Time(rng.IntN(500)), Time(50+rng.IntN(400)), reps, Request{CPU: 1000, GPUs: 1}))
		}
		placement := []string{"first-fit", "best-fit", "fastest"}[trial%3]
		r, err := Simulate(c, jobs, buildHetero(t, Spec{Placement: placement, Estimate: "speed", Consolidate: true}))
		if err != nil {
			t.Fatal(err)
		}
		for i := range r.Jobs {
			j := &r.Jobs[i]
			ns := nodesOf(j)
			split := false
			for _, n := range ns {
				split = split || n != ns[0]
			}
			if !split {
				continue
			}
			// free GPUs per node at j's start, j's own excluded
			free := make([]int, len(nodes))
			for k := range nodes {
				free[k] = nodes[k].GPUs
			}
			for o := range r.Jobs {
				x := &r.Jobs[o]
				if o == i || x.Start < 0 || !(x.Start <= j.Start && j.Start < x.End) {
					continue
				}
				for _, s := range x.Slots {
					free[s.Node]--
				}
			}
			for k, f := range free {
				if f >= len(ns) {
					t.Fatalf("trial %d (%s): job %d of %d replicas split over %v at %d while node %d had %d GPUs free", trial, placement, j.ID, len(ns), ns, j.Start, k, f)
				}
			}
		}
	}
}

// TestConsolidateEveryPlacement: every placement but the batch one (ga)
// takes consolidate on random gangs of up to 6 replicas of up to 4 GPUs
// (an aggregated ask of up to 24 GPUs, more than a node holds), fractional
// and whole, on 4- and 8-GPU nodes and a GPU pool, and gives a schedule
// Simulate accepts.
func TestConsolidateEveryPlacement(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	gangs := 0
	for _, name := range DefaultParts().Placements.Names() {
		if name == "ga" {
			continue
		}
		for trial := range 5 {
			c := gpuCluster(
				Node{Name: "a", CPU: 96000, Mem: 1 << 20, GPUs: 4, Model: "V100"},
				Node{Name: "b", CPU: 96000, Mem: 1 << 20, GPUs: 8, Model: "V100"},
				Node{Name: "c", CPU: 96000, Mem: 1 << 20, GPUs: 8, Model: "K80"},
			)
			if trial%2 == 1 {
				c.Nodes = append(c.Nodes, Node{Name: "p", CPU: 96000, Mem: 1 << 20, PoolGPUs: 8, Model: "V100"})
			}
			var jobs []Job
			for id := range 25 {
				r := Request{CPU: 1000, Mem: 1024, GPUs: 1 + rng.IntN(4)}
				if rng.IntN(5) == 0 {
					r.GPUs, r.GPUMilli = 1, 250*MilliGPU(1+rng.IntN(3))
				}
				jobs = append(jobs, gpuJob(int64(id+1), Time(rng.IntN(300)), Time(20+rng.IntN(200)), 1+rng.IntN(6), r))
			}
			r, err := Simulate(c, jobs, buildHetero(t, Spec{Placement: name, Estimate: "speed", Consolidate: true}))
			if err != nil {
				t.Errorf("%s, trial %d: %v", name, trial, err)
				continue
			}
			for i := range r.Jobs {
				if r.Jobs[i].Start >= 0 && r.Jobs[i].Replicas > 1 {
					gangs++
				}
			}
		}
	}
	if gangs < 100 {
		t.Errorf("%d gangs ran: want the placements to place many", gangs)
	}
}
