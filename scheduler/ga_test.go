package scheduler

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"slices"
	"strings"
	"testing"
)

// stateOf is the free state of c with nothing running.
func stateOf(t testing.TB, c *Cluster) *State {
	t.Helper()
	m := &sim{cl: c}
	if err := m.load(nil); err != nil {
		t.Fatal(err)
	}
	return &m.st
}

// gaWaiting turns one-replica requests into a queue, resolving their GPU
// models against s's cluster c.
func gaWaiting(c *Cluster, reqs ...Request) []Waiting {
	models := map[string]int{}
	for _, n := range c.Nodes {
		if _, ok := models[strings.ToLower(n.Model)]; !ok && n.GPUs > 0 {
			models[strings.ToLower(n.Model)] = len(models) // as the engine keys them
		}
	}
	w := make([]Waiting, len(reqs))
	for i := range reqs {
		w[i] = Waiting{Job: &Job{ID: int64(i)}, Asks: []Ask{resolve(&reqs[i], models)}, Reps: []int{1}}
	}
	return w
}

func newTestGA(t testing.TB, p GAParams, seed uint64) *GA {
	t.Helper()
	g, err := NewGA(p, rand.New(rand.NewPCG(seed, 1)))
	if err != nil {
		t.Fatal(err)
	}
	return g
}

func whole(n int) Request { return Request{CPU: 1000, Mem: 1024, GPUs: n} }
func share(m MilliGPU) Request {
	return Request{CPU: 1000, Mem: 1024, GPUs: 1, GPUMilli: m}
}

func TestGAFitness(t *testing.T) {
	// Two nodes of 2 GPUs; three jobs of 2, 1 and 1 whole GPUs.
	c := gpuCluster(
		Node{Name: "a", CPU: 8000, Mem: 8192, GPUs: 2, Model: "V100"},
		Node{Name: "b", CPU: 8000, Mem: 8192, GPUs: 2, Model: "V100"},
	)
	s := stateOf(t, c)
	g := newTestGA(t, GAParams{}, 1)
	g.build(s, gaWaiting(c, whole(2), whole(1), whole(1)))
	scale := g.scale() // 4: three jobs + 1
	tests := []struct {
		name string
		sol  []int32
		want int64
	}{
		{"none", []int32{-1, -1, -1}, 0},
		{"all fit", []int32{0, 1, 1}, 4000*scale + 3},
		{"one", []int32{-1, 0, -1}, 1000*scale + 1},
		{"over-allocated node", []int32{0, 0, -1}, -1},
		{"three on one node", []int32{1, 1, 1}, -1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := g.evaluate(g.work[0], tt.sol); got != tt.want {
				t.Errorf("fitness %v = %d, want %d", tt.sol, got, tt.want)
			}
		})
	}
	// Shares: two shares of 600 milli do not fit one GPU, but do fit the
	// two GPUs of a node.
	g.build(s, gaWaiting(c, share(600), share(600), share(600), share(600), share(600)))
	if got := g.evaluate(g.work[0], []int32{0, 0, -1, -1, -1}); got != 1200*g.scale()+2 {
		t.Errorf("two 600-milli shares on one 2-GPU node: fitness %d, want %d", got, 1200*g.scale()+2)
	}
	if got := g.evaluate(g.work[0], []int32{0, 0, 0, -1, -1}); got != -1 {
		t.Errorf("three 600-milli shares on one 2-GPU node: fitness %d, want -1", got)
	}
}

func TestGACandidatesPruned(t *testing.T) {
	c := gpuCluster(
		Node{Name: "k80", CPU: 8000, Mem: 8192, GPUs: 4, Model: "K80"},
		Node{Name: "v100", CPU: 8000, Mem: 8192, GPUs: 2, Model: "V100"},
		Node{Name: "cpu", CPU: 8000, Mem: 8192},
	)
	s := stateOf(t, c)
	v100 := whole(1)
	v100.Models = []string{"V100"}
	g := newTestGA(t, GAParams{}, 1)
	// A 4-GPU job fits only the K80 node; a V100 job only the V100 node;
	// an 8-GPU job nowhere (left out of the chromosome); a CPU job
	// anywhere.
	g.build(s, gaWaiting(c, whole(4), v100, whole(8), Request{CPU: 500}))
	var got [][]int32
	for _, ge := range g.genes {
		got = append(got, slices.Clone(g.cands[ge.cand.lo:ge.cand.hi]))
	}
	want := [][]int32{{0}, {1}, {0, 1, 2}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("candidates %v, want %v", got, want)
	}
	if len(g.jobs) != 3 || g.jobs[2].out != 3 {
		t.Errorf("jobs %+v: want 3, the last at replica 3 of the queue", g.jobs)
	}
}

