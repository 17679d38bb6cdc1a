package app

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/schollz/progressbar/v3"
	"github.com/urfave/cli/v2"
	"golang.org/x/term"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/profiler"
	"github.com/wb-sim/wb/profiler/cpu"
	"github.com/wb-sim/wb/profiler/cuda"
	"github.com/wb-sim/wb/profiler/nvml"
	"github.com/wb-sim/wb/profiler/onednn"
)

// profileBackends are the profiling backends in order of preference for
// --backend auto: the GPU first. cudaLibPath is --cuda-lib-path,
// coldCache --cold-cache, unheld --unheld.
func profileBackends(cudaLibPath string, coldCache, unheld bool) *profiler.Registry {
	var r profiler.Registry
	for _, b := range []struct {
		name string
		open profiler.Factory
	}{
		{"cuda", func() (profiler.Backend, error) {
			b, err := cuda.New(cuda.Options{LibPath: cudaLibPath, ColdCache: coldCache, Unheld: unheld})
			if err != nil {
				return nil, err
			}
			return b, nil
		}},
		{"onednn", func() (profiler.Backend, error) {
			b, err := onednn.New()
			if err != nil {
				return nil, err
			}
			return b, nil
		}},
		{"cpu", func() (profiler.Backend, error) {
			b, err := cpu.New()
			if err != nil {
				return nil, err
			}
			return b, nil
		}},
	} {
		if err := r.Register(b.name, b.open); err != nil {
			panic(err) // a name listed twice above
		}
	}
	return &r
}

