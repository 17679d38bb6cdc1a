package main

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
		rows = append(rows, predictor.IterationRecords(pr)...)
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
			"Learns log(measured / analytical) of every ok layer pass. It chooses a configuration\n" +
			"among a fixed grid: a regression tree (depth 6 or 12), k nearest neighbours, ridge\n" +
			"regression, boosted trees (depth 4 or 6) and a random forest, each on all the\n" +
			"features or on the roofline's only (no layer shape), by 3-fold cross-validation by\n" +
			"model: each fold's models held out whole, every row of their layer shapes left out\n" +
			"of training whatever profile it is in. It keeps the lowest MAPE and fits it on every\n" +
			"row. Profiles of sweeps (wb profile sweep:linear:120: random layer shapes no model may\n" +
			"have) are learned from but never held out or scored.\n\n" +
			"Only distinct measurements count: a row that copies an identical layer's measurement\n" +
			"(shared_with in the profile) is neither learned from nor scored; it counts in its\n" +
			"iteration's summed layers, as the layer runs there. The scores printed chose the\n" +
			"configuration, so they flatter it: wb evaluate --split model --nested scores the\n" +
			"choice on models it never saw.\n\n" +
			"--time picks the measured time learned: min (the fastest run, min_s; the default)\n" +
			"repeats between CPU profiles far better than the median (datasets/profiles/README.md);\n" +
			"median (median_s) is the typical time under the machine's load, and the only one\n" +
			"profiles written before wb kept min_s have.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "predictor.json", Usage: "where to write the predictor"},
			&cli.StringFlag{Name: "time", Value: string(predictor.Min), Usage: "measured time to learn: min or median"},
			&cli.BoolFlag{Name: "grid", Usage: "print every configuration's cross-validated scores, not only each family's best"},
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
			an := l.CV["analytical"]
			of := fmt.Sprintf("%d models", len(l.Train.Models)-sweeps)
			if sweeps > 0 {
				of += fmt.Sprintf(" and %d sweeps (learned from, not scored)", sweeps)
			}
			fmt.Fprintf(w, "%d rows learned from, of %s, %d ops, %s times\n", l.Train.Rows, of, len(l.Train.Ops), l.Stat)
			if l.Train.Copies > 0 {
				fmt.Fprintf(w, "%d rows copy an identical layer's measurement (shared_with): neither learned from nor scored\n", l.Train.Copies)
			}
			fmt.Fprintf(w, "configuration chosen by cross-validation, %s: MAPE of %d distinct measurements of models\n\n", l.CVSplit, an.Rows)
			tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintln(tw, "family\tconfiguration\tMAPE\twithin ±10%\titeration MAPE (summed layers)\t\t")
			line := func(name, conf string, sc predictor.Scores, mark string) {
				fmt.Fprintf(tw, "%s\t%s\t%.1f%%\t%.1f%%\t%.1f%%\t%s\t\n", name, conf, sc.MAPE, 100*sc.Within10, sc.IterationMAPE, mark)
			}
			chosen := l.Candidate()
			for _, f := range l.Ranking() {
				conf, mark := "", ""
				if f != "analytical" {
					conf = bestOfFamily(l, f).String()
				}
				if f == l.Model {
					mark = "chosen"
				}
				line(f, conf, l.CV[f], mark)
			}
			if err := tw.Flush(); err != nil {
				return err
			}
			if c.Bool("grid") {
				fmt.Fprintln(w, "\nevery configuration:")
				tw = tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
				fmt.Fprintln(tw, "family\tconfiguration\tMAPE\twithin ±10%\titeration MAPE (summed layers)\t\t")
				for _, g := range l.Grid {
					mark := ""
					if g.Candidate.String() == chosen.String() {
						mark = "chosen"
					}
					line(g.Candidate.Family, g.Candidate.String(), g.Scores, mark)
				}
				if err := tw.Flush(); err != nil {
					return err
				}
			}
			fmt.Fprintln(w, "\nThese scores chose the configuration and flatter it: wb evaluate --split model --nested\nscores the choice on models it never saw.")
			if err := l.Save(c.String("out")); err != nil {
				return fmt.Errorf("train: %w", err)
			}
			fmt.Fprintf(w, "\nwrote %s (%s)\n", c.String("out"), chosen)
			return nil
		},
	}
}

