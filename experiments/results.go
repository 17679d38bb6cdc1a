package experiments

import (
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

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
	// Dropped counts the trace's jobs dropped as it was read (the whole
	// trace, before any window), by reason in DroppedReasons.
	Dropped        int    `json:"dropped"`
	DroppedReasons string `json:"dropped_reasons,omitempty"`
	// LeftOut counts the jobs of the run's sample or window that its
	// cluster cannot run (a plan's over-memory, not-measured or
	// no-prediction jobs, counted in Dropped too), left out of the run: its
	// metrics are of the rest.
	LeftOut int `json:"left_out,omitempty"`
	// Notes say how the trace's jobs were timed where the cluster does
	// not (workload.Workload.Notes: a Gavel trace on GPUs of no model).
	Notes   []string `json:"notes,omitempty"`
	Skipped int      `json:"skipped_lines"`
	// SkippedFirst is what was wrong with the first of them (file:line:
	// field), where the reader kept it.
	SkippedFirst string `json:"skipped_first,omitempty"`
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
	// Schema is the RowSchema its rows were written in.
	Schema int `json:"schema"`
	// Build identifies the wb that made the run (see [BuildID]): a run
	// made by another build is not merged with this one's, since the same
	// config can give other results there.
	Build string `json:"build,omitempty"`
	// Procs is the size of the processor pool the run simulated (the
	// swept size, or the trace's own); 0 on a cluster of nodes.
	Procs int `json:"procs,omitempty"`
	// NoMem says the cluster holds no memory (a pool of GPUs and cores
	// does not model it): the run has no memory utilisation, empty.
	NoMem bool `json:"no_mem,omitempty"`
	// NoGPU says the cluster holds no GPUs (nodes of cores and memory
	// alone): the run has no GPU utilisation, empty (it read 0).
	NoGPU bool `json:"no_gpu,omitempty"`
	// GPUs and Cost are the cluster's GPUs and what the run costs at its
	// workload's price (GPUs × makespan × price per GPU-hour); 0 without a
	// price.
	GPUs int     `json:"gpus,omitempty"`
	Cost float64 `json:"cost,omitempty"`
	// LowerBounds counts, by zoo model, the run's jobs whose run times
	// were predicted (throughputs: predicted) for a model whose iteration
	// holds work no prediction times (predictor.Untimed): their run times
	// are lower bounds. Nil where there are none.
	LowerBounds map[string]int `json:"lower_bounds,omitempty"`
	// Spanning counts the run's jobs of predicted run times that ran on GPUs
	// of more than one node, their all-reduce timed at a node's own link
	// where the workload gives no internode_gbps, else over the network
	// (Job.RunSpanning); Split those of them a node of their model could
	// have held (see spannedNodes). A sharing scheduler, which times jobs by
	// Gavel's measured throughputs and keeps no placements, counts none.
	Spanning int `json:"spanning_jobs,omitempty"`
	Split    int `json:"split_jobs,omitempty"`
	// Sum is the SHA-256 of the run's file as written with this field's
	// 64 hex digits all 0 (see sealRun): a file changed on disk since wb
	// wrote it, a byte of its figures or rows, is run again, never merged.
	Sum string `json:"sha256,omitempty"`
}

// The run-identifying columns that start every row of summary.csv,
// jobs.csv and timeseries.csv.
var keyColumns = []string{"run", "workload", "scheduler", "load", "procs", "sigma", "replica"}

var summaryMetricColumns = []string{
	"jobs", "dropped", "left_out", "skipped_lines", "completed", "killed", "unschedulable", "makespan",
	"mean_wait", "median_wait", "p95_wait", "max_wait", "mean_jct", "median_jct", "p95_jct",
	"mean_bounded_slowdown", "max_bounded_slowdown", "util_cpu", "util_mem", "util_gpu", "passed_over",
	"mean_jct_replicas", "mean_wait_replicas",
}

// numericSummaryColumns are the summary.csv columns a figure can draw.
func numericSummaryColumns() []string {
	s := slices.Concat(summaryMetricColumns, sharingMetricColumns, planMetricColumns)
	slices.Sort(s)
	return s
}

func experimentSummaryColumns() []string {
	cols := slices.Clone(keyColumns)
	cols = append(cols, "seed", "window_start", "status", "error")
	return append(cols, summaryMetricColumns...)
}