func TestGATournament(t *testing.T) {
	g := newTestGA(t, GAParams{Population: 10}, 3)
	g.p = g.p.withDefaults()
	g.fit = []int64{5, 1, 9, -1, 3, 9, 0, 2, 7, 4}
	g.idx = make([]int32, 10)
	// A tournament over the whole population is won by the fittest, the
	// first of equals drawn; over 2 distinct solutions never by the least
	// fit.
	for range 100 {
		if w := g.tournament(10); g.fit[w] != 9 {
			t.Fatalf("tournament of all: winner %d with fitness %d, want fitness 9", w, g.fit[w])
		}
		if w := g.tournament(2); w == 3 {
			t.Fatalf("tournament of 2 won by the least fit solution")
		}
	}
	// Size 1 is a uniform draw: every solution wins sometimes.
	wins := make([]int, 10)
	for range 2000 {
		wins[g.tournament(1)]++
	}
	for i, w := range wins {
		if w < 100 { // expected 200, sd ≈ 13
			t.Errorf("solution %d won %d of 2000 one-solution tournaments, want about 200", i, w)
		}
	}
	if got := (&GA{p: GAParams{Population: 100, Tournament: 0.2}}).tournamentSize(); got != 20 {
		t.Errorf("tournament size %d, want 20 (20%% of 100)", got)
	}
}

func TestGACrossover(t *testing.T) {
	a := []int32{1, 2, 3, 4, 5}
	b := []int32{-1, -2, -3, -4, -5}
	kid := make([]int32, 5)
	onePointCrossover(kid, a, b, 2)
	if want := []int32{1, 2, -3, -4, -5}; !slices.Equal(kid, want) {
		t.Errorf("crossover at 2: %v, want %v", kid, want)
	}
	onePointCrossover(kid, b, a, 4)
	if want := []int32{-1, -2, -3, -4, 5}; !slices.Equal(kid, want) {
		t.Errorf("crossover at 4: %v, want %v", kid, want)
	}
}

func TestGAMutationRate(t *testing.T) {
	// Population of 4 with fitnesses summing to 10: mean 2.5.
	tests := []struct {
		fit  int64
		want float64
	}{
		{3, 0.25}, {2, 0.1}, {-1, 0.1}, {10, 0.25},
	}
	for _, tt := range tests {
		if got := MutationRate(tt.fit, 10, 4, 0.25, 0.1); got != tt.want {
			t.Errorf("fitness %d, mean 2.5: rate %v, want %v", tt.fit, got, tt.want)
		}
	}
	// Equal to the mean is not above it.
	if got := MutationRate(5, 20, 4, 0.25, 0.1); got != 0.1 {
		t.Errorf("fitness at the mean: rate %v, want 0.1", got)
	}
}

func TestGAMutate(t *testing.T) {
	c := gpuCluster(Node{Name: "a", CPU: 8000, Mem: 8192, GPUs: 2, Model: "V100"})
	g := newTestGA(t, GAParams{}, 5)
	reqs := make([]Request, 100)
	for i := range reqs {
		reqs[i] = whole(1)
	}
	g.build(stateOf(t, c), gaWaiting(c, reqs...))
	sol := make([]int32, 100)
	if g.mutate(sol, 0) {
		t.Error("rate 0 changed a gene")
	}
	// At rate 1 every gene is redrawn from {node 0, none}: about half
	// change from 0.
	for k := range sol {
		sol[k] = 0
	}
	g.mutate(sol, 1)
	none := 0
	for _, v := range sol {
		if v != 0 && v != -1 {
			t.Fatalf("mutation drew %d, not a candidate", v)
		}
		if v == -1 {
			none++
		}
	}
	if none < 30 || none > 70 { // binomial(100, 1/2): sd 5
		t.Errorf("%d of 100 genes became none at rate 1, want about 50", none)
	}
}

