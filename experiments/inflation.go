package experiments

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"
	"time"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/openb"
	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/experiments/figures"
	"github.com/wb-sim/wb/internal/atomicfile"
	"github.com/wb-sim/wb/scheduler"
	"github.com/wb-sim/wb/scheduler/inflation"
)

// InflationConfig makes an experiment the FGD paper's workload-inflation
// replay (package scheduler/inflation) instead of a simulation with
// arrivals and departures: every workload (an openb pod list on an openb
// node list) × scheduler (a placement: the paper's six have a fast path,
// any other of the registry runs through scheduler.Sequence) × seed is
// one run, the pods arriving one at a time until their GPU demand reaches Ratio × the
// cluster's GPUs, never departing.
type InflationConfig struct {
	Ratio    float64  `yaml:"ratio" doc:"GPU demand the pods are inflated (or cut) to, × the cluster's GPUs; default (or 0) 1.3"`
	Seeds    []uint64 `yaml:"seeds" doc:"one run per seed of each workload × scheduler; default (or []) 42 … 51"`
	Coverage float64  `yaml:"coverage" doc:"share of a trace's pods that FGD's typical pod classes cover; default 0.95"`
}

func (ic *InflationConfig) seeds() []uint64 {
	if len(ic.Seeds) > 0 {
		return ic.Seeds
	}
	var s []uint64
	for x := uint64(42); x <= 51; x++ {
		s = append(s, x)
	}
	return s
}

func (ic *InflationConfig) options() inflation.Options {
	return inflation.Options{Ratio: ic.Ratio, Coverage: ic.Coverage, Parts: Parts()}
}

// maxPct is the largest arrived percentage a run reaches.
func (ic *InflationConfig) maxPct() int {
	return int(math.Round(cmp.Or(ic.Ratio, 1.3) * 100))
}

// Result files of an inflation experiment.
const (
	InflationSummaryFile = "summary.csv"
	InflationCurveFile   = "curve.csv"
	InflationFailedFile  = "failed.csv"
)

// validateInflation reports what an inflation experiment cannot use.
func (c *Config) validateInflation(bad func(path, format string, args ...any)) {
	ic := c.Inflation
	if r := ic.Ratio; r != 0 && (!(r > 0) || r > 100) {
		bad("inflation.ratio", "%v: want a positive multiple of the cluster's GPUs, at most 100", r)
	}
	if cv := ic.Coverage; cv != 0 && (!(cv > 0) || cv > 1) {
		bad("inflation.coverage", "%v: want a share in (0, 1]", cv)
	}
	seen := map[uint64]int{}
	for i, s := range ic.Seeds {
		if j, dup := seen[s]; dup {
			bad(fmt.Sprintf("inflation.seeds[%d]", i), "seed %d already at seeds[%d]", s, j)
		}
		seen[s] = i
	}
	for i, w := range c.Workloads {
		p := fmt.Sprintf("workloads[%d]", i)
		if w.Synthetic != nil || w.Window != 0 || w.Procs != 0 || w.GPUType != "" || w.SkipInvalid ||
			w.Sample != 0 || w.ArrivalRate != 0 || w.ArrivalInterval != 0 || w.Throughputs != "" || w.Interconnect != "" || w.AllReduceGBps != 0 || w.AllReduceGavel || w.HeldOut || len(w.GPUSpecs) > 0 || w.Price != 0 || len(w.Prices) > 0 || w.RunNoise != 0 || w.RunNoiseBy != "" || len(w.RunNoiseGPUs) > 0 {
			bad(p, "an inflation experiment takes a trace and a cluster only (no synthetic, window, procs, gpu_type, skip_invalid, sample, arrival_rate, arrival_interval, throughputs, interconnect, allreduce_gbps, allreduce_gavel, held_out, gpu_specs, price, run_noise, run_noise_by)")
		}
		if w.Trace != "" && inflationPods(w.Trace) == "" {
			bad(p+".trace", "%q: an inflation experiment replays openb pod lists (openb:PATH or a file named openb_pod_list_*)", w.Trace)
		}
		if cl := w.Cluster; cl != "" && !workload.IsOpenbCluster(cl) {
			bad(p+".cluster", "%q: an inflation experiment runs on an openb node list (openb, openb-all or openb:PATH)", cl)
		}
	}
	if len(c.Schedulers) > figures.MaxSeries {
		bad("schedulers", "%d schedulers; the figures tell at most %d apart", len(c.Schedulers), figures.MaxSeries)
	}
	for i, s := range c.Schedulers {
		p := fmt.Sprintf("schedulers[%d]", i)
		if s.Placement == "" {
			bad(p+".placement", "required: the placement that places each pod (%s, or another of the registry)", strings.Join(inflation.Policies(), ", "))
		}
		if s.Order != "" || s.Backfill != "" || s.Estimate != "" || s.Sigma != 0 || s.KillAtUserLimit || s.KillFactor != 0 {
			bad(p, "an inflation experiment has no queue, backfill, estimates or kill limits: give a name, a placement (and ga parameters) only")
		}
	}
	unused := func(field string, set bool) {
		if set {
			bad(field, "not used by an inflation experiment (it runs inflation.seeds and writes its own files and figures)")
		}
	}
	unused("replicas", c.Replicas != 0)
	unused("seed", c.Seed != 0)
	unused("sweep", len(c.Sweep.Load)+len(c.Sweep.Procs)+len(c.Sweep.Sigma) > 0)
	unused("metrics", len(c.Metrics) > 0)
	unused("outputs", c.Outputs != (OutputConfig{}))
	unused("figures", len(c.Figures) > 0)
}

