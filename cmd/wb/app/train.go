package app

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/urfave/cli/v2"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/predictor/evaluate"
	"github.com/wb-sim/wb/profiler"
)

// loadProfiles reads profiles and maps each profile's device to its
// predictor device; it warns on warn where they mix backends, or a device's
// profiles measured peaks far apart. A profile that was interrupted is refused (its sidecar
// says so, or a row's stop column), and so is
// one whose measured rows lack the time st learns (named by file and line,
// with what to do: median, the way to learn the median instead).
func loadProfiles(warn io.Writer, paths []string, st predictor.Stat, median string) ([]profiler.Record, map[string]*predictor.Device, error) {
	if len(paths) == 0 {
		return nil, nil, errors.New("want at least one profile CSV")
	}
	// read in one order whatever order, or from whatever folder, they
	// were given in (a shell's glob sorts by its locale): their absolute
	// paths' byte order, so that the same profiles train the same
	// predictor: the fits draw their samples by row
	paths = slices.Clone(paths)
	abs := func(p string) string {
		if a, err := filepath.Abs(p); err == nil {
			return a
		}
		return p
	}
	slices.SortStableFunc(paths, func(a, b string) int { return strings.Compare(abs(a), abs(b)) })
	var rows []profiler.Record
	devs := map[string]*predictor.Device{}
	backends := map[string][]string{} // backend → its profiles
	peaks := map[string]*spread{}     // device → the peaks its profiles measured
	copies := map[string]*spread{}    // device → the memory copies its profiles measured
	cacheFrom := map[string]string{}  // device → the profile its last-level cache is from
	for _, p := range paths {
		pr, err := profiler.Read(p)
		if err != nil {
			return nil, nil, err
		}
		if b := pr.Meta.Backend; b != "" && b != "cuda" {
			backends[b] = append(backends[b], filepath.Base(p))
		}
		if m := pr.Meta.Machine; m != nil {
			peaks[pr.Meta.Device] = peaks[pr.Meta.Device].add(m.PeakFLOPs, p)
			copies[pr.Meta.Device] = copies[pr.Meta.Device].add(m.MemBandwidth, p)
		}
		if o := pr.Meta.Others; o != nil && o.Keys > 0 {
			fmt.Fprintf(warn, "warning: %s: %d of the %d keys judged were timed while other processes (or the hypervisor) took %.1f of wb's CPUs or more (%.2f on average over the profile): their times are slower than the machine's own, and this correction learns them; profile it again on an idle machine\n",
				p, o.Keys, o.Judged, o.Threshold, o.CPUs)
		}

		if pr.Meta.Interrupted {
			return nil, nil, fmt.Errorf("%s: an interrupted profile (its sidecar says so): its rows are from the rounds it finished, not measured as the others; profile it again", p)
		}
		if i := slices.IndexFunc(pr.Records, func(r profiler.Record) bool { return r.Stop == string(profiler.Interrupted) }); i >= 0 {
			// the sidecar edited, or another's put beside it: the rows
			// still say what they are
			r := &pr.Records[i]
			return nil, nil, fmt.Errorf("%s:%d: %s %s batch %d: stop interrupted: a row of an interrupted profile, measured in the rounds it finished, not as the others; profile it again",
				p, i+2, r.Layer, r.Pass, r.Batch)
		}
		for i := range pr.Records {
			r := &pr.Records[i]
			if _, ok := st.Of(r); r.Status == profiler.OK && r.Median.OK && r.Median.V > 0 && !ok {
				return nil, nil, fmt.Errorf("%s:%d: %s %s batch %d: no %s time (the min_s column empty or absent, as in profiles written before wb kept the fastest run): profile it again, or learn the median (%s)",
					p, i+2, r.Layer, r.Pass, r.Batch, st, median)
			}
		}
		hadCache := devs[pr.Meta.Device] != nil && devs[pr.Meta.Device].CacheBytes > 0
		if rows, err = predictor.AddProfile(rows, devs, pr); err != nil {
			if from, ok := cacheFrom[pr.Meta.Device]; ok && strings.Contains(err.Error(), "last-level cache") {
				// name both profiles: the figure the device had is another's
				return nil, nil, fmt.Errorf("%s: %w (the first figure is %s's, the second this profile's)", p, err, from)
			}
			return nil, nil, fmt.Errorf("%s: %w", p, err)
		}
		if d := devs[pr.Meta.Device]; !hadCache && d != nil && d.CacheBytes > 0 {
			cacheFrom[pr.Meta.Device] = p
		}
	}
	if len(backends) > 1 {
		// the pure-Go backend's convolutions run several times slower than
		// oneDNN's: one correction of both describes neither
		var by []string
		for _, b := range slices.Sorted(maps.Keys(backends)) {
			by = append(by, fmt.Sprintf("%s (%s)", b, strings.Join(backends[b], ", ")))
		}
		fmt.Fprintf(warn, "warning: the profiles come from %d backends, which run different kernels: %s; a correction learned from them all describes none of them: give one backend's profiles\n",
			len(backends), strings.Join(by, "; "))
	}
	for _, d := range slices.Sorted(maps.Keys(peaks)) {
		if r := peaks[d]; r != nil && r.hi > 1.25*r.lo {
			fmt.Fprintf(warn, "warning: the profiles of %s measured fp32 peaks from %.1f to %.1f GFLOP/s (the most in %s): the rows are predicted against the most; profiles of two processors under one name (a VM moved to another host) are two machines\n",
				d, r.lo/1e9, r.hi/1e9, filepath.Base(r.at))
		}
	}
	for _, d := range slices.Sorted(maps.Keys(copies)) {
		if r := copies[d]; r != nil && r.hi > 1.25*r.lo {
			// (the bundled profiles: 46.7 to 104.7 GB/s, the peaks within 1.5%)
			fmt.Fprintf(warn, "note: the profiles of %s measured memory copies from %.1f to %.1f GB/s (the most in %s), as a copy varies from sitting to sitting on a shared machine: "+
				"the rows are predicted against the most, so the analytical memory times, and the analytical scores beside the correction's, move with the profiles given\n",
				d, r.lo/1e9, r.hi/1e9, filepath.Base(r.at))
		}
	}
	return rows, devs, nil
}

