package experiments

import (
	"fmt"
	"io"

	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/scheduler"
)

// SummaryRow is one run's line of wb simulate's summary.csv.
type SummaryRow struct {
	Trace, Format, Cluster               string
	Order, Backfill, Placement, Estimate string
	DroppedReasons                       string
	// Counts is the run's counts and the simulation's summary.
	Counts RunResult
}

var summaryColumns = append([]string{
	"trace", "format", "cluster", "order", "backfill", "placement", "estimate", "dropped_reasons",
}, summaryMetricColumns...)

// Summarize makes a run's summary row.
func Summarize(w *workload.Workload, r *scheduler.Result) SummaryRow {
	return SummaryRow{
		Trace: w.Name, Format: w.Format, Cluster: r.Cluster.Name,
		Order: r.Parts.Order, Backfill: r.Parts.Backfill, Placement: r.Parts.Placement, Estimate: r.Parts.Estimate,
		DroppedReasons: w.Dropped.String(),
		// (Procs: a pool of processors has no GPU or memory figure, empty;
		// NoMem: a pool of GPUs no memory figure)
		Counts: RunResult{Jobs: r.Summary.Jobs, Dropped: w.Dropped.Total(), Skipped: w.Skipped, Summary: r.Summary,
			Procs: poolProcs(r.Cluster), NoMem: noMem(r.Cluster), NoGPU: noGPU(r.Cluster)},
	}
}

// WriteSummary writes summary.csv.
func WriteSummary(w io.Writer, rows []SummaryRow) error {
	if err := writeHeader(w, summaryColumns); err != nil {
		return err
	}
	var l csvLine
	for _, s := range rows {
		for _, v := range []string{s.Trace, s.Format, s.Cluster, s.Order, s.Backfill, s.Placement, s.Estimate, s.DroppedReasons} {
			l.str(v)
		}
		writeMetrics(&l, &s.Counts)
		if err := l.end(w); err != nil {
			return err
		}
	}
	return nil
}

// writeMetrics writes the summaryMetricColumns of a run. Counts are
// written by the float writer too, which prints whole numbers as integers.
// A run in which no job completed has no wait, JCT, slowdown, makespan or
// utilisation, and a run on a pool of processors no GPUs or memory: those
// cells are left empty, not written as 0.
func writeMetrics(l *csvLine, r *RunResult) {
	for _, col := range summaryMetricColumns {
		if noFigure(r, col) {
			l.sep()
			continue
		}
		l.float(metricValue(r, col))
	}
}

// noFigure reports whether run r has no figure in column col: no job
// completed (but for the counts), a sharing scheduler's run (notShared), a
// pool of processors (no GPUs or memory), a cluster without memory or
// without GPUs.
func noFigure(r *RunResult, col string) bool {
	return (r.Summary.Completed == 0 && !countColumns[col]) || (r.Sharing != nil && notShared[col]) ||
		(r.Procs > 0 && (col == "util_gpu" || col == "util_mem")) || (r.NoMem && col == "util_mem") || (r.NoGPU && col == "util_gpu")
}

// notShared are the summaryMetricColumns a sharing scheduler's run has no
// figure for (it allocates GPUs alone, and counts no replicas' means or
// jobs passed over): empty, not 0.
var notShared = map[string]bool{"util_cpu": true, "util_mem": true, "passed_over": true, "mean_jct_replicas": true, "mean_wait_replicas": true}

// countColumns are the summaryMetricColumns that count jobs or lines:
// defined whether or not any job completed.
var countColumns = map[string]bool{
	"jobs": true, "dropped": true, "left_out": true, "skipped_lines": true, "completed": true, "killed": true,
	"unschedulable": true, "passed_over": true,
}

// NoneCompleted says why a run of jobs > 0 jobs had none complete: each
// could never run on the cluster (larger than anything it can place, or
// only for GPU models it lacks).
func NoneCompleted(cluster string, jobs int, sm *scheduler.Summary) string {
	if sm.PlacementRefused > 0 {
		return fmt.Sprintf("no job completed: %d of %d jobs could never run on cluster %s, %d of them gangs that first-fit places on the empty cluster "+
			"and the placement placed nowhere, so the run has no wait, JCT, slowdown or utilisation: check the placement (and the cluster against the jobs' sizes and GPU models)",
			sm.Unschedulable, jobs, cluster, sm.PlacementRefused)
	}
	return fmt.Sprintf("no job completed: %d of %d jobs could never run on cluster %s (each needs more than it can place, or GPUs of a model it lacks), "+
		"so the run has no wait, JCT, slowdown or utilisation: check the cluster against the jobs' sizes and GPU models", sm.Unschedulable, jobs, cluster)
}
