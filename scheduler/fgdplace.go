package scheduler

import (
	"fmt"
	"math/bits"
	"math/rand/v2"
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
	if len(args) > 0 {
		return fmt.Errorf("takes no arguments (given %v): its order of nodes is drawn from the run's seed", args)
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

// best is the node whose free capacity scores highest for a's shape, ties
// in t's order: the FGD paper's score-based policies.
func (t *TieOrder) best(s *State, a *Ask, score func(*NodeView, PodShape) int) int {
	p := a.shape()
	return argmax(s, a, t.Order(s.Len()), func(i int) int { v := s.view(i); return score(&v, p) })
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

// AllModels is the model set of a request that names no GPU model.
const AllModels = allModels
