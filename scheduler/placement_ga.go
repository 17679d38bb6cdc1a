package scheduler

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sync"
)

// Waiting is a queued job as a [BatchPlacement] sees it: its asks, one per
// task, each wanted Reps[t] times.
type Waiting struct {
	Job  *Job
	Asks []Ask
	Reps []int
}

var (
	_ BatchPlacement = (*GA)(nil)
	_ Configurable   = (*GA)(nil)
)

// GAParams are the genetic algorithm's parameters. The zero value of each
// field means its default.
type GAParams struct {
	// Population is the number of solutions; default 100 (the paper's).
	Population int `yaml:"population"`
	// Generations (G) bounds the generations of one pass; default 100.
	Generations int `yaml:"generations"`
	// Patience (K) stops a pass after K generations without a better
	// solution; default 10.
	Patience int `yaml:"patience"`
	// Tournament is the share of the population sampled for each
	// tournament; default 0.2 (the paper's 20%).
	Tournament float64 `yaml:"tournament"`
	// Replace is the share of the population replaced by children each
	// generation; default 0.4 (the paper's 40%).
	Replace float64 `yaml:"replace"`
	// MutateAbove and MutateBelow are the per-gene mutation probabilities
	// of a child whose fitness is above the population's mean, and of one
	// that is not; defaults 0.25 and 0.1 (the paper's).
	MutateAbove float64 `yaml:"mutate_above"`
	MutateBelow float64 `yaml:"mutate_below"`
	// Window bounds the chromosome: the first Window replicas of the
	// queue (whole jobs) that fit somewhere now; default 128.
	Window int `yaml:"window"`
	// NoSeed leaves out the first-fit solution that otherwise seeds the
	// initial population (one of its Population solutions, the others
	// random): all solutions are random, as in the paper.
	NoSeed bool `yaml:"no_seed"`
	// Workers evaluates fitness on this many goroutines; default 1. The
	// result does not depend on it.
	Workers int `yaml:"workers"`
}

// Defaults of GAParams, and why:
//
//   - Population 100, tournament 20%, replace 40%, mutation 0.25/0.1: the
//     paper's (Kwon and Bahn, JIIBC 24(3), 2024).
//   - Generations 100, Patience 10: the paper gives neither. A pass's
//     fitness depends only on which waiting tasks start (not where), and
//     a pass ends early once every task that fits somewhere starts, so
//     few passes need many generations: on configs/ga-pai.yaml at load
//     5000 the mean utilisation curve is 30.387–30.389% with K = 3, 10,
//     50 (G = 500) and 100 (G = 1000), the last 5× slower than the
//     default. 10 is a margin over 3 at little cost; 100 bounds a pass.
//   - Window 128: the queue beyond it waits for a later pass, which
//     bounds a pass's cost on long queues (the chromosome's length); 512
//     gives the same curve on configs/ga-pai.yaml.
//   - A first-fit seed among the random solutions (the paper's are all
//     random; NoSeed restores that): with the elitist replacement, each
//     pass starts at least as much GPU as first-fit with skipping would,
//     and a pass of one task (as in the FGD paper's replay) places it
//     first-fit rather than at random. Fitness does not see where tasks
//     go, and a pass where everything fits ends at once with the first
//     fittest solution: the seed's first-fit nodes, or without it random
//     ones. On configs/ga-pai.yaml at load 5000 the random ones do better
//     (mean utilisation 30.4% against 29.8%): they leave more room for the
//     large and model-bound pods than first-fit's packing of the
//     lowest-numbered machines.
const (
	defPopulation  = 100
	defGenerations = 100
	defPatience    = 10
	defTournament  = 0.2
	defReplace     = 0.4
	defMutateAbove = 0.25
	defMutateBelow = 0.1
	defWindow      = 128
)

// withDefaults fills in the zero fields.
func (p GAParams) withDefaults() GAParams {
	def := func(v *int, d int) {
		if *v == 0 {
			*v = d
		}
	}
	deff := func(v *float64, d float64) {
		if *v == 0 {
			*v = d
		}
	}
	def(&p.Population, defPopulation)
	def(&p.Generations, defGenerations)
	def(&p.Patience, defPatience)
	def(&p.Window, defWindow)
	def(&p.Workers, 1)
	deff(&p.Tournament, defTournament)
	deff(&p.Replace, defReplace)
	deff(&p.MutateAbove, defMutateAbove)
	deff(&p.MutateBelow, defMutateBelow)
	return p
}

