// Package synthetic generates parallel workloads for a processor pool from
// a few parameters, for experiments that need more control than a trace
// gives: Poisson arrivals, log-uniform run times, job sizes that are
// powers of two with a given probability (as in most logs of the Parallel
// Workloads Archive), and user estimates that over-estimate the run time
// by a uniform factor.
//
// The model is deliberately simple and every parameter is explicit; it is
// not a fitted model such as Lublin and Feitelson's (JPDC 2003).
package synthetic

import (
	"errors"
	"fmt"
	"math"
	"math/bits"
	"math/rand/v2"

	"github.com/wb-sim/wb/scheduler"
)

// Params describe a workload. Zero values are the documented defaults.
type Params struct {
	Jobs             int      `yaml:"jobs" doc:"number of jobs (required)"`
	Procs            int      `yaml:"procs" doc:"processors of the machine, which bound the job sizes drawn (required; a sweep.procs point draws the workload for its own machine)"`
	MeanInterarrival float64  `yaml:"mean_interarrival" doc:"mean seconds between submissions (exponential); default 600"`
	MinRuntime       float64  `yaml:"min_runtime" doc:"shortest run time, s (log-uniform); default 10"`
	MaxRuntime       float64  `yaml:"max_runtime" doc:"longest run time, s (log-uniform); default 86400"`
	PowerOfTwo       *float64 `yaml:"power_of_two" doc:"probability that a job's size is a power of two (each power up to procs equally likely), else uniform in 1..procs; default 0.75"`
	EstimateFactor   float64  `yaml:"estimate_factor" doc:"user estimate = run time × U(1, factor), rounded up; default 5, 1 = exact"`
}

// WithDefaults fills in the defaults.
func (p Params) WithDefaults() Params {
	if p.MeanInterarrival == 0 {
		p.MeanInterarrival = 600
	}
	if p.MinRuntime == 0 {
		p.MinRuntime = 10
	}
	if p.MaxRuntime == 0 {
		p.MaxRuntime = 86400
	}
	if p.PowerOfTwo == nil {
		v := 0.75
		p.PowerOfTwo = &v
	}
	if p.EstimateFactor == 0 {
		p.EstimateFactor = 5
	}
	return p
}

// Validate reports every problem with the parameters (after defaults).
func (p Params) Validate() error {
	p = p.WithDefaults()
	var errs []error
	if p.Jobs <= 0 || p.Jobs > 10_000_000 {
		errs = append(errs, fmt.Errorf("jobs: %d; want 1 to 10,000,000", p.Jobs))
	}
	if p.Procs <= 0 || p.Procs > 1<<24 {
		errs = append(errs, fmt.Errorf("procs: %d; want 1 to %d", p.Procs, 1<<24))
	}
	if !(p.MeanInterarrival > 0) || math.IsInf(p.MeanInterarrival, 0) {
		errs = append(errs, fmt.Errorf("mean_interarrival: %v; want a positive number of seconds", p.MeanInterarrival))
	}
	if !(p.MinRuntime >= 1) || !(p.MaxRuntime >= p.MinRuntime) || p.MaxRuntime > 1e9 {
		errs = append(errs, fmt.Errorf("min_runtime %v, max_runtime %v: want 1 ≤ min ≤ max ≤ 1e9 seconds", p.MinRuntime, p.MaxRuntime))
	}
	if pw := *p.PowerOfTwo; !(pw >= 0 && pw <= 1) {
		errs = append(errs, fmt.Errorf("power_of_two: %v; want a probability", pw))
	}
	if !(p.EstimateFactor >= 1) || p.EstimateFactor > 1e6 {
		errs = append(errs, fmt.Errorf("estimate_factor: %v; want 1 to 1e6", p.EstimateFactor))
	}
	return errors.Join(errs...)
}

// Generate draws a workload from r. Job ids count from 1; the first job is
// submitted at 0.
func Generate(p Params, r *rand.Rand) ([]scheduler.Job, error) {
	if err := p.Validate(); err != nil {
		return nil, err
	}
	p = p.WithDefaults()
	jobs := make([]scheduler.Job, p.Jobs)
	tasks := make([]scheduler.Task, p.Jobs)
	maxPow := bits.Len(uint(p.Procs)) - 1 // 2^maxPow ≤ Procs
	lo, hi := math.Log(p.MinRuntime), math.Log(p.MaxRuntime)
	t := 0.0
	for i := range jobs {
		if i > 0 {
			t += r.ExpFloat64() * p.MeanInterarrival
		}
		var size int
		if r.Float64() < *p.PowerOfTwo {
			size = 1 << r.IntN(maxPow+1)
		} else {
			size = 1 + r.IntN(p.Procs)
		}
		run := math.Round(math.Exp(lo + r.Float64()*(hi-lo)))
		est := math.Ceil(run * (1 + r.Float64()*(p.EstimateFactor-1)))
		tasks[i] = scheduler.Task{Replicas: 1, Request: scheduler.Request{CPU: scheduler.MilliCPU(size) * scheduler.MilliPerCore}}
		jobs[i] = scheduler.Job{
			ID: int64(i + 1), User: "synthetic", Submit: scheduler.Time(t),
			Run: scheduler.Time(run), UserEstimate: scheduler.Time(est), Tasks: tasks[i : i+1 : i+1],
		}
	}
	return jobs, nil
}