func profileCommand() *cli.Command {
	return &cli.Command{
		Name:      "profile",
		Usage:     "measure a model's layers on this machine (CPU, or a GPU backend) and compare with the analytical prediction",
		ArgsUsage: "MODEL",
		Description: "Examples:\n" +
			"   wb profile resnet50                       # batch 1, fwd+bwd, fp32: $WB_CACHE/results/<device>-resnet50-<backend>-b1-fwd_bwd-data_bwd-weights-fp32.csv\n" +
			"   wb profile bert-base --batch 1,8 --pass fwd --max-time 1s --out bert.csv\n" +
			"   wb profile sweep:linear:120 --batch 1,8 --pass fwd,bwd,update   # 120 random linear shapes\n\n" +
			"MODEL is a zoo model (wb predict --list), gemm:N (an N-to-N linear layer: a --batch×N by N×N product), or a sweep,\n" +
			"sweep:OP:N[:SEED]: N layers of OP (" + strings.Join(dnn.SweepOps, ", ") + ") of random\n" +
			"shapes, training data for wb train beside models' profiles (learned from, not scored).\n\n" +
			"Each layer pass is warmed up, then run until the 95% confidence interval of its\n" +
			"median time is within 2% of it, or --max-reps or --max-time runs out. Layers of\n" +
			"the same shape are measured once; measurements are cached (in $WB_CACHE/profiles,\n" +
			"else the user cache directory's wb/profiles), so profiling again is instant.\n" +
			"The CSV has a row per layer, pass and batch, beside a JSON sidecar (FILE.csv.json)\n" +
			"naming the device, libraries and options. Ctrl-C writes the rows measured so far beside it, as\n" +
			"NAME.interrupted.csv (which replaces no profile, and which wb train refuses); before any\n" +
			"layer was measured, nothing.\n\n" +
			"On a CPU the machine's load drifts by tens of percent over seconds, so a layer\n" +
			"measured in one sitting is not measured again the same. --rounds N (default on\n" +
			"the CPU backend: 8) measures every layer pass in N short rounds instead, the\n" +
			"rounds before the last in a random order (--seed), each for at least its share\n" +
			"of --min-time and stopping at a √N-wider interval, and pools the runs; the min_s\n" +
			"column (the fastest run) is then the steadiest figure between profiles (two\n" +
			"resnet18-cifar profiles on the oneDNN backend, back to back on an idle 2-core VM:\n" +
			"97% of passes within ±10% on min_s, 77% on the median; datasets/profiles/README.md).",
		Flags: []cli.Flag{
			&cli.StringFlag{Name: "batch", Aliases: []string{"b"}, Value: "1", Usage: "batch sizes, comma-separated"},
			&cli.StringFlag{Name: "pass", Value: "fwd,bwd", Usage: "passes: fwd, bwd (bwd-data and bwd-weights), bwd-data, bwd-weights, update"},
			&cli.StringFlag{Name: "precision", Aliases: []string{"p"}, Value: "fp32", Usage: "fp32, tf32, fp16 or bf16 (fp16 and bf16 on a GPU: the CPU backends compute in fp32, tf32 as fp32)"},
			&cli.StringFlag{Name: "backend", Value: "auto", Usage: "auto (the first that opens) or " + strings.Join(profileBackends("", false, false).Names(), ", ")},
			&cli.StringFlag{Name: "cuda-lib-path", Usage: "folders holding the CUDA libraries (libcuda.so.1, libcudnn.so.9, libcublasLt), colon-separated, searched first (also: $WB_CUDA_LIB_PATH)"},
			&cli.BoolFlag{Name: "cold-cache", Usage: "GPU: write a buffer twice the L2 cache's size before each timed run (not timed), so no run starts with its data in L2"},
			&cli.BoolFlag{Name: "unheld", Usage: "GPU: time the runs without holding the stream until a batch of them is queued (a run whose library calls cost the host more than the GPU's work then takes the host's time); for profilers and debuggers that serialise launches (CUDA_LAUNCH_BLOCKING=1 does the same)"},
			&cli.StringFlag{Name: "out", Aliases: []string{"o"}, Action: notADir("out"), Usage: "CSV file (default: results/<device>-<model>-<backend>-b<batches>-<passes>-<precision>.csv beside the cache, $WB_CACHE or the user cache directory's wb; the path is printed); a wb profile there is replaced, any other file refused before anything is measured (one put there while the profile ran is kept, the profile written to NAME.new.csv beside it)"},
			&cli.IntFlag{Name: "max-reps", Value: profiler.DefaultMaxReps, Usage: "most measured runs of a layer pass", Action: atLeast("max-reps", 1)},
			&cli.DurationFlag{Name: "max-time", Value: profiler.DefaultMaxTime, Usage: "most run time of a layer pass"},
			&cli.StringFlag{Name: "min-time", Value: "auto", Usage: "least run time of a layer pass, so fast ones are sampled over a stretch of time, at most --max-time; auto: " + profiler.CPUMinTime.String() + " on the CPU backend (or half of --max-time, where less), 0 on a GPU"},
			&cli.StringFlag{Name: "rounds", Value: "auto", Usage: "measure each layer pass in this many rounds spread over the profile, pooling the runs; auto: " + fmt.Sprint(profiler.CPURounds) + " on the CPU backend, 1 on a GPU (with --iteration, the whole iterations' buffers are then held from the first round to the last, beside each pass measured)"},
			&cli.Uint64Flag{Name: "seed", Value: 1, Usage: "seed of the order of the rounds"},
			&cli.BoolFlag{Name: "no-cache", Usage: "measure everything again, and do not cache"},
			&cli.BoolFlag{Name: "cache-disturbed", Usage: "cache the passes timed while other processes took half a CPU or more (by default they are measured again next time: the sidecar's others, and a warning, say where any was), as on a machine shared on purpose"},
			&cli.BoolFlag{Name: "iteration", Value: true, Usage: "also time one whole iteration per batch end to end (every layer pass back to back, as a framework runs them), into the sidecar: what predicted iterations are scored against; with --rounds > 1 its runs are shared out over the rounds, as the passes' are; off: --iteration=false"},
			&cli.BoolFlag{Name: "gate", Value: true, Usage: "CPU, oneDNN backend: before each measurement time a short probe (FMA chains on every thread) and wait, up to 2 s, while it runs slower than 1.6× its fastest: on a shared VM a neighbour on the same cores halves compute-bound passes for stretches of up to seconds; what it held is in the sidecar (gate); off: --gate=false"},
			&cli.IntFlag{Name: "top", Value: 10, Usage: "layers shown, longest first", Action: atLeast("top", 0)},
			&cli.BoolFlag{Name: "quiet", Aliases: []string{"q"}, Usage: "no progress output"},
		},
		Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return errors.New("profile: want one model (wb predict --list shows them)")
			}
			net, err := dnn.Model(c.Args().First())
			if err != nil {
				return err
			}
			o := profiler.Options{Rule: profiler.Rule{MaxReps: c.Int("max-reps"), MaxTime: c.Duration("max-time")}}
			if o.Batches, err = profiler.ParseBatches(c.String("batch")); err != nil {
				return err
			}
			if o.Passes, err = profiler.ParsePasses(c.String("pass")); err != nil {
				return err
			}
			if o.Precision, err = dnn.ParsePrecision(c.String("precision")); err != nil {
				return err
			}
			if o.Rule.MaxReps <= 0 {
				return fmt.Errorf("--max-reps %d: want at least 1", o.Rule.MaxReps)
			}
			if o.Rule.MaxTime <= 0 {
				return fmt.Errorf("--max-time %v: want a positive duration", o.Rule.MaxTime)
			}
			// every flag is checked before the backend opens and anything
			// is measured: --rounds and --min-time other than auto do not
			// depend on the backend
			if s := c.String("rounds"); s != "auto" {
				n, err := parseRounds(s, "")
				if err != nil {
					return err
				}
				if n > o.Rule.MaxReps {
					return fmt.Errorf("--rounds %d: more than --max-reps %d; each round makes at least one run", n, o.Rule.MaxReps)
				}
			}
			if s := c.String("min-time"); s != "auto" {
				if _, err := parseMinTime(s, ""); err != nil {
					return err
				}
			}
			for _, d := range strings.Split(c.String("cuda-lib-path"), ":") {
				// a folder that is not there would be searched silently
				// (the not-found message lists only those that are)
				if st, err := os.Stat(d); d != "" && (err != nil || !st.IsDir()) {
					return cli.Exit(fmt.Sprintf("profile: --cuda-lib-path: %s is not a folder: give the folders that hold libcuda.so.1, libcudnn.so.9 and libcublasLt, colon-separated", d), 2)
				}
			}
			stderr := c.App.ErrWriter
			out := c.String("out")
			// what --out replaces is said once every flag has been checked
			// (it was said before a refused --min-time)
			var replaces strings.Builder
			if out != "" {
				// its folder is made once the backend has opened (no
				// empty folder left where it cannot)
				if err := profileOut(&replaces, "--out", out, net.Name, false); err != nil {
					return fmt.Errorf("profile: %w", err)
				}
			}
			b, why, err := profileBackends(c.String("cuda-lib-path"), c.Bool("cold-cache"), c.Bool("unheld")).Open(c.String("backend"))
			if err != nil {
				return err
			}
			dev := b.Device()
			if dev.Predictor == "cpu" && o.Precision != dnn.FP32 && o.Precision != dnn.TF32 {
				return fmt.Errorf("profile: --precision %s: the %s backend computes in fp32 only (tf32 runs as fp32), so "+
					"every pass would be unsupported; profile fp32 on the CPU, or %s on a GPU (--backend cuda)", o.Precision, b.Name(), o.Precision)
			}
			fmt.Fprintf(stderr, "%s: %s\n", why, dev.Name)
			if b.Name() == "cpu" && c.String("backend") == "auto" {
				// (a reviewer's find: the short line dropped how to get the
				// libraries, and what the fallback's timings are)
				fmt.Fprintln(stderr, "note: the pure-Go kernels time no framework's: PyTorch runs oneDNN and OpenBLAS, 11–14× faster on GEMMs here; "+
					"install them (Debian/Ubuntu: apt-get install libdnnl-dev libopenblas-dev libopenblas0-openmp) for profiles that describe PyTorch (wb profile --backend onednn says why it did not open)")
			}
			if out == "" {
				// the default path names the device and backend: checked
				// once they are known, before anything is measured
				if out, err = profiler.DefaultPath(dev.Name, b.Name(), net.Name, o); err != nil {
					return fmt.Errorf("%w; or name the CSV with --out", err)
				}
				if err := profileOut(&replaces, "the default path", out, net.Name, true); err != nil {
					where := "the user cache folder's wb"
					if d := os.Getenv("WB_CACHE"); d != "" {
						where = "$WB_CACHE (" + d + ")"
					}
					return fmt.Errorf("profile: %w (the default path is under %s: set WB_CACHE to a folder wb can write, or name the CSV with --out)", err, where)
				}
			} else if err := writableOut("--out", out, true, true); err != nil {
				return fmt.Errorf("profile: %w", err)
			}
			kind := b.Name() // the CPU's defaults for every backend on the CPU
			if dev.Predictor == "cpu" {
				kind = "cpu"
			}
			if o.Rounds, err = parseRounds(c.String("rounds"), kind); err != nil {
				return err
			}
			if c.String("rounds") == "auto" {
				o.Rounds = min(o.Rounds, o.Rule.MaxReps)
			}
			if o.Rounds > o.Rule.MaxReps {
				return fmt.Errorf("--rounds %d: more than --max-reps %d; each round makes at least one run", o.Rounds, o.Rule.MaxReps)
			}
			o.Seed = c.Uint64("seed")
			o.Iteration = c.Bool("iteration")
			if o.Rule.MinTime, err = parseMinTime(c.String("min-time"), kind); err != nil {
				return err
			}
			if o.Rule.MaxTime > 0 && o.Rule.MinTime > o.Rule.MaxTime/2 && c.String("min-time") == "auto" {
				// the default within the time given, with room to converge
				// (the warm-up counts against --max-time, not towards it)
				o.Rule.MinTime = o.Rule.MaxTime / 2
			}
			if o.Rule.MaxTime > 0 && o.Rule.MinTime > o.Rule.MaxTime {
				return cli.Exit(fmt.Sprintf("profile: --min-time %s is more than --max-time %s: a pass's runs stop at the most; give a --min-time within it", o.Rule.MinTime, o.Rule.MaxTime), 2)
			}
			io.WriteString(stderr, replaces.String())

			var notes []string
			if c.Bool("gate") && dev.Predictor == "cpu" {
				if pr, ok := b.(interface{ Probe() (time.Duration, error) }); ok {
					o.Gate = &profiler.Gate{Probe: pr.Probe}
				} else {
					note := "gate: the " + b.Name() + " backend has no probe; measurements are not held back while the machine runs slow (oneDNN's backend has one)"
					fmt.Fprintln(stderr, note)
					notes = append(notes, note)
				}
			}
			for _, note := range gpuFlagNotes(b.Name(), dev, c.Bool("cold-cache"), c.Bool("unheld"), c.IsSet("cuda-lib-path")) {
				fmt.Fprintln(stderr, note)
				notes = append(notes, note)
			}
			if t := dev.Versions[cuda.VersionTiming]; t != "" && t != cuda.TimingHeld {
				// a GPU's runs timed unheld: each one's time may hold the host's queueing
				note := "timing: " + t + "; a small pass's time may hold the host's cost of queueing it"
				fmt.Fprintln(stderr, note)
				notes = append(notes, note)
			}
			if f := dev.Versions[cuda.VersionFill]; f != "" && f != cuda.FillRandom {
				// a GPU's buffers held a constant: tensor cores multiply it
				// with less power, so faster under a power cap, than random data
				note := "fill: " + f + "; tensor-core products may time faster than on PyTorch's random inputs"
				fmt.Fprintln(stderr, note)
				notes = append(notes, note)
			}
			if note := threadingNote(dev.Versions["openblas_threading"], onednn.SystemBLAS()); note != "" {
				fmt.Fprintln(stderr, note)
				notes = append(notes, note)
			}
			mon, note, closeNVML := nvml.ForProfile(nvml.Open, dev)
			defer closeNVML()
			o.Monitor = mon
			fmt.Fprintln(stderr, note)
			notes = append(notes, note)
			if v := os.Getenv("OMP_NUM_THREADS"); v != "" && dev.Predictor == "cpu" && v != fmt.Sprint(runtime.GOMAXPROCS(0)) {
				// the CPU backends run GOMAXPROCS threads, OpenMP's team
				// included: a user matching a framework's threads would
				// otherwise profile another count without a word
				note := fmt.Sprintf("note: OMP_NUM_THREADS=%s is not read: wb's CPU backends run as many threads as GOMAXPROCS (%d); set GOMAXPROCS=%s to profile on %s",
					v, runtime.GOMAXPROCS(0), v, v)
				fmt.Fprintln(stderr, note)
				notes = append(notes, strings.TrimPrefix(note, "note: "))
			}
			if cores := cpu.Cores(); dev.Predictor == "cpu" && os.Getenv("GOMAXPROCS") == "" && os.Getenv("OMP_NUM_THREADS") == "" && runtime.GOMAXPROCS(0) > cores {
				// PyTorch's default intra-op threads on x86 are the
				// physical cores (cpuinfo's), not the logical CPUs (a
				// reviewer's reading)
				note := fmt.Sprintf("note: profiling on %d threads, the logical CPUs; PyTorch runs on %d by default here, the physical cores: set GOMAXPROCS=%d to profile as it runs",
					runtime.GOMAXPROCS(0), cores, cores)
				fmt.Fprintln(stderr, note)
				notes = append(notes, strings.TrimPrefix(note, "note: "))
			}
			var measured *predictor.Device
			var machine *profiler.Machine
			mm, ok := b.(profiler.MachineMeter)
			if !ok && dev.Predictor == "cpu" && onednn.CanMeasure() {
				// the pure-Go backend measures nothing of its own: the
				// same FMA chains, on its workers, so that its rows are
				// predicted from the machine measured, as oneDNN's are
				mm, ok = onednn.Meter(runtime.GOMAXPROCS(0)), true
			}
			if ok && dev.Predictor == "cpu" {
				m, load, err := measureMachine(c.Context, mm)
				if c.Context.Err() != nil {
					// (the measurement runs to its end: a second and a half)
					return fmt.Errorf("profile interrupted while measuring the machine, before any layer: nothing written: %w", c.Context.Err())
				}
				if err == nil {
					d := measuredCPU(m)
					m.LLCBytes = d.CacheBytes // read from sysfs with the rest of the spec
					measured = &d
				}
				note := machineNote(m, err)
				fmt.Fprintln(stderr, note)
				notes = append(notes, note)
				if err == nil && load >= profiler.OthersThreshold {
					note := fmt.Sprintf("warning: other processes took %.1f of wb's CPUs on average while the machine was measured, in each of %d tries a second apart: its peak and bandwidth may read low, and every row's predicted_s (what wb train learns against) with them; profile again on an idle machine", load, machineTries)
					fmt.Fprintln(stderr, note)
					notes = append(notes, strings.TrimPrefix(note, "warning: "))
				}
				if err == nil {
					machine = &m
					if note := blasNote(m, dev.Versions["openblas_core"]); note != "" {
						fmt.Fprintln(stderr, note)
						notes = append(notes, note)
					}
				}
			}
			if o.Predict, err = analytical(dev.Predictor, measured); err != nil {
				note := "no analytical prediction: " + err.Error()
				fmt.Fprintln(stderr, note)
				notes = append(notes, note)
			}
			o.CacheDisturbed = c.Bool("cache-disturbed")
			if !c.Bool("no-cache") {
				dir, err := profiler.DefaultCacheDir()
				if err == nil {
					o.Cache, err = profiler.OpenCache(dir)
				}
				if err != nil {
					return err
				}
			}
			if !c.Bool("quiet") {
				f, ok := stderr.(*os.File)
				prog := newProfileProgress(stderr, ok && term.IsTerminal(int(f.Fd())))
				o.Progress = prog.row
				o.RoundProgress = prog.round
				o.IterationsAhead = prog.iterationsAhead
				o.IterationProgress = prog.iteration
				defer prog.finish()
			}

			o.Machine = machine // kept with each measurement cached
			p, runErr := profiler.Run(c.Context, b, net, o)
			if p == nil {
				return runErr
			}
			p.Meta.WB = versionString()
			if b.Name() == "cuda" {
				// rows whose routine is not PyTorch's (cuDNN's batch norm
				// where PyTorch runs its own kernels)
				notes = append(notes, cuda.PyTorchNotes(net, o.Precision)...)
			}
			p.Meta.Notes = append(notes, p.Meta.Notes...)
			p.Meta.Machine = machine
			for _, it := range p.Meta.Iterations {
				fmt.Fprintln(stderr, "whole iteration: "+it.String())
			}
			if runErr != nil && noRowMeasured(p) {
				// nothing to keep (rows skipped for want of work are no
				// measurement: a reviewer's find), and an earlier
				// interrupted profile may hold rows: left as it is
				return fmt.Errorf("%w; no row measured: nothing written", runErr)
			}
			if runErr != nil {
				// an interrupted profile replaces nothing: its rows are of
				// the rounds it finished, and wb train refuses it
				partial := interruptedPath(out)
				if _, err := replaceableProfile(partial); err != nil {
					// a file put there while the profile ran: the rows
					// beside it
					if keep, ok := besideFree(partial); ok && profiler.Write(keep, p) == nil {
						return fmt.Errorf("%w; %s: %w (it was put there while the profile ran): wrote the %d rows measured so far to %s", runErr, partial, err, len(p.Records), keep)
					}
					return errors.Join(runErr, fmt.Errorf("%s: %w; the rows measured are not written", partial, err))
				}
				if err := profiler.Write(partial, p); err != nil {
					return errors.Join(runErr, err)
				}
				return fmt.Errorf("%w; wrote the %d rows measured so far to %s (not to %s, which an interrupted profile does not replace; wb train refuses it)",
					runErr, len(p.Records), partial, out)
			}
			if why := nothingMeasured(p); why != "" {
				return cli.Exit("profile: "+why+"; nothing written", 1)
			}
			if err := writeProfileOut(out, p); err != nil {
				return err
			}
			// a row kept as measured that reading refuses (a time of 0): said
			// now, not first by wb train
			for i := range p.Records {
				if err := p.Records[i].Validate(); err != nil {
					r := &p.Records[i]
					fmt.Fprintf(stderr, "warning: %s:%d: %s %s batch %d: %v: wb train and evaluate refuse this profile at that line; profile it again (or that layer alone)\n",
						out, i+2, r.Layer, r.Pass, r.Batch, err)
				}
			}
			return printProfile(c.App.Writer, p, out, c.Int("top"))
		},
	}
}