// Validate reports every parameter out of range.
func (p GAParams) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf("ga: "+format, args...)) }
	if p.Population < 0 || p.Population == 1 || p.Population > 100000 {
		bad("population %d: want 2 to 100000 (0 for %d)", p.Population, defPopulation)
	}
	if p.Generations < 0 || p.Generations > 1000000 {
		bad("generations %d: want 1 to 1000000 (0 for %d)", p.Generations, defGenerations)
	}
	if p.Patience < 0 {
		bad("patience %d: want a positive number (0 for %d)", p.Patience, defPatience)
	}
	if p.Window < 0 {
		bad("window %d: want a positive number of replicas (0 for %d)", p.Window, defWindow)
	}
	if p.Workers < 0 || p.Workers > 1024 {
		bad("workers %d: want 1 to 1024 (0 for 1)", p.Workers)
	}
	share := func(name string, v float64, open bool) {
		if math.IsNaN(v) || v < 0 || v > 1 || (open && v == 1) {
			bad("%s %v: want a share from 0 to 1 (0 for the default)", name, v)
		}
	}
	share("tournament", p.Tournament, false)
	share("replace", p.Replace, false)
	share("mutate_above", p.MutateAbove, false)
	share("mutate_below", p.MutateBelow, false)
	return errors.Join(errs...)
}

// GA is genetic-algorithm placement (Kwon and Bahn, "Scheduling of
// Artificial Intelligence Workloads in Cloud Environments Using Genetic
// Algorithms", JIIBC 24(3):63, 2024). At each scheduling pass the waiting
// replicas and the nodes form the chromosome: gene k is the node replica k
// starts on now, or none. Fitness is the cluster's GPU allocation after
// the assignment if every assigned replica fits, else −1 (in this code a
// fitness is an integer: the GPU milli the assignment starts, scaled, plus
// the number of jobs it starts as a tie-break, so that jobs asking for no
// GPU start too; −1 stays −1). The initial population is random but for
// one first-fit solution (see [GAParams]); each generation, parents
// are chosen by tournaments over a random share of the population, pairs
// of children by one-point crossover, each child's genes mutate with a
// probability that depends on whether its fitness is above the mean (the
// paper's adaptive mutation), and the children replace the worst share of
// the population. A pass ends after G generations, K without improvement,
// or when every job that fits somewhere starts. The best solution is
// committed; if no solution fits or the best starts nothing (possible
// with NoSeed, all random), the first-fit solution is, so that jobs start
// even when nothing runs.
//
// Genes take only feasible values: for each replica, the nodes it fits on
// alone in the pass's free state (and none). A job (a gang) starts only
// when all its replicas have a node; the genes of a job with a replica
// left without one count as none. Replicas are taken in gene order, as
// the simulator commits them, so fitness sees exactly the GPUs the
// simulator will choose.
//
// GA is deterministic for its seed: all random draws happen on one
// stream in a fixed order, and fitness evaluation (the only part spread
// over Workers goroutines) is a pure function of a solution.
type GA struct {
	p   GAParams
	rng *rand.Rand

	// The pass's chromosome.
	genes []gaGene
	jobs  []gaJob
	cands []int32 // candidate nodes, per distinct ask, concatenated
	askAt map[Ask]gaRange
	// The population, Population × n genes; fit per solution.
	pop  []int32
	fit  []int64
	kids []int32
	kfit []int64
	kmut []bool // kid mutated since its last evaluation
	idx  []int32
	undo []gaUndo
	sum  []gaNode
	work []*gaScratch
	// Stats of the last pass, for tests and benchmarks.
	last GAStats
	// firstFits counts the passes that fell back to first-fit.
	firstFits int
}

// GAStats describes one pass.
type GAStats struct {
	Genes       int   // chromosome length
	Generations int   // generations run
	Evaluations int   // fitness evaluations
	Best        int64 // best fitness
	Seed        int64 // the first-fit seed's fitness (-1 with NoSeed)
	// FirstFit is set when no solution fitted, or the best started
	// nothing, and the pass placed first-fit instead.
	FirstFit bool
}

type gaGene struct {
	ask  *Ask
	cand gaRange // its candidate nodes in GA.cands
}

type gaRange struct{ lo, hi int32 }

