package main

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/wb-sim/wb/experiments/figures"
	"github.com/wb-sim/wb/internal/atomicfile"
	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/profiler"
)

// loadProfiles reads profiles and maps each profile's device to its
// predictor device.
func loadProfiles(paths []string) ([]profiler.Record, map[string]*predictor.Device, error) {
	if len(paths) == 0 {
		return nil, nil, errors.New("want at least one profile CSV")
	}
	var rows []profiler.Record
	devs := map[string]*predictor.Device{}
	for _, p := range paths {
		pr, err := profiler.Read(p)
		if err != nil {
			return nil, nil, err
		}
		name := pr.Meta.PredictorDevice
		if name == "" {
			name = pr.Meta.Backend
		}
		d, err := predictor.LookupDevice(name)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		for i := range pr.Records {
			if pr.Records[i].Device == "" {
				pr.Records[i].Device = pr.Meta.Device
			}
			devs[pr.Records[i].Device] = d
		}
		devs[pr.Meta.Device] = d
		rows = append(rows, pr.Records...)
	}
	return rows, devs, nil
}

func trainCommand() *cli.Command {
	return &cli.Command{
		Name:      "train",
		Usage:     "learn a correction of the analytical model from profiles",
		ArgsUsage: "PROFILE.csv...",
		Description: "Example:\n" +
			"   wb train datasets/profiles/*.csv --out predictor.json\n\n" +
			"Learns log(measured / analytical) of every ok layer pass with a regression tree,\n" +
			"k nearest neighbours, ridge regression, boosted trees and a random forest, scores\n" +
			"each by 5-fold cross-validation split by layer shape (all rows of one key in one\n" +
			"fold), keeps the one with the lowest MAPE and writes it. Profiles of sweeps (wb\n" +
			"profile sweep:linear:120: random layer shapes no model may have) are learned\n" +
			"from but not scored; the scores are of the models' layers and iterations.\n\n" +
			"--time picks the measured time learned: min (the fastest run, min_s; the default)\n" +
			"repeats between CPU profiles far better than the median (datasets/profiles/README.md);\n" +
			"median (median_s) is the typical time under the machine's load, and the only one\n" +
			"profiles written before wb kept min_s have.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "predictor.json", Usage: "where to write the predictor"},
			&cli.StringFlag{Name: "time", Value: string(predictor.Min), Usage: "measured time to learn: min or median"},
		},
		Action: func(c *cli.Context) error {
			st, err := predictor.ParseStat(c.String("time"))
			if err != nil {
				return fmt.Errorf("train: --time: %w", err)
			}
			rows, devs, err := loadProfiles(c.Args().Slice())
			if err != nil {
				return fmt.Errorf("train: %w", err)
			}
			l, err := predictor.Train(rows, devs, st)
			if err != nil {
				return fmt.Errorf("train: %w", err)
			}
			w := c.App.Writer
			sweeps := l.Train.Sweeps()
			of := fmt.Sprintf("%d models", len(l.Train.Models)-sweeps)
			if sweeps > 0 {
				of += fmt.Sprintf(" and %d sweeps (learned from, not scored: %d rows of models scored)", sweeps, l.CV["analytical"].Rows)
			}
			fmt.Fprintf(w, "%d rows of %s, %d ops, %s times; %d-fold cross-validation by layer shape\n\n",
				l.Train.Rows, of, len(l.Train.Ops), l.Stat, predictor.CVFolds)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "model\tMAPE\twithin ±10%\titeration MAPE\t\t")
			for _, f := range l.Ranking() {
				sc := l.CV[f]
				mark := ""
				if f == l.Model {
					mark = "chosen"
				}
				fmt.Fprintf(tw, "%s\t%.1f%%\t%.1f%%\t%.1f%%\t%s\t\n", f, sc.MAPE, 100*sc.Within10, sc.IterationMAPE, mark)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if err := l.Save(c.String("out")); err != nil {
				return fmt.Errorf("train: %w", err)
			}
			fmt.Fprintf(w, "\nwrote %s (%s)\n", c.String("out"), l.Model)
			return nil
		},
	}
}