// RowSchema numbers the columns of jobs.csv, timeseries.csv and
// summary.csv: a stored run written in another is run again, never merged
// under a header that does not fit its rows.
// (6: a job that never ran has empty start, end and wait, where 5 wrote
// -1; a noisy estimate's own σ in the sigma column, where 5 wrote 0. 7:
// jobs.csv's gpu_models. 8: jobs.csv's SLO columns in a config with a
// sharing scheduler. 9: summary.csv's left_out.)
const RowSchema = 9

// The one schema of jobs.csv, whether `wb simulate` or `wb experiment`
// wrote it: the run's key columns, then per job its id, user and name;
// submit, start and end times and wait (s; the three empty when it never
// ran); its run time as run (s; up to a kill) and the estimate the
// scheduler planned with (s); what it held over all replicas, in CPUs
// (cores or processors), memory (MiB) and GPUs (fractions where shared);
// the GPUs it touched and its replicas; the nodes its replicas ran on (0
// when it never ran; 1 on a processor pool; empty under a sharing
// scheduler, whose placements are not kept) and the GPU models of those
// nodes, as the cluster names them, joined by + in the cluster's order
// (empty where its nodes name none, where it never ran, and under a
// sharing scheduler); its bounded slowdown (empty when it never ran) and
// status (done, killed, unschedulable).
var jobColumns = append(slices.Clone(keyColumns),
	"id", "user", "name", "submit", "start", "end", "wait", "runtime", "estimate",
	"cpus", "mem_mib", "gpus", "gpus_touched", "replicas", "nodes_touched", "gpu_models", "bounded_slowdown", "status")

// The one schema of timeseries.csv: the run's key columns, then the time
// (s from the run's first event), the allocated share of the cluster (its
// GPUs, or its CPUs when it has none), the queued and the running jobs.
// `wb simulate` writes a row per scheduling pass; `wb experiment` time-
// weighted means over equal bins (outputs.timeseries_points).
var seriesColumns = append(slices.Clone(keyColumns), "time", "util", "queue", "running")

// jobRow writes one job's row of jobs.csv after its key columns; nodes is
// scheduler.NodesTouched of its slots, or −1 where they are not known (written
// empty), and models the GPU models of their nodes (slotModels); more, where
// not nil, writes the cells that follow jobColumns' (sloCells).
func jobRow(w io.Writer, l *csvLine, j *scheduler.JobResult, nodes int, models string, more func(*csvLine)) error {
	l.int(j.ID)
	l.str(j.User)
	l.str(j.Name)
	l.int(int64(j.Submit))
	// a job that never ran has no start, end or wait: empty, which pandas
	// reads as NaN and leaves out of a mean (a -1 was averaged in)
	if j.Start < 0 {
		l.sep()
		l.sep()
		l.sep()
	} else {
		l.int(int64(j.Start))
		l.int(int64(j.End))
		l.int(int64(j.Wait))
	}
	l.int(int64(j.Run))
	l.int(int64(j.Estimate))
	l.float(float64(j.CPU) / float64(scheduler.MilliPerCore))
	l.int(int64(j.Mem))
	l.float(float64(j.GPU) / float64(scheduler.MilliPerGPU))
	l.int(int64(j.GPUs))
	l.int(int64(j.Replicas))
	if nodes >= 0 {
		l.int(int64(nodes))
	} else {
		l.sep()
	}
	l.str(models)
	if j.Status != scheduler.Unschedulable {
		l.float(j.Slowdown)
	} else {
		l.sep()
	}
	l.str(j.Status.String())
	if more != nil {
		more(l)
	}
	return l.end(w)
}

// slotModels returns a function naming the GPU models of the nodes a
// job's GPUs lie on in c (its slots', those without a GPU left out where
// it has both: scheduler.GPUSlots), as c names them, distinct, in c's order, joined
// by "+"; "" where c's nodes name no model.
func slotModels(c *scheduler.Cluster) func(slots []scheduler.Slot) string {
	named := c != nil && slices.ContainsFunc(c.Nodes, func(n scheduler.Node) bool { return n.Model != "" })
	if !named {
		return func([]scheduler.Slot) string { return "" }
	}
	first := map[string]int{} // a model's first node, for the cluster's order
	for i := len(c.Nodes) - 1; i >= 0; i-- {
		first[c.Nodes[i].Model] = i
	}
	var ms []string
	return func(slots []scheduler.Slot) string {
		ms = ms[:0]
		slots = scheduler.GPUSlots(slots) // the nodes of its GPUs, as its run time is theirs
		for k := range slots {
			if m := c.Nodes[slots[k].Node].Model; m != "" && !slices.Contains(ms, m) {
				ms = append(ms, m)
			}
		}
		if len(ms) == 1 {
			return ms[0]
		}
		slices.SortFunc(ms, func(a, b string) int { return first[a] - first[b] })
		return strings.Join(ms, "+")
	}
}

