package scheduler

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
	"slices"
)

var (
	_ Placement    = (*Random)(nil)
	_ GPUChooser   = (*Random)(nil)
	_ Configurable = (*Random)(nil)
	_ Placement    = (*DotProduct)(nil)
	_ Placement    = (*GpuClustering)(nil)
	_ Tracker      = (*GpuClustering)(nil)
	_ Placement    = (*GpuPacking)(nil)
	_ Placement    = (*BestFitFGD)(nil)
	_ Placement    = (*FGD)(nil)
	_ GPUChooser   = (*FGD)(nil)
	_ Workloader   = (*FGD)(nil)
	_ Configurable = (*FGD)(nil)
)

// Streams of rand.NewPCG(seed, stream) for the FGD-paper policies' draws.
const (
	streamTieOrder = 0x7469650a // the node tie-break order
	streamRandom   = 0x726e640a // Random's choices
)

// TieOrder breaks ties between equal scores: the node that comes first in
// a seeded random permutation of the nodes wins, as in the FGD paper's
// simulator. Its zero value permutes with seed 0.
type TieOrder struct {
	// Seed seeds the permutation, rand.NewPCG(Seed, 0x7469650a).Perm(n).
	Seed  uint64
	order []int
}

// Configure implements Configurable: the permutation's seed is the run's;
// no arguments.
func (t *TieOrder) Configure(args Args, run Run) error {
	if err := args.Decode("tie order", &struct{}{}); err != nil {
		return err
	}
	t.Seed, t.order = run.Seed, nil
	return nil
}

// SetOrder fixes the order (node indices, first wins) instead of drawing
// it; a later Configure draws again.
func (t *TieOrder) SetOrder(order []int) { t.order = append([]int(nil), order...) }

// Order is the permutation of n nodes, made on first use.
func (t *TieOrder) Order(n int) []int {
	if len(t.order) != n {
		t.order = rand.New(rand.NewPCG(t.Seed, streamTieOrder)).Perm(n)
	}
	return t.order
}

// view is node i of s as the scores see it.
func (s *State) view(i int) NodeView {
	return NodeView{CPU: s.free[i].cpu, Model: s.info[i].model, GPU: s.free[i].gpu[:s.info[i].gpus]}
}

// argmax returns the node that fits a with the highest score, ties to the
// first in order; -1 when none fits. One node that fits is taken unscored.
func argmax(s *State, a *Ask, order []int, score func(i int) int) int {
	best, bestScore, fit := -1, 0, 0
	only := -1
	for _, i := range order {
		if s.Fits(i, a) {
			fit++
			only = i
		}
	}
	if fit <= 1 {
		return only
	}
	for _, i := range order {
		if !s.Fits(i, a) {
			continue
		}
		if sc := score(i); best < 0 || sc > bestScore {
			best, bestScore = i, sc
		}
	}
	return best
}

// Random places each replica on a node that fits, drawn uniformly, and a
// share on a GPU that holds it, drawn uniformly (the FGD paper's Random).
type Random struct {
	TieOrder
	rng  *rand.Rand
	fits []int
}

// NewRandom returns a Random placement drawing from r.
func NewRandom(r *rand.Rand) *Random { return &Random{rng: r} }

// Name implements Placement.
func (*Random) Name() string { return "random" }

// Configure implements Configurable: the draws come from
// rand.NewPCG(seed, 0x726e640a) with the run's seed; no arguments.
func (r *Random) Configure(args Args, run Run) error {
	r.rng = rand.New(rand.NewPCG(run.Seed, streamRandom))
	return r.TieOrder.Configure(args, run)
}

func (r *Random) rand() *rand.Rand {
	if r.rng == nil {
		r.rng = rand.New(rand.NewPCG(0, streamRandom))
	}
	return r.rng
}

// Choose implements Placement: the nodes that fit, listed in the tie-break
// order, one drawn uniformly.
func (r *Random) Choose(s *State, a *Ask) int {
	r.fits = r.fits[:0]
	for _, i := range r.Order(s.Len()) {
		if s.Fits(i, a) {
			r.fits = append(r.fits, i)
		}
	}
	switch len(r.fits) {
	case 0:
		return -1
	case 1:
		return r.fits[0]
	}
	return r.fits[r.rand().IntN(len(r.fits))]
}