// hardQueue is a queue on a small cluster where first-fit is not optimal
// and no solution starts every job: 3-GPU jobs and 2-GPU jobs on 4-GPU
// nodes.
func hardQueue(t testing.TB) (*State, []Waiting) {
	var nodes []Node
	for i := range 6 {
		nodes = append(nodes, Node{Name: string(rune('a' + i)), CPU: 64000, Mem: 65536, GPUs: 4, Model: "V100"})
	}
	c := gpuCluster(nodes...)
	var reqs []Request
	for i := range 12 {
		if i%3 == 0 {
			reqs = append(reqs, whole(3))
		} else {
			reqs = append(reqs, whole(2))
		}
	}
	reqs = append(reqs, share(700), share(400), share(300), whole(1))
	return stateOf(t, c), gaWaiting(c, reqs...)
}

func TestGAReplacement(t *testing.T) {
	s, w := hardQueue(t)
	g := newTestGA(t, GAParams{NoSeed: true}, 7)
	g.build(s, w)
	g.initPopulation()
	n := len(g.genes)
	before := slices.Clone(g.pop)
	fit := slices.Clone(g.fit)
	worst := slices.Clone(g.worst(g.kidCount()))
	if len(worst) != 40 {
		t.Fatalf("%d children per generation, want 40 (40%% of 100)", len(worst))
	}
	g.generation()
	for i := range g.p.Population {
		changed := !slices.Equal(before[i*n:(i+1)*n], g.pop[i*n:(i+1)*n]) || fit[i] != g.fit[i]
		if changed && !slices.Contains(worst, int32(i)) {
			t.Errorf("solution %d (fitness %d) replaced, but it is not among the 40 worst", i, fit[i])
		}
	}
	// The replaced ones are no fitter than any kept one.
	maxOut := int64(-2)
	for _, i := range worst {
		maxOut = max(maxOut, fit[i])
	}
	for i := range g.p.Population {
		if !slices.Contains(worst, int32(i)) && fit[i] < maxOut {
			t.Errorf("kept solution %d has fitness %d below a replaced one's %d", i, fit[i], maxOut)
		}
	}
}

func TestGAStoppingRule(t *testing.T) {
	s, w := hardQueue(t)
	// Patience: a run ends K generations after its last improvement,
	// before G.
	g := newTestGA(t, GAParams{Generations: 100000, Patience: 7}, 11)
	nodes := make([]int32, len(w))
	g.PlaceBatch(s, w, nodes)
	st := g.LastPass()
	if st.Generations < 7 || st.Generations >= 100000 {
		t.Errorf("%d generations with patience 7 and G 100000", st.Generations)
	}
	// G bounds the run.
	g = newTestGA(t, GAParams{Generations: 3, Patience: 1000}, 11)
	g.PlaceBatch(s, w, nodes)
	if st := g.LastPass(); st.Generations != 3 {
		t.Errorf("%d generations with G 3, want 3", st.Generations)
	}
	// When first-fit starts every job, the seed is optimal: no generation.
	c := gpuCluster(Node{Name: "a", CPU: 8000, Mem: 8192, GPUs: 4, Model: "V100"})
	g = newTestGA(t, GAParams{}, 11)
	ws := gaWaiting(c, whole(1), whole(2))
	g.PlaceBatch(stateOf(t, c), ws, nodes[:2])
	if st := g.LastPass(); st.Generations != 0 || !slices.Equal(nodes[:2], []int32{0, 0}) {
		t.Errorf("all fit: %d generations, nodes %v; want 0 and [0 0]", st.Generations, nodes[:2])
	}
}

