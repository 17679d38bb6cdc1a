package sharing

import (
	"fmt"

	"slices"
)

// View is what a policy sees of the cluster at a scheduling point, and
// the moves it may make: start a waiting job, set the shares on a GPU.
type View struct{ s *sim }

// JobView is what a policy sees of one job.
type JobView struct {
	ID       int64
	Kind     int
	GPUs     int
	Critical bool
	Submit   Seconds
	Deadline Seconds
	Steps    float64
	Done     float64
	Share    float64 // on each of its GPUs; 0 while waiting
	GPU      int     // its (first) GPU; -1 while waiting
	Weight   float64 // w_m of the goodput objective
	// Pred is the predicted solo throughput T_meas of its kind.
	Pred float64
}

// Remaining is Steps − Done.
func (j JobView) Remaining() float64 { return j.Steps - j.Done }

func (v *View) Now() Seconds      { return v.s.now }
func (v *View) Model() *Model     { return v.s.m }
func (v *View) Options() Options  { return v.s.o }
func (v *View) GPUs() int         { return len(v.s.gpus) }
func (v *View) Waiting() []int    { return slices.Clone(v.s.queue) }
func (v *View) Running() []int    { return slices.Clone(v.s.run) }
func (v *View) OnGPU(g int) []int { return slices.Clone(v.s.gpus[g]) }

// Count is how many jobs GPU g holds: len(OnGPU(g)) without the copy.
func (v *View) Count(g int) int  { return len(v.s.gpus[g]) }
func (v *View) Empty(g int) bool { return len(v.s.gpus[g]) == 0 }
func (v *View) Job(i int) JobView {
	j := &v.s.jobs[i]
	g := -1
	if len(j.on) > 0 {
		g = j.on[0]
	}
	return JobView{ID: j.ID, Kind: j.Kind, GPUs: j.gpus, Critical: j.critical, Submit: j.Submit, Deadline: v.s.deadline(j),
		Steps: j.Steps, Done: j.done, Share: j.share, GPU: g, Weight: j.weight, Pred: v.s.pred[j.Kind]}
}

// CanJoin reports whether waiting single-GPU job i may join the jobs on
// GPU g: g holds fewer than MaxPerGPU jobs, all of one GPU, each able to
// share with i (memory: Gavel measured the pair).
func (v *View) CanJoin(i, g int) bool {
	j := &v.s.jobs[i]
	on := v.s.gpus[g]
	if j.gpus != 1 || len(on) >= v.s.o.MaxPerGPU {
		return false
	}
	for _, k := range on {
		if v.s.jobs[k].gpus != 1 {
			return false
		}
		if _, ok := v.s.m.Rho(j.Kind, v.s.jobs[k].Kind); !ok {
			return false
		}
	}
	return true
}

// Start starts waiting job i on gpus: whole empty GPUs for a job of
// several, or one GPU it may join (see CanJoin), the shares then split
// equally among the GPU's jobs. A move the rules forbid panics: policies
// are code.
func (v *View) Start(i int, gpus []int) {
	s := v.s
	j := &s.jobs[i]
	if j.state != waiting || len(gpus) != j.gpus {
		panic(fmt.Sprintf("sharing: start of job %d (state %d) on %d GPUs; it needs %d", j.ID, j.state, len(gpus), j.gpus))
	}
	if len(gpus) == 1 && !v.Empty(gpus[0]) {
		if !v.CanJoin(i, gpus[0]) {
			panic(fmt.Sprintf("sharing: job %d cannot join GPU %d", j.ID, gpus[0]))
		}
	} else {
		for _, g := range gpus {
			if !v.Empty(g) {
				panic(fmt.Sprintf("sharing: job %d of %d GPUs on busy GPU %d", j.ID, j.gpus, g))
			}
		}
	}
	s.queue = slices.DeleteFunc(s.queue, func(k int) bool { return k == i })
	s.run = append(s.run, i)
	j.state, j.start, j.on = running, s.now, slices.Clone(gpus)
	for _, g := range gpus {
		s.gpus[g] = append(s.gpus[g], i)
		for _, k := range s.gpus[g] {
			s.jobs[k].share = 1 / float64(len(s.gpus[g]))
		}
	}
}

// SetShares sets the shares of the jobs on single GPU g, in OnGPU order:
// each positive, their sum at most 1.
func (v *View) SetShares(g int, shares []float64) {
	on := v.s.gpus[g]
	if len(shares) != len(on) {
		panic(fmt.Sprintf("sharing: %d shares for the %d jobs of GPU %d", len(shares), len(on), g))
	}
	sum := 0.0
	for _, x := range shares {
		if !(x > 0) {
			panic(fmt.Sprintf("sharing: share %v on GPU %d", x, g))
		}
		sum += x
	}
	if sum > 1+1e-9 {
		panic(fmt.Sprintf("sharing: shares %v on GPU %d sum to %v > 1", shares, g, sum))
	}
	for k, i := range on {
		v.s.jobs[i].share = shares[k]
	}
}

// Slots is GPU g's slots (kind and share of each job, in OnGPU order).
func (v *View) Slots(g int) []Slot {
	var out []Slot
	for _, i := range v.s.gpus[g] {
		out = append(out, Slot{Kind: v.s.jobs[i].Kind, Share: v.s.jobs[i].share})
	}
	return out
}

// PredEff is the predicted T_eff of slots[k]: the model's, with the
// predicted solo throughput of the kind.
func (v *View) PredEff(slots []Slot, k int) float64 {
	kind := slots[k].Kind
	return v.s.m.Eff(slots, k) * v.s.pred[kind] / v.s.m.Kinds[kind].Solo
}

// Norm is T_eff / T_meas of slots[k]: the share of its solo pace (no
// prediction error: it is a ratio of the model's).
func (v *View) Norm(slots []Slot, k int) float64 {
	return v.s.m.Eff(slots, k) / v.s.m.Kinds[slots[k].Kind].Solo
}

// Attain is SLO_actual of job i if it ran at the predicted rate
// rate steps/s from now.
func (v *View) Attain(i int, rate float64) float64 {
	j := v.Job(i)
	return Attainment(v.s.now, j.Deadline, j.Remaining(), rate)
}

// PredRemaining is job i's predicted run time alone from now.
func (v *View) PredRemaining(i int) Seconds {
	j := v.Job(i)
	return Seconds(j.Remaining() / j.Pred)
}

// Hopeless reports whether job i would miss its deadline even alone from
// now, by prediction.
func (v *View) Hopeless(i int) bool {
	j := v.Job(i)
	return v.s.now+v.PredRemaining(i) > j.Deadline
}