// inflationPods is the pod list path of an inflation trace spec, "" when
// it is not an openb pod list.
func inflationPods(spec string) string {
	format, path, ok := strings.Cut(spec, ":")
	if ok && !strings.ContainsAny(format, `/\.`) {
		if format != "openb" {
			return ""
		}
		return path
	}
	if strings.Contains(filepath.Base(spec), "openb_pod_list") {
		return spec
	}
	return ""
}

// infRun is one inflation run, reduced to what the result files hold.
type infRun struct {
	w, s  int
	seed  uint64
	label string
	err   error
	wall  time.Duration

	pods, clones, removed, placed int
	arrived, allocated            int64
	alloc, frag                   []float64 // by arrived percentage; NaN where no event
	classes                       []infClass
}

// infClass is a run's pods of one class (see inflation.ClassName).
type infClass struct {
	name                string
	pods, failed        int
	failedMilli, arrive int64
}

// reduce turns a run's events into its curves and counts.
func reduce(tr *inflation.Trace, r *inflation.Result, maxPct int) *infRun {
	out := &infRun{pods: len(r.Events), clones: r.Clones, removed: r.Removed}
	out.alloc = r.Curve(maxPct, r.AllocPct)
	out.frag = r.Curve(maxPct, r.FragPct)
	byName := map[string]*infClass{}
	var order []string
	for i := range r.Events {
		e := &r.Events[i]
		name := tr.PodClass(e.Pod)
		c := byName[name]
		if c == nil {
			c = &infClass{name: name}
			byName[name] = c
			order = append(order, name)
		}
		c.pods++
		p := &tr.Pods()[e.Pod]
		c.arrive += int64(p.Demand())
		if e.Node < 0 {
			c.failed++
			c.failedMilli += int64(p.Demand())
		} else {
			out.placed++
		}
	}
	slices.SortFunc(order, func(a, b string) int { return cmp.Compare(classRank(a), classRank(b)) })
	for _, n := range order {
		out.classes = append(out.classes, *byName[n])
	}
	if n := len(r.Events); n > 0 {
		out.arrived, out.allocated = int64(r.Events[n-1].Arrived), int64(r.Events[n-1].Allocated)
	}
	return out
}