// TestGAPatienceCountsFromLastImprovement checks the rule on the sequence
// of best fitnesses itself.
func TestGAPatienceCountsFromLastImprovement(t *testing.T) {
	s, w := hardQueue(t)
	g := newTestGA(t, GAParams{Generations: 1000, Patience: 5, NoSeed: true}, 13)
	g.build(s, w)
	g.initPopulation()
	best := g.fit[fittest(g.fit)]
	stale, gens := 0, 0
	for stale < 5 && gens < 1000 {
		nb := g.generation()
		gens++
		if g.fit[nb] < best {
			t.Fatalf("generation %d: best fitness fell from %d to %d", gens, best, g.fit[nb])
		}
		if g.fit[nb] > best {
			best, stale = g.fit[nb], 0
		} else {
			stale++
		}
	}
	g2 := newTestGA(t, GAParams{Generations: 1000, Patience: 5, NoSeed: true}, 13)
	nodes := make([]int32, len(w))
	g2.PlaceBatch(s, w, nodes)
	if st := g2.LastPass(); st.Generations != gens || st.Best != best {
		t.Errorf("PlaceBatch ran %d generations to %d; the rule applied by hand gives %d to %d", st.Generations, st.Best, gens, best)
	}
}

func TestGABeatsItsFirstFitSeed(t *testing.T) {
	for seed := range uint64(20) {
		s, w := hardQueue(t)
		g := newTestGA(t, GAParams{}, seed)
		nodes := make([]int32, len(w))
		g.PlaceBatch(s, w, nodes)
		st := g.LastPass()
		if st.Best < st.Seed || st.Seed < 0 {
			t.Errorf("seed %d: best %d below the first-fit seed's %d", seed, st.Best, st.Seed)
		}
	}
	// One 4-GPU node and a queue of 3, 2 and 2 GPUs: first-fit starts the
	// 3 (3 GPUs), the GA the two 2s (all 4).
	c := gpuCluster(Node{Name: "a", CPU: 8000, Mem: 8192, GPUs: 4, Model: "V100"})
	g := newTestGA(t, GAParams{}, 1)
	nodes := make([]int32, 3)
	g.PlaceBatch(stateOf(t, c), gaWaiting(c, whole(3), whole(2), whole(2)), nodes)
	if want := []int32{-1, 0, 0}; !slices.Equal(nodes, want) {
		t.Errorf("nodes %v, want %v (stats %+v)", nodes, want, g.LastPass())
	}
}

func TestGADeterministic(t *testing.T) {
	s, w := hardQueue(t)
	run := func(seed uint64, workers int) ([]int32, GAStats) {
		g := newTestGA(t, GAParams{Workers: workers, NoSeed: true}, seed)
		nodes := make([]int32, len(w))
		g.PlaceBatch(s, w, nodes)
		return nodes, g.LastPass()
	}
	a, sa := run(42, 1)
	for _, workers := range []int{1, 2, 4, 7} {
		b, sb := run(42, workers)
		if !slices.Equal(a, b) || sa != sb {
			t.Errorf("seed 42, %d workers: %v %+v; 1 worker: %v %+v", workers, b, sb, a, sa)
		}
	}
	differ := false
	for seed := uint64(43); seed < 53 && !differ; seed++ {
		b, _ := run(seed, 1)
		differ = !slices.Equal(a, b)
	}
	if !differ {
		t.Error("ten other seeds all gave seed 42's assignment")
	}
}

// TestGASimulation runs placement ga through the engine on random
// workloads: the schedule's invariants hold (never over-allocated, every
// job ends once), and runs repeat to the byte, whatever the workers.
func TestGASimulation(t *testing.T) {
	r := rand.New(rand.NewPCG(8, 8))
	for i := range 6 {
		c := randomCluster(r)
		jobs := randomGPUJobs(r, 60, i%2 == 0)
		var results []*Result
		for _, workers := range []int{1, 3} {
			s, err := DefaultParts().Build(Spec{Placement: "ga", Estimate: "exact", Seed: uint64(i), PlacementArgs: Args{"workers": workers, "generations": 20}})
			if err != nil {
				t.Fatal(err)
			}
			res, err := Simulate(c, jobs, s)
			if err != nil {
				t.Fatal(err)
			}
			checkSchedule(t, c, jobs, res)
			results = append(results, res)
		}
		if !reflect.DeepEqual(results[0], results[1]) {
			t.Errorf("workload %d: 1 and 3 workers give different results", i)
		}
	}
}

