package scheduler

import (
	"fmt"
	"slices"
)

var (
	_ Placement    = (*FGD)(nil)
	_ GPUChooser   = (*FGD)(nil)
	_ Workloader   = (*FGD)(nil)
	_ Configurable = (*FGD)(nil)
)

var (
	_ Placement    = (*FGD)(nil)
	_ GPUChooser   = (*FGD)(nil)
	_ Workloader   = (*FGD)(nil)
	_ Configurable = (*FGD)(nil)
)

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
