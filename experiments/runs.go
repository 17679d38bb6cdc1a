package experiments

import (
	"fmt"
	"math/rand/v2"
	"strconv"

	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/scheduler"
)

// RunKey identifies one run: a workload, a scheduler, a sweep point and a
// replica. Runs are numbered workload-major, then scheduler, sweep point
// and replica; that order is the order of every result file.
type RunKey struct {
	Index     int
	Workload  int
	Scheduler int
	Load      float64
	Procs     int     // 0: the workload's own
	Sigma     float64 // the swept σ of noisy estimates; 0 when not swept
	Replica   int
}

// Runs expands the config into its runs.
func (c *Config) Runs() []RunKey {
	procs := c.Sweep.Procs
	if len(procs) == 0 {
		procs = []int{0}
	}
	sigmas := c.Sweep.Sigma
	if len(sigmas) == 0 {
		sigmas = []float64{0}
	}
	var runs []RunKey
	for w := range c.Workloads {
		for s := range c.Schedulers {
			for _, l := range c.Loads() {
				for _, p := range procs {
					for _, sg := range sigmas {
						for r := range c.ReplicaCount() {
							runs = append(runs, RunKey{Index: len(runs), Workload: w, Scheduler: s, Load: l, Procs: p, Sigma: sg, Replica: r})
						}
					}
				}
			}
		}
	}
	return runs
}

// label describes a run for progress lines and errors.
func (c *Config) label(k RunKey) string {
	s := fmt.Sprintf("%s %s load=%s", c.WorkloadName(k.Workload), c.SchedulerName(k.Scheduler), fmtFloat(k.Load))
	if k.Procs > 0 {
		s += " procs=" + strconv.Itoa(k.Procs)
	}
	if len(c.Sweep.Sigma) > 0 {
		s += " sigma=" + fmtFloat(k.Sigma)
	}
	return s + " replica=" + strconv.Itoa(k.Replica)
}

func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// runJobs makes a run's jobs from the workload's: a window of the trace
// when configured (its first job drawn from the replica's stream), or a
// sample (drawn from it), re-timed when configured, with submit times
// counted from the run's first job and divided by the load. Where the
// cluster left jobs out (pool not nil), the window or sample is drawn from
// the pool, as on a cluster that leaves none out, and left counts the jobs
// of it the cluster cannot run, left out of the run. The workload's jobs
// are not changed.
func runJobs(all []scheduler.Job, pool *planPool, w *WorkloadConfig, load float64, r *rand.Rand) (jobs []scheduler.Job, start, left int) {
	var runnable []bool
	if pool != nil {
		all, runnable = pool.jobs, pool.runnable
	}
	if window := w.Window; window > 0 && window < len(all) {
		start = r.IntN(len(all) - window + 1)
		all = all[start : start+window]
		if runnable != nil {
			runnable = runnable[start : start+window]
		}
	}
	if runnable == nil {
		jobs = workload.Sample(all, w.Sample, r)
	} else {
		for _, i := range workload.SampleIndices(len(all), w.Sample, r) {
			if runnable[i] {
				jobs = append(jobs, all[i])
			} else {
				left++
			}
		}
	}
	if len(jobs) == 0 {
		return jobs, start, left
	}
	if w.ArrivalRate > 0 {
		workload.Retime(jobs, w.ArrivalRate, scheduler.Time(w.ArrivalInterval))
	}
	if w.RunNoise > 0 {
		addRunNoise(jobs, w.RunNoise, w.RunNoiseGPUs, w.RunNoiseBy != NoiseByJob, r)
	}
	t0 := jobs[0].Submit
	for i := range jobs {
		d := float64(jobs[i].Submit - t0)
		if load != 1 {
			d = d / load
		}
		jobs[i].Submit = scheduler.Time(d + 0.5) // round half up; d ≥ 0
	}
	return jobs, start, left
}
