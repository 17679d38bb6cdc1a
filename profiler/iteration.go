package profiler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"runtime"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/wb-sim/wb/dnn"
)

// IterationTime is a whole training (or inference) step measured end to
// end: every layer's passes run back to back in the order a framework runs
// them, beside the layer-by-layer rows. It is what a predicted iteration is
// scored against: the rows summed leave out what happens between layers
// (caches that one layer leaves warm or cold for the next, the harness's
// own gaps).
type IterationTime struct {
	Batch  int      `json:"batch"`
	Passes []string `json:"passes"`
	// Kernels is the number of layer passes run in one iteration.
	Kernels int `json:"kernels"`
	// Median and Min of the runs, seconds; Runs the number of runs.
	Median float64 `json:"median_s"`
	Min    float64 `json:"min_s"`
	Runs   int     `json:"runs"`
	// RowsMedian and RowsMin are the profile's rows of this batch summed
	// over the same layer passes (median_s and min_s), 0 where a row was
	// not measured.
	RowsMedian float64 `json:"rows_median_s,omitempty"`
	RowsMin    float64 `json:"rows_min_s,omitempty"`

	prepare time.Duration // preparing its kernels took, all held at once
}

// iterationMinRuns, iterationMaxRuns and iterationTime bound an
// iteration's measurement: at least 3 runs, then more until about a second
// has been spent, at most 20.
const (
	iterationMinRuns = 3
	iterationMaxRuns = 20
	iterationTime    = time.Second
)

// iterationRuns is how many runs MeasureIteration's loop makes of an
// iteration taking once seconds.
func iterationRuns(once float64) int {
	if once <= 0 {
		return iterationMaxRuns
	}
	return min(iterationMaxRuns, max(iterationMinRuns, int(math.Ceil(iterationTime.Seconds()/once))))
}

// iterationSteps are the layer passes of one iteration in the order an
// autograd framework runs them: every forward pass in graph order, then the
// backward passes in reverse order (each layer's data gradient, then its
// weights'), then every update. Passes with no work, and the data gradient
// of layers none of whose inputs needs one (dnn.Network.DataGradients),
// are left out, as the rows skip them.
func iterationSteps(n *dnn.Network, batch int, passes []dnn.Pass, prec dnn.Precision) [][2]int {
	has := func(p dnn.Pass) bool { return slices.Contains(passes, p) }
	var steps [][2]int
	grads := n.DataGradients()
	add := func(i int, p dnn.Pass) {
		node := &n.Nodes[i]
		w := node.Layer.Work(batch, p, prec)
		if w.FLOPs == 0 && w.Bytes() == 0 || p == dnn.BackwardData && !grads[i] {
			return
		}
		steps = append(steps, [2]int{i, int(p)})
	}
	if has(dnn.Forward) {
		for i := range n.Nodes {
			add(i, dnn.Forward)
		}
	}
	for i := len(n.Nodes) - 1; i >= 0; i-- {
		if has(dnn.BackwardData) {
			add(i, dnn.BackwardData)
		}
		if has(dnn.BackwardWeights) {
			add(i, dnn.BackwardWeights)
		}
	}
	if has(dnn.Update) {
		for i := range n.Nodes {
			add(i, dnn.Update)
		}
	}
	return steps
}

// MeasureIteration prepares every layer pass of one iteration of n at the
// batch (all at once: one iteration's buffers must fit the device) and
// times them run back to back, each run of the whole sequence timed on the
// monotonic clock.
func MeasureIteration(ctx context.Context, b Backend, n *dnn.Network, batch int, passes []dnn.Pass, prec dnn.Precision) (IterationTime, error) {
	return measureIteration(ctx, b, n, batch, passes, prec, nil)
}

// measureIteration is MeasureIteration with each timed run held back by
// gate (nil: none) while the machine runs slow: one sitting, a warm-up run
// then iterationRuns of it.
func measureIteration(ctx context.Context, b Backend, n *dnn.Network, batch int, passes []dnn.Pass, prec dnn.Precision, gate *Gate) (IterationTime, error) {
	// A kernel is built, run and freed on one OS thread: CPU libraries keep
	// per-thread state (oneDNN's scratchpad, OpenMP's team), GPU ones a
	// current context.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	w, err := prepareIteration(b, n, batch, passes, prec)
	if err != nil {
		return w.it, err
	}
	defer w.close()
	if _, err := w.once(); err != nil { // warm-up: its first run touches what preparing left cold
		return w.it, err
	}
	spent := time.Duration(0)
	for len(w.runs) < iterationMinRuns || len(w.runs) < iterationMaxRuns && spent < iterationTime {
		d, err := w.run(ctx, gate)
		if err != nil {
			return w.it, err
		}
		spent += d
	}
	return w.result(), nil
}

