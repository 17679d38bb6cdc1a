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
}

// paretoFront returns the points no other point dominates (one is at most
// as large in both and smaller in one), in order of x.
func paretoFront(pts []paretoPoint) []paretoPoint {
	var front []paretoPoint
	for i, p := range pts {
		dominated := false
		for j, q := range pts {
			if i != j && q.x <= p.x && q.y <= p.y && (q.x < p.x || q.y < p.y) {
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

// paretoFigure draws figure i: the mean of its metric against the mean of
// its x column, one point per workload (a series) and scheduler, at the
// figure's load; the note names the Pareto front (lower is better on
// both).
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
	var short []string // points whose runs completed fewer jobs than they simulated
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
			if j, d := sumOf(jobs), sumOf(done); d < j {
				short = append(short, fmt.Sprintf("%s (%g of %g jobs)", label, d, j))
			}
		}
		f.Series = append(f.Series, ser)
	}
	var names []string
	front := paretoFront(pts)
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
	f.Note = fmt.Sprintf("means over %s, one point per scheduler; Pareto front: %s", reps.replicas(max(c.Replicas, 1)), strings.Join(names, ", "))
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
		f.Note += "; completed fewer jobs than they simulated (jobs the cluster could never start, which its means " +
			"leave out), over the replicas: " + strings.Join(short, ", ")
	}
	return []namedFigure{{c.FigureName(i), f}}, nil
}