// spread is the least and most of a figure that profiles of one device
// measured, and the profile with the most.
type spread struct {
	lo, hi float64
	at     string
}

// add takes in v, measured by the profile at path (0: not measured).
func (s *spread) add(v float64, path string) *spread {
	switch {
	case !(v > 0):
		return s
	case s == nil:
		return &spread{v, v, path}
	case v > s.hi:
		s.hi, s.at = v, path
	}
	s.lo = min(s.lo, v)
	return s
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
			"regression, boosted trees (depth 4 or 6), a random forest and the median of the\n" +
			"boosted trees (depth 4 or 6), the neighbours and the forest, each on all the\n" +
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
			"A CPU correction learns against the machine profiled: the fp32 peak, memory copy\n" +
			"and threads its profiles measured (the most of each, from their sidecars), not the\n" +
			"machine that trains, so the same profiles train the same predictor anywhere, and\n" +
			"wb predict --predictor predicts that machine.\n\n" +
			"--time picks the measured time learned: min (the fastest run, min_s; the default)\n" +
			"repeats between CPU profiles far better than the median (datasets/profiles/README.md);\n" +
			"median (median_s) is the typical time under the machine's load, and the only one\n" +
			"profiles written before wb kept min_s have.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Value: "predictor.json", Usage: "where to write the predictor: a .json name, not a profile's sidecar (*.csv.json), its folder made where missing; an earlier predictor there is replaced, any other file refused"},
			&cli.StringFlag{Name: "time", Value: string(predictor.Min), Usage: "measured time to learn: min or median"},
			&cli.BoolFlag{Name: "grid", Usage: "print every configuration's cross-validated scores, not only each family's best"},
		},
		Action: func(c *cli.Context) error {
			st, err := predictor.ParseStat(c.String("time"))
			if err != nil {
				return fmt.Errorf("train: --time: %w", err)
			}
			if err := outNotAnInput(c.String("out"), c.Args().Slice(), "the predictor"); err != nil {
				return fmt.Errorf("train: %w", err)
			}
			if err := makeableOut("--out", c.String("out")); err != nil { // (written to a temporary file, renamed)
				return fmt.Errorf("train: %w", err)
			}
			if err := wantExt("--out", c.String("out"), ".json", "a predictor"); err != nil {
				return fmt.Errorf("train: %w", err)
			}
			if err := predictorOut(c.String("out")); err != nil {
				return fmt.Errorf("train: %w", err)
			}
			rows, devs, err := loadProfiles(c.App.ErrWriter, c.Args().Slice(), st, "--time median")
			if err != nil {
				return fmt.Errorf("train: %w", err)
			}
			// the cross-validation takes its time (36 s for the bundled
			// profiles on 2 cores) and prints nothing until it ends
			// (what is learned from is counted once trained, below: the
			// rows read hold copies, whole iterations and skipped passes)
			fmt.Fprintf(c.App.ErrWriter, "training on the %d rows read: every configuration cross-validated by model, then the pick fitted on every measured pass (about half a minute for the bundled profiles on 2 cores; the rows learned from are counted after) ...\n", len(rows))
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
			if pc := l.CPU; pc != nil {
				fmt.Fprintf(w, "learned against the machine profiled (%s): fp32 peak %.1f GFLOP/s, memory copy %.1f GB/s, %d threads, as its profiles measured them\n",
					strings.Join(l.Train.Devices, "; "), pc.PeakFLOPs/1e9, pc.MemBandwidth/1e9, pc.Cores)
			} else if slices.Contains(l.Train.Kinds, predictor.KindCPU) {
				fmt.Fprintf(c.App.ErrWriter, "warning: the profiles record no one machine's peak and bandwidth (%s: profiles of several machines, or from before the sidecar recorded the machine): "+
					"each row learned against its own machine, but wb predict --predictor will start from the predicting machine's figures; train on one machine's profiles to predict it\n",
					strings.Join(l.Train.Devices, "; "))
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
			if l.ColdTraffic > 0 {
				bytes := "its layer passes' bytes"
				if l.ColdLLC {
					bytes = "its layer passes' bytes, each pass's capped at the last-level cache,"
				}
				fmt.Fprintf(w, "\nA whole iteration adds %.3f s per second of %s at the memory bandwidth\n"+
					"(operands cold in the iteration, warm when a pass is timed alone; the median over the whole\n"+
					"iterations the profiles measured): wb predict --predictor adds it to the iteration.\n", l.ColdTraffic, bytes)
				if l.ColdLLC {
					fmt.Fprintln(w, "Capped, because that told each model's iterations from the other models' better than all the bytes\n"+
						"(a pass that streams more than the cache holds finds its operands cold timed alone too).")
				}
			}
			// the folder made once there is a predictor to put in it
			if err := writableOut("--out", c.String("out"), true, true); err != nil {
				return fmt.Errorf("train: %w", err)
			}
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
var evalSplits = evaluate.Splits

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
			"         shapes or of work identical to one of its rows (another key's pass of\n" +
			"         the same features); per op and per model. The configuration is the\n" +
			"         predictor's, which wb train chose with every model in view; --nested\n" +
			"         chooses it without the held-out model: for each, an inner loop\n" +
			"         cross-validates every configuration of wb train's grid on the other\n" +
			"         models (--inner-folds folds by model, dealt with seed 1) and the pick\n" +
			"         predicts it. Only those outer predictions are scored: per family (each\n" +
			"         family's pick) and chosen (the pick over all).\n" +
			"         Minutes: for each model the grid's 18 configurations are scored once per\n" +
			"         inner fold (the 4 medians from their members' fits, the others fitted;\n" +
			"         about 6 min for the bundled profiles on 2 cores with 3 folds;\n" +
			"         make bench-predictor runs it too).\n" +
			"  shape  5 folds by layer shape (all rows of one key, or of identical work under\n" +
			"         another key, in one fold): the rest of a held-out layer's model is in\n" +
			"         training, so this flatters the predictor.\n" +
			"  batch  trained on each model's smallest batch, tested on its largest.\n\n" +
			"Only distinct measurements are scored: rows that copy an identical layer's\n" +
			"measurement (shared_with, or taken from the profile cache where the measurement\n" +
			"is among the rows already) are neither learned from nor scored, but count in their\n" +
			"iteration's summed layers. The iteration MAPE is of summed layers: each layer pass\n" +
			"measured on its own, summed, against the predictions summed; where a profile also\n" +
			"measured whole iterations end to end (its sidecar's iterations) the predicted\n" +
			"layers summed plus the cold traffic (what a whole iteration\n" +
			"adds per second of its bytes, fitted on the training models' whole iterations) are\n" +
			"scored against those too. Analytical\n" +
			"alone beside, and the profiles' repeatability: how closely independent measurements\n" +
			"of identical work (same op, pass, FLOPs, bytes, batch) agree, the ceiling of any\n" +
			"predictor. Sweeps (wb profile sweep:OP:N) are training data: never scored; the\n" +
			"shape split holds them out with their folds and prints their errors apart.\n\n" +
			"Writes OUT/predictions.csv (every held-out layer pass of the models, sweeps' aside:\n" +
			"measured, analytical and corrected times, shared_with, and scored: false for a copy)\n" +
			"and OUT/figures: predicted vs measured,\n" +
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
			if c.IsSet("fold-seeds") && !slices.Contains(splits, "shape") {
				return errors.New("evaluate: --fold-seeds draws the shape split's folds: add --split shape")
			}
			seeds := c.IntSlice("fold-seeds")
			for i, sd := range seeds {
				if sd < 0 {
					return fmt.Errorf("evaluate: --fold-seeds: %d is negative", sd)
				}
				if slices.Contains(seeds[:i], sd) {
					return fmt.Errorf("evaluate: --fold-seeds: %d twice: each seed deals the folds once, and a seed given twice would show a spread that is not one", sd)
				}
			}
			if len(seeds) == 0 {
				seeds = []int{1}
			}
			// the folder is checked now, made once the inputs have read:
			// a refused input leaves no empty folder behind
			var inputs []string
			if o := c.String("out"); o != "" {
				if err := outNotAnInput(o, c.Args().Tail(), "the predictions"); err != nil {
					return fmt.Errorf("evaluate: %w", err)
				}
				// the predictor evaluated may lie there (make blind-check
				// trains it into the folder it evaluates into)
				if pd, err1 := filepath.Abs(filepath.Dir(c.Args().First())); err1 == nil {
					if od, err2 := filepath.Abs(o); err2 == nil && pd == od {
						inputs = append(inputs, filepath.Base(c.Args().First()))
					}
				}
				if err := checkOutFolder(o, evaluateOut, inputs...); err != nil {
					return fmt.Errorf("evaluate: %w", err)
				}
			}
			l, err := predictor.LoadLearned(c.Args().First())
			if err != nil {
				return fmt.Errorf("evaluate: %w", err)
			}
			rows, devs, err := loadProfiles(c.App.ErrWriter, c.Args().Tail(), l.Stat, "a predictor trained with wb train --time median")
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
			if slices.Contains(splits, "model") {
				var models []string
				sweeps := false
				for i := range rows {
					if m := rows[i].Model; dnn.IsSweep(m) {
						sweeps = true
					} else if !slices.Contains(models, m) {
						models = append(models, m)
					}
				}
				// one model and no sweep: held out, it leaves nothing to learn from
				if len(models) < 2 && !sweeps {
					why := fmt.Sprintf("these profiles have one model (%s) and no sweep: held out, it leaves nothing to learn "+
						"from, and the score would be the analytical one", strings.Join(models, ", "))
					if c.IsSet("split") {
						return fmt.Errorf("evaluate: --split model: %s; give profiles of more models or a sweep, or --split shape,batch", why)
					}
					fmt.Fprintf(c.App.ErrWriter, "evaluate: the model split is left out: %s\n", why)
					splits = slices.DeleteFunc(splits, func(s string) bool { return s == "model" })
				}
			}
			if slices.Contains(splits, "batch") {
				// one batch size a model: held out by batch, nothing is scored
				if train, test := predictor.BatchSplit(s); len(train) == 0 || len(test) == 0 {
					why := "the profiles have one batch size per model: held out by batch size, nothing is scored"
					if c.IsSet("split") {
						return fmt.Errorf("evaluate: --split batch: %s; give profiles of two batch sizes a model (wb profile MODEL --batch 1,8), or --split model,shape", why)
					}
					fmt.Fprintf(c.App.ErrWriter, "evaluate: the batch split is left out: %s\n", why)
					splits = slices.DeleteFunc(splits, func(s string) bool { return s == "batch" })
				}
			}
			if len(splits) == 0 {
				return errors.New("evaluate: no split left to score these profiles by")
			}
			var outs *outFiles // what this command wrote into --out
			if o := c.String("out"); o != "" {
				if outs, err = outFolder(o, evaluateOut, inputs...); err != nil {
					return fmt.Errorf("evaluate: %w", err)
				}
			}
			w := c.App.Writer
			paths, err := evaluate.Run(w, l, s, evaluate.Options{
				Splits: splits, Nested: c.Bool("nested"), InnerFolds: c.Int("inner-folds"), FoldSeeds: seeds, Out: c.String("out"),
			})
			if err != nil {
				return fmt.Errorf("evaluate: %w", err)
			}
			if err := outs.wroteAll(paths); err != nil {
				return fmt.Errorf("evaluate: %w", err)
			}
			if err := outs.done(); err != nil {
				return fmt.Errorf("evaluate: %w", err)
			}
			if len(paths) > 0 {
				fmt.Fprintf(w, "\nwrote %s\n", strings.Join(paths, ", "))
			}
			return nil
		},
	}
}

