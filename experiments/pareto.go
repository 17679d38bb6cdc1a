package experiments

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/wb-sim/wb/experiments/figures"
)

// paretoPoint is one workload × scheduler's means of a pareto figure.
type paretoPoint struct {
	label string
	x, y  float64
	// where the point is drawn: its series (−1: not drawn) and index in
	// it, and the scheduler it names there
	series, point int
	scheduler     string
	// short: its runs completed fewer jobs than they simulated, or left
	// out jobs their cluster cannot run; its means leave those out, so it
	// answers a smaller workload and stands on no front
	short bool
}

// metricBetter is the way a summary.csv column is better: −1 where lower is
// better (waits, completion times, slowdowns, makespan, cost, jobs killed
// or passed over), +1 where higher is (utilisation, jobs completed, SLO
// attainment, goodput, throughput), 0 where neither is (a count of the
// workload or the cluster: jobs, GPUs, jobs dropped from the trace, jobs
// that shared a GPU, policy switches, jobs a cluster cannot run). A Pareto front needs a way on both
// axes.
func metricBetter(col string) int {
	switch col {
	case "completed", "util_cpu", "util_mem", "util_gpu", "slo_attainment", "critical_slo_attainment", "goodput", "throughput":
		return +1
	case "killed", "unschedulable", "passed_over", "makespan", "cost", "cost_per_job":
		return -1
	}
	if strings.Contains(col, "wait") || strings.Contains(col, "jct") || strings.Contains(col, "slowdown") {
		return -1
	}
	return 0
}

// betterColumns are the numeric summary.csv columns with a way better
// (metricBetter), which a Pareto figure's axes take.
func betterColumns() []string {
	var cols []string
	for _, c := range numericSummaryColumns() {
		if metricBetter(c) != 0 {
			cols = append(cols, c)
		}
	}
	return cols
}

// paretoFront returns the points no other point dominates (one at least as
// good on both axes and better on one, each axis better the way its
// column is: wx, wy are metricBetter's −1 or +1), in order of x.
func paretoFront(pts []paretoPoint, wx, wy float64) []paretoPoint {
	var front []paretoPoint
	for i, p := range pts {
		dominated := false
		px, py := wx*p.x, wy*p.y
		for j, q := range pts {
			// in the signed values higher is better on both axes
			qx, qy := wx*q.x, wy*q.y
			if i != j && qx >= px && qy >= py && (qx > px || qy > py) {
				dominated = true
				break
			}
		}
		if !dominated {
			front = append(front, p)
		}
	}
	slices.SortStableFunc(front, func(a, b paretoPoint) int { return cmp.Compare(a.x, b.x) })
	return front
}

// betterWord says which way col is better: "lower cost", "higher GPU
// utilisation".
func betterWord(col string) string {
	w := "lower "
	if metricBetter(col) > 0 {
		w = "higher "
	}
	return w + strings.TrimSuffix(strings.TrimSuffix(cmp.Or(metricLabel[col], col), " (s)"), " ($)")
}

