package experiments

import (
	"fmt"
	"math/rand/v2"
	"slices"
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
// cluster left jobs out (pool not nil), the window or sample is drawn and
// re-timed from the pool, as on a cluster that leaves none out, and then
// the jobs of it the cluster cannot run are left out of the run, counted in
// left (run noise is drawn for the rest). The workload's jobs are not
// changed.
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
	idx := workload.SampleIndices(len(all), w.Sample, r) // (Sample's draw)
	jobs = make([]scheduler.Job, len(idx))
	var keep []bool // with a pool: whether each job drawn is one the cluster runs
	if runnable != nil {
		keep = make([]bool, len(idx))
	}
	for k, i := range idx {
		jobs[k] = all[i]
		if keep != nil {
			keep[k] = runnable[i]
		}
	}
	if len(jobs) == 0 {
		return jobs, start, left
	}
	if w.ArrivalRate > 0 {
		if keep != nil {
			// in Retime's order, the flags with their jobs: the jobs left
			// out keep their arrival slots, so that every cluster's jobs
			// arrive when they do on a cluster that runs them all
			perm := make([]int, len(jobs))
			for i := range perm {
				perm[i] = i
			}
			slices.SortStableFunc(perm, func(a, b int) int { return workload.RetimeOrder(&jobs[a], &jobs[b]) })
			sorted, flags := make([]scheduler.Job, len(jobs)), make([]bool, len(jobs))
			for k, i := range perm {
				sorted[k], flags[k] = jobs[i], keep[i]
			}
			jobs, keep = sorted, flags
		}
		workload.Retime(jobs, w.ArrivalRate, scheduler.Time(w.ArrivalInterval))
	}
	t0 := jobs[0].Submit // (the first job drawn, run or left out)
	if keep != nil {
		kept := jobs[:0:0]
		for k := range jobs {
			if keep[k] {
				kept = append(kept, jobs[k])
			} else {
				left++
			}
		}
		if jobs = kept; len(jobs) == 0 {
			return jobs, start, left
		}
	}
	if w.RunNoise > 0 {
		addRunNoise(jobs, w.RunNoise, w.RunNoiseGPUs, w.RunNoiseBy != NoiseByJob, r)
	}
	for i := range jobs {
		d := float64(jobs[i].Submit - t0)
		if load != 1 {
			d = d / load
		}
		jobs[i].Submit = scheduler.Time(d + 0.5) // round half up; d ≥ 0
	}
	return jobs, start, left
}