// gpuFlagNotes are the notes on the GPU's flags (--cold-cache, --unheld,
// --cuda-lib-path) given to the backend named backend on dev: what
// --cold-cache did, and, on a backend that runs on the CPU, that each of
// them does nothing there.
func gpuFlagNotes(backend string, dev profiler.DeviceInfo, coldCache, unheld, cudaLibPath bool) []string {
	var notes []string
	if coldCache {
		note := "cold cache: " + dev.Versions["cold_cache"]
		if dev.Versions["cold_cache"] == "" {
			note = "cold cache: the " + backend + " backend does not flush caches; measured warm"
		}
		notes = append(notes, note)
	}
	if dev.Predictor != "cpu" {
		return notes
	}
	if unheld {
		notes = append(notes, "unheld: the "+backend+" backend runs on the CPU, where no stream is held; --unheld does nothing there")
	}
	if cudaLibPath {
		notes = append(notes, "cuda-lib-path: the "+backend+" backend runs on the CPU and loads no CUDA library; --cuda-lib-path does nothing there")
	}
	return notes
}

// writeProfileOut writes a finished profile to out, checked again as it
// was before the profile ran: a file of the user's may have been put
// there meanwhile, minutes perhaps (it was replaced without a word: a
// reviewer's find). Such a file is left as it is, and the profile written
// beside it, to NAME.new.csv where nothing is there.
func writeProfileOut(out string, p *profiler.Profile) error {
	if _, err := replaceableProfile(out); err != nil {
		if keep, ok := besideFree(out); ok && profiler.Write(keep, p) == nil {
			return fmt.Errorf("--out %s: %w (it was put there while the profile ran); the profile is in %s instead", out, err, keep)
		}
		return fmt.Errorf("--out %s: %w (it was put there while the profile ran); nothing written", out, err)
	}
	return profiler.Write(out, p)
}