// ChooseGPU implements GPUChooser: a GPU that holds the share, drawn
// uniformly.
func (r *Random) ChooseGPU(s *State, i int, a *Ask) int {
	v := s.view(i)
	n := 0
	for _, x := range v.GPU {
		if MilliGPU(x) >= a.Milli {
			n++
		}
	}
	if n == 0 {
		panic(fmt.Sprintf("scheduler: random: share of %d milli does not fit node %d", a.Milli, i))
	}
	k := r.rand().IntN(n)
	for g, x := range v.GPU {
		if MilliGPU(x) >= a.Milli {
			if k == 0 {
				return g
			}
			k--
		}
	}
	panic("scheduler: random: unreachable")
}

// DotProduct takes the node with the highest [DotProdScore] (the FGD
// paper's DotProd baseline, after Tetris); ties in the seeded tie-break
// order.
type DotProduct struct{ TieOrder }

// Name implements Placement.
func (*DotProduct) Name() string { return "dot-product" }

// Choose implements Placement.
func (d *DotProduct) Choose(s *State, a *Ask) int {
	p := a.shape()
	return argmax(s, a, d.Order(s.Len()), func(i int) int { v := s.view(i); return DotProdScore(&v, p) })
}

// GpuClustering takes the node with the highest [ClusteringScore]: it
// keeps replicas of one GPU shape together. It tracks the tags of the
// replicas running on each node (what-if placements see the running ones
// only); ties in the seeded tie-break order.
type GpuClustering struct {
	TieOrder
	tags [][MaxGPUsPerNode + 1]int32 // per node, replicas per tag
}

// Name implements Placement.
func (*GpuClustering) Name() string { return "gpu-clustering" }

// Tags is the tag set of node i (bit t for tag t; see [PodShape.Tag]).
func (g *GpuClustering) Tags(i int) uint32 {
	if i >= len(g.tags) {
		return 0
	}
	var m uint32
	for t, n := range g.tags[i] {
		if n > 0 {
			m |= 1 << t
		}
	}
	return m
}

// Choose implements Placement.
func (g *GpuClustering) Choose(s *State, a *Ask) int {
	p := a.shape()
	return argmax(s, a, g.Order(s.Len()), func(i int) int { v := s.view(i); return ClusteringScore(g.Tags(i), &v, p) })
}

// slotTag is the tag of the replica in sl, -1 for a CPU-only one.
func slotTag(sl *Slot) int {
	if sl.Shared >= 0 {
		return 0
	}
	if n := bits.OnesCount16(sl.Whole); n > 0 {
		return n
	}
	return -1
}

// Placed implements Tracker.
func (g *GpuClustering) Placed(sl *Slot) {
	if t := slotTag(sl); t >= 0 {
		for int(sl.Node) >= len(g.tags) {
			g.tags = append(g.tags, [MaxGPUsPerNode + 1]int32{})
		}
		g.tags[sl.Node][t]++
	}
}

// Released implements Tracker.
func (g *GpuClustering) Released(sl *Slot) {
	if t := slotTag(sl); t >= 0 {
		g.tags[sl.Node][t]--
	}
}

// GpuPacking takes the node with the highest [PackingScore]: shares on
// GPUs already in use first, then free GPUs on nodes in use, then free
// nodes; ties in the seeded tie-break order.
type GpuPacking struct{ TieOrder }

// Name implements Placement.
func (*GpuPacking) Name() string { return "gpu-packing" }

// Choose implements Placement.
func (g *GpuPacking) Choose(s *State, a *Ask) int {
	p := a.shape()
	return argmax(s, a, g.Order(s.Len()), func(i int) int { v := s.view(i); return PackingScore(&v, p) })
}

// BestFitFGD is the FGD paper's BestFit: the node with the highest
// [BestFitRaw] score (min-max normalised over the nodes that fit, which
// keeps the order), the one the replica leaves with the least free CPU and
// GPU, weighted ½ each against a 128-core, 8-GPU node; memory is ignored.
// Ties in the seeded tie-break order. Not [BestFit], which weighs CPU,
// memory and GPU against each node's own capacity.
type BestFitFGD struct{ TieOrder }

// Name implements Placement.
func (*BestFitFGD) Name() string { return "best-fit-fgd" }