// classRank orders class names: cpu, share-gpu, 1-gpu, 2-gpu, …
func classRank(name string) int {
	switch name {
	case "cpu":
		return -1
	case "share-gpu":
		return 0
	}
	var k int
	fmt.Sscanf(name, "%d-gpu", &k)
	return k
}

// loadInflation reads workload i's cluster and pods and prepares them.
func (c *Config) loadInflation(i int) (*inflation.Trace, []string, error) {
	w := &c.Workloads[i]
	spec := "openb"
	if w.Cluster != "" {
		spec = c.resolve(w.Cluster)
	}
	cl, files, err := workload.ParseCluster(spec)
	if err != nil {
		return nil, nil, err
	}
	path := inflationPods(c.resolve(w.Trace))
	rows, err := openb.ReadPods(path)
	if err != nil {
		return nil, nil, err
	}
	pods := make([]inflation.Pod, len(rows))
	for k, r := range rows {
		pods[k] = inflation.Pod{Name: r.Name, CPU: scheduler.MilliCPU(r.CPUMilli), Mem: scheduler.MiB(r.MemoryMiB),
			GPUs: r.NumGPU, Milli: scheduler.MilliGPU(r.GPUMilli), Spec: r.GPUSpec}
	}
	tr, err := inflation.Prepare(cl, pods, c.Inflation.options())
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return tr, append(files, path), nil
}