// paretoFigure draws figure i: the mean of its metric against the mean of
// its x column, one point per workload (a series) and scheduler, at the
// figure's load; the note names the Pareto front, each axis better the way
// its column is (metricBetter).
func (c *Config) paretoFigure(i int, load func(string) (table, error)) ([]namedFigure, error) {
	fc := &c.Figures[i]
	xcol := cmp.Or(fc.X, "cost")
	at := c.figureLoad(i)
	t, err := load(SummaryFile)
	if err != nil {
		return nil, err
	}
	f := &figures.Figure{Kind: figures.Scatter, XLabel: cmp.Or(metricLabel[xcol], xcol), YLabel: cmp.Or(metricLabel[fc.Metric], fc.Metric),
		LogX: fc.LogX, LogY: fc.LogY, MarkerPt: 3}
	var pts []paretoPoint
	ws := make([]int, 0, len(c.Workloads))
	for _, name := range fc.Workloads {
		ws = append(ws, c.workloadIndex(name))
	}
	if len(ws) == 0 {
		for w := range c.Workloads {
			ws = append(ws, w)
		}
	}
	var left []string  // workloads without a value of xcol
	var short []string // points whose runs completed fewer jobs than they simulated, or left some out
	var reps counted   // the replicas each point's means are over
	offLog := 0        // points a log axis cannot show
	for _, w := range ws {
		if !c.Workloads[w].hasValue(xcol) {
			left = append(left, c.WorkloadName(w))
			continue // no price, no cost: not a point at 0
		}
		ser := figures.Series{Label: c.WorkloadName(w)}
		for s := range c.Schedulers {
			xs, err := c.summaryValues(t, w, s, "load", at, xcol)
			if err != nil {
				return nil, err
			}
			ys, err := c.summaryValues(t, w, s, "load", at, fc.Metric)
			if err != nil {
				return nil, err
			}
			if len(xs) == 0 || len(ys) == 0 {
				continue
			}
			x, y := meanOf(xs), meanOf(ys)
			label := c.WorkloadName(w) + " " + c.SchedulerName(s)
			if fc.LogX && !(x > 0) || fc.LogY && !(y > 0) {
				// a log axis cannot show it; the note says so, and it is
				// still on the front it is on
				offLog++
				pts = append(pts, paretoPoint{label: label + " (0, not drawn)", x: x, y: y, series: -1})
				continue
			}
			reps.add(min(len(xs), len(ys)))
			ser.X, ser.Y = append(ser.X, x), append(ser.Y, y)
			pts = append(pts, paretoPoint{label: label, x: x, y: y, series: len(f.Series), point: len(ser.X) - 1, scheduler: c.SchedulerName(s)})
			jobs, err := c.summaryValues(t, w, s, "load", at, "jobs")
			if err != nil {
				return nil, err
			}
			done, err := c.summaryValues(t, w, s, "load", at, "completed")
			if err != nil {
				return nil, err
			}
			left, err := c.summaryValues(t, w, s, "load", at, "left_out")
			if err != nil {
				return nil, err
			}
			// jobs counts those the run simulated; a cluster that cannot
			// run some of the workload's (over a GPU's memory, not
			// measured on it) left them out before it, and ran a lighter
			// mix (a reviewer's find)
			if j, d, l := sumOf(jobs), sumOf(done), sumOf(left); d < j || l > 0 {
				switch {
				case l == 0:
					short = append(short, fmt.Sprintf("%s (%g of %g jobs)", label, d, j))
				case d == j:
					short = append(short, fmt.Sprintf("%s (%g of %g jobs: %g left out)", label, d, j+l, l))
				default:
					short = append(short, fmt.Sprintf("%s (%g of %g jobs, %g of them left out)", label, d, j+l, l))
				}
				pts[len(pts)-1].short = true
			}
		}
		f.Series = append(f.Series, ser)
	}
	var names []string
	var front []paretoPoint
	if fc.front() {
		// a point that left jobs undone is not compared: a cluster that
		// cannot start a workload's jobs looks cheap per job and quick on
		// the rest (a reviewer's find)
		whole := slices.DeleteFunc(slices.Clone(pts), func(p paretoPoint) bool { return p.short })
		front = paretoFront(whole, float64(metricBetter(xcol)), float64(metricBetter(fc.Metric)))
	}
	// the front's points carry their scheduler's name on the figure, where
	// the legend names only the workload
	named := paretoPoint{series: -1} // the last point named
	for _, p := range front {
		if p.series < 0 {
			continue // not drawn: named in the note
		}
		ser := &f.Series[p.series]
		if ser.Names == nil {
			ser.Names = make([]string, len(ser.X))
		}
		if p.series == named.series && p.x == named.x && p.y == named.y {
			// the same point: one name, joined (H100's FIFO = SJF = EASY)
			ser.Names[named.point] += " = " + p.scheduler
			continue
		}
		ser.Names[p.point], named = p.scheduler, p
	}
	for k, p := range front {
		if k > 0 && p.x == front[k-1].x && p.y == front[k-1].y {
			names[len(names)-1] += " = " + p.label // the same point
			continue
		}
		names = append(names, p.label)
	}
	if len(names) == 0 && len(short) > 0 {
		names = []string{"none (every point left jobs undone or out)"}
	}
	f.Note = fmt.Sprintf("means over %s, one point per scheduler; Pareto front (%s and %s; on the means, their intervals not weighed): %s",
		reps.replicas(max(c.Replicas, 1)), betterWord(xcol), betterWord(fc.Metric), strings.Join(names, ", "))
	if !fc.front() {
		f.Note = fmt.Sprintf("means over %s, one point per scheduler; no front named (front: false)", reps.replicas(max(c.Replicas, 1)))
	}
	if len(c.Loads()) > 1 {
		f.Note = fmt.Sprintf("load %s; ", fmtFloat(at)) + f.Note // which of the loads swept
	}
	if len(left) > 0 {
		f.Note += fmt.Sprintf("; left out, with no %s (no price): %s", xcol, strings.Join(left, ", "))
	}
	if offLog > 0 {
		f.Note += fmt.Sprintf("; %d points of 0 not drawn (log axis)", offLog)
	}
	if len(short) > 0 {
		how := ""
		if fc.front() {
			how = " and off the front"
		}
		f.Note += "; completed fewer jobs than the workload's (jobs the cluster could never start or cannot run, which its means " +
			"leave out)" + how + ", over the replicas: " + strings.Join(short, ", ")
	}
	return []namedFigure{{c.FigureName(i), f}}, nil
}