// Choose implements Placement.
func (b *BestFitFGD) Choose(s *State, a *Ask) int {
	p := a.shape()
	return argmax(s, a, b.Order(s.Len()), func(i int) int { v := s.view(i); return BestFitRaw(&v, p) })
}

// FGD is Fragmentation Gradient Descent: the node, and for a share the
// GPU, where the replica increases the expected fragment of the typical
// workload the least ([Typical.Score]). The typical workload is the
// simulation's own: its jobs' requests, classed by (CPU, GPU milli, GPUs,
// models), the commonest covering Coverage of the replicas. Ties in the
// seeded tie-break order.
type FGD struct {
	TieOrder
	// Typical is the target workload; Workload sets it.
	Typical *Typical
	// Coverage is the share of replicas the typical classes cover;
	// default 0.95.
	Coverage float64

	// memo holds, per node, the last few scores computed: a node's score
	// depends only on its free state and the replica's shape, and between
	// two placements all but a few nodes keep their state.
	memo     []fgdMemo
	memoFor  *Typical
	memoNext []uint8
}

// fgdMemo is one node's score for one replica shape in one free state.
type fgdMemo struct {
	ok         bool
	cpu        MilliCPU
	gpu        [MaxGPUsPerNode]uint16
	shape      PodShape
	score, idx int
}

// fgdMemoWays is the number of shapes remembered per node.
const fgdMemoWays = 4

// score is t.Score of replica p on node i of s, from the memo when the
// node's state and the shape were scored before.
func (f *FGD) score(s *State, i int, p PodShape) (score, gpu int) {
	t := f.typical()
	if f.memoFor != t || len(f.memoNext) != s.Len() {
		f.memo = make([]fgdMemo, fgdMemoWays*s.Len())
		f.memoNext = make([]uint8, s.Len())
		f.memoFor = t
	}
	v := s.view(i)
	ways := f.memo[fgdMemoWays*i : fgdMemoWays*(i+1)]
	for w := range ways {
		m := &ways[w]
		if m.ok && m.cpu == v.CPU && m.shape == p && slices.Equal(m.gpu[:len(v.GPU)], v.GPU) {
			return m.score, m.idx
		}
	}
	score, gpu = t.Score(&v, p)
	m := &ways[f.memoNext[i]]
	f.memoNext[i] = (f.memoNext[i] + 1) % fgdMemoWays
	*m = fgdMemo{ok: true, cpu: v.CPU, shape: p, score: score, idx: gpu}
	copy(m.gpu[:], v.GPU)
	return score, gpu
}

// Name implements Placement.
func (*FGD) Name() string { return "fgd" }

func (f *FGD) typical() *Typical {
	if f.Typical == nil {
		f.Typical = &Typical{}
	}
	return f.Typical
}

// Choose implements Placement.
func (f *FGD) Choose(s *State, a *Ask) int {
	p := a.shape()
	return argmax(s, a, f.Order(s.Len()), func(i int) int {
		sc, _ := f.score(s, i, p)
		return sc
	})
}

// ChooseGPU implements GPUChooser: the first GPU reaching the node's score.
func (f *FGD) ChooseGPU(s *State, i int, a *Ask) int {
	_, g := f.score(s, i, a.shape())
	return g
}

// Workload implements Workloader: the typical classes of the asks.
func (f *FGD) Workload(asks []Ask, reps []int) {
	type key struct {
		cpu    MilliCPU
		milli  MilliGPU
		gpus   int
		models uint64
	}
	idx := map[key]int{}
	var cs []FragClass
	for t := range asks {
		p := asks[t].shape()
		k := key{p.CPU, p.Milli, p.GPUs, asks[t].models}
		j, ok := idx[k]
		if !ok {
			j = len(cs)
			idx[k] = j
			spec := ""
			if k.models != allModels {
				spec = fmt.Sprintf("%016x", k.models)
			}
			cs = append(cs, FragClass{CPU: p.CPU, Milli: p.Milli, GPUs: p.GPUs, Spec: spec, Models: k.models})
		}
		cs[j].Count += reps[t]
	}
	cov := f.Coverage
	if cov == 0 {
		cov = 0.95
	}
	f.Typical = NewTypical(cs, cov)
}

// AllModels is the model set of a request that names no GPU model.
const AllModels = allModels