// runInflation runs an inflation experiment: every workload × scheduler ×
// seed, in parallel, then the result files and figures. Runs take well
// under a second each, so the experiment is always run whole (--resume
// and --run-index do not apply).
func (c *Config) runInflation(ctx context.Context, opts RunOptions) (*Report, error) {
	if opts.Only != nil {
		return nil, errors.New("an inflation experiment runs whole, not one run at a time (no --run-index or --slurm)")
	}
	dir := c.OutDir()
	lk, err := lockDir(dir, false)
	if err != nil {
		return nil, err
	}
	defer lk.unlock()
	// the directory checked, the pod lists read and prepared, and only
	// then claimed: a pod list that cannot be replayed (read, or of no GPU
	// demand) is refused with nothing written or cleared, as a queue
	// experiment's traces are
	if _, _, err := c.checkDir(dir, RunOptions{Force: opts.Force}); err != nil {
		return nil, err
	}
	start := time.Now()
	traces := make([]*inflation.Trace, len(c.Workloads))
	inputs := map[string]string{}
	// each file read keyed as the queue kind's manifest keys it: as the
	// config names it, a bundled one under $WB_DATA/ (they were keyed by
	// their absolute paths, which differ from checkout to checkout: a
	// reviewer's find)
	named := map[string]string{}
	c.eachInput(func(n, resolved string) {
		if abs, err := filepath.Abs(resolved); err == nil {
			named[abs] = n
		}
	})
	data, _ := datasets.DataDir()
	for i := range c.Workloads {
		tr, files, err := c.loadInflation(i)
		if err != nil {
			return nil, fmt.Errorf("workloads[%d] (%s): %w", i, c.WorkloadName(i), err)
		}
		traces[i] = tr
		for _, f := range files {
			key := f
			abs, err := filepath.Abs(f)
			if n, ok := named[abs]; err == nil && ok {
				key = n
			} else if rel, err := filepath.Rel(data, abs); err == nil && data != "" && !strings.HasPrefix(rel, "..") {
				key = "$WB_DATA/" + filepath.ToSlash(rel)
			}
			if h, err := FileHash(f); err == nil {
				inputs[key] = h
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return nil, interrupted{"interrupted before any run began: nothing written; run it again", err}
	}
	if err := c.claimDir(dir, RunOptions{Force: opts.Force, Progress: opts.Progress, Notes: opts.Notes}); err != nil {
		return nil, err
	}
	seeds := c.Inflation.seeds()
	maxPct := c.Inflation.maxPct()
	var runs []*infRun
	for w := range c.Workloads {
		for s := range c.Schedulers {
			for _, seed := range seeds {
				runs = append(runs, &infRun{w: w, s: s, seed: seed,
					label: fmt.Sprintf("%s/%s/seed %d", c.WorkloadName(w), c.SchedulerName(s), seed)})
			}
		}
	}
	jobs := opts.Jobs
	if jobs <= 0 {
		jobs = runtime.NumCPU()
	}
	prog := newProgress(opts.Progress, opts.Terminal, len(runs))
	next := make(chan *infRun)
	var wg sync.WaitGroup
	for range min(jobs, len(runs)) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := range next {
				t0 := time.Now()
				s := &c.Schedulers[r.s]
				res, err := traces[r.w].RunSpec(scheduler.Spec{Placement: s.Placement, Seed: r.seed, PlacementArgs: c.spec(r.s).PlacementArgs})
				if err == nil {
					red := reduce(traces[r.w], res, maxPct)
					red.w, red.s, red.seed, red.label = r.w, r.s, r.seed, r.label
					*r = *red
				} else {
					r.err = err
				}
				r.wall = time.Since(t0)
				out := &runOutput{RunResult: RunResult{Label: r.label, Status: "ok", WallMS: float64(r.wall.Microseconds()) / 1000}}
				if r.err != nil {
					out.Status, out.Error = "failed", r.err.Error()
				}
				prog.done(r.label, out)
			}
		}()
	}
	var cancelled error
	for _, r := range runs {
		if err := ctx.Err(); err != nil {
			cancelled = err
			break
		}
		next <- r
	}
	close(next)
	wg.Wait()
	prog.finish()
	if cancelled != nil {
		// a replay's runs take milliseconds and are kept in memory, not
		// stored one by one: nothing is written, nothing to resume
		return nil, interrupted{"interrupted: an inflation replay writes its results when every run is done, so none of this run's were written (any earlier results of this config there are as they were); run it again", cancelled}
	}
	for _, r := range runs {
		if r.err != nil {
			return nil, fmt.Errorf("%s: %w", r.label, r.err)
		}
	}
	if err := clearMerged(dir); err != nil {
		return nil, err
	}
	rep := &Report{Dir: dir, Runs: len(runs)}
	write := func(name string, fill func(io.Writer) error) error {
		p := filepath.Join(dir, name)
		rep.Files = append(rep.Files, p)
		return atomicfile.Write(p, fill)
	}
	if err := write(InflationSummaryFile, func(w io.Writer) error { return c.writeInflationSummary(w, runs, traces) }); err != nil {
		return nil, err
	}
	if err := write(InflationCurveFile, func(w io.Writer) error { return c.writeInflationCurve(w, runs, maxPct) }); err != nil {
		return nil, err
	}
	if err := write(InflationFailedFile, func(w io.Writer) error { return c.writeInflationFailed(w, runs) }); err != nil {
		return nil, err
	}
	if err := write(ManifestFile, func(w io.Writer) error { return c.writeInflationManifest(w, runs, inputs, start, opts.Version) }); err != nil {
		return nil, err
	}
	tab, err := inflationTable(dir, c.Inflation)
	if err != nil {
		return rep, err
	}
	rep.Table = tab
	figs, err := c.drawInflation(dir)
	rep.Files = append(rep.Files, figs...)
	return rep, err
}

// Columns of the inflation result files.
var (
	inflationSummaryColumns = []string{"workload", "scheduler", "placement", "seed", "pods", "clones", "removed", "placed", "failed",
		"gpus", "arrived_gpu_milli", "allocated_gpu_milli", "alloc_pct_100", "alloc_pct_final", "unallocated_gpus_100",
		"frag_pct_100", "frag_gpus_100"}
	inflationCurveColumns  = []string{"workload", "scheduler", "arrived_pct", "alloc_pct", "alloc_pct_ci95", "frag_pct", "frag_pct_ci95", "seeds"}
	inflationFailedColumns = []string{"workload", "scheduler", "seed", "class", "pods", "failed", "arrived_gpu_milli", "failed_gpu_milli"}
)