// predictorOut refuses a wb train --out that would replace what is not a
// predictor: a name of a profile's sidecar (PROFILE.csv.json, which
// replaced would leave that profile unreadable), or an existing file that
// is not a predictor wb wrote (of any version: an older one is replaced).
func predictorOut(out string) error {
	if strings.HasSuffix(strings.ToLower(out), ".csv.json") {
		return fmt.Errorf("--out %s: the name of a profile's sidecar (the JSON wb profile writes beside PROFILE.csv), which a predictor there would replace: "+
			"name the predictor otherwise, such as predictor.json", out)
	}
	b, err := os.ReadFile(out)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("--out %s: %w", out, err)
	}
	var head struct {
		Version int    `json:"version"`
		Model   string `json:"model"`
	}
	if json.Unmarshal(b, &head) != nil || head.Version <= 0 || head.Model == "" {
		return fmt.Errorf("--out %s: exists and is not a wb predictor (the JSON wb train writes), which the predictor would replace: "+
			"name another file, or move that one away first", out)
	}
	return nil
}

// outNotAnInput refuses an --out that is one of the input profiles or a
// sidecar of one: writing what there (the predictor) would destroy the data.
func outNotAnInput(out string, inputs []string, what string) error {
	o, err := filepath.Abs(out)
	if err != nil {
		return err
	}
	for _, in := range inputs {
		a, err := filepath.Abs(in)
		if err != nil {
			return err
		}
		if o == a || o == profiler.SidecarPath(a) {
			return fmt.Errorf("--out %s is the input %s: %s would overwrite a profile; write it elsewhere", out, in, what)
		}
	}
	return nil
}