func evaluateCommand() *cli.Command {
	return &cli.Command{
		Name:      "evaluate",
		Usage:     "score a learned predictor's family on held-out profile rows, per op",
		ArgsUsage: "PREDICTOR.json PROFILE.csv...",
		Description: "Example:\n" +
			"   wb evaluate predictor.json datasets/profiles/*.csv\n\n" +
			"Refits the predictor's model family on part of the rows and scores the rest:\n" +
			"held out by layer shape (5 folds by key), and by batch size (trained on each\n" +
			"model's smallest batch, tested on its largest). Analytical alone beside, and the\n" +
			"profiles' repeatability: how closely independent measurements of identical\n" +
			"work (same op, pass, FLOPs, bytes, batch) agree, the ceiling of any predictor.\n" +
			"Profiles of sweeps (wb profile sweep:OP:N) are learned from and held out with\n" +
			"their folds, but not scored: their errors print on a line of their own.\n\n" +
			"Writes OUT/predictions.csv (every held-out row: measured, analytical and\n" +
			"corrected times) and OUT/figures: predicted vs measured, log-log, per split,\n" +
			"and the CDF of the relative error, each as PNG, PDF and SVG.\n\n" +
			"Which shapes share a fold moves the scores: --fold-seeds 1,2,3 scores the shape\n" +
			"split again with the keys dealt to folds in other orders and prints each seed's\n" +
			"MAPE, share within ±10% and iteration MAPE, and their range (the per-op table and\n" +
			"the files are the first seed's). Each extra seed refits the family 5 times.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "results/evaluate", Usage: "where to write predictions.csv and figures/ (\"\" writes nothing)"},
			&cli.IntSliceFlag{Name: "fold-seeds", Value: cli.NewIntSlice(1), Usage: "seeds of the shape split's fold assignment; more than one prints the spread"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() < 2 {
				return errors.New("evaluate: want a predictor JSON and at least one profile CSV")
			}
			l, err := predictor.LoadLearned(c.Args().First())
			if err != nil {
				return fmt.Errorf("evaluate: %w", err)
			}
			rows, devs, err := loadProfiles(c.Args().Tail())
			if err != nil {
				return fmt.Errorf("evaluate: %w", err)
			}
			s, err := predictor.Samples(rows, devs, l.Stat)
			if err != nil {
				return fmt.Errorf("evaluate: %w", err)
			}
			if len(s) == 0 {
				return errors.New("evaluate: no ok rows with an analytical time")
			}
			w := c.App.Writer
			// Sweeps are training data: held out with their folds, but
			// scored apart from the models' layers.
			var all []int
			for i := range s {
				if !s[i].Sweep() {
					all = append(all, i)
				}
			}
			if len(all) == 0 {
				return errors.New("evaluate: the profiles are all sweeps; give profiles of models to score")
			}
			seeds := c.IntSlice("fold-seeds")
			for _, sd := range seeds {
				if sd < 0 {
					return fmt.Errorf("evaluate: --fold-seeds: %d is negative", sd)
				}
			}
			if len(seeds) == 0 {
				seeds = []int{1}
			}
			pred, err := predictor.HeldOut(s, l.Model, predictor.KeyFoldsSeed(s, predictor.CVFolds, uint64(seeds[0])))
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "%s times (as the predictor learned)\n\nheld out by layer shape (%d folds, seed %d), %s:\n", l.Stat, predictor.CVFolds, seeds[0], l.Model)
			if err := evalTable(w, s, pred, all); err != nil {
				return err
			}
			if len(all) < len(s) {
				sc := predictor.SweepScore(s, pred)
				fmt.Fprintf(w, "sweeps (training data, not in the scores above): %d rows held out with their folds, corrected MAPE %.1f%%, within ±10%% %.1f%%\n",
					sc.Rows, sc.MAPE, 100*sc.Within10)
			}
			if len(seeds) > 1 {
				if err := foldSeedSpread(w, s, l.Model, seeds, predictor.Score(s, pred)); err != nil {
					return err
				}
			}
			splits := []evalSplit{{name: "shape", label: "held out by layer shape", pred: pred, idx: all}}
			train, test := predictor.BatchSplit(s)
			if len(train) == 0 || len(test) == 0 {
				fmt.Fprintln(w, "\nheld out by batch size: the profiles have one batch size per model")
			} else {
				pb, err := predictor.HeldOutSplit(s, l.Model, train, test)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "\nheld out by batch size (train on each model's smallest, test on its largest), %s:\n", l.Model)
				if err := evalTable(w, s, pb, test); err != nil {
					return err
				}
				splits = append(splits, evalSplit{name: "batch", label: "held out by batch size", pred: pb, idx: test})
			}
			rep := predictor.Repeatability(s)
			fmt.Fprintf(w, "\nrepeatability: %s\n", rep)
			if dir := c.String("out"); dir != "" {
				paths, err := writeEvaluation(dir, s, splits, rep)
				if err != nil {
					return fmt.Errorf("evaluate: %w", err)
				}
				fmt.Fprintf(w, "\nwrote %s\n", strings.Join(paths, ", "))
			}
			return nil
		},
	}
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
		_ = cw.Write([]string{"split", "model", "layer", "op", "pass", "batch", "precision", "device", "measured_s", "analytical_s", "corrected_s"})
		for _, sp := range splits {
			for _, i := range sp.idx {
				r := &s[i].Record
				_ = cw.Write([]string{sp.name, r.Model, r.Layer, r.Op, r.Pass, strconv.Itoa(r.Batch), r.Precision, r.Device,
					g(s[i].Measured), g(an[i]), g(sp.pred[i])})
			}
		}
		cw.Flush()
		return cw.Error()
	})
	if err != nil {
		return nil, err
	}
	paths := []string{csvPath}
	relErr := func(pred []float64, idx []int) []float64 {
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
			for _, i := range sp.idx {
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
// of the samples idx.
func evalTable(w io.Writer, s []predictor.Sample, pred []float64, idx []int) error {
	byOp := map[string][]int{}
	var ops []string
	for _, i := range idx {
		op := s[i].Record.Op
		if _, ok := byOp[op]; !ok {
			ops = append(ops, op)
		}
		byOp[op] = append(byOp[op], i)
	}
	slices.Sort(ops)
	an := predictor.Analytical(s)
	score := func(ix []int) (a, c predictor.Scores) {
		ss := make([]predictor.Sample, len(ix))
		pa, pc := make([]float64, len(ix)), make([]float64, len(ix))
		for k, i := range ix {
			ss[k], pa[k], pc[k] = s[i], an[i], pred[i]
		}
		return predictor.Score(ss, pa), predictor.Score(ss, pc)
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "op\trows\tanalytical MAPE\twithin ±10%\tcorrected MAPE\twithin ±10%\t")
	row := func(name string, ix []int) {
		a, c := score(ix)
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t\n", name, len(ix), a.MAPE, 100*a.Within10, c.MAPE, 100*c.Within10)
	}
	for _, op := range ops {
		row(op, byOp[op])
	}
	row("all", idx)
	if err := tw.Flush(); err != nil {
		return err
	}
	a, c := score(idx)
	fmt.Fprintf(w, "iteration MAPE over %d model iterations: analytical %.1f%%, corrected %.1f%%\n", a.Iterations, a.IterationMAPE, c.IterationMAPE)
	return nil
}

// foldSeedSpread scores the shape split under the other fold seeds (the
// first seed's scores are given) and prints each seed's scores and their
// range.
func foldSeedSpread(w io.Writer, s []predictor.Sample, family string, seeds []int, first predictor.Scores) error {
	fmt.Fprintf(w, "\nheld out by layer shape under %d fold assignments, %s:\n", len(seeds), family)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "seed\tMAPE\twithin ±10%\titeration MAPE\t")
	all := []predictor.Scores{first}
	for _, sd := range seeds[1:] {
		p, err := predictor.HeldOut(s, family, predictor.KeyFoldsSeed(s, predictor.CVFolds, uint64(sd)))
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
