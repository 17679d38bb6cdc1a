package scheduler

import (
	"math/bits"
	"slices"
)

// JobContext is what a [JobPlacement] knows of the job whose replicas it
// places, beyond the free state.
type JobContext struct {
	// Job is the job being placed.
	Job *Job
	// Est is the scheduler's estimator when it is a [PlacementEstimator],
	// else nil.
	Est PlacementEstimator
	// GPUs is the number of GPUs the job holds once placed (a shared GPU
	// counts as one): the gpus the simulator passes to EstimateOn when
	// the job starts.
	GPUs int
	// names is the cluster's GPU model names, lower case, by model index.
	names []string
}

// ModelSet is a set of a cluster's GPU models; [JobContext.ModelOf] gives
// a node's.
type ModelSet uint64

// ModelOf is the set holding only node i's GPU model; empty for a node
// without GPUs.
func (c *JobContext) ModelOf(s *State, i int) ModelSet { return ModelSet(s.info[i].model) }

// ModelName is node i's GPU model in lower case; "" for a node without
// GPUs.
func (c *JobContext) ModelName(s *State, i int) string {
	b := s.info[i].model
	if b == 0 {
		return ""
	}
	return c.names[bits.TrailingZeros64(b)]
}

var _ JobPlacement = Fastest{}

// Fastest is heterogeneity-aware placement (after Gavel, Narayanan et
// al., OSDI 2020, in its simplest form): a job goes to the GPU model on
// which it is predicted to finish soonest. With a placement estimator
// (exact, model) it ranks the cluster's GPU models by EstimateOn(job,
// model, the job's GPUs) and keeps the whole gang on the fastest model
// that can hold it now (models with equal estimates form one group);
// among the nodes that fit a GPU replica it takes the one whose model
// gives the smallest estimate, then best-fit's score, then the lower
// index. CPU-only replicas go best-fit. Without a placement estimator, or
// without the job, it is first-fit.
type Fastest struct{}

// Name implements Placement.
func (Fastest) Name() string { return "fastest" }

// Choose implements Placement: without the job, first-fit.
func (Fastest) Choose(s *State, a *Ask) int { return FirstFit{}.Choose(s, a) }

// modelEst memoises one job's estimate per model index within one call.
type modelEst struct {
	have uint64
	t    [64]Time
}

func (m *modelEst) get(s *State, i int, c *JobContext) Time {
	b := s.info[i].model
	k := bits.TrailingZeros64(b)
	if m.have&b == 0 {
		m.t[k] = checkEstimate(c.Est.EstimateOn(c.Job, c.names[k], c.GPUs))
		m.have |= b
	}
	return m.t[k]
}

// Rank implements JobPlacement.
func (Fastest) Rank(s *State, c *JobContext, dst []ModelSet) []ModelSet {
	if c.Est == nil || c.GPUs == 0 {
		return dst
	}
	type me struct {
		set ModelSet
		est Time
	}
	var memo modelEst
	var seen uint64
	var ms [64]me
	n := 0
	// Models in the order they first appear in the cluster: ties keep it.
	for i := 0; i < s.Len(); i++ {
		b := s.info[i].model
		if b == 0 || seen&b != 0 {
			continue
		}
		seen |= b
		ms[n] = me{ModelSet(b), memo.get(s, i, c)}
		n++
	}
	list := ms[:n]
	slices.SortStableFunc(list, func(x, y me) int {
		switch {
		case x.est < y.est:
			return -1
		case x.est > y.est:
			return 1
		}
		return 0
	})
	for k := 0; k < len(list); {
		set := list[k].set
		e := k + 1
		for e < len(list) && list[e].est == list[k].est {
			set |= list[e].set
			e++
		}
		dst = append(dst, set)
		k = e
	}
	return dst
}

