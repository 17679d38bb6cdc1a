package experiments

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/wb-sim/wb/experiments/figures"
)

// metrics is the config's table columns: by default the mean wait and
// bounded slowdown and the utilisation of the first workload's resource,
// its GPUs where its runs used any (util_gpu), else its processors.
func (c *Config) metrics(runs []RunKey, results []*storedRun) []string {
	if len(c.Metrics) > 0 {
		return c.Metrics
	}
	util := "util_cpu"
	for i, r := range results {
		if runs[i].Workload == 0 && r != nil && r.Status == "ok" && r.Summary.UtilGPU > 0 {
			util = "util_gpu"
			break
		}
	}
	return []string{"mean_wait", "mean_bounded_slowdown", util}
}

// metricValue is a summary metric by its column name.
func metricValue(r *RunResult, col string) float64 {
	s := &r.Summary
	switch col {
	case "jobs":
		return float64(r.Jobs)
	case "dropped":
		return float64(r.Dropped)
	case "left_out":
		return float64(r.LeftOut)
	case "skipped_lines":
		return float64(r.Skipped)
	case "completed":
		return float64(s.Completed)
	case "killed":
		return float64(s.Killed)
	case "unschedulable":
		return float64(s.Unschedulable)
	case "makespan":
		return float64(s.Makespan)
	case "mean_wait":
		return s.MeanWait
	case "median_wait":
		return s.MedianWait
	case "p95_wait":
		return s.P95Wait
	case "max_wait":
		return float64(s.MaxWait)
	case "mean_jct":
		return s.MeanJCT
	case "median_jct":
		return s.MedianJCT
	case "p95_jct":
		return s.P95JCT
	case "mean_bounded_slowdown":
		return s.MeanBSLD
	case "max_bounded_slowdown":
		return s.MaxBSLD
	case "util_cpu":
		return s.UtilCPU
	case "util_mem":
		return s.UtilMem
	case "util_gpu":
		return s.UtilGPU
	case "passed_over":
		return float64(s.PassedOver)
	case "mean_jct_replicas":
		return s.MeanJCTReplicas
	case "mean_wait_replicas":
		return s.MeanWaitReplicas
	}
	if v, ok := sharingMetric(r, col); ok {
		return v
	}
	if v, ok := planMetric(r, col); ok {
		return v
	}
	panic("experiments: unknown metric " + col)
}

// metricsTable is the table of the config's metrics, the mean and its
// bootstrap CI (figures.CIName) over the replicas that completed (the mean alone where the
// replicas agree or there is one), per workload, scheduler and sweep
// point, under a line that says so.
func (c *Config) metricsTable(runs []RunKey, results []*storedRun) string {
	var b strings.Builder
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	cols := c.metrics(runs, results)
	swept, sigma := len(c.Sweep.Procs) > 0, len(c.Sweep.Sigma) > 0
	head := "workload\tscheduler\tload\t"
	if swept {
		head += "procs\t"
	}
	if sigma {
		head += "sigma\t"
	}
	what := "one replica: each run's value (times in seconds)"
	if c.Replicas > 1 {
		what = fmt.Sprintf("mean [%s] over %d replicas; the mean alone where they agree (times in seconds)", figures.CIName(c.Replicas), c.Replicas)
	}
	fmt.Fprintf(&b, "%s\n", what)
	var partial []string // the rows some of whose replicas failed
	fmt.Fprintf(tw, "%s%s\n", head, strings.Join(cols, "\t"))
	for i := 0; i < len(runs); {
		// Runs of one point are consecutive: the replicas come last.
		k := runs[i]
		vals := make([][]float64, len(cols))
		j, ok := i, 0
		for ; j < len(runs) && runs[j].Workload == k.Workload && runs[j].Scheduler == k.Scheduler &&
			runs[j].Load == k.Load && runs[j].Procs == k.Procs && runs[j].Sigma == k.Sigma; j++ {
			if results[j].Status != "ok" {
				continue
			}
			ok++
			for m, col := range cols {
				if noFigure(&results[j].RunResult, col) {
					continue // empty in summary.csv too (util_mem on a pool)
				}
				vals[m] = append(vals[m], metricValue(&results[j].RunResult, col))
			}
		}
		fmt.Fprintf(tw, "%s\t%s\t%s", c.WorkloadName(k.Workload), c.SchedulerName(k.Scheduler), fmtFloat(k.Load))
		if swept {
			fmt.Fprintf(tw, "\t%d", k.Procs)
		}
		if sigma {
			fmt.Fprintf(tw, "\t%s", fmtFloat(k.Sigma))
		}
		for m := range cols {
			switch mean, lo, hi := figures.MeanCI(vals[m]); {
			case !c.Workloads[k.Workload].hasValue(cols[m]):
				fmt.Fprint(tw, "\tno price")
			case len(vals[m]) == 0 && ok > 0:
				fmt.Fprint(tw, "\t—") // the metric does not apply to these runs
			case len(vals[m]) == 0:
				fmt.Fprint(tw, "\tfailed")
			case lo == hi:
				fmt.Fprintf(tw, "\t%.4g", mean)
			default:
				fmt.Fprintf(tw, "\t%.4g [%.4g, %.4g]", mean, lo, hi) // the interval as precise as its mean
			}
		}
		fmt.Fprintln(tw)
		if ok > 0 && ok < j-i {
			at := "load " + fmtFloat(k.Load)
			if swept {
				at += fmt.Sprintf(", procs %d", k.Procs)
			}
			if sigma {
				at += ", sigma " + fmtFloat(k.Sigma)
			}
			partial = append(partial, fmt.Sprintf("note: %s under %s at %s: %d of its %d replicas failed; its row is of the %d that completed (errors in summary.csv)",
				c.WorkloadName(k.Workload), c.SchedulerName(k.Scheduler), at, j-i-ok, j-i, ok))
		}
		i = j
	}
	tw.Flush()
	for _, n := range partial {
		fmt.Fprintln(&b, n)
	}
	// jobs the cluster could never run leave the means above over the
	// rest: say so where a run had any
	type ws struct{ w, s int }
	worst := map[ws][2]int{} // the most unschedulable jobs of a run, of its jobs
	var order []ws
	for i, r := range results {
		if r == nil || r.Status != "ok" || r.Summary.Unschedulable == 0 {
			continue
		}
		k := ws{runs[i].Workload, runs[i].Scheduler}
		if _, ok := worst[k]; !ok {
			order = append(order, k)
		}
		if u := r.Summary.Unschedulable; u > worst[k][0] {
			worst[k] = [2]int{u, r.Jobs}
		}
	}
	for _, k := range order {
		fmt.Fprintf(&b, "note: %s under %s: up to %d of %d jobs could never run on the cluster (larger than any placement, or asking for GPU models it lacks: "+
			"summary.csv's unschedulable); the times above are of the others\n",
			c.WorkloadName(k.w), c.SchedulerName(k.s), worst[k][0], worst[k][1])
	}
	return b.String()
}
