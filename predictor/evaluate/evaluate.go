// Package evaluate scores a learned predictor's configuration on
// held-out profile rows: left one model out (its configuration, or one
// chosen by nested cross-validation without the held-out model), by layer
// shape, by batch size; per op, per model and over summed iterations,
// beside the analytical model alone and the profiles' repeatability. It
// writes the held-out predictions as CSV and the figures. `wb evaluate`
// parses its flags and calls Run.
package evaluate

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"text/tabwriter"

	"github.com/wb-sim/wb/experiments/figures"
	"github.com/wb-sim/wb/internal/atomicfile"
	"github.com/wb-sim/wb/predictor"
)

// Splits are the held-out splits Run knows, in the order it scores them.
var Splits = []string{"model", "shape", "batch"}

// Options say what Run scores and where it writes.
type Options struct {
	// Splits are those to score, of [Splits].
	Splits []string
	// Nested chooses the model split's configuration without the held-out
	// model, by InnerFolds-fold cross-validation by model (0: one model a
	// fold).
	Nested     bool
	InnerFolds int
	// FoldSeeds seed the shape split's dealing of layer shapes to folds;
	// more than one prints the spread (the first's are the files').
	FoldSeeds []int
	// Out is where predictions.csv and figures/ go; "" writes nothing.
	Out string
}

// Run scores l's configuration on the samples s, printing the tables to
// w, and returns the files written.
func Run(w io.Writer, l *predictor.Learned, s []predictor.Sample, o Options) ([]string, error) {
	if len(o.FoldSeeds) == 0 {
		o.FoldSeeds = []int{1}
	}
	// Sweeps are training data: never scored with the models' layers.
	var all []int
	for i := range s {
		if !s[i].Sweep() {
			all = append(all, i)
		}
	}
	if len(all) == 0 {
		return nil, errors.New("the profiles are all sweeps; give profiles of models to score")
	}
	conf := l.Candidate()
	fmt.Fprintf(w, "%s times (as the predictor learned); the predictor's configuration: %s\n", l.Stat, conf)
	if sc := predictor.Score(s, predictor.Analytical(s)); sc.Copies > 0 {
		fmt.Fprintf(w, "%d distinct measurements of models scored; %d rows copy an identical layer's (shared_with): not scored, nor learned from, but in the summed iterations\n", sc.Rows, sc.Copies)
	}
	var done []evalSplit
	for _, split := range o.Splits {
		if slices.ContainsFunc(done, func(e evalSplit) bool { return e.name == split }) {
			continue
		}
		fmt.Fprintln(w)
		switch split {
		case "model":
			var pred []float64
			label := "held out by model"
			if o.Nested {
				k := o.InnerFolds
				res, err := predictor.Nested(s, k, rand.New(rand.NewPCG(1, 2)))
				if err != nil {
					return nil, err
				}
				if err := nestedTable(w, s, res, k); err != nil {
					return nil, err
				}
				pred, label = res.Pred["chosen"], "held out by model, nested"
				fmt.Fprintln(w, "\nper op, chosen:")
				if err := evalTable(w, s, pred, all); err != nil {
					return nil, err
				}
				fmt.Fprintln(w, "\nper model, chosen:")
				if err := modelTable(w, s, pred, res.Picks); err != nil {
					return nil, err
				}
			} else {
				var err error
				if pred, err = predictor.HeldOutModels(s, conf); err != nil {
					return nil, err
				}
				fmt.Fprintf(w, "held out by model (leave one model out, none of its layer shapes learned from), %s\n"+
					"(the configuration wb train chose with every model in view; --nested chooses it without):\n", conf)
				if err := evalTable(w, s, pred, all); err != nil {
					return nil, err
				}
				fmt.Fprintln(w, "\nper model:")
				if err := modelTable(w, s, pred, nil); err != nil {
					return nil, err
				}
			}
			done = append(done, evalSplit{name: "model", label: label, pred: pred, idx: all})
		case "shape":
			pred, err := predictor.HeldOutWith(s, conf, predictor.KeyFoldsSeed(s, predictor.CVFolds, uint64(o.FoldSeeds[0])))
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(w, "held out by layer shape (%d folds, seed %d; the rest of each layer's model is learned from: flattering), %s:\n", predictor.CVFolds, o.FoldSeeds[0], conf)
			if err := evalTable(w, s, pred, all); err != nil {
				return nil, err
			}
			if len(all) < len(s) {
				sc := predictor.SweepScore(s, pred)
				fmt.Fprintf(w, "sweeps (training data, not in the scores above): %d rows held out with their folds, corrected MAPE %.1f%%, within ±10%% %.1f%%\n",
					sc.Rows, sc.MAPE, 100*sc.Within10)
			}
			if len(o.FoldSeeds) > 1 {
				if err := foldSeedSpread(w, s, conf, o.FoldSeeds, predictor.Score(s, pred)); err != nil {
					return nil, err
				}
			}
			done = append(done, evalSplit{name: "shape", label: "held out by layer shape", pred: pred, idx: all})
		case "batch":
			train, test := predictor.BatchSplit(s)
			if len(train) == 0 || len(test) == 0 {
				fmt.Fprintln(w, "held out by batch size: the profiles have one batch size per model")
				continue
			}
			pb, err := predictor.HeldOutSplitWith(s, conf, train, test)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(w, "held out by batch size (train on each model's smallest, test on its largest), %s:\n", conf)
			if err := evalTable(w, s, pb, test); err != nil {
				return nil, err
			}
			done = append(done, evalSplit{name: "batch", label: "held out by batch size", pred: pb, idx: test})
		}
	}
	var layers []predictor.Sample
	for i := range s {
		if !s[i].Iteration {
			layers = append(layers, s[i])
		}
	}
	rep := predictor.Repeatability(layers)
	fmt.Fprintf(w, "\nrepeatability: %s\n", rep)
	if o.Out == "" || len(done) == 0 {
		return nil, nil
	}
	return writeEvaluation(o.Out, s, done, rep)
}