// ChooseFor implements JobPlacement.
func (Fastest) ChooseFor(s *State, a *Ask, c *JobContext) int {
	if a.GPUs == 0 {
		return BestFit{}.Choose(s, a)
	}
	if c.Est == nil {
		return FirstFit{}.Choose(s, a)
	}
	var memo modelEst
	best, bestEst, bestScore := -1, Time(0), 0.0
	for i := 0; i < s.Len(); i++ {
		if !s.Fits(i, a) {
			continue
		}
		e := memo.get(s, i, c)
		score := bestFitScore(s, i, a)
		if best < 0 || e < bestEst || (e == bestEst && score < bestScore) {
			best, bestEst, bestScore = i, e, score
		}
	}
	return best
}

// bestFitScore is BestFit's score of node i for a: the sum over CPU,
// memory and GPU of what remains free after a, as fractions of capacity.
func bestFitScore(s *State, i int, a *Ask) float64 {
	c, f := s.Capacity(i), s.Free(i)
	return frac(int64(f.CPU-a.CPU), int64(c.CPU)) + frac(int64(f.Mem-a.Mem), int64(c.Mem)) +
		frac(int64(f.GPU)-int64(a.Milli)*int64(a.GPUs), int64(c.GPU))
}

// JobGPUs is the number of GPUs j holds once placed, as its slots count
// them (Slot.GPUs) and PlacementEstimator.EstimateOn is told: a share of
// one GPU one, a share of a pool of more than one GPU rounded up to whole
// GPUs.
func JobGPUs(j *Job) int { return jobGPUs(j) }

func jobGPUs(j *Job) int {
	n := 0
	for t := range j.Tasks {
		r := &j.Tasks[t].Request
		g := r.GPUs
		if r.pooled() {
			g = wholeGPUs(int(r.GPUMilli))
		}
		n += j.Tasks[t].Replicas * g
	}
	return n
}

// boundPlacement is a JobPlacement bound to one simulation: the
// simulation places with it (sim.place), and it finds the job from its
// asks.
type boundPlacement struct {
	jp    JobPlacement
	gc    GPUChooser // jp's, when it chooses a share's GPU
	est   PlacementEstimator
	free  PlacementFree // est's, when it can tell a job placed anywhere alike
	names []string
	jobOf map[*Ask]*Job // keyed by the job's first ask
	tiers []ModelSet    // Rank's buffer
	pin   []Ask         // asks restricted to one group of models
}

func (b *boundPlacement) Name() string                { return b.jp.Name() }
func (b *boundPlacement) Choose(s *State, a *Ask) int { return b.jp.Choose(s, a) }

// place is placeJob for a JobPlacement.
//
// With consolidate (Scheduler.Consolidate), each group of models is first
// tried for a gang on one node of it, then replica by replica; and so,
// failing every group, the cluster as a whole.
func (b *boundPlacement) place(s *State, consolidate bool, asks []Ask, reps []int, out []Slot) bool {
	j := b.jobOf[&asks[0]]
	if j == nil {
		if consolidate && placeOnOne(s, b.jp.Choose, asks, reps, out) {
			return true
		}
		return placeEach(s, b.jp.Choose, b.gc, asks, reps, out)
	}
	c := JobContext{Job: j, Est: b.est, GPUs: jobGPUs(j), names: b.names}
	if b.free != nil && b.free.PlacementFree(j) {
		c.Est = nil // an estimate that names no GPU ranks none
	}
	choose := func(s *State, a *Ask) int { return b.jp.ChooseFor(s, a, &c) }
	b.tiers = b.jp.Rank(s, &c, b.tiers[:0])
	for _, set := range b.tiers {
		b.pin = append(b.pin[:0], asks...)
		for t := range b.pin {
			if b.pin[t].GPUs > 0 {
				b.pin[t].models &= uint64(set)
			}
		}
		if consolidate && placeOnOne(s, choose, b.pin, reps, out) {
			return true
		}
		if placeEach(s, choose, b.gc, b.pin, reps, out) {
			return true
		}
	}
	if consolidate && placeOnOne(s, choose, asks, reps, out) {
		return true
	}
	return placeEach(s, choose, b.gc, asks, reps, out)
}
