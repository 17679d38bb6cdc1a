package experiments

import (
	"cmp"
	"fmt"
	"slices"

	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/experiments/figures"
	"github.com/wb-sim/wb/scheduler"
)

// progressPoints bounds the points drawn of each progress curve.
const progressPoints = 2000

// ProgressCurve is the cluster's GPU allocation as jobs start, the x axis
// of Kwon and Bahn's Fig. 3 ("jobs processed so far" against "GPU
// utilisation after scheduling them"): Util[k] is the share of the
// cluster's GPUs allocated right after the (k+1)-th job started, jobs
// taken in start order (at one time stamp, the jobs that end then have
// left first, as in the simulator).
type ProgressCurve struct {
	Util []float64
}

// Mean is the curve's mean: the GPU utilisation averaged over the jobs
// processed.
func (p ProgressCurve) Mean() float64 {
	if len(p.Util) == 0 {
		return 0
	}
	s := 0.0
	for _, u := range p.Util {
		s += u
	}
	return s / float64(len(p.Util))
}

type progressJob struct {
	start, end int64
	gpus       float64
	row        int
}

// progressOf computes the curve from jobs (start, end, GPUs) on a cluster
// of capacity GPUs.
func progressOf(jobs []progressJob, capacity float64) ProgressCurve {
	starts := slices.Clone(jobs)
	slices.SortStableFunc(starts, func(a, b progressJob) int { return cmp.Or(cmp.Compare(a.start, b.start), cmp.Compare(a.row, b.row)) })
	ends := slices.Clone(jobs)
	// By end, then start: a job that ends at t leaves before the jobs that
	// start at t, unless it started at t too.
	slices.SortStableFunc(ends, func(a, b progressJob) int { return cmp.Or(cmp.Compare(a.end, b.end), cmp.Compare(a.start, b.start)) })
	var out ProgressCurve
	alloc, e := 0.0, 0
	for _, j := range starts {
		for e < len(ends) && ends[e].end <= j.start && ends[e].start < j.start {
			alloc -= ends[e].gpus
			e++
		}
		alloc += j.gpus
		out.Util = append(out.Util, alloc/capacity)
	}
	return out
}

// clusterGPUs is workload w's cluster's number of GPUs.
func (c *Config) clusterGPUs(w int) (float64, error) {
	o := c.workloadOptions(w)
	var cl *scheduler.Cluster
	if o.Cluster != "" {
		var err error
		if cl, _, err = workload.ParseCluster(o.Cluster); err != nil {
			return 0, err
		}
	} else {
		wl, err := workload.Load(o)
		if err != nil {
			return 0, err
		}
		cl = wl.Cluster
	}
	_, _, gpu := cl.Capacity()
	if gpu <= 0 {
		return 0, fmt.Errorf("workload %s: its cluster has no GPUs", c.WorkloadName(w))
	}
	return float64(gpu) / float64(scheduler.MilliPerGPU), nil
}

// progressCurve is the curve of workload w, scheduler s at load at, from
// the first replica's rows of jobs.csv.
func (c *Config) progressCurve(t table, w, s int, at, capacity float64) (ProgressCurve, error) {
	var jobs []progressJob
	for k := range t {
		row := t[k]
		if !c.rowIs(row, w, s, at) || row["replica"] != "0" || (row["status"] != "done" && row["status"] != "killed") {
			continue
		}
		st, err1 := t.float(c.resultFile(JobsFile), k, "start")
		en, err2 := t.float(c.resultFile(JobsFile), k, "end")
		g, err3 := t.float(c.resultFile(JobsFile), k, "gpus")
		for _, err := range []error{err1, err2, err3} {
			if err != nil {
				return ProgressCurve{}, err
			}
		}
		jobs = append(jobs, progressJob{start: int64(st), end: int64(en), gpus: g, row: k})
	}
	return progressOf(jobs, capacity), nil
}

// progressFigures draws figure i, of kind progress: one figure per
// workload, GPU utilisation against jobs processed, the legend giving
// each curve's mean.
func (c *Config) progressFigures(i int, load func(string) (table, error)) ([]namedFigure, error) {
	fc := &c.Figures[i]
	at := c.figureLoad(i)
	atNote := ""
	if len(c.Loads()) > 1 {
		atNote = ", load " + fmtFloat(at)
	}
	t, err := load(JobsFile)
	if err != nil {
		return nil, err
	}
	var out []namedFigure
	for w := range c.Workloads {
		capacity, err := c.clusterGPUs(w)
		if err != nil {
			return nil, err
		}
		f := &figures.Figure{Kind: figures.TimeSeries, XLabel: "jobs processed", YLabel: "GPU utilisation (%)",
			LogY: fc.LogY, Title: c.WorkloadName(w) + atNote, Note: c.firstReplicaNote()}
		for s := range c.Schedulers {
			p, err := c.progressCurve(t, w, s, at, capacity)
			if err != nil {
				return nil, err
			}
			ser := figures.Series{Label: fmt.Sprintf("%s (mean %.2f%%)", c.SchedulerName(s), 100*p.Mean())}
			step := max(1, len(p.Util)/progressPoints)
			for k := 0; k < len(p.Util); k += step {
				ser.X, ser.Y = append(ser.X, float64(k+1)), append(ser.Y, 100*p.Util[k])
			}
			if n := len(p.Util); n > 0 && (n-1)%step != 0 {
				ser.X, ser.Y = append(ser.X, float64(n)), append(ser.Y, 100*p.Util[n-1])
			}
			f.Series = append(f.Series, ser)
		}
		out = append(out, namedFigure{c.FigureName(i) + "-" + slug(c.WorkloadName(w)), f})
	}
	return out, nil
}