// besideFree is the name a profile meant for path is written to where a
// file of the user's took path while it ran: NAME.new.csv, or
// NAME.new.2.csv, .3 ... where that is taken, the first where nothing is
// there (neither the name nor its sidecar's): an earlier fallback's
// profile is kept too (measured minutes had been thrown away where one
// was there, and then replaced: reviewers' finds); ok false past 100
// names.
func besideFree(path string) (string, bool) {
	stem := strings.TrimSuffix(path, filepath.Ext(path)) + ".new"
	for n := 1; n <= 100; n++ {
		keep := stem + ".csv"
		if n > 1 {
			keep = fmt.Sprintf("%s.%d.csv", stem, n)
		}
		free := true
		for _, f := range []string{keep, profiler.SidecarPath(keep)} {
			if _, err := os.Lstat(f); !errors.Is(err, fs.ErrNotExist) {
				free = false
			}
		}
		if free {
			return keep, true
		}
	}
	return "", false
}

// noRowMeasured reports whether p holds no measured row (rows skipped for
// want of work are no measurement).
func noRowMeasured(p *profiler.Profile) bool {
	return !slices.ContainsFunc(p.Records, func(r profiler.Record) bool { return r.Status == profiler.OK })
}

// machineTries is how often wb profile measures the machine while other
// processes take its CPUs (profiler.OthersThreshold or more) before it goes
// ahead with the least disturbed try, warned of.
const machineTries = 3