func TestGAParamsValidate(t *testing.T) {
	bad := []GAParams{
		{Population: 1}, {Population: -3}, {Generations: -1}, {Patience: -1}, {Window: -1},
		{Tournament: 1.5}, {Replace: -0.1}, {MutateAbove: 2}, {Workers: -1},
	}
	for _, p := range bad {
		if p.Validate() == nil {
			t.Errorf("%+v: valid, want an error", p)
		}
	}
	if err := (GAParams{}).Validate(); err != nil {
		t.Errorf("zero params: %v", err)
	}
	if _, err := DefaultParts().Build(Spec{Placement: "ga", PlacementArgs: Args{"population": 1}}); err == nil {
		t.Error("Build with population 1: no error")
	}
}

// paiLike is a cluster with the PAI v2020 machine mix (datasets/data/pai:
// 1,897 machines, 6,742 GPUs), 99% filled at random, and a queue of
// openb-like pods: shares, 1, 2, 4 and 8 whole GPUs, a third of them tied
// to one GPU model.
func paiLike(tb testing.TB, queue int) (*State, []Waiting) {
	groups := []struct {
		n, gpus int
		model   string
		cores   MilliCPU
	}{{135, 8, "V100M32", 96}, {104, 8, "V100", 96}, {280, 8, "MISC", 96}, {497, 2, "T4", 96}, {798, 2, "P100", 64}, {83, 0, "", 96}}
	var nodes []Node
	for _, gr := range groups {
		for range gr.n {
			nodes = append(nodes, Node{Name: "n", CPU: gr.cores * MilliPerCore, Mem: 512 * 1024, GPUs: gr.gpus, Model: gr.model})
		}
	}
	c := gpuCluster(nodes...)
	s := stateOf(tb, c)
	r := rand.New(rand.NewPCG(2024, 3))
	models := []string{"V100M32", "V100", "MISC", "T4", "P100"}
	pod := func() Request {
		req := Request{CPU: MilliCPU(1+r.IntN(16)) * MilliPerCore, Mem: MiB(1+r.IntN(64)) * 1024}
		switch k := r.IntN(10); {
		case k < 4:
			req.GPUs, req.GPUMilli = 1, MilliGPU(100*(1+r.IntN(9)))
		case k < 7:
			req.GPUs = 1
		case k < 8:
			req.GPUs = 2
		case k < 9:
			req.GPUs = 4
		default:
			req.GPUs = 8
		}
		if r.IntN(3) == 0 {
			req.Models = []string{models[r.IntN(len(models))]}
		}
		return req
	}
	// Fill to about 99% of the GPUs, first-fit.
	filled := gaWaiting(c, func() []Request {
		var rs []Request
		for range 50000 {
			rs = append(rs, pod())
		}
		return rs
	}()...)
	var used, total int64 = 0, 6742 * 1000
	for _, w := range filled {
		a := &w.Asks[0]
		if used > total*99/100 {
			break
		}
		if i := (FirstFit{}).Choose(s, a); i >= 0 {
			s.take(i, a)
			used += int64(a.GPUs) * int64(a.Milli)
		}
	}
	// The queue asks mostly for large shares and single GPUs, which the
	// few nodes left with room compete for.
	var q []Request
	for range queue {
		req := pod()
		if req.GPUs > 2 || r.IntN(2) == 0 {
			req.GPUs, req.GPUMilli = 1, MilliGPU(500+100*r.IntN(5))
		}
		q = append(q, req)
	}
	return s, gaWaiting(c, q...)
}

// BenchmarkGAPass is one scheduling pass of placement ga with the default
// parameters on the PAI machine mix, 99% allocated, with 128 pods waiting.
func BenchmarkGAPass(b *testing.B) {
	s, w := paiLike(b, 128)
	nodes := make([]int32, len(w))
	for _, workers := range []int{1, 2} {
		b.Run(fmt.Sprintf("workers=%d", workers), func(b *testing.B) {
			g := newTestGA(b, GAParams{Workers: workers}, 1)
			g.PlaceBatch(s, w, nodes) // size the buffers
			b.ReportAllocs()
			gens, evals := 0, 0
			for b.Loop() {
				g.PlaceBatch(s, w, nodes)
				gens += g.LastPass().Generations
				evals += g.LastPass().Evaluations
			}
			b.ReportMetric(float64(gens)/float64(b.N), "generations/op")
			b.ReportMetric(float64(evals)/float64(b.N), "evaluations/op")
		})
	}
}