// wholeIteration is one iteration's kernels, prepared and held, and the
// runs timed of them so far: measureIteration times it in one sitting, a
// profile in rounds after each of its rounds (Options.Rounds).
type wholeIteration struct {
	n     *dnn.Network
	steps [][2]int
	ks    []Kernel
	it    IterationTime
	runs  []float64
	onceS float64 // the warm-up run (the first, which touched the buffers), seconds
}

// prepareIteration prepares every layer pass of one iteration of n at the
// batch, on the calling OS thread (which must stay locked while they are
// held). On an error what was prepared is freed.
func prepareIteration(b Backend, n *dnn.Network, batch int, passes []dnn.Pass, prec dnn.Precision) (*wholeIteration, error) {
	steps := iterationSteps(n, batch, passes, prec)
	w := &wholeIteration{n: n, steps: steps, it: IterationTime{Batch: batch, Kernels: len(steps)}}
	for _, p := range dnn.Passes {
		if slices.Contains(passes, p) {
			w.it.Passes = append(w.it.Passes, p.String())
		}
	}
	if len(steps) == 0 {
		return w, errors.New("no layer pass does any work")
	}
	t0 := time.Now()
	w.ks = make([]Kernel, 0, len(steps))
	for _, s := range steps {
		node := &n.Nodes[s[0]]
		k, err := b.Prepare(node.Layer, batch, dnn.Pass(s[1]), prec)
		if err != nil {
			w.close()
			return w, fmt.Errorf("%s %s: %w", node.Name, dnn.Pass(s[1]), err)
		}
		w.ks = append(w.ks, k)
	}
	w.it.prepare = time.Since(t0)
	return w, nil
}

// once runs the iteration once, timed.
func (w *wholeIteration) once() (time.Duration, error) {
	start := time.Now()
	for i, k := range w.ks {
		if _, err := k.Time(1); err != nil {
			node := &w.n.Nodes[w.steps[i][0]]
			return 0, fmt.Errorf("%s %s: %w", node.Name, dnn.Pass(w.steps[i][1]), err)
		}
	}
	return time.Since(start), nil
}

// run times one run after gate lets it (nil: at once) and keeps it.
func (w *wholeIteration) run(ctx context.Context, gate *Gate) (time.Duration, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	if err := gate.Wait(ctx); err != nil {
		return 0, err
	}
	d, err := w.once()
	if err != nil {
		return 0, err
	}
	w.runs = append(w.runs, d.Seconds())
	return d, nil
}

// result is the runs so far: their number, fastest and median.
func (w *wholeIteration) result() IterationTime {
	it := w.it
	runs := slices.Clone(w.runs)
	sort.Float64s(runs)
	it.Runs = len(runs)
	if m := len(runs); m > 0 {
		it.Min = runs[0]
		if m%2 == 1 {
			it.Median = runs[m/2]
		} else {
			it.Median = (runs[m/2-1] + runs[m/2]) / 2
		}
	}
	return it
}

// close frees the kernels.
func (w *wholeIteration) close() {
	for _, k := range w.ks {
		k.Close()
	}
	w.ks = nil
}

// sumRows adds the profile's measured rows of the iteration's batch and
// passes to it: median_s and min_s summed (skipped rows are no work).
func (it *IterationTime) sumRows(rows []Record) {
	var med, mn float64
	for _, r := range rows {
		if r.Batch != it.Batch || !slices.Contains(it.Passes, r.Pass) || r.Status == Skipped {
			continue
		}
		if r.Status != OK || !r.Median.OK {
			return // a row not measured: no sum
		}
		med += r.Median.V
		mn += r.Min.V
	}
	it.RowsMedian, it.RowsMin = med, mn
}

// String says what was measured: "batch 1, fwd+bwd-data+bwd-weights: 123 ms
// end to end (median of 9 runs; rows summed 118 ms)".
func (it IterationTime) String() string {
	s := fmt.Sprintf("batch %d, %s: %.4g ms end to end (median of %d runs, fastest %.4g ms", it.Batch, strings.Join(it.Passes, "+"), it.Median*1e3, it.Runs, it.Min*1e3)
	if it.RowsMedian > 0 {
		s += fmt.Sprintf("; the rows summed: %.4g ms median, %.4g ms fastest", it.RowsMedian*1e3, it.RowsMin*1e3)
	}
	return s + ")"
}
