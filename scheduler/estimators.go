package scheduler

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// History predicts a job's run time from its user's history (Tsafrir,
// Etsion and Feitelson, "Backfilling using system-generated predictions
// rather than user runtime estimates", IEEE TPDS 2007): the mean of the
// run times of the user's last two completed jobs, never above the job's
// own user estimate; the user estimate (or the run time, when the trace
// has none) while the user has fewer than two completed jobs. A job that
// outlives its prediction is re-estimated at its user estimate.
type History struct {
	last map[string][2]Time // the user's last two run times, newest first
	n    map[string]int
}

// Name implements Estimator.
func (*History) Name() string { return "history" }

// Estimate implements Estimator.
func (h *History) Estimate(j *Job) Time {
	user := User{}.Estimate(j)
	if h.n[j.User] < 2 {
		return user
	}
	l := h.last[j.User]
	p := (l[0] + l[1] + 1) / 2 // rounded up: a prediction of 0 s would start nothing later
	if j.UserEstimate > 0 && p > j.UserEstimate {
		p = j.UserEstimate
	}
	return p
}

// Observe implements Observer.
func (h *History) Observe(j *Job, start, end Time) {
	if h.last == nil {
		h.last, h.n = map[string][2]Time{}, map[string]int{}
	}
	l := h.last[j.User]
	h.last[j.User] = [2]Time{end - start, l[0]}
	h.n[j.User]++
}

// Reestimate implements Reestimator: the user's estimate.
func (h *History) Reestimate(j *Job, current, elapsed Time) Time {
	return User{}.Estimate(j)
}

// Noisy is the exact run time times a lognormal error, exp(σ·Z) with Z a
// standard normal drawn for each job from rand.NewPCG(seed, job id), so
// that a job's estimate does not depend on the order jobs arrive in: for
// sensitivity studies of estimate accuracy. σ = 0 is Exact.
type Noisy struct {
	Sigma float64
	Seed  uint64
}

// Name implements Estimator.
func (*Noisy) Name() string { return "noisy" }

// Configure implements Configurable: its one argument is sigma; the seed is
// the run's.
func (n *Noisy) Configure(args Args, run Run) error {
	var a struct {
		Sigma float64 `yaml:"sigma"`
	}
	if err := args.Decode("noisy estimate", &a); err != nil {
		return err
	}
	if a.Sigma < 0 || math.IsNaN(a.Sigma) || a.Sigma > 10 {
		return fmt.Errorf("noisy estimate: sigma %v; want 0 to 10", a.Sigma)
	}
	n.Sigma, n.Seed = a.Sigma, run.Seed
	return nil
}

// Estimate implements Estimator.
func (n *Noisy) Estimate(j *Job) Time {
	if n.Sigma == 0 {
		return j.Run
	}
	r := rand.New(rand.NewPCG(n.Seed, uint64(j.ID)))
	e := float64(j.Run) * math.Exp(n.Sigma*r.NormFloat64())
	return Time(math.Round(e))
}

var (
	_ Estimator    = (*History)(nil)
	_ Observer     = (*History)(nil)
	_ Reestimator  = (*History)(nil)
	_ Estimator    = (*Noisy)(nil)
	_ Configurable = (*Noisy)(nil)
)