type gaJob struct {
	lo, hi int32    // its genes
	gpu    MilliGPU // GPU milli it takes, summed over replicas
	out    int32    // its first replica's index in PlaceBatch's nodes
}

// gaScratch is one worker's copy-on-write view of the free state.
type gaScratch struct {
	st    State
	base  *State
	stamp []uint32
	epoch uint32
}

// NewGA returns GA placement with parameters p (zero fields take their
// defaults) drawing from r.
func NewGA(p GAParams, r *rand.Rand) (*GA, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	return &GA{p: p.withDefaults(), rng: r, askAt: map[Ask]gaRange{}}, nil
}

// Name implements Placement.
func (*GA) Name() string { return "ga" }

// Choose implements Placement: one replica alone goes first-fit.
func (*GA) Choose(s *State, a *Ask) int { return FirstFit{}.Choose(s, a) }

// gaStream is the stream of the GA's generator under Run.Seed.
const gaStream = 0x6761

// Configure implements Configurable: its arguments are GAParams' fields by
// their yaml names (population, generations, ...); the generator is
// seeded with the run's seed.
func (g *GA) Configure(args Args, run Run) error {
	var p GAParams
	if err := args.Decode("ga", &p); err != nil {
		return err
	}
	if err := p.Validate(); err != nil {
		return err
	}
	g.p = p.withDefaults()
	g.rng = rand.New(rand.NewPCG(run.Seed, gaStream))
	return nil
}

// LastPass describes the last call of PlaceBatch.
func (g *GA) LastPass() GAStats { return g.last }

// PlaceBatch implements BatchPlacement.
func (g *GA) PlaceBatch(s *State, waiting []Waiting, nodes []int32) {
	for k := range nodes {
		nodes[k] = -1
	}
	if g.rng == nil {
		g.rng = rand.New(rand.NewPCG(0, gaStream))
	}
	if g.p.Population == 0 {
		g.p = g.p.withDefaults()
	}
	if g.askAt == nil {
		g.askAt = map[Ask]gaRange{}
	}
	g.build(s, waiting)
	g.last = GAStats{Genes: len(g.genes), Seed: -1}
	if len(g.jobs) == 0 {
		return
	}
	best := g.evolve()
	sol := g.pop[best*len(g.genes) : (best+1)*len(g.genes)]
	if g.fit[best] <= 0 {
		// Every solution of the population put some replica where it
		// does not fit, or the best starts nothing (it can happen with
		// NoSeed, where all are random), though every job of the
		// chromosome fits somewhere alone: the pass takes the first-fit
		// solution, which fits and starts at least one job, so that jobs
		// start even when nothing runs to call another pass.
		sol = gaGrow(g.kids, len(g.genes))[:len(g.genes)]
		g.seedFirstFit(g.work[0], sol)
		g.last.FirstFit = true
		g.firstFits++
	}
	for _, jb := range g.jobs {
		if !allAssigned(sol[jb.lo:jb.hi]) {
			continue
		}
		for k := jb.lo; k < jb.hi; k++ {
			nodes[jb.out+k-jb.lo] = sol[k]
		}
	}
}

func allAssigned(genes []int32) bool {
	for _, v := range genes {
		if v < 0 {
			return false
		}
	}
	return true
}

// build makes the pass's chromosome: the replicas of the queue's jobs that
// could start now, up to the window, with each replica's candidate nodes.
func (g *GA) build(s *State, waiting []Waiting) {
	g.genes, g.jobs, g.cands = g.genes[:0], g.jobs[:0], g.cands[:0]
	clear(g.askAt)
	out := int32(0)
	summed := false
	for w := range waiting {
		wj := &waiting[w]
		reps := 0
		for _, r := range wj.Reps {
			reps += r
		}
		lo := int32(len(g.genes))
		ok := true
		var gpu MilliGPU
		for t := range wj.Asks {
			a := &wj.Asks[t]
			r, seen := g.askAt[*a]
			if !seen {
				if !summed {
					g.summarise(s)
					summed = true
				}
				r.lo = int32(len(g.cands))
				g.cands = g.appendFits(g.cands, a)
				r.hi = int32(len(g.cands))
				g.askAt[*a] = r
			}
			if r.lo == r.hi && wj.Reps[t] > 0 {
				ok = false
			}
			for range wj.Reps[t] {
				g.genes = append(g.genes, gaGene{ask: a, cand: r})
			}
			gpu += MilliGPU(a.GPUs) * a.Milli * MilliGPU(wj.Reps[t])
		}
		if !ok || reps == 0 {
			g.genes = g.genes[:lo] // fits nowhere now: no room in the window taken
		} else if int(lo)+reps > g.p.Window && lo > 0 {
			g.genes = g.genes[:lo] // the window is full (a first job larger than it still goes in)
			break
		} else {
			g.jobs = append(g.jobs, gaJob{lo: lo, hi: int32(len(g.genes)), gpu: gpu, out: out})
		}
		out += int32(reps)
	}
	// Worker scratch over this cluster.
	for len(g.work) < g.p.Workers {
		g.work = append(g.work, &gaScratch{})
	}
	for _, w := range g.work {
		w.reset(s)
	}
}