// at100 is a curve's value at 100% arrived, or at the last percentage
// reached when a run ends below it.
func at100(curve []float64) float64 {
	for x := min(100, len(curve)-1); x >= 0; x-- {
		if !math.IsNaN(curve[x]) {
			return curve[x]
		}
	}
	return math.NaN()
}

// final is a curve's last value.
func final(curve []float64) float64 {
	for x := len(curve) - 1; x >= 0; x-- {
		if !math.IsNaN(curve[x]) {
			return curve[x]
		}
	}
	return math.NaN()
}

func (c *Config) writeInflationSummary(w io.Writer, runs []*infRun, traces []*inflation.Trace) error {
	if err := writeHeader(w, inflationSummaryColumns); err != nil {
		return err
	}
	var l csvLine
	for _, r := range runs {
		gpus := float64(traces[r.w].Capacity()) / float64(scheduler.MilliPerGPU)
		a100, f100 := at100(r.alloc), at100(r.frag)
		l.str(c.WorkloadName(r.w))
		l.str(c.SchedulerName(r.s))
		l.str(c.Schedulers[r.s].Placement)
		l.int(int64(r.seed))
		l.int(int64(r.pods))
		l.int(int64(r.clones))
		l.int(int64(r.removed))
		l.int(int64(r.placed))
		l.int(int64(r.pods - r.placed))
		l.float(gpus)
		l.int(r.arrived)
		l.int(r.allocated)
		l.float(round6(a100))
		l.float(round6(final(r.alloc)))
		l.float(round6((100 - a100) / 100 * gpus))
		l.float(round6(f100))
		l.float(round6(f100 / 100 * gpus))
		if err := l.end(w); err != nil {
			return err
		}
	}
	return nil
}

// round6 keeps six decimals, so that the files do not print the last
// bits of sums whose order is fixed but whose digits mean nothing.
func round6(x float64) float64 { return math.Round(x*1e6) / 1e6 }

