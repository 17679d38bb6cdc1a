package experiments

import (
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/wb-sim/wb/scheduler"
	"github.com/wb-sim/wb/sharing"
)

// RunResult is what one run produced, as stored in runs/NNNNN.json.
type RunResult struct {
	Index      int     `json:"index"`
	ConfigHash string  `json:"config_hash"`
	Label      string  `json:"label"`
	Status     string  `json:"status"` // "ok" or "failed"
	Error      string  `json:"error,omitempty"`
	Stack      string  `json:"stack,omitempty"` // of a run that panicked
	WallMS     float64 `json:"wall_ms"`
	Seed       uint64  `json:"seed"`
	// WindowStart is the index in the trace of the run's first job.
	WindowStart int `json:"window_start"`
	Jobs        int `json:"jobs"`
	Dropped     int `json:"dropped"`
	Skipped     int `json:"skipped_lines"`
	// Summary is the simulation's summary; zero when the run failed.
	Summary scheduler.Summary `json:"summary"`
	// Sharing is the figures of a sharing scheduler's run.
	Sharing *sharing.Metrics `json:"sharing,omitempty"`
	// JobsBytes and SeriesBytes are the sizes of the run's rows of jobs.csv
	// and timeseries.csv that follow the JSON in its file.
	JobsBytes   int `json:"jobs_bytes"`
	SeriesBytes int `json:"series_bytes"`
	// SameAs, when set, is the run whose simulation this run shares: it
	// differs only in a σ its scheduler's estimate does not use.
	SameAs *int `json:"same_as,omitempty"`
	// Procs is the size of the processor pool the run simulated (the
	// swept size, or the trace's own); 0 on a cluster of nodes.
	Procs int `json:"procs,omitempty"`
}

// The run-identifying columns that start every row of summary.csv,
// jobs.csv and timeseries.csv.
var keyColumns = []string{"run", "workload", "scheduler", "load", "procs", "sigma", "replica"}

var summaryMetricColumns = []string{
	"jobs", "dropped", "skipped_lines", "completed", "killed", "unschedulable", "makespan",
	"mean_wait", "median_wait", "p95_wait", "max_wait", "mean_jct",
	"mean_bounded_slowdown", "max_bounded_slowdown", "util_cpu", "util_mem", "util_gpu",
}

// numericSummaryColumns are the summary.csv columns a figure can draw.
func numericSummaryColumns() []string {
	s := slices.Concat(summaryMetricColumns, sharingMetricColumns)
	slices.Sort(s)
	return s
}

func experimentSummaryColumns() []string {
	cols := slices.Clone(keyColumns)
	cols = append(cols, "seed", "window_start", "status", "error")
	return append(cols, summaryMetricColumns...)
}

var experimentJobColumns = append(slices.Clone(keyColumns),
	"id", "user", "submit", "start", "end", "wait", "runtime", "estimate", "cpus", "gpus", "bounded_slowdown", "status")

var experimentSeriesColumns = append(slices.Clone(keyColumns), "time", "util", "queue", "running")

// keyFields writes the run-identifying columns; procs is the pool's size,
// written empty on a cluster of nodes (0).
func (c *Config) keyFields(l *csvLine, k RunKey, procs int) {
	l.int(int64(k.Index))
	l.str(c.WorkloadName(k.Workload))
	l.str(c.SchedulerName(k.Scheduler))
	l.float(k.Load)
	if procs > 0 {
		l.int(int64(procs))
	} else {
		l.str("")
	}
	l.float(k.Sigma)
	l.int(int64(k.Replica))
}