// gaNode is what State.Fits looks at on one node, in short.
type gaNode struct {
	cpu      MilliCPU
	mem      MiB
	model    uint64
	maxShare uint16 // the most free milli on one GPU
	full     uint8  // GPUs with nothing allocated
}

// summarise records every node's gaNode for appendFits.
func (g *GA) summarise(s *State) {
	g.sum = gaGrow(g.sum, s.Len())
	for i := range g.sum {
		f, n := &s.free[i], &s.info[i]
		x := gaNode{cpu: f.cpu, mem: f.mem, model: n.model}
		for k := 0; k < n.gpus; k++ {
			x.maxShare = max(x.maxShare, f.gpu[k])
			if f.gpu[k] == uint16(MilliPerGPU) {
				x.full++
			}
		}
		g.sum[i] = x
	}
}

// appendFits appends the nodes where one replica asking a fits, as
// State.Fits decides, from the summaries.
func (g *GA) appendFits(dst []int32, a *Ask) []int32 {
	for i := range g.sum {
		x := &g.sum[i]
		if a.CPU > x.cpu || a.Mem > x.mem {
			continue
		}
		if a.GPUs > 0 {
			if x.model&a.models == 0 {
				continue
			}
			if a.Shared && MilliGPU(x.maxShare) < a.Milli || !a.Shared && int(x.full) < a.GPUs {
				continue
			}
		}
		dst = append(dst, int32(i))
	}
	return dst
}

func (w *gaScratch) reset(s *State) {
	w.base = s
	w.st.info = s.info
	if len(w.st.free) != len(s.free) {
		w.st.free = make([]nodeFree, len(s.free))
		w.stamp = make([]uint32, len(s.free))
		w.epoch = 0
	}
	w.next()
}

// next starts a new evaluation: every node reads from the base again.
func (w *gaScratch) next() {
	w.epoch++
	if w.epoch == 0 {
		clear(w.stamp)
		w.epoch = 1
	}
}

// touch makes node i's free state current in the scratch.
func (w *gaScratch) touch(i int32) {
	if w.stamp[i] != w.epoch {
		w.stamp[i] = w.epoch
		w.st.free[i] = w.base.free[i]
	}
}

// fitness scales the GPU milli a solution starts; the jobs it starts are
// added as a tie-break, so the scale exceeds any job count.
func (g *GA) scale() int64 { return int64(len(g.jobs)) + 1 }

// evaluate is the fitness of sol: −1 when some assigned replica of a job
// that starts does not fit, else the GPU milli started × scale + the jobs
// started. It allocates nothing.
func (g *GA) evaluate(w *gaScratch, sol []int32) int64 {
	w.next()
	var gpu, started int64
	for j := range g.jobs {
		jb := &g.jobs[j]
		genes := sol[jb.lo:jb.hi]
		if !allAssigned(genes) {
			continue
		}
		for k, node := range genes {
			a := g.genes[int(jb.lo)+k].ask
			w.touch(node)
			if !w.st.Fits(int(node), a) {
				return -1
			}
			w.st.take(int(node), a)
		}
		gpu += int64(jb.gpu)
		started++
	}
	return gpu*g.scale() + started
}

// upper is the fitness of starting every job of the chromosome.
func (g *GA) upper() int64 {
	var gpu int64
	for _, jb := range g.jobs {
		gpu += int64(jb.gpu)
	}
	return gpu*g.scale() + int64(len(g.jobs))
}

