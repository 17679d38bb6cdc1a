package scheduler

import (
	"fmt"
	"math"
	"math/rand/v2"
)

var (
	_ Estimator         = (*Noisy)(nil)
	_ Configurable      = (*Noisy)(nil)
	_ SpanningEstimator = (*Noisy)(nil)
)

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
func (n *Noisy) Estimate(j *Job) Time { return n.noisy(j, j.Run) }

// EstimateOn implements PlacementEstimator: on a heterogeneous cluster the
// run time on the GPUs the job got (Exact's) times the job's one error.
func (n *Noisy) EstimateOn(j *Job, model string, gpus int) Time {
	return n.noisy(j, Exact{}.EstimateOn(j, model, gpus))
}

// EstimateSpanning implements SpanningEstimator, as EstimateOn.
func (n *Noisy) EstimateSpanning(j *Job, model string, gpus int) Time {
	return n.noisy(j, Exact{}.EstimateSpanning(j, model, gpus))
}

// noisy is run times the job's error, drawn from its own stream.
func (n *Noisy) noisy(j *Job, run Time) Time {
	if n.Sigma == 0 {
		return run
	}
	r := rand.New(rand.NewPCG(n.Seed, uint64(j.ID)))
	e := float64(run) * math.Exp(n.Sigma*r.NormFloat64())
	return Time(min(math.Round(e), float64(MaxTime))) // a large σ's tail may pass MaxTime
}
