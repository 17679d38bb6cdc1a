package scheduler

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// Every expected score below is worked out by hand from the formulas of
// docs/specs/fgd.md; the arithmetic is in each case's comment.

func gpus(g ...uint16) []uint16 { return g }

func TestDotProdScore(t *testing.T) {
	tests := []struct {
		name string
		v    NodeView
		p    PodShape
		want int
	}{
		// ½[(64000/128000)(8000/128000) + (2000/8000)(500/8000)] = ½[0.03125 + 0.015625] = 0.0234375 → 97.656
		{"share", NodeView{CPU: 64000, GPU: gpus(1000, 1000)}, PodShape{CPU: 8000, Milli: 500, GPUs: 1}, 97},
		// ½[1·1 + 1·1] = 1 → 0
		{"full match", NodeView{CPU: 128000, GPU: gpus(1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000)}, PodShape{CPU: 128000, Milli: 1000, GPUs: 8}, 0},
		// ½[0.75·0.25 + 1·1] = 0.59375 → 40.625
		{"8 GPUs", NodeView{CPU: 96000, GPU: gpus(1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000)}, PodShape{CPU: 32000, Milli: 1000, GPUs: 8}, 40},
		// ½[(32000/128000)(16000/128000)] = 0.015625 → 98.4375
		{"cpu only", NodeView{CPU: 32000, GPU: gpus(500)}, PodShape{CPU: 16000}, 98},
	}
	for _, tt := range tests {
		if got := DotProdScore(&tt.v, tt.p); got != tt.want {
			t.Errorf("%s: DotProdScore = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestClusteringScore(t *testing.T) {
	share := PodShape{CPU: 1000, Milli: 500, GPUs: 1}
	one := PodShape{CPU: 1000, Milli: 1000, GPUs: 1}
	v := NodeView{CPU: 64000, GPU: gpus(1000, 1000, 1000, 1000, 1000, 1000, 500, 500)} // G = 7000: base = 25·1000 div 8000 = 3
	tests := []struct {
		name string
		tags uint32
		p    PodShape
		want int
	}{
		{"only tag", 1 << 0, share, 3 + 75},
		{"one of two tags", 1<<0 | 1<<1, share, 3 + 50},
		{"no tags", 0, share, 3 + 25},
		{"other tag", 1 << 0, one, 3},
		{"1-gpu tag", 1 << 1, one, 3 + 75},
		{"cpu only", 1 << 0, PodShape{CPU: 1000}, 0},
	}
	for _, tt := range tests {
		if got := ClusteringScore(tt.tags, &v, tt.p); got != tt.want {
			t.Errorf("%s: ClusteringScore = %d, want %d", tt.name, got, tt.want)
		}
	}
	// G = 1500: base = 25·6500 div 8000 = 20 (20.3125)
	w := NodeView{GPU: gpus(1000, 500)}
	if got := ClusteringScore(0, &w, share); got != 45 {
		t.Errorf("G=1500, no tags: %d, want 20+25", got)
	}
	for _, tt := range []struct {
		p    PodShape
		want int
	}{{share, 0}, {one, 1}, {PodShape{Milli: 1000, GPUs: 8}, 8}, {PodShape{CPU: 5}, -1}} {
		if got := tt.p.Tag(); got != tt.want {
			t.Errorf("%+v.Tag() = %d, want %d", tt.p, got, tt.want)
		}
	}
}

func TestPackingScore(t *testing.T) {
	used := gpus(1000, 300, 1000, 600)
	tests := []struct {
		name string
		g    []uint16
		p    PodShape
		want int
	}{
		{"cpu only", used, PodShape{CPU: 1000}, 0},
		{"free node K=8", gpus(1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000), PodShape{Milli: 500, GPUs: 1}, 25}, // max(33−8, 8)
		{"free node K=2", gpus(1000, 1000), PodShape{Milli: 1000, GPUs: 1}, 31},                                    // max(33−2, 2)
		{"free node K=1", gpus(1000), PodShape{Milli: 1000, GPUs: 1}, 32},                                          // max(33−1, 1)
		// fits on 600, 1000, 1000; picks 600 (u=0): 100 − (600·100 div 1000) div 10 = 100 − 6
		{"shared GPU", used, PodShape{Milli: 500, GPUs: 1}, 94},
		// fits on 1000, 1000 only: u = 1 → max(50 − 1, 33)
		{"free GPU on used node", used, PodShape{Milli: 700, GPUs: 1}, 49},
		{"two free GPUs", used, PodShape{Milli: 1000, GPUs: 2}, 48},
		// picks 100: 100 − (10 div 10) = 99
		{"nearly full GPU", gpus(100, 1000), PodShape{Milli: 50, GPUs: 1}, 99},
		// 8 × 999 picked, u = 0: Σ = 8·99 = 792, 100 − 79 = 21 → floor 50
		{"floor 50", gpus(999, 999, 999, 999, 999, 999, 999, 999), PodShape{Milli: 100, GPUs: 8}, 50},
		{"does not fit", used, PodShape{Milli: 1000, GPUs: 3}, 0},
	}
	for _, tt := range tests {
		v := NodeView{CPU: 1000, GPU: tt.g}
		if got := PackingScore(&v, tt.p); got != tt.want {
			t.Errorf("%s: PackingScore = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestBestFitRawAndNormalize(t *testing.T) {
	// 1 − [0.5·56000/128000 + 0.5·1500/8000] = 1 − (0.21875 + 0.09375) = 0.6875 → 68
	v := NodeView{CPU: 64000, GPU: gpus(1000, 1000)}
	if got := BestFitRaw(&v, PodShape{CPU: 8000, Milli: 500, GPUs: 1}); got != 68 {
		t.Errorf("BestFitRaw = %d, want 68", got)
	}
	// an empty 128-core, 8-GPU node and an empty request: 1 − 1 = 0
	e := NodeView{CPU: 128000, GPU: gpus(1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000)}
	if got := BestFitRaw(&e, PodShape{}); got != 0 {
		t.Errorf("BestFitRaw(empty) = %d, want 0", got)
	}
	for _, tt := range []struct{ in, want []int }{
		{[]int{68, 0, 34}, []int{100, 0, 50}},
		{[]int{3, 7, 4}, []int{0, 100, 25}}, // (4−3)·100 div 4
		{[]int{5, 5}, []int{0, 0}},
		{[]int{-10, 10, 9}, []int{0, 100, 95}}, // 19·100 div 20
	} {
		got := slices.Clone(tt.in)
		NormalizeMinMax(got)
		if !slices.Equal(got, tt.want) {
			t.Errorf("NormalizeMinMax(%v) = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestNewTypical(t *testing.T) {
	cs := []FragClass{
		{CPU: 1000, Count: 5, Spec: "A"},
		{CPU: 8000, Milli: 500, GPUs: 1, Count: 50},
		{CPU: 2000, Count: 5},
		{CPU: 4000, Milli: 1000, GPUs: 1, Count: 30},
		{CPU: 3000, Count: 10},
	}
	ty := NewTypical(cs, 0.95)
	// 50, 80, 90, then one of the two 5s (the larger tuple, CPU 2000): 95 ≥ 95.
	var cpus []MilliCPU
	for _, c := range ty.Classes {
		cpus = append(cpus, c.CPU)
	}
	if want := []MilliCPU{8000, 4000, 3000, 2000}; !slices.Equal(cpus, want) {
		t.Fatalf("kept classes by CPU = %v, want %v", cpus, want)
	}
	if ty.Classes[0].P != 50.0/95 || ty.Classes[3].P != 5.0/95 {
		t.Errorf("P = %v, %v; want 50/95, 5/95", ty.Classes[0].P, ty.Classes[3].P)
	}
	if cs[0].Count != 5 || cs[0].P != 0 {
		t.Error("NewTypical changed its argument")
	}
	// Equal counts and CPU: the larger spec first.
	ty = NewTypical([]FragClass{{CPU: 1, Count: 1, Spec: "A"}, {CPU: 1, Count: 1, Spec: "B"}}, 0.5)
	if len(ty.Classes) != 1 || ty.Classes[0].Spec != "B" {
		t.Errorf("tie on count: kept %+v, want spec B", ty.Classes)
	}
}

func TestFragment(t *testing.T) {
	v := NodeView{CPU: 64000, Model: 1, GPU: gpus(1000, 300, 600, 0)} // G = 1900
	tests := []struct {
		name string
		c    FragClass
		want MilliGPU
	}{
		{"cpu-only class", FragClass{CPU: 4000}, 1900},
		{"share fits: the GPUs below 500", FragClass{CPU: 8000, Milli: 500, GPUs: 1, Models: AllModels}, 300},
		{"model not allowed", FragClass{CPU: 16000, Milli: 1000, GPUs: 1, Models: 2}, 1900},
		{"cpu does not fit", FragClass{CPU: 100000, Milli: 1000, GPUs: 1, Models: AllModels}, 1900},
		{"too few GPUs", FragClass{CPU: 8000, Milli: 1000, GPUs: 2, Models: AllModels}, 1900},
		{"one whole GPU fits", FragClass{CPU: 8000, Milli: 1000, GPUs: 1, Models: 1}, 900},
	}
	for _, tt := range tests {
		if got := tt.c.Fragment(&v); got != tt.want {
			t.Errorf("%s: fragment = %d, want %d", tt.name, got, tt.want)
		}
	}
	ty := &Typical{Classes: []FragClass{tests[0].c, tests[1].c}}
	ty.Classes[0].P, ty.Classes[1].P = 0.25, 0.75
	if got := ty.Frag(&v); got != 0.25*1900+0.75*300 {
		t.Errorf("Frag = %v, want 700", got)
	}
}

func TestFGDScore(t *testing.T) {
	share500 := &Typical{Classes: []FragClass{{CPU: 0, Milli: 500, GPUs: 1, Models: AllModels, P: 1}}}
	tests := []struct {
		name      string
		ty        *Typical
		v         NodeView
		p         PodShape
		score, gp int
	}{
		// GPU 0 → [700, 600]: fragment 0, Δ = 0 → 50; GPU 1 → [1000, 300]: Δ = −300 → 100·σ(−0.3) = 42.56
		{"share keeps GPUs usable", share500, NodeView{CPU: 10000, Model: 1, GPU: gpus(1000, 600)}, PodShape{Milli: 300, GPUs: 1}, 50, 0},
		// Frag = 350; GPU 0 → Δ = 0 → 50; GPU 1 → [1000, 50]: Δ = 300 → 100·σ(0.3) = 57.44
		{"share fills a fragment", share500, NodeView{CPU: 10000, Model: 1, GPU: gpus(1000, 350)}, PodShape{Milli: 300, GPUs: 1}, 57, 1},
		// both GPUs alike: the first
		{"tie: first GPU", share500, NodeView{CPU: 10000, Model: 1, GPU: gpus(1000, 1000)}, PodShape{Milli: 300, GPUs: 1}, 50, 0},
		// class needs 8000 CPU; the pod leaves 6000: fragment 0 → G' = 1000, Δ = −1000 → 100·σ(−1) = 26.89
		{"whole GPU starves cpu", &Typical{Classes: []FragClass{{CPU: 8000, Milli: 500, GPUs: 1, Models: AllModels, P: 1}}},
			NodeView{CPU: 10000, Model: 1, GPU: gpus(1000, 1000)}, PodShape{CPU: 4000, Milli: 1000, GPUs: 1}, 26, -1},
		// a 1-GPU class on [1000, 1000, 300]: Frag = 300; taking 2 GPUs leaves [0, 0, 300]: fragment G' = 300, Δ = 0 → 50
		{"two whole GPUs", &Typical{Classes: []FragClass{{Milli: 1000, GPUs: 1, Models: AllModels, P: 1}}},
			NodeView{CPU: 10000, Model: 1, GPU: gpus(1000, 1000, 300)}, PodShape{Milli: 1000, GPUs: 2}, 50, -1},
	}
	for _, tt := range tests {
		s, g := tt.ty.Score(&tt.v, tt.p)
		if s != tt.score || g != tt.gp {
			t.Errorf("%s: Score = %d on GPU %d, want %d on GPU %d", tt.name, s, g, tt.score, tt.gp)
		}
	}
	for _, tt := range []struct {
		d    float64
		want int
	}{{0, 50}, {1000, 73}, {-1000, 26}, {1e6, 100}, {-1e6, 0}} {
		if got := FragScore(tt.d); got != tt.want {
			t.Errorf("FragScore(%v) = %d, want %d", tt.d, got, tt.want)
		}
	}
}

// testState is a state of nodes with the given CPU, model bits and free
// GPU milli.
func testState(nodes []NodeView) *State {
	s := &State{}
	for _, n := range nodes {
		info := nodeInfo{cpu: n.CPU, mem: 1 << 20, gpus: len(n.GPU), model: n.Model}
		f := nodeFree{cpu: n.CPU, mem: 1 << 20}
		copy(f.gpu[:], n.GPU)
		s.info = append(s.info, info)
		s.free = append(s.free, f)
	}
	return s
}

func TestFGDPoliciesTieOrder(t *testing.T) {
	// Four identical nodes: every score ties, so each policy takes the
	// first node of its seeded permutation.
	nodes := make([]NodeView, 4)
	for i := range nodes {
		nodes[i] = NodeView{CPU: 32000, Model: 1, GPU: gpus(1000, 1000)}
	}
	s := testState(nodes)
	a := &Ask{CPU: 1000, GPUs: 1, Milli: 500, Shared: true, models: allModels}
	for _, seed := range []uint64{1, 2, 3} {
		want := rand.New(rand.NewPCG(seed, streamTieOrder)).Perm(4)[0]
		for _, p := range []interface {
			Placement
			Configurable
		}{&DotProduct{}, &GpuClustering{}, &GpuPacking{}, &BestFitFGD{}, &FGD{}} {
			if err := p.Configure(nil, Run{Seed: seed}); err != nil {
				t.Fatal(err)
			}
			if got := p.Choose(s, a); got != want {
				t.Errorf("%s, seed %d: node %d, want %d (first of the permutation)", p.Name(), seed, got, want)
			}
		}
	}
}

func TestFGDPoliciesChoose(t *testing.T) {
	// Node 0 is empty, node 1 has a share in use.
	s := testState([]NodeView{
		{CPU: 64000, Model: 1, GPU: gpus(1000, 1000)},
		{CPU: 64000, Model: 1, GPU: gpus(1000, 600)},
		{CPU: 64000, Model: 2, GPU: gpus(1000, 1000)},
	})
	share := &Ask{CPU: 1000, GPUs: 1, Milli: 300, Shared: true, models: 1}
	// Packing: node 0 (all free) max(33−2, 2) = 31; node 1 picks 600: 100 − 6 = 94.
	if got := (&GpuPacking{}).Choose(s, share); got != 1 {
		t.Errorf("gpu-packing: node %d, want 1", got)
	}
	// BestFit: node 1 leaves less GPU free.
	if got := (&BestFitFGD{}).Choose(s, share); got != 1 {
		t.Errorf("best-fit-fgd: node %d, want 1", got)
	}
	// DotProd: node 1 has less free GPU, so a smaller dot product.
	if got := (&DotProduct{}).Choose(s, share); got != 1 {
		t.Errorf("dot-product: node %d, want 1", got)
	}
	// Clustering: node 0 has no tags (base 18 + 25), node 1 a share
	// (base 25·6400 div 8000 = 20, + 75).
	gc := &GpuClustering{}
	gc.Placed(&Slot{Node: 1, Shared: 1, Milli: 400})
	if got := gc.Choose(s, share); got != 1 {
		t.Errorf("gpu-clustering: node %d, want 1", got)
	}
	gc.Released(&Slot{Node: 1, Shared: 1, Milli: 400})
	if gc.Tags(1) != 0 {
		t.Errorf("tags after release = %b", gc.Tags(1))
	}
	// FGD with a typical 500-milli share: Frag(node 1) = 0 (both GPUs ≥
	// 500); GPU 0 → [700, 600]: 0, score 50; GPU 1 → [1000, 300]: 300,
	// score 42. So GPU 0, where tightest-fit would take GPU 1. Node 0: GPU
	// 0 → [700, 1000]: 0, score 50. A tie; the first of the order wins.
	f := &FGD{Typical: &Typical{Classes: []FragClass{{Milli: 500, GPUs: 1, Models: AllModels, P: 1}}}}
	i := f.Choose(s, share)
	if i != 0 && i != 1 {
		t.Fatalf("fgd: node %d, want 0 or 1", i)
	}
	if g := f.ChooseGPU(s, 1, share); g != 0 {
		t.Errorf("fgd: GPU %d of node 1, want 0", g)
	}
	if g := TightestGPU(s.view(1).GPU, 300); g != 1 {
		t.Errorf("tightest GPU of node 1 = %d, want 1", g)
	}
}

func TestRandomPlacement(t *testing.T) {
	s := testState([]NodeView{
		{CPU: 64000, Model: 1, GPU: gpus(1000, 1000)},
		{CPU: 64000, Model: 1, GPU: gpus(200, 1000)},
		{CPU: 500, Model: 1, GPU: gpus(1000)},
	})
	share := &Ask{CPU: 1000, GPUs: 1, Milli: 300, Shared: true, models: allModels}
	draw := func(seed uint64) (nodes, gpus []int) {
		r := NewRandom(rand.New(rand.NewPCG(seed, 1)))
		for range 200 {
			i := r.Choose(s, share)
			nodes = append(nodes, i)
			gpus = append(gpus, r.ChooseGPU(s, i, share))
		}
		return nodes, gpus
	}
	n1, g1 := draw(7)
	n2, g2 := draw(7)
	if !slices.Equal(n1, n2) || !slices.Equal(g1, g2) {
		t.Fatal("same seed, different draws")
	}
	seen := map[int]int{}
	for k, i := range n1 {
		seen[i]++
		if i == 2 {
			t.Fatal("chose node 2, where the CPU does not fit")
		}
		if i == 1 && g1[k] != 1 {
			t.Fatalf("GPU %d of node 1, where only GPU 1 holds 300", g1[k])
		}
	}
	// 200 fair draws between two nodes: each at least 60 times fails with
	// probability below 1e-8 (binomial tail).
	if seen[0] < 60 || seen[1] < 60 {
		t.Errorf("draws per node %v: not uniform", seen)
	}
}

func TestFGDPlacementsSimulate(t *testing.T) {
	c := &Cluster{Name: "t", Nodes: []Node{
		{Name: "a", CPU: 32000, Mem: 1 << 16, GPUs: 2, Model: "T4"},
		{Name: "b", CPU: 32000, Mem: 1 << 16, GPUs: 4, Model: "V100"},
	}}
	var jobs []Job
	for i := range 40 {
		r := Request{CPU: 2000, Mem: 1024, GPUs: 1, GPUMilli: MilliGPU(100 + 100*(i%9))}
		if i%5 == 0 {
			r = Request{CPU: 4000, Mem: 1024, GPUs: 2}
		}
		jobs = append(jobs, Job{ID: int64(i), Submit: Time(i * 10), Run: Time(100 + 37*i%200), Tasks: []Task{{Replicas: 1, Request: r}}})
	}
	for _, name := range []string{"random", "dot-product", "gpu-clustering", "gpu-packing", "best-fit-fgd", "fgd"} {
		var out [2]string
		for k := range out {
			s, err := DefaultParts().Build(Spec{Placement: name, Seed: 3})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Simulate(c, jobs, s)
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			for _, j := range res.Jobs {
				if j.Status != Done {
					t.Errorf("%s: job %d %v", name, j.ID, j.Status)
				}
			}
			out[k] = fmt.Sprintf("%+v %+v", res.Summary, res.Jobs)
		}
		if out[0] != out[1] {
			t.Errorf("%s: two runs differ:\n%s\n%s", name, out[0], out[1])
		}
	}
}

// TestFGDMemo checks that FGD's per-node memo of scores gives the answers
// of scoring afresh, as nodes change under it and shapes vary.
func TestFGDMemo(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 8))
	var nodes []NodeView
	for i := range 30 {
		g := make([]uint16, 1+i%8)
		for k := range g {
			g[k] = uint16(rng.IntN(11) * 100)
		}
		nodes = append(nodes, NodeView{CPU: MilliCPU(1000 * (8 + rng.IntN(56))), Model: 1 << (i % 2), GPU: g})
	}
	s := testState(nodes)
	typ := &Typical{Classes: []FragClass{
		{Milli: 500, GPUs: 1, Models: AllModels, P: 0.5},
		{CPU: 4000, Milli: 1000, GPUs: 2, Models: 1, P: 0.3},
		{CPU: 2000, Milli: 200, GPUs: 1, Models: AllModels, P: 0.2},
	}}
	memo := &FGD{Typical: typ}
	shapes := []Ask{
		{CPU: 1000, GPUs: 1, Milli: 300, Shared: true, models: allModels},
		{CPU: 2000, GPUs: 1, Milli: 500, Shared: true, models: 1},
		{CPU: 4000, GPUs: 2, Milli: 1000, models: allModels},
		{CPU: 1000, GPUs: 1, Milli: 1000, models: 2},
	}
	hits := 0
	for step := range 2000 {
		a := &shapes[rng.IntN(len(shapes))]
		fresh := &FGD{Typical: typ}
		want, got := fresh.Choose(s, a), memo.Choose(s, a)
		if got != want {
			t.Fatalf("step %d: memoised FGD chose node %d, afresh %d", step, got, want)
		}
		if got >= 0 && a.Shared {
			if g, w := memo.ChooseGPU(s, got, a), fresh.ChooseGPU(s, got, a); g != w {
				t.Fatalf("step %d: memoised GPU %d, afresh %d", step, g, w)
			}
		}
		if got >= 0 {
			hits++
		}
		// Change one random node: take or give back GPU milli and CPU.
		i := rng.IntN(s.Len())
		f := &s.free[i]
		f.cpu = MilliCPU(1000 * rng.IntN(64))
		f.gpu[rng.IntN(s.info[i].gpus)] = uint16(rng.IntN(11) * 100)
	}
	if hits < 1000 {
		t.Errorf("only %d of 2000 asks placed: the test exercises too little", hits)
	}
}