// seedFirstFit writes into sol the first-fit solution: jobs in queue
// order, each replica on the lowest-numbered node that holds it, a job
// skipped (its genes none) when some replica fits nowhere.
func (g *GA) seedFirstFit(w *gaScratch, sol []int32) {
	w.next()
	for j := range g.jobs {
		jb := &g.jobs[j]
		g.undo = g.undo[:0]
		ok := true
		for k := jb.lo; k < jb.hi && ok; k++ {
			ge := &g.genes[k]
			sol[k] = -1
			for _, node := range g.cands[ge.cand.lo:ge.cand.hi] {
				w.touch(node)
				if w.st.Fits(int(node), ge.ask) {
					g.undo = append(g.undo, gaUndo{node, w.st.free[node]})
					w.st.take(int(node), ge.ask)
					sol[k] = node
					break
				}
			}
			ok = sol[k] >= 0
		}
		if !ok {
			for u := len(g.undo) - 1; u >= 0; u-- {
				w.st.free[g.undo[u].node] = g.undo[u].free
			}
			for k := jb.lo; k < jb.hi; k++ {
				sol[k] = -1
			}
		}
	}
}

type gaUndo struct {
	node int32
	free nodeFree
}

// randomGene draws gene k's value: one of its candidates, or none.
func (g *GA) randomGene(k int) int32 {
	c := g.genes[k].cand
	n := int(c.hi - c.lo)
	i := g.rng.IntN(n + 1)
	if i == n {
		return -1
	}
	return g.cands[int(c.lo)+i]
}

// evolve runs the GA on the built chromosome and returns the index of the
// best solution.
func (g *GA) evolve() int {
	g.initPopulation()
	best := fittest(g.fit)
	ub := g.upper()
	stale := 0
	for gen := 0; gen < g.p.Generations && stale < g.p.Patience && g.fit[best] < ub; gen++ {
		nb := g.generation()
		// Elitism: the best solution is never among the worst, so the
		// best fitness never falls.
		if g.fit[nb] > g.fit[best] {
			stale = 0
		} else {
			stale++
		}
		best = nb
	}
	g.last.Best = g.fit[best]
	return best
}

// kidCount is the number of children per generation: the replaced share
// of the population, at least one, and never the whole population.
func (g *GA) kidCount() int {
	nk := int(math.Round(g.p.Replace * float64(g.p.Population)))
	return min(max(nk, 1), g.p.Population-1)
}

// tournamentSize is the number of solutions in a tournament.
func (g *GA) tournamentSize() int {
	return min(max(1, int(math.Round(g.p.Tournament*float64(g.p.Population)))), g.p.Population)
}

// initPopulation sizes the buffers and draws the initial population: the
// first-fit seed, then random solutions, each with its own density d
// (uniform in [0, 1)) of assigned genes, each assigned gene a uniform
// candidate or none; and evaluates it.
func (g *GA) initPopulation() {
	n := len(g.genes)
	P := g.p.Population
	nk := g.kidCount()
	g.pop = gaGrow(g.pop, P*n)
	g.fit = gaGrow(g.fit, P)
	g.kids = gaGrow(g.kids, nk*n)
	g.kfit = gaGrow(g.kfit, nk)
	g.kmut = gaGrow(g.kmut, nk)
	g.idx = gaGrow(g.idx, P)
	first := 0
	if !g.p.NoSeed {
		g.seedFirstFit(g.work[0], g.pop[:n])
		first = 1
	}
	for i := first; i < P; i++ {
		sol := g.pop[i*n : (i+1)*n]
		d := g.rng.Float64()
		for k := range sol {
			if g.rng.Float64() < d {
				sol[k] = g.randomGene(k)
			} else {
				sol[k] = -1
			}
		}
	}
	g.evalAll(g.pop, g.fit, nil)
	if !g.p.NoSeed {
		g.last.Seed = g.fit[0]
	}
}

