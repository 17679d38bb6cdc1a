package app

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"

	"github.com/urfave/cli/v2"
	"go.yaml.in/yaml/v3"

	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/experiments"
	"github.com/wb-sim/wb/scheduler"
)

func simulateCommand() *cli.Command {
	parts := experiments.Parts()
	known := func(names []string) string { return " (" + strings.Join(names, ", ") + ")" }
	return &cli.Command{
		Name:  "simulate",
		Usage: "run one scheduler on one trace; print a summary and write CSVs and the schedule as SWF",
		Description: "Examples:\n" +
			"   wb simulate --trace datasets/data/swf/KTH-SP2-1996-2.1-cln.swf.gz --backfill easy --estimate user --out results/kth-easy\n" +
			"   wb simulate --trace datasets/data/openb/openb_pod_list_default.csv.gz --placement best-fit\n" +
			"   wb simulate --trace datasets/data/pai/pai_sim_jobs_synthetic.csv.gz --cluster pool:1024:23777 --sample 5000 --arrival-rate 250 --order sjf --estimate group-gpu-dur --backfill greedy\n\n" +
			"The trace is [FORMAT:]PATH with FORMAT one of swf, openb, pai, pai-sim, gavel; a name like\n" +
			"*.swf.gz or *openb_pod_list* tells the format by itself. Clusters (--cluster):\n   " +
			strings.ReplaceAll(workload.Clusters, "\n", "\n   ") + "\n\n" +
			"With --out DIR, wb writes DIR/jobs.csv (one row per job), DIR/summary.csv,\n" +
			"DIR/timeseries.csv (utilisation after every scheduling pass) and DIR/schedule.swf.",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "trace", Aliases: []string{"t"}, Required: true, Usage: "trace as [FORMAT:]PATH"},
			&cli.StringFlag{Name: "cluster", Aliases: []string{"c"}, Usage: "cluster spec; default: the trace's own or its format's bundled cluster (an SWF trace's pool of its MaxProcs; openb: the pod list's node list; pai: PAI's; gavel: nodes:27x4:GPU of --gpu-type; pai-sim: pool:6500:150930)"},
			&cli.StringFlag{Name: "order", Value: "fifo", Usage: "queue order" + known(parts.Orders.Names())},
			&cli.StringFlag{Name: "backfill", Aliases: []string{"policy"}, Value: "none", Usage: "backfill rule" + known(parts.Backfills.Names())},
			&cli.StringFlag{Name: "placement", Value: "first-fit", Usage: "placement on GPU nodes (ga places the whole queue each pass and starts any subset of it, out of queue order: the order's and the backfill rule's guarantees, EASY's reservation of the head and conservative's of every job, do not hold under it)" + known(parts.Placements.Names())},
			&cli.BoolFlag{Name: "consolidate", Usage: "keep a data-parallel job (replicas of whole GPUs) on one node where one node holds it whole, the placement choosing among those nodes (fastest: a node of the fastest GPU model with room, else that model's nodes, before a slower model); without it the placement places replica by replica and may split a job over nodes (not with --placement ga)"},
			&cli.StringFlag{Name: "estimate", Value: "user", Usage: "runtime estimate source" + known(parts.Estimators.Names())},
			&cli.Float64Flag{Name: "sigma", Usage: "--estimate noisy: the lognormal error's σ (each job's estimate its run time × exp(σZ), Z drawn per job from --seed), 0 to 10", DefaultText: "none: required with noisy"},
			&cli.IntFlag{Name: "procs", Usage: "SWF machine size in processors", DefaultText: "the header's MaxProcs", Action: between("procs", 1, scheduler.MaxProcs, "the simulator's bound of 2^40 milli-cores")},
			&cli.StringFlag{Name: "gpu-type", Value: "v100", Usage: "Gavel traces: the GPU (k80, p100, v100) whose measured throughputs keep a job (one Gavel did not measure there is dropped) and time it where it has none of its own; on each GPU Gavel measured, a job runs at its throughput there, and a cluster of other GPUs is refused"},
			&cli.BoolFlag{Name: "skip-invalid", Usage: "skip malformed lines of an SWF trace (counted and reported) instead of stopping at the first; refused for other formats"},
			&cli.IntFlag{Name: "sample", Usage: "keep a uniform random sample of N jobs, drawn from --seed (the PAI v2020 simulator's num_jobs shuffles its table's first 10N+1 rows with Python's generator instead: wb dataset pai-sim-sample draws that sample)", DefaultText: "every job", Action: between("sample", 1, math.MaxInt, "")},
			&cli.Uint64Flag{Name: "seed", Usage: "seed of the run's random draws: --sample's, --estimate noisy's errors, --placement ga's", DefaultText: "0, the same draws every run"},
			&cli.IntFlag{Name: "arrival-rate", Usage: "re-time arrivals: N jobs at the start of every --arrival-interval, in submit order (the PAI simulator's arrival_rate)", DefaultText: "the trace's times", Action: between("arrival-rate", 1, math.MaxInt, "")},
			&cli.IntFlag{Name: "arrival-interval", Value: 60, Usage: "seconds between --arrival-rate's batches", Action: between("arrival-interval", 1, 1<<30, "at most 2^30 s")},
			&cli.StringSliceFlag{Name: "arg", Usage: "a setting of a part that takes settings, as PART.KEY=VALUE (PART: order, backfill, placement or estimate; VALUE read as YAML: 3, 0.5, true, K80), e.g. --arg placement.population=50 for --placement ga; a config's placement_args etc. (docs/writing-a-policy.md)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Usage: "directory for jobs.csv, summary.csv, timeseries.csv and schedule.swf"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() > 0 {
				return cli.Exit("simulate: unexpected argument "+c.Args().First()+" (the trace goes in --trace)", 2)
			}
			spec := scheduler.Spec{Order: c.String("order"), Placement: c.String("placement"), Estimate: c.String("estimate"), Consolidate: c.Bool("consolidate"), Seed: c.Uint64("seed")}
			switch {
			case spec.Estimate == "noisy" && !c.IsSet("sigma"):
				return cli.Exit("simulate: --estimate noisy needs --sigma, the σ of its lognormal error (0 is the exact run time; configs/prediction.yaml sweeps 0.25 to 2)", 2)
			case spec.Estimate != "noisy" && c.IsSet("sigma"):
				return cli.Exit("simulate: --sigma is --estimate noisy's; --estimate "+spec.Estimate+" has no error to scale", 2)
			case c.IsSet("sigma"):
				spec.EstimateArgs = scheduler.Args{"sigma": c.Float64("sigma")}
			}
			if err := partArgs(&spec, c.StringSlice("arg")); err != nil {
				return cli.Exit("simulate: "+err.Error(), 2)
			}
			if n, ok := strings.CutPrefix(c.String("cluster"), "pool:"); ok && !strings.Contains(n, ":") && c.IsSet("procs") {
				return cli.Exit("simulate: --procs sizes the trace's own pool, and --cluster "+c.String("cluster")+" sets the machine: give one of the two", 2)
			}
			policy := c.String("backfill")
			if policy == "fcfs" {
				policy = "none"
			}
			spec.Backfill = policy
			// a flag's default is no request: only one given is checked
			// against the trace's format
			gpuType, interval := "", 0
			if c.IsSet("gpu-type") {
				gpuType = c.String("gpu-type")
			}
			if c.IsSet("arrival-interval") {
				interval = c.Int("arrival-interval")
			}
			o, err := experiments.Simulate(c.Context, experiments.SimulateOptions{
				Workload: workload.Options{
					Trace: c.String("trace"), Cluster: c.String("cluster"), Procs: c.Int("procs"),
					SkipInvalid: c.Bool("skip-invalid"), GPUType: gpuType,
					Sample: c.Int("sample"), SampleSeed: c.Uint64("seed"),
					ArrivalRate: c.Int("arrival-rate"), ArrivalInterval: interval,
				},
				Spec: spec,
				Out:  c.String("out"),
				// One run in a fresh process: streaming an SWF trace
				// (reading it once, holding only the jobs in the system)
				// beats loading it whole at every size measured.
				Stream: experiments.StreamAlways,
			})
			if errors.Is(err, context.Canceled) {
				// (the files are written whole or not at all)
				return fmt.Errorf("simulate: interrupted: the simulation did not end, and no file was written (%w)", err)
			}
			if err != nil {
				return err
			}
			if p := spec.Placement; c.IsSet("placement") && p != "first-fit" && p != "ga" && o.Workload != nil && o.Workload.Cluster.Pool {
				// a processor pool, one node of no GPUs: nothing to choose
				// among (a reviewer found a table of placements on KTH
				// that differed in name alone); a node of GPUs is not
				// said so, where fgd and random choose a shared job's GPU
				fmt.Fprintf(c.App.ErrWriter, "note: --placement %s chooses among nodes, and the processor pool of %s is one node: every placement but ga (which orders the queue too) places alike here\n", p, o.Workload.Cluster.Name)
			}
			if c.Bool("consolidate") && o.Workload != nil && o.Workload.Cluster.Pool {
				// (the scheduler's name says consolidate; nothing changed)
				fmt.Fprintf(c.App.ErrWriter, "note: --consolidate keeps a data-parallel job's GPU replicas on one node, and the processor pool of %s is one node of no GPUs: it changes nothing here\n", o.Workload.Cluster.Name)
			}
			return experiments.PrintSummary(c.App.Writer, o)
		},
	}
}