// BenchmarkGAFitness is one fitness evaluation of a 128-gene solution.
func BenchmarkGAFitness(b *testing.B) {
	s, w := paiLike(b, 128)
	g := newTestGA(b, GAParams{}, 1)
	g.build(s, w)
	g.initPopulation()
	n := len(g.genes)
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		g.evaluate(g.work[0], g.pop[i*n:(i+1)*n])
		i = (i + 1) % g.p.Population
	}
}

// TestGACandidatesMatchFits checks the summaries against State.Fits on a
// loaded cluster.
func TestGACandidatesMatchFits(t *testing.T) {
	s, w := paiLike(t, 300)
	g := newTestGA(t, GAParams{Window: 1000}, 1)
	g.build(s, w)
	for k, ge := range g.genes {
		var want []int32
		for i := 0; i < s.Len(); i++ {
			if s.Fits(i, ge.ask) {
				want = append(want, int32(i))
			}
		}
		if got := g.cands[ge.cand.lo:ge.cand.hi]; !slices.Equal(got, want) {
			t.Fatalf("gene %d (%+v): %d candidates, Fits gives %d", k, *ge.ask, len(got), len(want))
		}
	}
}

// TestGAAllInfeasibleFallsBack: with NoSeed every initial solution is
// random, and on a queue of one-GPU jobs for a single GPU most assign two
// jobs to it; when no solution of a pass fits, the pass places first-fit
// instead of committing a solution that does not fit (which the engine
// refused with a panic), and every job runs.
func TestGAAllInfeasibleFallsBack(t *testing.T) {
	c := gpuCluster(Node{Name: "n", CPU: 64000, Mem: 1 << 20, GPUs: 1, Model: "V100"})
	var jobs []Job
	for i := range 30 {
		jobs = append(jobs, Job{ID: int64(i), Submit: 0, Run: Time(10 + i),
			Tasks: []Task{{Replicas: 1, Request: Request{CPU: 1000, GPUs: 1}}}})
	}
	fell := 0
	for seed := range uint64(20) {
		s := build(t, Spec{Placement: "ga", Seed: seed, PlacementArgs: Args{"no_seed": true, "population": 2, "generations": 1, "patience": 1}})
		r, err := Simulate(c, jobs, s)
		if err != nil {
			t.Fatal(err)
		}
		for _, j := range r.Jobs {
			if j.Status != Done {
				t.Fatalf("seed %d: job %d %v", seed, j.ID, j.Status)
			}
		}
		fell += s.Placement.(*GA).firstFits
	}
	if fell == 0 {
		t.Fatal("no pass fell back to first-fit: the case tests nothing")
	}
}

// TestGAWindowSkipsWhatFitsNowhere: a queued gang that fits nowhere now
// takes no room in the chromosome's window ("the first Window replicas of
// the queue that fit somewhere now"): the 1-GPU job behind it starts at
// once, where it waited for the first job to end.
func TestGAWindowSkipsWhatFitsNowhere(t *testing.T) {
	c := gpuCluster(
		Node{Name: "n0", CPU: 64000, Mem: 262144, GPUs: 4, Model: "V100"},
		Node{Name: "n1", CPU: 64000, Mem: 262144, GPUs: 4, Model: "V100"},
	)
	job := func(id int64, submit, run Time, reps, gpus int) Job {
		return Job{ID: id, Submit: submit, Run: run, Tasks: []Task{{Replicas: reps, Request: Request{CPU: 1000, Mem: 1024, GPUs: gpus}}}}
	}
	jobs := []Job{job(0, 0, 100, 2, 3), job(1, 1, 50, 1, 1), job(2, 1, 50, 4, 2), job(3, 1, 50, 1, 1)}
	res, err := Simulate(c, jobs, build(t, Spec{Placement: "ga", Estimate: "exact", Seed: 1, PlacementArgs: Args{"window": 4}}))
	if err != nil {
		t.Fatal(err)
	}
	for _, j := range res.Jobs {
		want := map[int64]Time{0: 0, 1: 1, 2: 100, 3: 1}[j.ID]
		if j.Start != want {
			t.Errorf("job %d starts at %d, want %d", j.ID, j.Start, want)
		}
	}
}
