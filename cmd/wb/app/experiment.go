package app

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/wb-sim/wb/experiments"
)

func experimentCommand() *cli.Command {
	return &cli.Command{
		Name:      "experiment",
		Usage:     "run an experiment config: every workload × scheduler × sweep point × replica; CSVs, manifest and figures",
		ArgsUsage: "CONFIG.yaml",
		Description: "Example:\n" +
			"   wb experiment configs/backfill.yaml        # writes results/backfill/\n\n" +
			"Runs go in parallel (--jobs); each is stored under DIR/runs as it completes, so\n" +
			"an interrupted experiment continues with --resume. At the end wb merges them into\n" +
			"DIR/summary.csv (one row per run), DIR/jobs.csv, DIR/timeseries.csv and\n" +
			"DIR/manifest.json, and draws the config's figures (PNG, PDF, SVG).\n\n" +
			"DIR belongs to one config (DIR/.wb-results.json names it): wb writes into a new or\n" +
			"empty directory or one holding that config's results (files of yours added there\n" +
			"are left alone), refuses one holding another config's (unless --force) and an\n" +
			"unmarked one holding files it did not write, and deletes only the files it wrote.\n" +
			"`wb experiment --explain` documents every field of a config.",
		Flags: []cli.Flag{
			&cli.IntFlag{Name: "jobs", Aliases: []string{"j"}, Value: runtime.NumCPU(), DefaultText: "the number of CPUs", Usage: "runs simulated at once (not the trace's jobs)", Action: atLeast("jobs", 1)},
			&cli.BoolFlag{Name: "resume", Usage: "keep the runs already complete in the results directory"},
			&cli.BoolFlag{Name: "force", Usage: "replace the results of another config in the results directory (only the files wb wrote there)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "results directory (default: the config's out, or results/<name>)"},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"},
			&cli.BoolFlag{Name: "explain", Usage: "document every config field and exit"},
			&cli.IntFlag{Name: "run-index", Value: -1, DefaultText: "none: every run, then the merge", Usage: "run only this run and do not merge (what a Slurm array task does)", Action: atLeast("run-index", 0)},
			&cli.BoolFlag{Name: "slurm", Usage: "submit the runs as a Slurm job array, then a job that merges them (wb experiment collect); the tasks run a copy of this wb kept in DIR/slurm; sbatch's own variables set the rest (SBATCH_ACCOUNT, SBATCH_QOS, SBATCH_MEM_PER_CPU)"},
			&cli.StringFlag{Name: "partition", Usage: "--slurm: the partition"},
			&cli.StringFlag{Name: "time", Usage: "--slurm: the time limit of each array task (one run, or several past 1,000 runs) and of the collect job, e.g. 00:10:00"},
			&cli.IntFlag{Name: "cpus-per-task", Value: 1, Usage: "--slurm: CPUs of each array task", Action: atLeast("cpus-per-task", 1)},
			&cli.BoolFlag{Name: "dry-run", Usage: "--slurm: write the sbatch scripts without submitting them (results already there are kept)"},
		},
		Subcommands: []*cli.Command{{
			Name:      "collect",
			Usage:     "merge the runs stored in a results directory (after a Slurm array) into the result files and figures",
			ArgsUsage: "DIR",
			Description: "Each run of an experiment is stored as it completes (DIR/runs/). `wb experiment --slurm`\n" +
				"submits this as a job that depends on the array; run it yourself after tasks run by hand\n" +
				"(`wb experiment CONFIG --run-index I`), or to redraw after a failed run was rerun:\n\n" +
				"   wb experiment collect results/backfill\n\n" +
				"It writes summary.csv, jobs.csv, timeseries.csv, manifest.json and the figures, as a\n" +
				"local run does. While a run is missing, failed or made by another build of wb, nothing is\n" +
				"merged: it says how many and names the first.",
			Action: func(c *cli.Context) error {
				if c.NArg() != 1 {
					return errors.New("collect: want one results directory")
				}
				rep, err := experiments.Collect(c.Context, c.Args().First(), versionString())
				return reportExperiment(c.App.Writer, rep, err)
			},
		}},
		Action: func(c *cli.Context) error {
			if c.Bool("explain") {
				if c.NArg() > 0 {
					// it documents every field at once (an argument was ignored)
					return fmt.Errorf("experiment: --explain documents every field of every kind of config and takes no argument (%q given): run wb experiment --explain alone", c.Args().First())
				}
				for _, f := range c.Command.Flags {
					// (named by its long name: a short one was said "--j")
					if n := f.Names()[0]; n != "explain" && n != "help" && slices.ContainsFunc(f.Names(), c.IsSet) {
						return fmt.Errorf("experiment: --explain documents the config's fields and runs nothing: --%s does nothing with it; run wb experiment --explain alone", n)
					}
				}
				_, err := io.WriteString(c.App.Writer, experiments.Explain())
				return err
			}
			if c.NArg() != 1 {
				return errors.New("experiment: want one config file (see wb experiment --help)")
			}
			cfg, err := experiments.LoadConfig(c.Args().First())
			if err != nil {
				return err
			}
			if o := c.String("out"); o != "" {
				cfg.Out = o
			}
			if !c.Bool("slurm") {
				for _, f := range []string{"partition", "time", "cpus-per-task", "dry-run"} {
					if c.IsSet(f) {
						return fmt.Errorf("experiment: --%s is an option of --slurm; add --slurm, or leave it out to run here", f)
					}
				}
			}
			if c.Bool("slurm") {
				for _, f := range []string{"jobs", "run-index"} {
					if c.IsSet(f) {
						return fmt.Errorf("experiment: --%s runs here; with --slurm each array task runs its own run (--cpus-per-task gives it CPUs)", f)
					}
				}
				job, err := experiments.SubmitSlurm(c.Context, cfg, c.Args().First(), experiments.SlurmOptions{
					Partition: c.String("partition"), Time: c.String("time"), CPUsPerTask: c.Int("cpus-per-task"),
					Submit: !c.Bool("dry-run"), Force: c.Bool("force"), Resume: c.Bool("resume"),
				})
				if err != nil {
					return err // (it names a job array submitted before the error)
				}
				for _, n := range job.Notes {
					fmt.Fprintln(c.App.ErrWriter, "note: "+n)
				}
				runs := fmt.Sprintf("%d runs", job.Runs)
				if job.Kept > 0 {
					tasks := "tasks"
					if job.Tasks == 1 {
						tasks = "task"
					}
					runs = fmt.Sprintf("%d %s for the %d of %d runs not stored complete", job.Tasks, tasks, job.Runs-job.Kept, job.Runs)
				}
				switch {
				case job.ArrayScript == "" && job.Collect == "":
					fmt.Fprintf(c.App.Writer, "all %d runs are stored complete in %s: nothing to run; wrote %s, which merges them (or run wb experiment collect %s here)\n",
						job.Runs, cfg.OutDir(), job.CollectScript, cfg.OutDir())
				case job.ArrayScript == "":
					fmt.Fprintf(c.App.Writer, "all %d runs are stored complete: submitted collect job %s alone, which merges them\nresults: %s; follow with squeue -j %s\n",
						job.Runs, job.Collect, cfg.OutDir(), job.Collect)
				case job.Array == "":
					fmt.Fprintf(c.App.Writer, "wrote %s (%s) and %s; submit them with\n  id=$(sbatch --parsable %s) && sbatch --dependency=afterany:${id%%;*} %s\n",
						job.ArrayScript, runs, job.CollectScript, job.ArrayScript, job.CollectScript)
				default:
					fmt.Fprintf(c.App.Writer, "submitted job array %s (%s) and collect job %s (after the array ends; it names any run missing)\n"+
						"results: %s; follow with squeue -j %s,%s\n", job.Array, runs, job.Collect, cfg.OutDir(), job.Array, job.Collect)
				}
				return nil
			}
			opts := experiments.RunOptions{Jobs: c.Int("jobs"), Resume: c.Bool("resume"), Force: c.Bool("force"), Version: versionString(),
				Notes: c.App.ErrWriter} // (-q hides progress, not an edited file moved aside)
			if i := c.Int("run-index"); i >= 0 {
				opts.Only = []int{i}
			}
			if !c.Bool("quiet") {
				opts.Progress = c.App.ErrWriter
				if f, ok := c.App.ErrWriter.(*os.File); ok && term.IsTerminal(int(f.Fd())) {
					opts.Terminal = true
				}
			}
			rep, err := experiments.Run(c.Context, cfg, opts)
			if opts.Only != nil && err == nil {
				if len(rep.Failed) > 0 {
					// a Slurm array task fails with it (the collect names it too)
					return fmt.Errorf("run %d failed: %s (stored in %s as failed; rerun it with --run-index %d after mending its cause)",
						opts.Only[0], rep.Failed[0].Error, rep.Dir, opts.Only[0])
				}
				if rep.Runs == 0 { // (--resume: stored complete already)
					fmt.Fprintf(c.App.Writer, "run %d already complete in %s, kept\n", opts.Only[0], rep.Dir)
					return nil
				}
				fmt.Fprintf(c.App.Writer, "run %d stored in %s\n", opts.Only[0], rep.Dir)
				return nil
			}
			return reportExperiment(c.App.Writer, rep, err)
		},
	}
}

func reportExperiment(w io.Writer, rep *experiments.Report, err error) error {
	if rep != nil {
		if rep.Table != "" {
			fmt.Fprintln(w, rep.Table)
		}
		if rep.Plan != nil {
			fmt.Fprintln(w, rep.Plan)
		}
		if len(rep.Bands) > 0 {
			fmt.Fprintln(w, "the predictor's error as noise where no measurement checks it: each noisy twin's mean JCT over its\n"+
				"workload's, less 1, lowest and highest over the replicas (the answer's spread under the predictor's own error)")
			for _, b := range rep.Bands {
				fmt.Fprintf(w, "  %s, %s: %+.1f%% to %+.1f%% (%s, %d replicas)\n", b.Workload, b.Scheduler, 100*b.Lo, 100*b.Hi, b.Noisy, b.Replicas)
			}
		}
		for _, l := range slices.Concat(rep.Windows, rep.Spanning, rep.TraceNotes) {
			fmt.Fprintln(w, "note: "+l)
		}
		for _, sec := range []struct {
			head  string
			lines []string
		}{
			{"jobs left out of the simulation (summary.csv's dropped: the whole trace's, before any window):", rep.Dropped},
			{"user estimates that are the run time:", rep.RunTimeEstimates},
			{"predicted run times that are lower bounds (work of the job no prediction times):", rep.LowerBounds},
			{"predicted GPUs beyond the GPU op model's training GPUs (wb predict --device-spec says the same):", rep.Outside},
		} {
			if len(sec.lines) == 0 {
				continue
			}
			fmt.Fprintln(w, sec.head)
			for _, l := range sec.lines {
				fmt.Fprintln(w, "  "+l)
			}
		}
		fmt.Fprintf(w, "%s: %d runs", rep.Dir, rep.Runs)
		if len(rep.Failed) > 0 {
			fmt.Fprintf(w, ", %d FAILED", len(rep.Failed))
		}
		fmt.Fprintln(w)
		if len(rep.Files) > 0 {
			fmt.Fprintf(w, "wrote %s\n", describeFiles(rep.Dir, rep.Files))
		}
		printFindings(w, rep.FigureFindings)
	}
	return err
}

// describeFiles says in one short line what an experiment wrote: the
// files in dir by name, and those in its folders counted per folder.
func describeFiles(dir string, files []string) string {
	var top []string
	sub := map[string]int{}
	var subs []string
	for _, f := range files {
		rel, err := filepath.Rel(dir, f)
		if err != nil || strings.HasPrefix(rel, "..") {
			top = append(top, f)
			continue
		}
		d, base := filepath.Split(rel)
		if d == "" {
			top = append(top, base)
			continue
		}
		d = filepath.Clean(d)
		if sub[d] == 0 {
			subs = append(subs, d)
		}
		sub[d]++
	}
	parts := top
	for _, d := range subs {
		parts = append(parts, fmt.Sprintf("%d files in %s/", sub[d], d))
	}
	return strings.Join(parts, ", ") + " in " + dir
}

// printFindings lists what the figures' check found.
func printFindings(w io.Writer, findings []string) {
	if len(findings) == 0 {
		return
	}
	fmt.Fprintf(w, "figure check: %d findings:\n", len(findings))
	for _, f := range findings {
		fmt.Fprintln(w, "  "+f)
	}
}