// partArgs adds the settings given as --arg PART.KEY=VALUE to spec's
// parts' arguments, each value read as YAML (a number, a bool, a string).
// The parts decode them when the scheduler is built, and refuse any they do
// not know.
func partArgs(spec *scheduler.Spec, given []string) error {
	for _, g := range given {
		kv, value, ok := strings.Cut(g, "=")
		part, key, dotted := strings.Cut(kv, ".")
		if !ok || !dotted || key == "" {
			return fmt.Errorf("--arg %q: want PART.KEY=VALUE, e.g. placement.population=50", g)
		}
		var v any
		if err := yaml.Unmarshal([]byte(value), &v); err != nil {
			v = value
		}
		var args *scheduler.Args
		switch part {
		case "order":
			args = &spec.OrderArgs
		case "backfill":
			args = &spec.BackfillArgs
		case "placement":
			args = &spec.PlacementArgs
		case "estimate":
			args = &spec.EstimateArgs
			if spec.Estimate == "noisy" {
				return fmt.Errorf("--arg %q: --estimate noisy's setting is --sigma", g)
			}
		default:
			return fmt.Errorf("--arg %q: %q is not a part: order, backfill, placement or estimate", g, part)
		}
		if *args == nil {
			*args = scheduler.Args{}
		}
		if _, again := (*args)[key]; again {
			return fmt.Errorf("--arg %q: %s.%s given twice", g, part, key)
		}
		(*args)[key] = v
	}
	return nil
}