// writeSummaryRow writes run k's row of summary.csv.
func (c *Config) writeSummaryRow(w io.Writer, k RunKey, r *RunResult) error {
	var l csvLine
	procs := r.Procs
	if procs == 0 {
		procs = k.Procs // a run that failed before its workload loaded
	}
	c.keyFields(&l, k, procs)
	l.str(strconv.FormatUint(r.Seed, 10))
	l.int(int64(r.WindowStart))
	l.str(r.Status)
	l.str(r.Error)
	if r.Status != "ok" {
		for range summaryMetricColumns {
			l.sep()
		}
		if c.hasSharing() {
			writeSharingMetrics(&l, r)
		}
		return l.end(w)
	}
	writeMetrics(&l, r)
	if c.hasSharing() {
		writeSharingMetrics(&l, r)
	}
	return l.end(w)
}

// writeJobRows writes a run's rows of jobs.csv (no header).
func (c *Config) writeJobRows(w io.Writer, k RunKey, r *scheduler.Result) error {
	var l csvLine
	for i := range r.Jobs {
		j := &r.Jobs[i]
		c.keyFields(&l, k, poolProcs(r.Cluster))
		l.int(j.ID)
		l.str(j.User)
		l.int(int64(j.Submit))
		l.int(int64(j.Start))
		l.int(int64(j.End))
		l.int(int64(j.Wait))
		l.int(int64(j.Run))
		l.int(int64(j.Estimate))
		l.float(float64(j.CPU) / float64(scheduler.MilliPerCore))
		l.float(float64(j.GPU) / float64(scheduler.MilliPerGPU))
		if j.Status != scheduler.Unschedulable {
			l.float(j.Slowdown)
		} else {
			l.sep()
		}
		l.str(j.Status.String())
		if err := l.end(w); err != nil {
			return err
		}
	}
	return nil
}

// writeSeriesRows writes a run's use of the cluster in n bins of equal
// length from its first submit to its last event (no header): per bin, the
// time-weighted mean of the allocated share of the cluster (its GPUs, or
// its CPUs when it has none), of the queue length and of the running jobs.
// The time column is the start of the bin.
func (c *Config) writeSeriesRows(w io.Writer, k RunKey, r *scheduler.Result, n int) error {
	if len(r.Series) == 0 || n <= 0 {
		return nil
	}
	cpu, _, gpu := r.Cluster.Capacity()
	util := func(s *scheduler.Sample) float64 {
		if gpu > 0 {
			return float64(s.GPU) / float64(gpu)
		}
		return float64(s.CPU) / float64(cpu)
	}
	ser := r.Series
	t0, t1 := float64(ser[0].Time), float64(ser[len(ser)-1].Time)
	width := (t1 - t0) / float64(n)
	var l csvLine
	j := 0 // the sample in force at the bin's start
	for b := range n {
		lo, hi := t0+float64(b)*width, t0+float64(b+1)*width
		var u, q, run, span float64
		if width == 0 {
			u, q, run, span = util(&ser[len(ser)-1]), float64(ser[len(ser)-1].Queue), float64(ser[len(ser)-1].Running), 1
		}
		for k := j; width > 0 && k < len(ser); k++ {
			from := math.Max(lo, float64(ser[k].Time))
			to := hi
			if k+1 < len(ser) {
				to = math.Min(hi, float64(ser[k+1].Time))
			}
			if to > from {
				d := to - from
				u += util(&ser[k]) * d
				q += float64(ser[k].Queue) * d
				run += float64(ser[k].Running) * d
				span += d
			}
			if k+1 < len(ser) && float64(ser[k+1].Time) <= hi {
				j = k + 1
			} else {
				break
			}
		}
		if span == 0 {
			span = 1
		}
		c.keyFields(&l, k, poolProcs(r.Cluster))
		l.float(lo - t0)
		l.float(u / span)
		l.float(q / span)
		l.float(run / span)
		if err := l.end(w); err != nil {
			return err
		}
	}
	return nil
}

// poolProcs is the processors of a pool cluster, 0 for a cluster of nodes.
func poolProcs(c *scheduler.Cluster) int {
	if !c.Pool {
		return 0
	}
	cpu, _, _ := c.Capacity()
	return int(cpu / scheduler.MilliPerCore)
}