// measureMachine measures the machine's fp32 peak (mm) and memory
// bandwidth, and how many of wb's CPUs other processes took meanwhile
// (0 where /proc cannot tell): measured again, a second later, up to
// machineTries times while others take profiler.OthersThreshold or more,
// the least disturbed try kept. A burst of load there read the peak and
// the bandwidth low and skewed every row's prediction by up to 2.4×,
// unseen (a reviewer's find: a busy loop for 1.8 s at the start).
func measureMachine(ctx context.Context, mm profiler.MachineMeter) (profiler.Machine, float64, error) {
	var best profiler.Machine
	bestLoad := math.Inf(1)
	for try := 0; try < machineTries && ctx.Err() == nil; try++ {
		if try > 0 {
			select {
			case <-time.After(time.Second):
			case <-ctx.Done():
				continue
			}
		}
		var m profiler.Machine
		var err error
		load, ok := profiler.OthersDuring(func() {
			if m, err = mm.MeasureMachine(); err == nil {
				m.MemBandwidth = predictor.MeasureMemBandwidth(300 * time.Millisecond)
			}
		})
		if err != nil {
			return m, 0, err // the machine cannot be measured: said so
		}
		if !ok {
			load = 0 // not judged: taken as it is
		}
		if load < bestLoad {
			best, bestLoad = m, load
		}
		if load < profiler.OthersThreshold {
			break
		}
	}
	if math.IsInf(bestLoad, 1) {
		bestLoad = 0 // interrupted before a try: the caller says so
	}
	return best, bestLoad, nil
}

// profileOut checks, before anything is measured, that the profile can be
// written at out (flag: "--out", or "the default path", as errors name it) and replaces nothing
// but a wb profile: out must end in .csv; out and its interrupted twin
// (NAME.interrupted.csv, written on Ctrl-C) must each be absent or a wb
// profile (a profile header and its sidecar), and no sidecar path
// (FILE.csv.json) a folder or a JSON file that is not a profile's sidecar;
// the folder is made where missing when mkdir says so (else, where it
// exists, checked writable). A profile of model, or of another,
// already at out is replaced once this one is written, which it says on w
// (naming the other model).
func profileOut(w io.Writer, flag, out, model string, mkdir bool) error {
	// before writableOut, which makes the folder
	if err := wantExt(flag, out, ".csv", "a profile"); err != nil {
		return err
	}
	for _, p := range []string{out, interruptedPath(out)} {
		old, err := replaceableProfile(p)
		if err != nil {
			return fmt.Errorf("%s %s: %w", flag, out, err)
		}
		if old == nil || p != out {
			continue // an earlier interrupted profile is replaced without a word, as Ctrl-C writes it
		}
		when := ""
		if !old.Start.IsZero() {
			when = ", measured " + old.Start.Format("2006-01-02 15:04")
		}
		if old.Model != model {
			fmt.Fprintf(w, "note: %s holds a profile of another model, %s%s: it is replaced by this profile of %s when this one is written\n", out, old.Model, when, model)
		} else {
			fmt.Fprintf(w, "note: %s holds an earlier profile of %s%s: it is replaced when this one is written\n", out, model, when)
		}
	}
	if !mkdir {
		if di, err := os.Stat(filepath.Dir(out)); err != nil || !di.IsDir() {
			return nil // made, and checked, once the backend has opened
		}
	}
	return writableOut(flag, out, true, mkdir)
}

// replaceableProfile says whether a profile may be written at path: nil,
// nil where nothing is there; the sidecar of the wb profile there; an
// error where a file or folder there is not a wb profile's.
func replaceableProfile(path string) (*profiler.Meta, error) {
	side := profiler.SidecarPath(path)
	move := "wb profile replaces only its own profiles: name another --out, or move it away"
	if fi, err := os.Stat(side); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a folder, where the profile's sidecar goes: move it away, or name another --out", side)
	}
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		// no CSV: a sidecar left alone may be replaced only if it is a
		// profile's (a predictor named FILE.csv.json is not)
		if _, err := os.Stat(side); err == nil {
			if m, err := profiler.ReadMeta(path); err != nil || m.Model == "" || m.Device == "" || m.Backend == "" {
				return nil, fmt.Errorf("%s exists and is not a wb profile's sidecar; %s", side, move)
			}
		}
		return nil, nil
	case err != nil:
		return nil, nil // not a file there (a file where its folder goes): writableOut says why
	case fi.IsDir():
		return nil, fmt.Errorf("%s is a folder; name a file", path)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := profiler.CheckHeader(f); err != nil {
		return nil, fmt.Errorf("%s exists and is not a wb profile (its first line is not a profile's header); %s", path, move)
	}
	m, err := profiler.ReadMeta(path)
	if err != nil || m.Model == "" {
		why := "its sidecar names no model"
		if err != nil {
			why = err.Error()
		}
		return nil, fmt.Errorf("%s exists and is not a whole wb profile (%s); %s", path, why, move)
	}
	return m, nil
}

// parseMinTime reads --min-time: a duration, or auto.
func parseMinTime(s, backend string) (time.Duration, error) {
	if s == "auto" {
		return profiler.AutoMinTime(backend), nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("--min-time %q: want auto or a duration such as 200ms", s)
	}
	return d, nil
}

// parseRounds reads --rounds: a count, or auto.
func parseRounds(s, backend string) (int, error) {
	if s == "auto" {
		return profiler.AutoRounds(backend), nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("--rounds %q: want auto or a count of 1 or more", s)
	}
	return n, nil
}

// analytical is the Paleo prediction on the predictor's device called
// name, one GPU, for a profile's rows.
func analytical(name string, measured *predictor.Device) (profiler.Predictor, error) {
	var d *predictor.Device
	if measured != nil {
		d = measured
	} else {
		var err error
		if d, err = predictor.LookupDevice(name); err != nil {
			return nil, err
		}
	}
	return func(n *dnn.Network, batch int, prec dnn.Precision) ([][4]float64, error) {
		p, err := predictor.Predict(n, d, predictor.Options{Batch: batch, Precision: prec, GPUs: 1})
		if err != nil {
			return nil, err
		}
		out := make([][4]float64, len(p.Layers))
		for i, l := range p.Layers {
			out[i] = l.Time
		}
		return out, nil
	}, nil
}