func (c *Config) writeInflationCurve(w io.Writer, runs []*infRun, maxPct int) error {
	if err := writeHeader(w, inflationCurveColumns); err != nil {
		return err
	}
	var l csvLine
	for wi := range c.Workloads {
		for si := range c.Schedulers {
			for x := 0; x <= maxPct; x++ {
				var alloc, frag []float64
				for _, r := range runs {
					if r.w == wi && r.s == si && !math.IsNaN(r.alloc[x]) {
						alloc = append(alloc, r.alloc[x])
						frag = append(frag, r.frag[x])
					}
				}
				if len(alloc) == 0 {
					continue
				}
				am, ah := figures.CI95(alloc)
				fm, fh := figures.CI95(frag)
				l.str(c.WorkloadName(wi))
				l.str(c.SchedulerName(si))
				l.int(int64(x))
				l.float(round6(am))
				l.float(round6(ah))
				l.float(round6(fm))
				l.float(round6(fh))
				l.int(int64(len(alloc)))
				if err := l.end(w); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func (c *Config) writeInflationFailed(w io.Writer, runs []*infRun) error {
	if err := writeHeader(w, inflationFailedColumns); err != nil {
		return err
	}
	var l csvLine
	for _, r := range runs {
		for _, k := range r.classes {
			l.str(c.WorkloadName(r.w))
			l.str(c.SchedulerName(r.s))
			l.int(int64(r.seed))
			l.str(k.name)
			l.int(int64(k.pods))
			l.int(int64(k.failed))
			l.int(k.arrive)
			l.int(k.failedMilli)
			if err := l.end(w); err != nil {
				return err
			}
		}
	}
	return nil
}

func (c *Config) writeInflationManifest(w io.Writer, runs []*infRun, inputs map[string]string, start time.Time, version string) error {
	m := Manifest{
		Name: c.Name, Description: c.Description, Config: string(c.raw), ConfigHash: c.Hash(),
		WB: version, Build: BuildID(), Go: runtime.Version(), Replicas: len(c.Inflation.seeds()),
		Streams: fmt.Sprintf("seed s: inflation and node tie-break order from rand.NewPCG(s, 0), random placement from rand.NewPCG(s, %#x)", inflation.RandomStream),
		Inputs:  inputs, Start: start.UTC().Format(time.RFC3339), End: time.Now().UTC().Format(time.RFC3339),
	}
	for i, r := range runs {
		m.Runs = append(m.Runs, ManifestRun{Index: i, Label: r.label, Status: "ok", WallMS: float64(r.wall.Microseconds()) / 1000})
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(&m)
}

// inflationTable is the printed table: per workload and scheduler, the
// means over seeds (± 95% CI half-width) of the allocation at 100% arrived
// and at the end, the unallocated and fragmented GPUs at 100% and the
// failed pods, read back from summary.csv.
func inflationTable(dir string, ic *InflationConfig) (string, error) {
	path := filepath.Join(dir, InflationSummaryFile)
	t, err := readTable(path)
	if err != nil {
		return "", err
	}
	type key struct{ w, s string }
	var keys []key
	vals := map[key]map[string][]float64{}
	cols := []string{"alloc_pct_100", "alloc_pct_final", "unallocated_gpus_100", "frag_gpus_100", "failed"}
	for i, row := range t {
		k := key{row["workload"], row["scheduler"]}
		if vals[k] == nil {
			vals[k] = map[string][]float64{}
			keys = append(keys, k)
		}
		for _, col := range cols {
			v, err := t.float(path, i, col)
			if err != nil {
				return "", err
			}
			vals[k][col] = append(vals[k][col], v)
		}
	}
	var b strings.Builder
	n := 0
	for _, k := range keys {
		n = max(n, len(vals[k]["failed"]))
	}
	if m := ic.maxPct(); m < 100 {
		// at100 takes the curve's last point where it stops short of 100
		fmt.Fprintf(&b, "ratio %v: the pods' demand reaches %d%% of the GPUs, so the @100%% columns (and summary.csv's *_100) hold the curve at %d%%\n",
			ic.Ratio, m, m)
	}
	if n < 2 {
		fmt.Fprintf(&b, "one seed: the values, no interval\n")
	} else {
		fmt.Fprintf(&b, "mean ± the half-width of its 95%% t-interval over the %d seeds\n", n)
	}
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "workload\tscheduler\talloc % @100% arrived\talloc % @end\tunallocated GPUs @100%\tfragmented GPUs @100%\tfailed pods\t")
	for _, k := range keys {
		fmt.Fprintf(tw, "%s\t%s\t", k.w, k.s)
		for _, col := range cols {
			m, h := figures.CI95(vals[k][col])
			if n < 2 {
				fmt.Fprintf(tw, "%.2f\t", m)
				continue
			}
			fmt.Fprintf(tw, "%.2f ± %.2f\t", m, h)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
	return strings.TrimRight(b.String(), "\n"), nil
}

// checkInflationRows refuses result files that are not the config's runs:
// summary.csv must hold one row of each workload, scheduler and seed, and
// curve.csv rows of each workload and scheduler, none of others (a file cut
// short or edited, or the config copy edited since the runs); a figure
// would draw a part of them as the whole, or stop at a NaN.
func (c *Config) checkInflationRows(curvePath string, curve table, sumPath string, sum table) error {
	again := "run the experiment again, or mend the file"
	want := map[[3]string]bool{}
	pairs := map[[2]string]bool{}
	for w := range c.Workloads {
		for s := range c.Schedulers {
			pairs[[2]string{c.WorkloadName(w), c.SchedulerName(s)}] = false
			for _, seed := range c.Inflation.seeds() {
				want[[3]string{c.WorkloadName(w), c.SchedulerName(s), strconv.FormatUint(seed, 10)}] = false
			}
		}
	}
	for i, row := range sum {
		k := [3]string{row["workload"], row["scheduler"], row["seed"]}
		seen, ok := want[k]
		switch {
		case !ok:
			return fmt.Errorf("%s:%d: workload %q, scheduler %q, seed %q: not a run of the config (was the config copy, %s, edited since the runs?); %s", sumPath, i+2, k[0], k[1], k[2], ConfigCopy, again)
		case seen:
			return fmt.Errorf("%s:%d: workload %q, scheduler %q, seed %q again: each run has one row; %s", sumPath, i+2, k[0], k[1], k[2], again)
		}
		want[k] = true
	}
	missing := 0
	var first [3]string
	for w := range c.Workloads {
		for s := range c.Schedulers {
			for _, seed := range c.Inflation.seeds() {
				if k := [3]string{c.WorkloadName(w), c.SchedulerName(s), strconv.FormatUint(seed, 10)}; !want[k] {
					if missing == 0 {
						first = k
					}
					missing++
				}
			}
		}
	}
	if missing > 0 {
		return fmt.Errorf("%s: no row of %d of the config's %d runs (the first: workload %s, scheduler %s, seed %s): the file was cut short or edited; %s",
			sumPath, missing, len(want), first[0], first[1], first[2], again)
	}
	for i, row := range curve {
		k := [2]string{row["workload"], row["scheduler"]}
		if _, ok := pairs[k]; !ok {
			return fmt.Errorf("%s:%d: workload %q, scheduler %q: not one of the config's (was the config copy, %s, edited since the runs?); %s", curvePath, i+2, k[0], k[1], ConfigCopy, again)
		}
		pairs[k] = true
	}
	for w := range c.Workloads {
		for s := range c.Schedulers {
			if k := [2]string{c.WorkloadName(w), c.SchedulerName(s)}; !pairs[k] {
				return fmt.Errorf("%s: no point of workload %s, scheduler %s: the file was cut short or edited; %s", curvePath, k[0], k[1], again)
			}
		}
	}
	return nil
}

// drawInflation draws the paper's figures from curve.csv and summary.csv:
// per workload, the GPU allocation ratio and the fragmented GPUs against
// the arrived workload, and for all workloads the unallocated GPUs at 100%
// arrived, per scheduler.
func (c *Config) drawInflation(dir string) ([]string, error) {
	curvePath, sumPath := filepath.Join(dir, InflationCurveFile), filepath.Join(dir, InflationSummaryFile)
	curve, err := readTable(curvePath)
	if err != nil {
		return nil, err
	}
	sum, err := readTable(sumPath)
	if err != nil {
		return nil, err
	}
	if err := c.checkInflationRows(curvePath, curve, sumPath, sum); err != nil {
		return nil, err
	}
	fdir := filepath.Join(dir, FiguresDir)
	if err := os.MkdirAll(fdir, 0o755); err != nil {
		return nil, err
	}
	// the figures are built, then drawn and recorded as DrawFigures draws
	// its own (drawRecorded): they were never recorded, so taken for the
	// user's and never replaced or removed (a reviewer's find)
	var items []pendingFigure
	render := func(f *figures.Figure, name string) error {
		items = append(items, pendingFigure{label: name, name: name, fig: f})
		return nil
	}
	var written []string
	var errs []error
	for wi := range c.Workloads {
		wn := c.WorkloadName(wi)
		for _, m := range []struct{ col, name, label string }{
			{"alloc_pct", "alloc", "GPU allocation ratio (%)"},
			{"frag_pct", "frag", "fragmented GPUs (% of GPUs)"},
		} {
			f := &figures.Figure{Kind: figures.TimeSeries, XLabel: "arrived workload (% of GPUs)", YLabel: m.label,
				Title: wn, Note: c.curveNote(), YRange: &[2]float64{0, 100}}
			for si := range c.Schedulers {
				sn := c.SchedulerName(si)
				s := figures.Series{Label: sn}
				for i, row := range curve {
					if row["workload"] != wn || row["scheduler"] != sn {
						continue
					}
					x, err1 := curve.float(curvePath, i, "arrived_pct")
					y, err2 := curve.float(curvePath, i, m.col)
					h, err3 := curve.float(curvePath, i, m.col+"_ci95")
					if err := errors.Join(err1, err2, err3); err != nil {
						return written, err
					}
					s.X, s.Y = append(s.X, x), append(s.Y, y)
					s.Lo, s.Hi = append(s.Lo, max(0, y-h)), append(s.Hi, min(100, y+h))
				}
				f.Series = append(f.Series, s)
			}
			f.NoteCoincident()
			if err := render(f, m.name+"-"+slug(wn)); err != nil {
				errs = append(errs, fmt.Errorf("%s-%s: %w", m.name, wn, err))
			}
			if m.name != "alloc" {
				continue
			}
			// The region where the policies part, on its own scale.
			z := *f
			z.Series = nil
			for _, s := range f.Series {
				var zs figures.Series
				zs.Label = s.Label
				for j := range s.X {
					if s.X[j] >= zoomFrom {
						zs.X, zs.Y = append(zs.X, s.X[j]), append(zs.Y, s.Y[j])
						zs.Lo, zs.Hi = append(zs.Lo, s.Lo[j]), append(zs.Hi, s.Hi[j])
					}
				}
				z.Series = append(z.Series, zs)
			}
			if len(z.Series) > 0 && len(z.Series[0].X) > 1 {
				z.Title = wn + fmt.Sprintf(", from %d%% arrived", zoomFrom)
				if err := render(&z, m.name+"-zoom-"+slug(wn)); err != nil {
					errs = append(errs, fmt.Errorf("%s-zoom-%s: %w", m.name, wn, err))
				}
			}
		}
	}
	bar := &figures.Figure{Kind: figures.Bar, YLabel: "unallocated GPUs at 100% arrived", Width: 2 * figures.DefaultWidth,
		Note: seedsNote(len(c.Inflation.seeds())), YRange: &[2]float64{0, math.Inf(1)}}
	for wi := range c.Workloads {
		bar.Categories = append(bar.Categories, c.WorkloadName(wi))
	}
	for si := range c.Schedulers {
		sn := c.SchedulerName(si)
		s := figures.Series{Label: sn}
		for wi := range c.Workloads {
			var vs []float64
			for i, row := range sum {
				if row["workload"] == c.WorkloadName(wi) && row["scheduler"] == sn {
					v, err := sum.float(sumPath, i, "unallocated_gpus_100")
					if err != nil {
						return written, err
					}
					vs = append(vs, v)
				}
			}
			m, lo, hi := figures.MeanCI(vs)
			s.X, s.Y, s.Lo, s.Hi = append(s.X, float64(wi)), append(s.Y, m), append(s.Lo, lo), append(s.Hi, hi)
		}
		bar.Series = append(bar.Series, s)
	}
	if err := render(bar, "unallocated"); err != nil {
		errs = append(errs, fmt.Errorf("unallocated: %w", err))
	}
	written, _, derrs := drawRecorded(fdir, items, len(errs) == 0)
	return written, errors.Join(append(errs, derrs...)...)
}

// zoomFrom is the arrived workload (% of GPUs) from which the zoomed
// allocation figure draws: where the policies part.
const zoomFrom = 80

// curveNote says what an inflation curve is: the mean over the seeds and
// its 95% t-interval, the band (curve.csv holds its half-width).
func (c *Config) curveNote() string {
	if n := len(c.Inflation.seeds()); n > 1 {
		return fmt.Sprintf("mean over %d seeds, band: 95%% CI (t, clipped to 0–100)", n)
	}
	return "one seed"
}

// seedsNote says what a bar over n seeds shows: one seed has no interval.
func seedsNote(n int) string {
	if n < 2 {
		return "one seed: no interval"
	}
	return fmt.Sprintf("mean and %s over %d seeds", figures.CIName(n), n)
}