// bestOfFamily is the configuration of the family whose scores are l.CV's.
func bestOfFamily(l *predictor.Learned, family string) predictor.Candidate {
	for _, g := range l.Grid {
		if g.Candidate.Family == family && g.Scores == l.CV[family] {
			return g.Candidate
		}
	}
	return predictor.Candidate{Family: family}
}

// The splits wb evaluate knows, in the order it prints them.
var evalSplits = []string{"model", "shape", "batch"}

func evaluateCommand() *cli.Command {
	return &cli.Command{
		Name:      "evaluate",
		Usage:     "score a learned predictor's configuration on held-out profile rows, per op",
		ArgsUsage: "PREDICTOR.json PROFILE.csv...",
		Description: "Example:\n" +
			"   wb evaluate predictor.json datasets/profiles/*.csv\n" +
			"   wb evaluate predictor.json datasets/profiles/*.csv --split model --nested   # the honest score\n\n" +
			"Refits the predictor's configuration (family, depth, features) on part of the rows\n" +
			"and scores the rest, split (--split, in this order):\n" +
			"  model  leave one model out: each model's rows (all its batch sizes) predicted by a\n" +
			"         fit on the other models and the sweeps, less every row of any of its layer\n" +
			"         shapes; per op and per model. The configuration is the predictor's, which\n" +
			"         wb train chose with every model in view; --nested chooses it without the\n" +
			"         held-out model: for each, an inner loop cross-validates every configuration\n" +
			"         of wb train's grid on the other models (--inner-folds folds by model, dealt\n" +
			"         with seed 1) and the pick predicts it. Only those outer predictions are\n" +
			"         scored: per family (each family's pick) and chosen (the pick over all).\n" +
			"         Minutes: for each model the grid's 14 configurations are fitted once per\n" +
			"         inner fold (4–6 min for the bundled profiles on 2 cores with 3 folds;\n" +
			"         make bench-predictor runs it too).\n" +
			"  shape  5 folds by layer shape (all rows of one key in one fold): the rest of a\n" +
			"         held-out layer's model is in training, so this flatters the predictor.\n" +
			"  batch  trained on each model's smallest batch, tested on its largest.\n\n" +
			"Only distinct measurements are scored: rows that copy an identical layer's\n" +
			"measurement (shared_with) are neither learned from nor scored, but count in their\n" +
			"iteration's summed layers. The iteration MAPE is of summed layers: each layer pass\n" +
			"measured on its own, summed, against the predictions summed; where a profile also\n" +
			"measured whole iterations end to end (its sidecar's iterations, or rows of op\n" +
			"iteration) the predicted layers summed are scored against those too. Analytical\n" +
			"alone beside, and the profiles' repeatability: how closely independent measurements\n" +
			"of identical work (same op, pass, FLOPs, bytes, batch) agree, the ceiling of any\n" +
			"predictor. Sweeps (wb profile sweep:OP:N) are training data: never scored; the\n" +
			"shape split holds them out with their folds and prints their errors apart.\n\n" +
			"Writes OUT/predictions.csv (every held-out layer pass: measured, analytical and\n" +
			"corrected times, and whether it is a copy) and OUT/figures: predicted vs measured,\n" +
			"log-log, per split, and the CDF of the relative error (distinct measurements), each\n" +
			"as PNG, PDF and SVG.\n\n" +
			"Which shapes share a fold moves the shape split's scores: --fold-seeds 1,2,3 scores\n" +
			"it again with the keys dealt to folds in other orders and prints each seed's MAPE,\n" +
			"share within ±10% and iteration MAPE, and their range (the per-op table and the\n" +
			"files are the first seed's). Each extra seed refits the configuration 5 times.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "results/evaluate", Usage: "where to write predictions.csv and figures/ (\"\" writes nothing)"},
			&cli.StringSliceFlag{Name: "split", Value: cli.NewStringSlice(evalSplits...), Usage: "held-out splits to score: model (leave one model out), shape (5 folds by layer shape), batch"},
			&cli.BoolFlag{Name: "nested", Usage: "model split: choose the configuration without the held-out model (nested cross-validation), not the predictor's"},
			&cli.IntFlag{Name: "inner-folds", Value: predictor.ModelCVFolds, Usage: "with --nested: folds by model of the inner loop (0: leave one model out there too)", Action: atLeast("inner-folds", 0)},
			&cli.IntSliceFlag{Name: "fold-seeds", Value: cli.NewIntSlice(1), Usage: "seeds of the shape split's fold assignment; more than one prints the spread"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() < 2 {
				return errors.New("evaluate: want a predictor JSON and at least one profile CSV")
			}
			var splits []string
			for _, sp := range c.StringSlice("split") {
				for _, x := range strings.Split(sp, ",") {
					if x = strings.TrimSpace(x); !slices.Contains(evalSplits, x) {
						return fmt.Errorf("evaluate: --split: unknown split %q (known: %s)", x, strings.Join(evalSplits, ", "))
					}
					splits = append(splits, x)
				}
			}
			if len(splits) == 0 {
				return fmt.Errorf("evaluate: --split: name at least one of %s", strings.Join(evalSplits, ", "))
			}
			if c.Bool("nested") && !slices.Contains(splits, "model") {
				return errors.New("evaluate: --nested is a way of scoring the model split: add --split model")
			}
			if c.IsSet("inner-folds") && !c.Bool("nested") {
				return errors.New("evaluate: --inner-folds is the inner loop's: add --nested")
			}
			if k := c.Int("inner-folds"); k < 0 || k == 1 {
				return fmt.Errorf("evaluate: --inner-folds %d: want 0 (one model a fold) or at least 2", k)
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
			// Sweeps are training data: never scored with the models'
			// layers.
			var all []int
			for i := range s {
				if !s[i].Sweep() {
					all = append(all, i)
				}
			}
			if len(all) == 0 {
				return errors.New("evaluate: the profiles are all sweeps; give profiles of models to score")
			}
			conf := l.Candidate()
			fmt.Fprintf(w, "%s times (as the predictor learned); the predictor's configuration: %s\n", l.Stat, conf)
			if sc := predictor.Score(s, predictor.Analytical(s)); sc.Copies > 0 {
				fmt.Fprintf(w, "%d distinct measurements of models scored; %d rows copy an identical layer's (shared_with): not scored, nor learned from, but in the summed iterations\n", sc.Rows, sc.Copies)
			}
			var done []evalSplit
			for _, split := range splits {
				if slices.ContainsFunc(done, func(e evalSplit) bool { return e.name == split }) {
					continue
				}
				fmt.Fprintln(w)
				switch split {
				case "model":
					var pred []float64
					label := "held out by model"
					if c.Bool("nested") {
						k := c.Int("inner-folds")
						res, err := predictor.Nested(s, k, rand.New(rand.NewPCG(1, 2)))
						if err != nil {
							return fmt.Errorf("evaluate: %w", err)
						}
						if err := nestedTable(w, s, res, k); err != nil {
							return err
						}
						pred, label = res.Pred["chosen"], "held out by model, nested"
						fmt.Fprintln(w, "\nper op, chosen:")
						if err := evalTable(w, s, pred, all); err != nil {
							return err
						}
						fmt.Fprintln(w, "\nper model, chosen:")
						if err := modelTable(w, s, pred, res.Picks); err != nil {
							return err
						}
					} else {
						if pred, err = predictor.HeldOutModels(s, conf); err != nil {
							return fmt.Errorf("evaluate: %w", err)
						}
						fmt.Fprintf(w, "held out by model (leave one model out, none of its layer shapes learned from), %s\n"+
							"(the configuration wb train chose with every model in view; --nested chooses it without):\n", conf)
						if err := evalTable(w, s, pred, all); err != nil {
							return err
						}
						fmt.Fprintln(w, "\nper model:")
						if err := modelTable(w, s, pred, nil); err != nil {
							return err
						}
					}
					done = append(done, evalSplit{name: "model", label: label, pred: pred, idx: all})
				case "shape":
					pred, err := predictor.HeldOutWith(s, conf, predictor.KeyFoldsSeed(s, predictor.CVFolds, uint64(seeds[0])))
					if err != nil {
						return fmt.Errorf("evaluate: %w", err)
					}
					fmt.Fprintf(w, "held out by layer shape (%d folds, seed %d; the rest of each layer's model is learned from: flattering), %s:\n", predictor.CVFolds, seeds[0], conf)
					if err := evalTable(w, s, pred, all); err != nil {
						return err
					}
					if len(all) < len(s) {
						sc := predictor.SweepScore(s, pred)
						fmt.Fprintf(w, "sweeps (training data, not in the scores above): %d rows held out with their folds, corrected MAPE %.1f%%, within ±10%% %.1f%%\n",
							sc.Rows, sc.MAPE, 100*sc.Within10)
					}
					if len(seeds) > 1 {
						if err := foldSeedSpread(w, s, conf, seeds, predictor.Score(s, pred)); err != nil {
							return err
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
						return fmt.Errorf("evaluate: %w", err)
					}
					fmt.Fprintf(w, "held out by batch size (train on each model's smallest, test on its largest), %s:\n", conf)
					if err := evalTable(w, s, pb, test); err != nil {
						return err
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
			if dir := c.String("out"); dir != "" && len(done) > 0 {
				paths, err := writeEvaluation(dir, s, done, rep)
				if err != nil {
					return fmt.Errorf("evaluate: %w", err)
				}
				fmt.Fprintf(w, "\nwrote %s\n", strings.Join(paths, ", "))
			}
			return nil
		},
	}
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
		head += "measured iteration MAPE\t"
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
	head := "model\trows\tanalytical MAPE\tcorrected MAPE\twithin ±10%\titeration MAPE (summed layers)\t"
	if picks != nil {
		head += "configuration\t"
	}
	fmt.Fprintln(tw, head)
	for m, name := range models {
		a, c := predictor.ScoreRows(s, an, rows[m]), predictor.ScoreRows(s, pred, rows[m])
		fmt.Fprintf(tw, "%s\t%d\t%.1f%%\t%.1f%%\t%.1f%%\t%.1f%%\t", name, c.Rows, a.MAPE, c.MAPE, 100*c.Within10, c.IterationMAPE)
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
		_ = cw.Write([]string{"split", "model", "layer", "op", "pass", "batch", "precision", "device", "measured_s", "analytical_s", "corrected_s", "shared_with"})
		for _, sp := range splits {
			for _, i := range sp.idx {
				r := &s[i].Record
				if s[i].Iteration {
					continue
				}
				_ = cw.Write([]string{sp.name, r.Model, r.Layer, r.Op, r.Pass, strconv.Itoa(r.Batch), r.Precision, r.Device,
					g(s[i].Measured), g(an[i]), g(sp.pred[i]), r.SharedWith})
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
		fmt.Fprintf(w, "iteration MAPE against %d iterations measured end to end: analytical %.1f%%, corrected %.1f%%\n", a.MeasuredIterations, a.MeasuredIterationMAPE, c.MeasuredIterationMAPE)
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