// nestedTable prints a nested cross-validation's outer scores by family,
// and its picks.
func nestedTable(w io.Writer, s []predictor.Sample, res *predictor.NestedResult, innerFolds int) error {
	inner := fmt.Sprintf("%d-fold cross-validation by model", innerFolds)
	if innerFolds <= 0 {
		inner = "leave-one-model-out cross-validation"
	}
	fmt.Fprintf(w, "held out by model, nested (%d models, each predicted by the configuration that %s of\n"+
		"the others chose; none of its layer shapes learned from):\n", len(res.Models), inner)
	measured := res.Scores["analytical"].MeasuredIterations > 0
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "family\trows\tMAPE\twithin ±10%\titeration MAPE (summed layers)\t"
	if measured {
		head += "whole iteration MAPE (+ cold traffic)\t"
	}
	fmt.Fprintln(tw, head)
	for _, k := range append(append([]string{"chosen"}, predictor.Families...), "analytical") {
		sc, ok := res.Scores[k]
		if !ok {
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t", k, sc.Rows, sc.MAPE, 100*sc.Within10, sc.IterationMAPE)
		if measured {
			fmt.Fprintf(tw, "%.1f%%\t", sc.MeasuredIterationMAPE)
		}
		fmt.Fprintln(tw)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	fmt.Fprintf(w, "picks (over every family): %s\n", res.PickCounts())
	return nil
}

// modelTable prints the scores of each model's rows; picks, where given,
// are each model's configuration (in the models' sorted order).
func modelTable(w io.Writer, s []predictor.Sample, pred []float64, picks []predictor.Candidate) error {
	models, rows := predictor.ModelFolds(s)
	an := predictor.Analytical(s)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	head := "model\trows\tanalytical MAPE\tcorrected MAPE\twithin ±10%\titeration MAPE (summed layers)\twhole iteration MAPE\t"
	if picks != nil {
		head += "configuration\t"
	}
	fmt.Fprintln(tw, head)
	for m, name := range models {
		a, c := predictor.ScoreRows(s, an, rows[m]), predictor.ScoreRows(s, pred, rows[m])
		whole := "—" // no iteration of the model measured end to end
		if c.MeasuredIterations > 0 {
			whole = fmt.Sprintf("%.1f%%", c.MeasuredIterationMAPE)
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t%s\t", name, c.Rows, a.MAPE, c.MAPE, 100*c.Within10, c.IterationMAPE, whole)
		if picks != nil {
			fmt.Fprintf(tw, "%s\t", picks[m])
		}
		fmt.Fprintln(tw)
	}
	return tw.Flush()
}

// evalSplit is one held-out evaluation: the corrected time of every
// sample (idx are the held-out ones).
type evalSplit struct {
	name, label string
	pred        []float64
	idx         []int
}

// writeEvaluation writes dir/predictions.csv and the figures, and returns
// the paths written (figures as base names).
func writeEvaluation(dir string, s []predictor.Sample, splits []evalSplit, rep predictor.Repeat) ([]string, error) {
	figDir := filepath.Join(dir, "figures")
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return nil, err
	}
	g := func(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }
	an := predictor.Analytical(s)
	csvPath := filepath.Join(dir, "predictions.csv")
	err := atomicfile.Write(csvPath, func(w io.Writer) error {
		cw := csv.NewWriter(w)
		// scored: false for a copy (shared_with, or a row the profile cache
		// filled whose measurement is among the rows: predictor.Sample.Shared)
		_ = cw.Write([]string{"split", "model", "layer", "op", "pass", "batch", "precision", "device", "measured_s", "analytical_s", "corrected_s", "shared_with", "scored"})
		for _, sp := range splits {
			for _, i := range sp.idx {
				r := &s[i].Record
				if s[i].Iteration {
					continue
				}
				_ = cw.Write([]string{sp.name, r.Model, r.Layer, r.Op, r.Pass, strconv.Itoa(r.Batch), r.Precision, r.Device,
					g(s[i].Measured), g(an[i]), g(sp.pred[i]), r.SharedWith, strconv.FormatBool(!s[i].Shared)})
			}
		}
		cw.Flush()
		return cw.Error()
	})
	if err != nil {
		return nil, err
	}
	paths := []string{csvPath}
	// The figures show distinct measurements only: no copies, no whole
	// iterations.
	distinct := func(idx []int) []int {
		var out []int
		for _, i := range idx {
			if s[i].Learnable() {
				out = append(out, i)
			}
		}
		return out
	}
	relErr := func(pred []float64, idx []int) []float64 {
		idx = distinct(idx)
		e := make([]float64, len(idx))
		for k, i := range idx {
			m := s[i].Measured
			e[k] = max(100*math.Abs(pred[i]-m)/m, 0.01) // percent, floored for the log axis
		}
		return e
	}
	cdf := &figures.Figure{Kind: figures.CDF, XLabel: "|predicted / measured − 1| (%)", YLabel: "fraction of layer passes", LogX: true}
	add := func(label string, e []float64) {
		x, y := figures.ECDF(e, 500)
		cdf.Series = append(cdf.Series, figures.Series{Label: label, X: x, Y: y})
	}
	add("analytical", relErr(an, splits[0].idx))
	for _, sp := range splits {
		add("corrected, "+sp.label, relErr(sp.pred, sp.idx))
		sc := &figures.Figure{Kind: figures.Scatter, XLabel: "measured (s)", YLabel: "predicted (s)", LogX: true, LogY: true, Diagonal: true}
		for _, p := range []struct {
			label string
			pred  []float64
		}{{"analytical", an}, {"corrected", sp.pred}} {
			ser := figures.Series{Label: p.label}
			for _, i := range distinct(sp.idx) {
				ser.X = append(ser.X, s[i].Measured)
				ser.Y = append(ser.Y, p.pred[i])
			}
			sc.Series = append(sc.Series, ser)
		}
		base := filepath.Join(figDir, "predicted-vs-measured-"+sp.name)
		if _, err := figures.Render(sc, base, nil); err != nil {
			return nil, err
		}
		paths = append(paths, base+".{png,pdf,svg}")
	}
	if rep.Pairs > 0 {
		e := make([]float64, len(rep.Errors))
		for i, v := range rep.Errors {
			e[i] = max(100*v, 0.01)
		}
		add("repeatability (identical work)", e)
	}
	base := filepath.Join(figDir, "error-cdf")
	if _, err := figures.Render(cdf, base, nil); err != nil {
		return nil, err
	}
	return append(paths, base+".{png,pdf,svg}"), nil
}

// evalTable prints, per op and in all, the analytical and corrected scores
// of the samples idx: rows are distinct measurements (copies are in the
// iterations' sums, not scored), iterations their layers summed, and
// measured whole where the profiles have them.
func evalTable(w io.Writer, s []predictor.Sample, pred []float64, idx []int) error {
	byOp := map[string][]int{}
	var ops []string
	for _, i := range idx {
		if s[i].Iteration {
			continue
		}
		op := s[i].Record.Op
		if _, ok := byOp[op]; !ok {
			ops = append(ops, op)
		}
		byOp[op] = append(byOp[op], i)
	}
	slices.Sort(ops)
	an := predictor.Analytical(s)
	score := func(ix []int) (a, c predictor.Scores) {
		return predictor.ScoreRows(s, an, ix), predictor.ScoreRows(s, pred, ix)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\trows\tanalytical MAPE\twithin ±10%\tcorrected MAPE\twithin ±10%\t")
	row := func(name string, ix []int) {
		a, c := score(ix)
		if c.Rows == 0 {
			return // copies only
		}
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t\n", name, c.Rows, a.MAPE, 100*a.Within10, c.MAPE, 100*c.Within10)
	}
	for _, op := range ops {
		row(op, byOp[op])
	}
	row("all", idx)
	if err := tw.Flush(); err != nil {
		return err
	}
	a, c := score(idx)
	fmt.Fprintf(w, "iteration MAPE (summed layers) over %d model iterations: analytical %.1f%%, corrected %.1f%%\n", a.Iterations, a.IterationMAPE, c.IterationMAPE)
	if a.MeasuredIterations > 0 {
		fmt.Fprintf(w, "iteration MAPE against %d iterations measured end to end: analytical (summed layers) %.1f%%, corrected (summed layers + cold traffic) %.1f%%\n", a.MeasuredIterations, a.MeasuredIterationMAPE, c.MeasuredIterationMAPE)
	}
	return nil
}

// foldSeedSpread scores the shape split under the other fold seeds (the
// first seed's scores are given) and prints each seed's scores and their
// range.
func foldSeedSpread(w io.Writer, s []predictor.Sample, conf predictor.Candidate, seeds []int, first predictor.Scores) error {
	fmt.Fprintf(w, "\nheld out by layer shape under %d fold assignments, %s:\n", len(seeds), conf)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "seed\tMAPE\twithin ±10%\titeration MAPE (summed layers)\t")
	all := []predictor.Scores{first}
	for _, sd := range seeds[1:] {
		p, err := predictor.HeldOutWith(s, conf, predictor.KeyFoldsSeed(s, predictor.CVFolds, uint64(sd)))
		if err != nil {
			return err
		}
		all = append(all, predictor.Score(s, p))
	}
	lo, hi := all[0], all[0]
	for i, sc := range all {
		fmt.Fprintf(tw, "%d\t%.1f%%\t%.1f%%\t%.1f%%\t\n", seeds[i], sc.MAPE, 100*sc.Within10, sc.IterationMAPE)
		lo.MAPE, hi.MAPE = min(lo.MAPE, sc.MAPE), max(hi.MAPE, sc.MAPE)
		lo.Within10, hi.Within10 = min(lo.Within10, sc.Within10), max(hi.Within10, sc.Within10)
		lo.IterationMAPE, hi.IterationMAPE = min(lo.IterationMAPE, sc.IterationMAPE), max(hi.IterationMAPE, sc.IterationMAPE)
	}
	fmt.Fprintf(tw, "range\t%.1f–%.1f%%\t%.1f–%.1f%%\t%.1f–%.1f%%\t\n", lo.MAPE, hi.MAPE, 100*lo.Within10, 100*hi.Within10, lo.IterationMAPE, hi.IterationMAPE)
	return tw.Flush()
}