// generation breeds one generation and returns the index of the fittest
// solution after it: tournaments choose pairs of parents, one-point
// crossover at a uniform point in [1, n) makes two children of each pair,
// each child mutates at the adaptive rate its fitness earns, and the
// children replace the least fit solutions.
func (g *GA) generation() int {
	n := len(g.genes)
	P := g.p.Population
	nk := g.kidCount()
	tsize := g.tournamentSize()
	g.last.Generations++
	var sum int64
	for _, f := range g.fit[:P] {
		sum += f
	}
	for c := 0; c < nk; c += 2 {
		a, b := g.tournament(tsize), g.tournament(tsize)
		pa, pb := g.pop[a*n:(a+1)*n], g.pop[b*n:(b+1)*n]
		pt := 0
		if n > 1 {
			pt = 1 + g.rng.IntN(n-1)
		}
		onePointCrossover(g.kids[c*n:(c+1)*n], pa, pb, pt)
		if c+1 < nk {
			onePointCrossover(g.kids[(c+1)*n:(c+2)*n], pb, pa, pt)
		}
	}
	g.evalAll(g.kids, g.kfit, nil)
	for c := range nk {
		rate := MutationRate(g.kfit[c], sum, P, g.p.MutateAbove, g.p.MutateBelow)
		g.kmut[c] = g.mutate(g.kids[c*n:(c+1)*n], rate)
	}
	g.evalAll(g.kids, g.kfit, g.kmut)
	for c, i := range g.worst(nk) {
		copy(g.pop[int(i)*n:(int(i)+1)*n], g.kids[c*n:(c+1)*n])
		g.fit[i] = g.kfit[c]
	}
	return fittest(g.fit)
}

// MutationRate is the paper's adaptive rule: a solution whose fitness is
// above the population's mean (sum / n) mutates with probability above,
// else below.
func MutationRate(fit, sum int64, n int, above, below float64) float64 {
	if fit*int64(n) > sum {
		return above
	}
	return below
}

// crossover writes into kid a's genes before pt and b's from pt on.
func onePointCrossover(kid, a, b []int32, pt int) {
	copy(kid[:pt], a[:pt])
	copy(kid[pt:], b[pt:])
}

// mutate redraws each gene of sol with probability rate and reports
// whether any changed.
func (g *GA) mutate(sol []int32, rate float64) bool {
	changed := false
	for k := range sol {
		if g.rng.Float64() < rate {
			v := g.randomGene(k)
			if v != sol[k] {
				sol[k], changed = v, true
			}
		}
	}
	return changed
}

// tournament samples size distinct solutions at random and returns the
// fittest (the first drawn among equals).
func (g *GA) tournament(size int) int {
	P := g.p.Population
	idx := g.idx[:P]
	for i := range idx {
		idx[i] = int32(i)
	}
	best := -1
	for i := range size {
		// Partial Fisher–Yates: idx[i] becomes a random one of idx[i:].
		j := i + g.rng.IntN(P-i)
		idx[i], idx[j] = idx[j], idx[i]
		c := int(idx[i])
		if best < 0 || g.fit[c] > g.fit[best] {
			best = c
		}
	}
	return best
}

// worst returns the indices of the k least fit solutions, least first
// (ties: the higher index first, so that the older seed survives).
func (g *GA) worst(k int) []int32 {
	P := g.p.Population
	idx := g.idx[:P]
	for i := range idx {
		idx[i] = int32(i)
	}
	less := func(a, b int32) bool {
		if g.fit[a] != g.fit[b] {
			return g.fit[a] < g.fit[b]
		}
		return a > b
	}
	// Insertion sort: P is small, and this allocates nothing.
	for i := 1; i < P; i++ {
		for j := i; j > 0 && less(idx[j], idx[j-1]); j-- {
			idx[j], idx[j-1] = idx[j-1], idx[j]
		}
	}
	return idx[:k]
}

// evalAll evaluates every solution of sols (n genes each) into fit, or,
// with only set, those marked there.
func (g *GA) evalAll(sols []int32, fit []int64, only []bool) {
	n := len(g.genes)
	m := len(fit)
	w := min(g.p.Workers, m)
	count := 0
	for i := range m {
		if only == nil || only[i] {
			count++
		}
	}
	g.last.Evaluations += count
	if w <= 1 {
		for i := range m {
			if only == nil || only[i] {
				fit[i] = g.evaluate(g.work[0], sols[i*n:(i+1)*n])
			}
		}
		return
	}
	var wg sync.WaitGroup
	for k := range w {
		wg.Add(1)
		go func(k int) {
			defer wg.Done()
			for i := k; i < m; i += w {
				if only == nil || only[i] {
					fit[i] = g.evaluate(g.work[k], sols[i*n:(i+1)*n])
				}
			}
		}(k)
	}
	wg.Wait()
}

func fittest(f []int64) int {
	b := 0
	for i := range f {
		if f[i] > f[b] {
			b = i
		}
	}
	return b
}

func gaGrow[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n)
	}
	return s[:n]
}
