package scheduler

import (
	"fmt"
	"math/rand/v2"
)

var (
	_ Placement     = (*Random)(nil)
	_ GPUChooser    = (*Random)(nil)
	_ RandomChooser = (*Random)(nil)
	_ Configurable  = (*Random)(nil)
)

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

// ChoosesAtRandom implements RandomChooser: every Choose draws.
func (*Random) ChoosesAtRandom() bool { return true }

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
