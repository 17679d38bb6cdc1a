package main

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

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
			"k nearest neighbours and ridge regression, scores each by 5-fold cross-validation\n" +
			"split by layer shape (all rows of one key in one fold), keeps the best and writes it.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "predictor.json", Usage: "where to write the predictor"},
		},
		Action: func(c *cli.Context) error {
			rows, devs, err := loadProfiles(c.Args().Slice())
			if err != nil {
				return fmt.Errorf("train: %w", err)
			}
			l, err := predictor.Train(rows, devs)
			if err != nil {
				return fmt.Errorf("train: %w", err)
			}
			w := c.App.Writer
			fmt.Fprintf(w, "%d rows of %d models, %d ops; %d-fold cross-validation by layer shape\n\n",
				l.Train.Rows, len(l.Train.Models), len(l.Train.Ops), predictor.CVFolds)
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
			"model's smallest batch, tested on its largest). Analytical alone beside.",
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
			s, err := predictor.Samples(rows, devs)
			if err != nil {
				return fmt.Errorf("evaluate: %w", err)
			}
			if len(s) == 0 {
				return errors.New("evaluate: no ok rows with an analytical time")
			}
			w := c.App.Writer
			all := make([]int, len(s))
			for i := range all {
				all[i] = i
			}
			pred, err := predictor.HeldOut(s, l.Model, predictor.KeyFolds(s, predictor.CVFolds))
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "held out by layer shape (%d folds), %s:\n", predictor.CVFolds, l.Model)
			if err := evalTable(w, s, pred, all); err != nil {
				return err
			}
			train, test := predictor.BatchSplit(s)
			if len(train) == 0 || len(test) == 0 {
				fmt.Fprintln(w, "\nheld out by batch size: the profiles have one batch size per model")
				return nil
			}
			pred, err = predictor.HeldOutSplit(s, l.Model, train, test)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "\nheld out by batch size (train on each model's smallest, test on its largest), %s:\n", l.Model)
			return evalTable(w, s, pred, test)
		},
	}
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