// measuredCPU is the local CPU's device with the measured peak and memory
// bandwidth in place of the clock /proc/cpuinfo happens to show and the
// default bandwidth.
func measuredCPU(m profiler.Machine) predictor.Device {
	spec := predictor.LocalCPUSpec()
	spec.MemBandwidth = m.MemBandwidth
	d := predictor.CPUDevice(spec)
	d.PeakVector = map[predictor.Precision]float64{predictor.FP32: m.PeakFLOPs}
	d.Sources = append([]string{fmt.Sprintf("peak fp32: measured %.4g FLOP/s (%s, %d threads; %s)", m.PeakFLOPs, m.ISA, m.Threads, m.Method)}, d.Sources[1:]...)
	return d
}

// machineNote says what was measured of the processor, or why not.
func machineNote(m profiler.Machine, err error) string {
	if err != nil {
		return "machine: not measured: " + err.Error()
	}
	s := fmt.Sprintf("machine: measured fp32 peak %.1f GFLOP/s (%s FMAs, %d threads)", m.PeakFLOPs/1e9, m.ISA, m.Threads)
	if m.PeakFLOPs256 > 0 {
		s += fmt.Sprintf(", %.1f GFLOP/s with 256-bit FMAs", m.PeakFLOPs256/1e9)
	}
	if m.MemBandwidth > 0 {
		s += fmt.Sprintf("; memory copy %.1f GB/s", m.MemBandwidth/1e9)
	}
	return s
}

// blasNote warns when OpenBLAS runs 256-bit kernels on an AVX-512
// processor (OPENBLAS_CORETYPE=Haswell, or a processor its version does not
// know): its GEMMs then reach at most the 256-bit FMA peak, about half the
// machine's, and a framework run in the same environment does the same.
func blasNote(m profiler.Machine, core string) string {
	if core == "" || m.ISA != "avx512" && m.ISA != "avx2" {
		return ""
	}
	// the width of the kernels OpenBLAS built for each core it names
	var width string
	switch strings.ToLower(core) {
	case "skylakex", "cooperlake", "sapphirerapids":
		return "" // AVX-512's
	case "haswell", "zen", "excavator", "steamroller":
		if m.ISA == "avx2" {
			return ""
		}
		width = "256-bit"
	case "sandybridge", "bulldozer", "piledriver":
		width = "256-bit AVX without FMA"
	case "prescott", "core2", "penryn", "dunnington", "nehalem", "atom", "katmai", "coppermine",
		"northwood", "banias", "opteron", "opteron_sse3", "barcelona", "bobcat", "nano":
		width = "128-bit SSE"
	default:
		return ""
	}
	best := "SkylakeX"
	if m.ISA == "avx2" {
		best = "Haswell"
	}
	why := "OpenBLAS did not recognise the processor; OPENBLAS_CORETYPE=" + best + " chooses the kernels it has (a framework on the same OpenBLAS runs the same kernels as wb unless it is set for both)"
	if v := os.Getenv("OPENBLAS_CORETYPE"); v != "" {
		why = "OPENBLAS_CORETYPE=" + v + " in the environment chose them; unset it, or set it to " + best
	}
	return fmt.Sprintf("openblas: %s kernels (%s) on an %s processor, so GEMMs reach a fraction of its FMA peak (%s)", core, width, strings.ToUpper(m.ISA), why)
}

// threadingNote warns when OpenBLAS runs its own pthreads pool beside
// OpenMP's team (the oneDNN backend's; see onednn.BLASNames): layers timed
// one by one are then unaffected, but a whole iteration, GEMMs and OpenMP
// loops back to back, runs up to twice as long, and so does a framework's
// step in the same environment.
func threadingNote(threading, system string) string {
	switch {
	case threading == "pthreads":
		return "openblas: its pthreads build, whose worker threads spin beside OpenMP's team and slow whole iterations (bert-base's 1.9× on a 2-core VM); " +
			"install its OpenMP build (Debian/Ubuntu: apt-get install libopenblas0-openmp), which wb loads in its place"
	case threading == "openmp" && system == "pthreads":
		// (a reviewer's reading: PyTorch links libopenblas.so.0, which
		// Debian's alternatives point at the pthreads build)
		return "openblas: wb runs its OpenMP build, and libopenblas.so.0, which PyTorch links, is the pthreads build on this machine, " +
			"on which PyTorch's products run slower beside its OpenMP team (a bert-base training step 1.4–2.2 s against 0.55 s on a 2-core VM): " +
			"these rows time PyTorch as it runs on the OpenMP build (make torch-check runs it so; Debian's update-alternatives --config libopenblas.so.0-<arch triplet> makes it the default)"
	}
	return ""
}

// profileProgress shows the profile's progress: one bar over the whole
// job on a terminal (every round, the rows, then the whole iterations),
// whose ETA is the whole profile's; otherwise a line per round start
// with the whole profile's ETA, a line per row measured (not those
// shared, cached or skipped) and one per whole iteration timed.
type profileProgress struct {
	w        io.Writer
	terminal bool
	start    time.Time
	now      func() time.Time         // the clock (time.Now)
	rounds   int                      // 0 until a round starts: one sitting
	ahead    time.Duration            // the whole iterations' estimate (profiler's IterationsAhead)
	spent    time.Duration            // time spent on whole iterations between rounds (RoundReport.Iterations)
	passes   float64                  // the share of the layer passes' measuring done
	bar      *progressbar.ProgressBar // made at the first report
	shown    float64                  // the bar's share so far: it never goes back
	said     time.Time                // when a round's line was last written (not on a terminal)
}

// roundLineEvery is how often, not on a terminal, a round in progress says
// how far it is: a round of a large profile runs for minutes, and a log
// had nothing between its first line and the next round's (a reviewer's
// find: 44 s of a sweep's first round without a word).
const roundLineEvery = 10 * time.Second

// progressUnits is the bar's length: the whole profile.
const progressUnits = 10000

func newProfileProgress(w io.Writer, terminal bool) *profileProgress {
	return &profileProgress{w: w, terminal: terminal, start: time.Now(), now: time.Now}
}

// set moves the bar to frac of the whole profile, never back: an estimate
// of the whole iterations learnt late (at the second round) lowers the
// share of the job done.
func (p *profileProgress) set(frac float64, desc string) {
	frac = max(frac, p.shown)
	p.shown = frac
	if p.bar == nil {
		p.bar = progressbar.NewOptions(progressUnits,
			progressbar.OptionSetWriter(p.w),
			progressbar.OptionSetPredictTime(true),
			progressbar.OptionSetElapsedTime(true),
			progressbar.OptionFullWidth(),
			progressbar.OptionClearOnFinish(),
		)
	}
	// no throttle: a report comes once per layer pass at most, and a new
	// round must show at once
	p.bar.Describe(desc)
	p.bar.Set(int(frac * progressUnits))
}

