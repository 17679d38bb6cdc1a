package experiments

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/scheduler"
)

// csvLine builds one CSV line in a reused buffer.
type csvLine struct{ b []byte }

func (l *csvLine) sep() {
	if len(l.b) > 0 {
		l.b = append(l.b, ',')
	}
}
func (l *csvLine) int(v int64) { l.sep(); l.b = strconv.AppendInt(l.b, v, 10) }
func (l *csvLine) bool(v bool) { l.sep(); l.b = strconv.AppendBool(l.b, v) }
func (l *csvLine) float(v float64) {
	l.sep()
	if math.IsNaN(v) || math.IsInf(v, 0) {
		panic(fmt.Sprintf("experiments: %v written to a CSV", v))
	}
	if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
		l.b = strconv.AppendInt(l.b, int64(v), 10) // the same digits, faster
		return
	}
	// The shortest decimal that reads back as v, never in exponent form.
	l.b = strconv.AppendFloat(l.b, v, 'f', -1, 64)
}
func (l *csvLine) str(s string) {
	l.sep()
	if needsQuote(s) {
		l.b = append(l.b, '"')
		l.b = append(l.b, strings.ReplaceAll(s, `"`, `""`)...)
		l.b = append(l.b, '"')
		return
	}
	l.b = append(l.b, s...)
}
func (l *csvLine) end(w io.Writer) error {
	l.b = append(l.b, '\n')
	_, err := w.Write(l.b)
	l.b = l.b[:0]
	return err
}

func needsQuote(s string) bool {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case ',', '"', '\n', '\r':
			return true
		}
	}
	return false
}

func writeHeader(w io.Writer, cols []string) error {
	var l csvLine
	for _, c := range cols {
		l.str(c)
	}
	return l.end(w)
}

// simulateKey writes the key columns of `wb simulate`'s one run: run 0 of the
// trace under the scheduler, at the trace's load, on the pool's
// processors, its noisy estimate's σ (else 0), replica 0.
func simulateKey(l *csvLine, w *workload.Workload, r *scheduler.Result) {
	sigma, _ := r.Parts.EstimateArgs["sigma"].(float64)
	writeKey(l, 0, w.Name, r.Scheduler, 1, poolProcs(r.Cluster), sigma, 0)
}

// WriteJobs writes jobs.csv of one simulation: one row per job, in the
// schema `wb experiment` writes too (jobColumns).
func WriteJobs(out io.Writer, w *workload.Workload, r *scheduler.Result) error {
	if err := writeHeader(out, jobColumns); err != nil {
		return err
	}
	var l csvLine
	models := slotModels(r.Cluster)
	for i := range r.Jobs {
		simulateKey(&l, w, r)
		if err := jobRow(out, &l, &r.Jobs[i], scheduler.NodesTouched(r.Jobs[i].Slots), models(r.Jobs[i].Slots), nil); err != nil {
			return err
		}
	}
	return nil
}

// WriteSeries writes timeseries.csv of one simulation: a row per
// scheduling pass, in the schema `wb experiment` writes too
// (seriesColumns), times from the first pass.
func WriteSeries(out io.Writer, w *workload.Workload, r *scheduler.Result) error {
	if err := writeHeader(out, seriesColumns); err != nil {
		return err
	}
	var l csvLine
	util := utilOf(r.Cluster)
	for i := range r.Series {
		s := &r.Series[i]
		simulateKey(&l, w, r)
		if err := seriesRow(out, &l, float64(s.Time-r.Series[0].Time), util(s), float64(s.Queue), float64(s.Running)); err != nil {
			return err
		}
	}
	return nil
}
