package experiments

import (
	"io"

	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/scheduler"
)

// SummaryRow is one run's line of summary.csv.
type SummaryRow struct {
	Trace, Format, Cluster               string
	Order, Backfill, Placement, Estimate string
	Jobs, Dropped, Skipped               int
	DroppedReasons                       string
	scheduler.Summary
}

var summaryColumns = []string{
	"trace", "format", "cluster", "order", "backfill", "placement", "estimate",
	"jobs", "dropped", "dropped_reasons", "skipped_lines", "completed", "unschedulable",
	"makespan", "mean_wait", "median_wait", "p95_wait", "max_wait", "mean_jct",
	"mean_bounded_slowdown", "max_bounded_slowdown", "util_cpu", "util_mem", "util_gpu",
}

// Summarize makes a run's summary row.
func Summarize(w *workload.Workload, r *scheduler.Result) SummaryRow {
	return SummaryRow{
		Trace: w.Name, Format: w.Format, Cluster: r.Cluster.Name,
		Order: r.Parts.Order, Backfill: r.Parts.Backfill, Placement: r.Parts.Placement, Estimate: r.Parts.Estimate,
		Jobs: r.Summary.Jobs, Dropped: w.Dropped.Total(), DroppedReasons: w.Dropped.String(), Skipped: w.Skipped,
		Summary: r.Summary,
	}
}

// WriteSummary writes summary.csv.
func WriteSummary(w io.Writer, rows []SummaryRow) error {
	if err := writeHeader(w, summaryColumns); err != nil {
		return err
	}
	var l csvLine
	for _, s := range rows {
		for _, v := range []string{s.Trace, s.Format, s.Cluster, s.Order, s.Backfill, s.Placement, s.Estimate} {
			l.str(v)
		}
		l.int(int64(s.Jobs))
		l.int(int64(s.Dropped))
		l.str(s.DroppedReasons)
		l.int(int64(s.Skipped))
		l.int(int64(s.Completed))
		l.int(int64(s.Unschedulable))
		l.int(int64(s.Makespan))
		l.float(s.MeanWait)
		l.float(s.MedianWait)
		l.float(s.P95Wait)
		l.int(int64(s.MaxWait))
		l.float(s.MeanJCT)
		l.float(s.MeanBSLD)
		l.float(s.MaxBSLD)
		l.float(s.UtilCPU)
		l.float(s.UtilMem)
		l.float(s.UtilGPU)
		if err := l.end(w); err != nil {
			return err
		}
	}
	return nil
}