// whole is the share of the whole profile done, and the time it has left,
// when frac of the layer passes' measuring is done: the passes' time to
// come extrapolated from the time so far, the whole iterations' taken
// from the profiler's estimate.
func (p *profileProgress) whole(frac float64) (float64, time.Duration, bool) {
	el := p.now().Sub(p.start)
	if frac <= 0 {
		return 0, 0, false
	}
	// the passes' pace leaves out the whole iterations timed between
	// rounds: what of them is left is p.ahead
	rows := max(el-p.spent, 0)
	left := time.Duration(float64(rows)*(1-frac)/frac) + p.ahead
	if el+left <= 0 {
		return frac, 0, true
	}
	return float64(el) / float64(el+left), left, true
}

func (p *profileProgress) row(done, total int, r *profiler.Record) {
	frac := float64(done) / float64(max(total, 1))
	if p.rounds > 1 {
		frac = (float64(p.rounds-1) + frac) / float64(p.rounds)
	}
	p.passes = frac
	if p.terminal {
		if f, _, ok := p.whole(frac); ok {
			frac = f
		}
		p.set(frac, fmt.Sprintf("rows of %d", total))
		return
	}
	if r.SharedWith != "" || r.Cached || r.Status == profiler.Skipped {
		return
	}
	status := string(r.Status) + ": " + r.Reason
	if r.Status == profiler.OK {
		ci := "no interval" // one run
		if r.CIRel.OK {
			ci = fmt.Sprintf("±%.1f%%", 100*r.CIRel.V)
		}
		status = fmt.Sprintf("%.4g ms (%d runs, %s, %s)", 1e3*r.Median.V, r.Reps, ci, r.Stop)
		if r.Min.OK {
			status = fmt.Sprintf("%.4g ms, fastest %.4g ms (%d runs, %s, %s)", 1e3*r.Median.V, 1e3*r.Min.V, r.Reps, ci, r.Stop)
		}
	}
	eta := ""
	if _, left, ok := p.whole(frac); ok && p.rounds <= 1 {
		// one sitting: no round lines, so each row says what is left
		eta = fmt.Sprintf(" (%s so far; about %s more)", p.now().Sub(p.start).Round(time.Second), left.Round(time.Second))
	}
	fmt.Fprintf(p.w, "[%d/%d] %s %s batch %d: %s%s\n", done, total, r.Layer, r.Pass, r.Batch, status, eta)
}

// iterationsAhead takes the profiler's estimate of the whole iterations.
func (p *profileProgress) iterationsAhead(d time.Duration) { p.ahead = d }

func (p *profileProgress) round(r profiler.RoundReport) {
	p.rounds = r.Rounds
	p.spent = r.Iterations
	frac := (float64(r.Round-1) + float64(r.Done)/float64(max(r.Total, 1))) / float64(r.Rounds)
	p.passes = frac
	if p.terminal {
		if f, _, ok := p.whole(frac); ok {
			frac = f
		}
		p.set(frac, fmt.Sprintf("round %d/%d", r.Round, r.Rounds))
		return
	}
	if r.Done > 0 {
		if p.now().Sub(p.said) >= roundLineEvery && r.Done < r.Total {
			p.said = p.now()
			eta := ""
			if _, left, ok := p.whole(frac); ok {
				eta = fmt.Sprintf(" (%s so far; about %s more)", p.now().Sub(p.start).Round(time.Second), left.Round(time.Second))
			}
			fmt.Fprintf(p.w, "round %d of %d: %d of %d layer passes%s\n", r.Round, r.Rounds, r.Done, r.Total, eta)
		}
		return
	}
	p.said = p.now()
	what := "every layer pass in a shuffled order"
	if r.Round == r.Rounds {
		what = "every layer pass in order, recording the rows"
	}
	eta := ""
	if _, left, ok := p.whole(frac); ok {
		of := ""
		if p.ahead.Round(time.Second) > 0 {
			of = fmt.Sprintf(", %s of it the whole iterations", p.ahead.Round(time.Second))
		}
		eta = fmt.Sprintf(" (%s so far; about %s more%s)", p.now().Sub(p.start).Round(time.Second), left.Round(time.Second), of)
	}
	fmt.Fprintf(p.w, "round %d of %d: %s%s\n", r.Round, r.Rounds, what, eta)
}

// iteration reports the i-th of n whole iterations starting, with the
// profiler's estimate of the time they have left.
func (p *profileProgress) iteration(batch, i, n int, left time.Duration) {
	p.ahead = left
	el := p.now().Sub(p.start)
	if p.rounds > 1 && p.passes < 1 {
		// in rounds: prepared after the first, timed after each; the
		// passes' rounds to come are still ahead
		f, more, ok := p.whole(p.passes)
		if p.terminal {
			if ok {
				p.set(f, fmt.Sprintf("whole iteration %d/%d prepared", i, n))
			}
			return
		}
		eta := ""
		if ok {
			eta = fmt.Sprintf(" (%s so far; about %s more)", el.Round(time.Second), more.Round(time.Second))
		}
		fmt.Fprintf(p.w, "whole iteration %d of %d (batch %d), prepared, and timed end to end after every round from now on%s\n", i, n, batch, eta)
		return
	}
	if p.terminal {
		frac := 1.0
		if el+left > 0 {
			frac = float64(el) / float64(el+left)
		}
		p.set(frac, fmt.Sprintf("whole iteration %d/%d", i, n))
		return
	}
	fmt.Fprintf(p.w, "whole iteration %d of %d (batch %d), timed end to end (%s so far; about %s more)\n", i, n, batch, el.Round(time.Second), left.Round(time.Second))
}

func (p *profileProgress) finish() {
	if p.bar != nil {
		p.bar.Finish()
	}
}