// utilOf is the allocated share of c in sample s: of its GPUs, or of its
// CPUs when it has none.
func utilOf(c *scheduler.Cluster) func(s *scheduler.Sample) float64 {
	cpu, _, gpu := c.Capacity()
	return func(s *scheduler.Sample) float64 {
		if gpu > 0 {
			return float64(s.GPU) / float64(gpu)
		}
		return float64(s.CPU) / float64(cpu)
	}
}

// seriesRow writes one row of timeseries.csv after its key columns.
func seriesRow(w io.Writer, l *csvLine, t, util, queue, running float64) error {
	l.float(t)
	l.float(util)
	l.float(queue)
	l.float(running)
	return l.end(w)
}

// keyFields writes the run-identifying columns; procs is the pool's size,
// written empty on a cluster of nodes (0).
func (c *Config) keyFields(l *csvLine, k RunKey, procs int) {
	writeKey(l, k.Index, c.WorkloadName(k.Workload), c.SchedulerName(k.Scheduler), k.Load, procs, c.runSigma(k), k.Replica)
}

// runSigma is run k's σ column: the swept σ (a point of the sweep, for
// every scheduler), else the noisy estimate's own sigma.
func (c *Config) runSigma(k RunKey) float64 {
	if s := &c.Schedulers[k.Scheduler]; len(c.Sweep.Sigma) == 0 && s.takesSigma() {
		return s.Sigma
	}
	return k.Sigma
}

// writeKey writes the key columns of a run.
func writeKey(l *csvLine, run int, workload, sched string, load float64, procs int, sigma float64, replica int) {
	l.int(int64(run))
	l.str(workload)
	l.str(sched)
	l.float(load)
	if procs > 0 {
		l.int(int64(procs))
	} else {
		l.str("")
	}
	l.float(sigma)
	l.int(int64(replica))
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
	if r.Status == "ok" {
		writeMetrics(&l, r)
	} else {
		for range summaryMetricColumns {
			l.sep()
		}
	}
	if c.hasSharing() {
		writeSharingMetrics(&l, r)
	}
	if c.hasPrice() {
		writePlanMetrics(&l, r, c.Workloads[k.Workload].priced())
	}
	return l.end(w)
}

// writeJobRows writes a run's rows of jobs.csv (no header). A sharing
// scheduler's jobs keep no placements: their nodes_touched is empty; slo
// is its run's jobs, in r.Jobs' order (nil for another scheduler's run),
// for the SLO columns a config with a sharing scheduler adds.
func (c *Config) writeJobRows(w io.Writer, k RunKey, r *scheduler.Result, slo []sharing.JobResult) error {
	var l csvLine
	procs := poolProcs(r.Cluster)
	shared := c.Schedulers[k.Scheduler].Sharing != ""
	models := slotModels(r.Cluster)
	for i := range r.Jobs {
		c.keyFields(&l, k, procs)
		nodes, on := -1, ""
		if !shared {
			nodes, on = scheduler.NodesTouched(r.Jobs[i].Slots), models(r.Jobs[i].Slots)
		}
		var more func(*csvLine)
		if c.hasSharing() {
			var sj *sharing.JobResult
			if slo != nil {
				sj = &slo[i]
			}
			more = func(l *csvLine) { sloCells(l, sj) }
		}
		if err := jobRow(w, &l, &r.Jobs[i], nodes, on, more); err != nil {
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
	util := utilOf(r.Cluster)
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
		if err := seriesRow(w, &l, lo-t0, u/span, q/span, run/span); err != nil {
			return err
		}
	}
	return nil
}

// noMem says cluster c holds no memory.
func noMem(c *scheduler.Cluster) bool {
	_, mem, _ := c.Capacity()
	return mem == 0
}

// noGPU reports whether a cluster of nodes holds no GPUs (a pool of
// processors is said by Procs).
func noGPU(c *scheduler.Cluster) bool {
	_, _, gpu := c.Capacity()
	return gpu == 0 && !c.Pool
}

// poolProcs is the processors of a pool cluster, 0 for a cluster of nodes.
func poolProcs(c *scheduler.Cluster) int {
	if !c.Pool {
		return 0
	}
	cpu, _, _ := c.Capacity()
	return int(cpu / scheduler.MilliPerCore)
}