// printProfile renders a profile: per batch, the longest layers, a line
// per op type and the totals per pass.
func printProfile(w io.Writer, p *profiler.Profile, path string, top int) error {
	m := p.Meta
	ms := func(s float64) string { return fmt.Sprintf("%.3f", 1e3*s) }
	ratio := func(l profiler.Line) string {
		if l.Predicted <= 0 {
			return "-"
		}
		return fmt.Sprintf("%.2f", l.Ratio())
	}
	missing := func(l profiler.Line) string {
		var s string
		for _, x := range []struct {
			n    int
			what string
		}{{l.Unsupported, "unsupported"}, {l.OOM, "oom"}} {
			if x.n > 0 {
				s += fmt.Sprintf(" %d %s", x.n, x.what)
			}
		}
		return s
	}
	for _, s := range profiler.Summarize(p.Records) {
		fmt.Fprintf(w, "\n%s on %s (backend %s), batch %d, %s; predicted on %s\n\n", m.Model, m.Device, m.Backend, s.Batch, m.Options.Precision, m.PredictorDevice)
		tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
		fmt.Fprintln(tw, "layer\top\tmeasured ms\tpredicted ms\tratio\tGFLOP/s\t\t")
		for _, l := range s.Layers[:min(top, len(s.Layers))] {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%.1f\t%s\t\n", l.Name, l.Op, ms(l.Measured), ms(l.Predicted), ratio(l), l.FLOPS()/1e9, missing(l))
		}
		if len(s.Layers) > top {
			fmt.Fprintf(tw, "(%d more)\t\t\t\t\t\t\t\n", len(s.Layers)-top)
		}
		fmt.Fprintln(tw, "\t\t\t\t\t\t\t")
		fmt.Fprintln(tw, "op\tlayer passes\tmeasured ms\tpredicted ms\tratio\tGFLOP/s\t\t")
		for _, l := range s.Ops {
			if l.OK == 0 && l.Unsupported == 0 && l.OOM == 0 && l.Measured == 0 {
				continue // free ops: reshapes, a sweep's sources
			}
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.1f\t%s\t\n", l.Name, l.OK, ms(l.Measured), ms(l.Predicted), ratio(l), l.FLOPS()/1e9, missing(l))
		}
		fmt.Fprintln(tw, "\t\t\t\t\t\t\t")
		fmt.Fprintln(tw, "pass\tlayer passes\tmeasured ms\tpredicted ms\tratio\tGFLOP/s\t\t")
		for _, l := range append(s.Passes, s.Total) {
			fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%s\t%.1f\t%s\t\n", l.Name, l.OK, ms(l.Measured), ms(l.Predicted), ratio(l), l.FLOPS()/1e9, missing(l))
		}
		if err := tw.Flush(); err != nil {
			return err
		}
	}
	c := m.Counts
	fmt.Fprintf(w, "\n%d rows: %d keys measured, %d from the cache, %d rows shared a measurement, %d skipped, %d unsupported, %d out of memory\n",
		c.Rows, c.Measured, c.Cached, c.Shared, c.Skipped, c.Unsupported, c.OOM)
	if c.Budget > 0 {
		fmt.Fprintf(w, "%d of %d measured passes ran out of budget (--max-reps or --max-time) before their median was known to ±2%% or "+
			"before --min-time of runs (see the ci_rel column)\n", c.Budget, c.Converged+c.Budget)
	}
	if g := m.Gate; g != nil {
		fmt.Fprintf(w, "gate: %d probes (fastest %.0f µs); %d measurements waited %.1f s in all for the machine to run at its speed, %d went ahead after 2 s with it still slow\n",
			g.Probes, g.BestProbe*1e6, g.Held, g.Waited, g.Contended)
	}
	if c.CachedElsewhen > 0 {
		fmt.Fprintf(w, "warning: %d of the %d keys taken from the cache were measured while this machine measured otherwise (its threads, FMA width or fp32 peak more than 10%% apart, or not recorded): "+
			"the sidecar records now's figures, their times were not; profile with --no-cache for rows and figures of one sitting\n", c.CachedElsewhen, c.Cached)
	}
	if o := m.Others; o != nil && o.Disturbed() {
		fmt.Fprintln(w, "warning: "+o.String())
	}
	overhead := "no layer pass measured"
	if len(m.Iterations) > 0 {
		overhead += ", whole iterations timed"
	}
	if m.Timing.RunS > 0 {
		overhead = fmt.Sprintf("harness overhead %.1f%%", 100*m.Timing.HarnessOverhead)
	}
	fmt.Fprintf(w, "%.1f s, %s; wrote %s and %s\n", m.Timing.WallS, overhead, path, profiler.SidecarPath(path))
	return nil
}

// nothingMeasured says why no row of p was measured ("" where one was):
// the rows by status, with the first reason of each, and what to do where
// every one ran out of memory (a smaller batch, where one is above 1).
func nothingMeasured(p *profiler.Profile) string {
	if len(p.Records) == 0 || !noRowMeasured(p) {
		return ""
	}
	skipped := 0 // passes with no work, beside those out of memory
	for _, r := range p.Records {
		if r.Status == profiler.Skipped {
			skipped++
		}
	}
	if oom := oomOnly(p); oom > 0 && oom+skipped == len(p.Records) {
		also := ""
		if skipped > 0 {
			also = fmt.Sprintf(", %d skipped: no work", skipped)
		}
		i := slices.IndexFunc(p.Records, func(r profiler.Record) bool { return r.Status == profiler.OOM })
		if slices.ContainsFunc(p.Records, func(r profiler.Record) bool { return r.Status == profiler.OOM && r.Batch > 1 }) {
			return fmt.Sprintf("no layer pass fit in memory (%d out of memory%s): profile a smaller --batch", oom, also)
		}
		return fmt.Sprintf("no layer pass fit in memory (%d out of memory%s, at batch 1: the layers' own buffers; the first: %s)", oom, also, p.Records[i].Reason)
	}
	count := map[profiler.Status]int{}
	first := map[profiler.Status]string{}
	var order []profiler.Status
	for _, r := range p.Records {
		if count[r.Status] == 0 {
			order = append(order, r.Status)
			first[r.Status] = r.Reason
		}
		count[r.Status]++
	}
	parts := make([]string, len(order))
	for i, s := range order {
		parts[i] = fmt.Sprintf("%d %s", count[s], s)
		if first[s] != "" {
			parts[i] += " (" + first[s] + ")"
		}
	}
	return fmt.Sprintf("no layer pass measured of the %d asked for: %s", len(p.Records), strings.Join(parts, ", "))
}

// oomOnly is how many of p's rows ran out of memory where none was
// measured; 0 where one was, or none ran out.
func oomOnly(p *profiler.Profile) int {
	if slices.ContainsFunc(p.Records, func(r profiler.Record) bool { return r.Status == profiler.OK }) {
		return 0
	}
	n := 0
	for i := range p.Records {
		if p.Records[i].Status == profiler.OOM {
			n++
		}
	}
	return n
}

// interruptedPath is where an interrupted profile of path goes: beside it,
// ".interrupted" before its extension.
func interruptedPath(path string) string {
	ext := filepath.Ext(path)
	return strings.TrimSuffix(path, ext) + ".interrupted" + ext
}
