package experiments

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wb-sim/wb/datasets/synthetic"
	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/internal/atomicfile"
	"github.com/wb-sim/wb/internal/buildid"
	"github.com/wb-sim/wb/scheduler"
	"github.com/wb-sim/wb/sharing"
)

// RunOptions tunes how an experiment runs; the zero value runs everything
// on every CPU, without progress output.
type RunOptions struct {
	// Jobs is the number of runs simulated at once; 0 means NumCPU.
	Jobs int
	// Resume keeps the runs already complete in the results directory
	// (for the same config) instead of running them again.
	Resume bool
	// Only, when not nil, runs just these run indices and does not merge
	// the results (a Slurm array task).
	Only []int
	// Progress receives progress: a bar when Terminal, otherwise a line
	// per run. Nil for none.
	Progress io.Writer
	Terminal bool
	// Notes receives what a run says of the user's files whatever the
	// progress shown (an edited copy of the config moved aside); nil for
	// Progress.
	Notes io.Writer
	// Version describes the wb binary, for the manifest.
	Version string
	// Force lets a fresh run replace the results of another config in its
	// results directory (the files wb wrote there, nothing else).
	Force bool
	// checkOnly makes claimDir claim the directory without clearing
	// anything: a config's own results are kept, another's refused even
	// with Force (a Slurm dry run).
	checkOnly bool
}

// Report is what an experiment produced.
type Report struct {
	Dir    string
	Runs   int
	Failed []RunResult
	Files  []string // the merged results and figures
	// Table shows the config's metrics per workload, scheduler and sweep
	// point: the mean and its bootstrap CI (figures.CIName) over the
	// replicas that completed.
	Table string
	// FigureFindings are what the figures' check found, one per line.
	FigureFindings []string
	// Plan is the measured-vs-predicted check of a capacity-planning
	// config's twin workloads; nil without twins.
	Plan *PlanCheck
	// Bands are the noise bands of the workloads with a noisy twin that no
	// measured twin checks (NoiseBands).
	Bands []PlanBand
	// LowerBounds says, one line per zoo model, which predicted run times
	// are lower bounds (RunResult.LowerBounds), where and why.
	LowerBounds []string
	// Outside says, one line per GPU model of the predicted workloads,
	// where its sheet lies outside the GPU op model's training GPUs'
	// sheets, and so where the predictions extrapolate.
	Outside []string
	// RunTimeEstimates says, one line per workload, under which schedulers
	// the user (or model) estimate took jobs' own run times for want of a
	// user estimate (scheduler.Summary.NoUserEstimate).
	RunTimeEstimates []string
	// Dropped says, one line per workload whose trace lost jobs as it was
	// read, how many and why (RunResult.Dropped, DroppedReasons).
	Dropped []string
	// Windows names each workload whose window holds its whole trace, so
	// that every replica runs the same jobs.
	Windows []string
	// Spanning says, one line per workload, how many of its jobs of
	// predicted run times ran on GPUs of more than one node, and how they
	// were timed.
	Spanning []string
	// TraceNotes say, one line per note and the workloads it holds for,
	// how a trace's jobs were timed where the cluster does not
	// (RunResult.Notes).
	TraceNotes []string
}

// Files of an experiment's results directory.
const (
	ManifestFile = "manifest.json"
	ConfigCopy   = "config.yaml"
	// sourceFile holds the absolute path of the config file copied to
	// ConfigCopy, whose relative paths are relative to it.
	sourceFile = "config.source"
	runsDir    = "runs"
)

// ErrRunsFailed is wrapped by the error of an experiment in which some runs
// failed (the others completed and were merged).
var ErrRunsFailed = errors.New("runs failed")

// Run runs the experiment: every run not yet done, in parallel, each
// written to the results directory as it completes; then, unless
// opts.Only is set, the merged result files, the manifest and the figures.
func Run(ctx context.Context, c *Config, opts RunOptions) (*Report, error) {
	if err := c.checkTraces(); err != nil {
		return nil, err
	}
	return c.Kind().Run(ctx, c, opts)
}

// squeueCommand is the squeue a local run asks whether the results
// directory's Slurm array still queues (a test stands in its own).
var squeueCommand = "squeue"

// runQueue runs a queue simulation experiment (see Run).
func (c *Config) runQueue(ctx context.Context, opts RunOptions) (*Report, error) {
	dir := c.OutDir()
	// no other wb writes here meanwhile (a Slurm task shares the
	// directory with its array's other tasks)
	lk, err := lockDir(dir, opts.Only != nil)
	if err != nil {
		return nil, err
	}
	defer lk.unlock()
	runs := c.Runs()
	todo := runs
	if opts.Only != nil {
		todo = nil
		for _, i := range opts.Only {
			if i < 0 || i >= len(runs) {
				return nil, fmt.Errorf("run index %d: the config has runs 0 to %d", i, len(runs)-1)
			}
			todo = append(todo, runs[i])
		}
	}
	// a run here while a Slurm array submitted here queues would rewrite
	// what its tasks write (a task is a --run-index run: it goes on)
	if opts.Only == nil {
		if err := stillQueued(ctx, squeueCommand, dir); err != nil {
			return nil, err
		}
	}
	// a directory the claim would refuse is refused before the reads
	if _, _, err := c.checkDir(dir, opts); err != nil {
		return nil, err
	}
	// --resume runs those not kept alone: found once, before the claim,
	// which leaves a config's own stored runs as they are
	var kept string // what --resume kept, said once the directory is claimed
	if opts.Resume {
		left, because := c.runsLeft(dir, todo)
		kept = fmt.Sprintf("resume: %d of %d runs kept, %d to run%s\n", len(todo)-len(left), len(todo), len(left), because)
		todo = left
	}
	// in a local run every workload the runs read is read once before the
	// directory is claimed: a trace that cannot be read, or a gpu_models
	// entry no job of it asks for, is refused with nothing written, where
	// every run of it failed alike after the directory was claimed (a
	// reviewer's find); the held-out predictor some need is trained first,
	// said so. A Slurm task (--run-index) records its run's failure, as
	// the collect reports it.
	if err := c.prepareHeldOut(ctx, todo, opts.Resume, opts.Progress); err != nil {
		return nil, err
	}
	ws := &workloads{c: c, m: map[[2]int]*loaded{}}
	if opts.Only == nil {
		if err := ws.preload(ctx, todo); err != nil {
			return nil, err
		}
	}
	if ctx.Err() != nil {
		// (nothing claimed, nothing run: the directory is as it was)
		if opts.Resume {
			return nil, interrupted{"interrupted before any run began: the runs kept are kept; run again with --resume to finish", ctx.Err()}
		}
		return nil, interrupted{"interrupted before any run began: nothing written; run again to start", ctx.Err()}
	}
	// the directory is claimed once the request is known to be good
	if err := c.claimDir(dir, opts); err != nil {
		return nil, err
	}
	if opts.Resume && opts.Progress != nil {
		// what --resume kept, even where nothing is left to run, and why
		// the others are run (it said 0 of 2 kept, no more: a reviewer's
		// find)
		fmt.Fprint(opts.Progress, kept)
	}
	start := time.Now()
	if err := c.execute(ctx, dir, todo, opts, ws); err != nil {
		return nil, err
	}
	if opts.Only != nil {
		rep := &Report{Dir: dir, Runs: len(todo)}
		for _, k := range todo {
			// a run that failed is stored as failed: said, so that a Slurm
			// array task fails with it
			if r, err := c.readRun(dir, k.Index); err == nil && r.Status != "ok" {
				rep.Failed = append(rep.Failed, r.RunResult)
			}
		}
		return rep, nil
	}
	defer sayInterrupted(ctx, opts.Progress, "\ninterrupted: writing the merged results and figures of the runs, all complete (seconds); interrupt again to stop at once")()
	return c.merge(dir, start, opts.Version)
}

// sayInterrupted prints msg on progress (nil: nowhere) if ctx is done
// before the returned stop is called: work that goes on after a first
// interrupt says so, and what a second does.
func sayInterrupted(ctx context.Context, progress io.Writer, msg string) (stop func()) {
	if progress == nil {
		return func() {}
	}
	done := make(chan struct{})
	said := make(chan struct{})
	go func() {
		defer close(said)
		select {
		case <-ctx.Done():
			fmt.Fprintln(progress, msg)
		case <-done:
		}
	}()
	return func() { close(done); <-said }
}

// runPath is the file of run i: a line of JSON (its RunResult), then its
// rows of jobs.csv and of timeseries.csv, as many bytes of each as the JSON
// says. One file per run, written at once, is the run's completion.
func runPath(dir string, i int) string {
	return filepath.Join(dir, runsDir, fmt.Sprintf("%06d.run", i))
}

// storedRun is a run read back from its file.
type storedRun struct {
	RunResult
	jobs, series []byte
}

// runsLeft is what --resume runs of todo: the runs not stored complete in
// dir, and why, as " (2 not run yet; 1 failed)" ("" where none is left).
func (c *Config) runsLeft(dir string, todo []RunKey) (left []RunKey, because string) {
	why := map[string]int{} // a reason a stored run is not kept → runs
	for _, k := range todo {
		r, err := c.readRun(dir, k.Index)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			why["not run yet"]++
		case err != nil:
			why[staleReason(err)]++
		case r.Status != "ok":
			why["failed"]++
		}
		if err != nil || r.Status != "ok" {
			left = append(left, k)
		}
	}
	var reasons []string
	for _, w := range slices.Sorted(maps.Keys(why)) {
		reasons = append(reasons, fmt.Sprintf("%d %s", why[w], w))
	}
	if len(reasons) > 0 {
		because = " (" + strings.Join(reasons, "; ") + ")"
	}
	return left, because
}

func (c *Config) readRun(dir string, i int) (*storedRun, error) {
	p := runPath(dir, i)
	b, err := os.ReadFile(p)
	if err != nil {
		return nil, err
	}
	head, rest, ok := bytes.Cut(b, []byte("\n"))
	var r storedRun
	if !ok {
		return nil, fmt.Errorf("%s: no header line", p)
	}
	if err := json.Unmarshal(head, &r.RunResult); err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if r.ConfigHash != c.RunHash() {
		return nil, fmt.Errorf("%s: from another config, or from one of its input files as it was before", p)
	}
	if r.Index != i {
		return nil, fmt.Errorf("%s: holds run %d, not run %d (a run file copied or renamed?)", p, r.Index, i)
	}
	if r.Schema != RowSchema {
		return nil, fmt.Errorf("%s: rows in schema %d, not %d (written by an older wb): run again", p, r.Schema, RowSchema)
	}
	if b := BuildID(); r.Build != b {
		return nil, fmt.Errorf("%s: made by another build of wb (%s; this one is %s): run again", p, orNone(r.Build), b)
	}
	if r.JobsBytes < 0 || r.SeriesBytes < 0 || r.JobsBytes+r.SeriesBytes != len(rest) {
		return nil, fmt.Errorf("%s: %d bytes of rows, the header says %d + %d", p, len(rest), r.JobsBytes, r.SeriesBytes)
	}
	r.jobs, r.series = rest[:r.JobsBytes], rest[r.JobsBytes:]
	if r.Sum == "" {
		return nil, fmt.Errorf("%s: no checksum (written by an older wb): run again", p)
	}
	if seal := sealRun(bytes.Replace(head, sumField(r.Sum), sumField(unsealed), 1), r.jobs, r.series); !bytes.Equal(seal, head) {
		return nil, fmt.Errorf("%s: its contents do not match the checksum wb wrote with them (the file changed on disk since): run again", p)
	}
	return &r, nil
}

// unsealed is a run file's checksum field before it is sealed.
var unsealed = strings.Repeat("0", 2*sha256.Size)

// sumField is the checksum field as the run's JSON writes it.
func sumField(sum string) []byte { return []byte(`"sha256":"` + sum + `"`) }

// sealRun returns the run's header with its checksum field (unsealed in
// head) set to the SHA-256 of the file it heads: head, a newline, then
// the rows.
func sealRun(head, jobs, series []byte) []byte {
	h := sha256.New()
	for _, b := range [][]byte{head, {'\n'}, jobs, series} {
		h.Write(b)
	}
	return bytes.Replace(head, sumField(unsealed), sumField(hex.EncodeToString(h.Sum(nil))), 1)
}

// workloads loads each (workload, machine size) once, shared by the runs.
type workloads struct {
	c  *Config
	mu sync.Mutex
	m  map[[2]int]*loaded
}

type loaded struct {
	once sync.Once
	w    *workload.Workload
	pool *planPool // where the cluster left jobs out (planThroughputs)
	err  error
}

// preload reads every trace workload of the runs in todo at each machine
// size they run it at (generated workloads are drawn per run), and
// returns the errors of those that cannot be read, each once; an
// interrupt (ctx) stops it between workloads.
func (ws *workloads) preload(ctx context.Context, todo []RunKey) error {
	var errs []error
	seen := map[[2]int]bool{}
	for _, k := range todo {
		if ctx.Err() != nil {
			return nil // (the caller says it was interrupted)
		}
		key := [2]int{k.Workload, k.Procs}
		if seen[key] || ws.c.Workloads[k.Workload].Synthetic != nil {
			continue
		}
		seen[key] = true
		if _, _, err := ws.get(k.Workload, k.Procs, nil); err != nil && !slices.ContainsFunc(errs, func(e error) bool { return e.Error() == err.Error() }) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

func (ws *workloads) get(i, procs int, r *rand.Rand) (*workload.Workload, *planPool, error) {
	if p := ws.c.Workloads[i].Synthetic; p != nil {
		// Generated anew for every run, from the replica's stream.
		params := *p
		if procs > 0 {
			params.Procs = procs
		}
		jobs, err := synthetic.Generate(params, r)
		if err != nil {
			return nil, nil, err
		}
		return &workload.Workload{Name: "synthetic", Format: "synthetic", Jobs: jobs, Cluster: scheduler.NewPool("synthetic", params.Procs)}, nil, nil
	}
	ws.mu.Lock()
	l := ws.m[[2]int{i, procs}]
	if l == nil {
		l = &loaded{}
		ws.m[[2]int{i, procs}] = l
	}
	ws.mu.Unlock()
	l.once.Do(func() {
		o := ws.c.workloadOptions(i)
		if procs > 0 {
			o.Procs = procs
		}
		l.w, l.err = workload.Load(o)
		if l.err != nil && ws.c.Workloads[i].Trace != "" {
			// every run of the workload fails alike: said where the
			// config names the trace (its file's name: a run's error is
			// the same in every checkout), and how it was read
			field := fmt.Sprintf("workloads[%d].trace", i)
			format, _ := workload.TraceFormat(ws.c.resolve(ws.c.Workloads[i].Trace))
			// (the config as the user named it: a Slurm task reads the
			// results directory's copy, whose source is the config)
			if errors.Is(l.err, workload.ErrModelMap) {
				field = fmt.Sprintf("workloads[%d].gpu_models", i)
				l.err = fmt.Errorf("%s: %s: %w", ws.c.atIn(filepath.Base(ws.c.path), field), field, l.err)
			} else {
				l.err = fmt.Errorf("%s: %s, read as %s trace: %w", ws.c.atIn(filepath.Base(ws.c.path), field), field, article(cmp.Or(format, "?")), l.err)
			}
		}
		if l.err == nil {
			w := &ws.c.Workloads[i]
			specs := make(map[string]string, len(w.GPUSpecs))
			for name, path := range w.GPUSpecs {
				specs[name] = ws.c.sheetPath(path)
			}
			l.pool, l.err = planThroughputs(l.w, w.Throughputs, planPrediction{interconnect: w.Interconnect, gbps: w.AllReduceGBps, internode: w.InternodeGBps, gavel: w.AllReduceGavel, heldOut: w.HeldOut}, specs)
		}
		if ref := slices.Max(append([]int{0}, ws.c.Sweep.Procs...)); l.err == nil && l.pool == nil && procs > 0 && procs < ref {
			// a sweep of the machine's size draws every size's window or
			// sample from the trace as its largest size reads it, and
			// leaves out the jobs this size cannot run, so that the sizes
			// run the same stretch of the trace (drawn from the jobs left
			// at each size, the windows of 50 and 100 processors started
			// 115 jobs apart: a reviewer's find); where the largest
			// cannot be read, each size draws from its own
			if full, _, err := ws.get(i, ref, r); err == nil {
				l.pool = sizePool(full.Jobs, l.w.Jobs)
			}
		}
	})
	return l.w, l.pool, l.err
}

// staleReason is the kind of reason readRun refused a stored run for, a
// few words alike for every run it holds for (its message names the file
// and the run).
func staleReason(err error) string {
	msg := err.Error()
	for _, k := range []struct{ has, kind string }{
		{"another build of wb", "made by another build of wb"},
		{"another config", "from another config or its inputs as they were"},
		{"older wb", "written by an older wb"},
		{"checksum", "changed on disk"},
		{"bytes of rows", "changed on disk"},
		{"holds run", "another run's file"},
	} {
		if strings.Contains(msg, k.has) {
			return k.kind
		}
	}
	return "unreadable"
}

// sizePool is the trace as a sweep's largest machine reads it (full),
// each job the machine of a smaller size reads too (sized: a job's
// processors may be read otherwise at another size) in its place, as that
// size read it, and runnable there; nil where a job of sized is not in
// full: then the size draws from its own jobs.
func sizePool(full, sized []scheduler.Job) *planPool {
	at := make(map[int64]int, len(sized))
	for k := range sized {
		at[sized[k].ID] = k
	}
	p := &planPool{jobs: make([]scheduler.Job, len(full)), runnable: make([]bool, len(full))}
	found := 0
	for k := range full {
		p.jobs[k] = full[k]
		if x, ok := at[full[k].ID]; ok {
			p.jobs[k], p.runnable[k] = sized[x], true
			found++
		}
	}
	if found != len(sized) {
		return nil
	}
	return p
}

// execute runs todo on opts.Jobs workers.
func (c *Config) execute(ctx context.Context, dir string, todo []RunKey, opts RunOptions, ws *workloads) error {
	n := opts.Jobs
	if n <= 0 {
		n = runtime.NumCPU()
	}
	prog := newProgress(opts.Progress, opts.Terminal, len(todo))
	shared := c.sharedRuns(todo)
	keys := make(chan RunKey)
	errs := make(chan error, n)
	var wg sync.WaitGroup
	for range min(n, max(len(todo), 1)) {
		wg.Go(func() {
			for k := range keys {
				r := shared.run(c, ws, k)
				if err := c.writeRun(dir, k, r); err != nil {
					errs <- err
					return
				}
				prog.done(c.label(k), r)
			}
		})
	}
	var err error
feed:
	for _, k := range todo {
		select {
		case keys <- k:
		case err = <-errs:
			break feed
		case <-ctx.Done():
			err = ctx.Err()
			break feed
		}
	}
	close(keys)
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-ctx.Done():
		// the runs under way are not cut short: said, so that a user who
		// cannot wait knows a second interrupt stops wb at once
		prog.say("\ninterrupted: finishing the runs under way (each is stored whole when done); interrupt again to stop at once")
		<-done
	}
	prog.finish()
	if err == nil {
		select {
		case err = <-errs:
		default:
		}
	}
	if errors.Is(err, context.Canceled) {
		return interrupted{"interrupted: completed runs are kept; run again with --resume to finish", err}
	}
	return err
}

// interrupted is the error of an experiment cut short: msg says what was
// kept and what to do, and it is context.Canceled to errors.Is, without
// saying so in its words.
type interrupted struct {
	msg   string
	cause error
}

func (e interrupted) Error() string { return e.msg }

func (e interrupted) Unwrap() error { return e.cause }

// simKey is what decides a run's simulation: its RunKey less the index,
// and less σ when the scheduler's estimate does not use it (only the
// noisy estimate does).
type simKey struct {
	workload, scheduler, replica, procs int
	load, sigma                         float64
}

func (c *Config) simKey(k RunKey) simKey {
	sk := simKey{workload: k.Workload, scheduler: k.Scheduler, replica: k.Replica, procs: k.Procs, load: k.Load, sigma: k.Sigma}
	if !c.Schedulers[k.Scheduler].takesSigma() {
		sk.sigma = 0
	}
	return sk
}

// sharedSims runs each distinct simulation of a run list once: runs that
// differ only in a σ their scheduler does not use (prediction.yaml's user,
// history and exact estimates under a σ sweep) take the first one's
// result, which is kept until the last of them has it.
type sharedSims struct {
	mu   sync.Mutex
	sims map[simKey]*sharedSim
}

type sharedSim struct {
	once  sync.Once
	r     *runOutput
	first int // the lowest run index of the group in the whole config
	left  int // runs of the list still to take it
}

func (c *Config) sharedRuns(todo []RunKey) *sharedSims {
	s := &sharedSims{sims: map[simKey]*sharedSim{}}
	for _, k := range todo {
		sk := c.simKey(k)
		if s.sims[sk] == nil {
			s.sims[sk] = &sharedSim{first: -1}
		}
		s.sims[sk].left++
	}
	for _, k := range c.Runs() {
		if g := s.sims[c.simKey(k)]; g != nil && (g.first < 0 || k.Index < g.first) {
			g.first = k.Index
		}
	}
	return s
}

// run gives run k's result: simulated, or the same simulation's result
// relabelled as run k's.
func (s *sharedSims) run(c *Config, ws *workloads, k RunKey) *runOutput {
	sk := c.simKey(k)
	s.mu.Lock()
	g := s.sims[sk]
	s.mu.Unlock()
	if g == nil { // not in the list the runs were counted from
		return c.runOne(ws, k)
	}
	g.once.Do(func() { g.r = c.runOne(ws, k) })
	out := *g.r
	out.Index, out.Label = k.Index, c.label(k)
	if k.Index != g.first {
		first := g.first
		out.SameAs, out.WallMS = &first, 0
	}
	s.mu.Lock()
	if g.left--; g.left == 0 {
		delete(s.sims, sk) // the last run took it
	}
	s.mu.Unlock()
	return &out
}

// asNamed is msg with the workload's input files named as the config
// names them, not as resolved here: a run's error is the same in every
// checkout (summary.csv holds it).
func (c *Config) asNamed(w int, msg string) string {
	wc, o := &c.Workloads[w], c.workloadOptions(w)
	if wc.Synthetic == nil && stripFormat(o.Trace) != stripFormat(wc.Trace) {
		msg = strings.ReplaceAll(msg, stripFormat(o.Trace), stripFormat(wc.Trace))
	}
	if o.Cluster != "" && stripFormat(o.Cluster) != stripFormat(wc.Cluster) {
		msg = strings.ReplaceAll(msg, stripFormat(o.Cluster), stripFormat(wc.Cluster))
	}
	return msg
}

// runOne simulates one run; a failure or a panic is recorded in the result.
func (c *Config) runOne(ws *workloads, k RunKey) (r *runOutput) {
	start := time.Now()
	r = &runOutput{RunResult: RunResult{Index: k.Index, ConfigHash: c.RunHash(), Label: c.label(k), Seed: c.Seed, Schema: RowSchema, Build: BuildID()}}
	defer func() {
		if p := recover(); p != nil {
			r.Status, r.Error = "failed", fmt.Sprintf("panic: %v", p)
			r.Stack = string(debug.Stack())
			r.res = nil
		}
		r.WallMS = float64(time.Since(start).Microseconds()) / 1000
	}()
	rng := rand.New(rand.NewPCG(c.Seed, uint64(k.Replica)))
	w, pool, err := ws.get(k.Workload, k.Procs, rng)
	if err != nil {
		r.Status, r.Error = "failed", c.asNamed(k.Workload, err.Error())
		return r
	}
	wc := &c.Workloads[k.Workload]
	r.Notes = w.Notes
	// what the trace lost as it was read, said of a failed run too (a run
	// whose every job its cluster cannot run had left_out > 0 beside
	// dropped 0, where left_out's jobs are counted in dropped)
	r.Dropped, r.DroppedReasons, r.Skipped = w.Dropped.Total(), w.Dropped.String(), w.Skipped
	jobs, first, left := runJobs(w.Jobs, pool, wc, k.Load, rng)
	if r.LeftOut = left; left > 0 && len(jobs) == 0 {
		r.Status, r.Error = "failed", fmt.Sprintf("%s cannot run any of the run's %d jobs (%s): the run has none", w.Cluster.Name, left, w.Dropped)
		return r
	}
	if wc.Throughputs == ThroughputsPredicted {
		r.LowerBounds = lowerBounds(jobs)
	}
	if c.Schedulers[k.Scheduler].Sharing != "" {
		c.runSharing(r, w, jobs, k, rng)
		r.WindowStart = first
		if r.Status == "ok" && r.Summary.Completed == 0 && len(jobs) > 0 {
			r.Status, r.Error = "failed", NoneCompleted(w.Cluster.Name, len(jobs), &r.Summary)
		}
		if r.Status == "ok" && wc.priced() { // (the cluster's GPUs for the run's makespan, as a queue's)
			r.GPUs, r.Cost = clusterGPUs(w.Cluster), cost(w.Cluster, &r.Summary, wc.priceOf)
		}
		return r
	}
	sched, err := Parts().Build(c.runSpec(k))
	if err != nil {
		r.Status, r.Error = "failed", err.Error()
		return r
	}
	res, err := scheduler.Simulate(w.Cluster, jobs, sched)
	if err != nil {
		r.Status, r.Error = "failed", err.Error()
		if pp := (*scheduler.PartPanic)(nil); errors.As(err, &pp) {
			r.Stack = string(pp.Stack) // (as a panic's)
		}
		return r
	}
	if res.Summary.Completed == 0 && len(jobs) > 0 {
		r.Status, r.Error = "failed", NoneCompleted(w.Cluster.Name, len(jobs), &res.Summary)
		return r
	}
	r.Status, r.res = "ok", res
	if wc.Throughputs == ThroughputsPredicted && !wc.AllReduceGavel { // (Gavel's links span its servers)
		r.Spanning, r.Split = spannedNodes(res, w.Cluster)
	}
	r.WindowStart, r.Jobs, r.Dropped, r.DroppedReasons, r.Skipped = first, len(jobs), w.Dropped.Total(), w.Dropped.String(), w.Skipped
	r.SkippedFirst = firstSkipped(w)
	r.Procs, r.NoMem, r.NoGPU = poolProcs(w.Cluster), noMem(w.Cluster), noGPU(w.Cluster)
	r.Summary = res.Summary
	if wc.priced() {
		r.GPUs, r.Cost = clusterGPUs(w.Cluster), cost(w.Cluster, &res.Summary, wc.priceOf)
	}
	return r
}

type runOutput struct {
	RunResult
	res *scheduler.Result
	slo []sharing.JobResult // a sharing run's jobs, in res.Jobs' order
}

// writeRun stores one run's results in its file (see runPath). Run files
// are not synced to disk one by one (a run is cheap to redo); the merged
// files are.
func (c *Config) writeRun(dir string, k RunKey, r *runOutput) error {
	var jobs, series bytes.Buffer
	if r.res != nil && c.keepJobs(k) {
		if err := c.writeJobRows(&jobs, k, r.res, r.slo); err != nil {
			return err
		}
	}
	if pts := c.seriesPoints(); r.res != nil && pts > 0 {
		if err := c.writeSeriesRows(&series, k, r.res, pts); err != nil {
			return err
		}
	}
	r.JobsBytes, r.SeriesBytes = jobs.Len(), series.Len()
	r.Sum = unsealed
	head, err := json.Marshal(&r.RunResult)
	if err != nil {
		return err
	}
	head = sealRun(head, jobs.Bytes(), series.Bytes())
	return atomicfile.WriteUnsynced(runPath(dir, k.Index), func(w io.Writer) error {
		for _, b := range [][]byte{head, {'\n'}, jobs.Bytes(), series.Bytes()} {
			if _, err := w.Write(b); err != nil {
				return err
			}
		}
		return nil
	})
}

func (c *Config) keepJobs(k RunKey) bool {
	switch c.Outputs.Jobs {
	case "all":
		return true
	case "none":
		return false
	}
	return k.Replica == 0
}

func (c *Config) seriesPoints() int {
	switch p := c.Outputs.TimeseriesPoints; {
	case p < 0:
		return 0
	case p == 0:
		return 100
	default:
		return p
	}
}

// Collect merges the runs stored in an experiment's results directory (by
// Slurm array tasks, say) into the result files, manifest and figures, as a
// local run does. Every run must be complete.
func Collect(ctx context.Context, dir, version string) (*Report, error) {
	c, err := loadStored(dir)
	if err != nil {
		return nil, err
	}
	lk, err := lockDir(dir, false)
	if err != nil {
		return nil, err
	}
	defer lk.unlock()
	c.Out = dir
	// a kind whose runs are not stored one by one has none to collect (an
	// inflation replay's: collect said its runs were not complete)
	if err := c.Kind().Array(c); err != nil {
		return nil, fmt.Errorf("%s: nothing to collect: %w, which writes its results when it ends (wb plot %s redraws the figures of those there; to make them, run the experiment)", dir, err, shq(dir))
	}
	return c.merge(dir, time.Time{}, version)
}

// merge writes summary.csv, jobs.csv, timeseries.csv, the manifest and the
// figures from the stored runs, in run order.
func (c *Config) merge(dir string, start time.Time, version string) (*Report, error) {
	runs := c.Runs()
	results := make([]*storedRun, len(runs))
	var missing []int
	var why error // the first stored run that cannot be merged, when one is there
	for i := range runs {
		r, err := c.readRun(dir, i)
		if err != nil {
			missing = append(missing, i)
			if why == nil && !errors.Is(err, fs.ErrNotExist) {
				why = err
			}
			continue
		}
		results[i] = r
	}
	if len(missing) > 0 {
		// the file that is the config as run: its own, else the results'
		// copy (one edited or moved since, --resume from it is refused: a
		// reviewer's find)
		how := "wb experiment CONFIG --out " + shq(dir) + " --resume, CONFIG the config as run: neither its file nor the copy is it now (" + asRunHint(dir) + ")"
		if cfg := configAsRun(dir, c.path); cfg != "" {
			how = "wb experiment " + shq(cfg) + " --out " + shq(dir) + " --resume"
		}
		err := fmt.Errorf("%s: %d of %d runs are not complete (first: %d, %s); run them (%s, with --slurm to submit them) before merging",
			dir, len(missing), len(runs), missing[0], c.label(runs[missing[0]]), how)
		if why != nil {
			err = fmt.Errorf("%w (%v)", err, why)
		}
		return nil, err
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
	err := write(SummaryFile, func(w io.Writer) error {
		if err := writeHeader(w, c.summaryColumns()); err != nil {
			return err
		}
		for i, k := range runs {
			if err := c.writeSummaryRow(w, k, &results[i].RunResult); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	concat := func(name string, cols []string, rows func(*storedRun) []byte) error {
		return write(name, func(w io.Writer) error {
			if err := writeHeader(w, cols); err != nil {
				return err
			}
			for _, r := range results {
				if _, err := w.Write(rows(r)); err != nil {
					return err
				}
			}
			return nil
		})
	}
	if err := concat(JobsFile, c.jobColumns(), func(r *storedRun) []byte { return r.jobs }); err != nil {
		return nil, err
	}
	if err := concat(SeriesFile, seriesColumns, func(r *storedRun) []byte { return r.series }); err != nil {
		return nil, err
	}
	for _, r := range results {
		if r.Status != "ok" {
			rep.Failed = append(rep.Failed, r.RunResult)
		}
	}
	if err := write(ManifestFile, func(w io.Writer) error { return c.writeManifest(w, results, start, version) }); err != nil {
		return nil, err
	}
	rep.Table = c.metricsTable(runs, results)
	rep.LowerBounds = c.lowerBoundNotes(runs, results)
	rep.Outside = c.outsideNotes()
	rep.RunTimeEstimates = c.runTimeEstimateNotes(runs, results)
	rep.Dropped = c.droppedNotes(runs, results)
	rep.Windows = c.windowNotes(runs, results)
	rep.Spanning = c.spanningNotes(runs, results)
	rep.TraceNotes = c.traceNotes(runs, results)
	if rep.Plan, err = c.CheckPlan(dir); err != nil {
		return rep, err
	}
	if rep.Bands, err = c.NoiseBands(dir); err != nil {
		return rep, err
	}
	figs, findings, err := c.DrawFigures(dir)
	rep.Files = append(rep.Files, figs...)
	rep.FigureFindings = findings
	if err != nil {
		return rep, err
	}
	if len(rep.Failed) > 0 {
		return rep, fmt.Errorf("%d of %d runs failed (first: %s: %s): %w", len(rep.Failed), len(runs), rep.Failed[0].Label, rep.Failed[0].Error, ErrRunsFailed)
	}
	return rep, nil
}

// Manifest records what produced an experiment's results.
type Manifest struct {
	Name        string            `json:"name"`
	Description string            `json:"description,omitempty"`
	Config      string            `json:"config"`
	ConfigHash  string            `json:"config_hash"`
	WB          string            `json:"wb"`
	Build       string            `json:"build"` // BuildID: the wb that made the runs
	Go          string            `json:"go"`
	Seed        uint64            `json:"seed"`
	Replicas    int               `json:"replicas"`
	Streams     string            `json:"streams"`
	Inputs      map[string]string `json:"inputs"` // path → sha256
	Start       string            `json:"start,omitempty"`
	End         string            `json:"end"`
	Runs        []ManifestRun     `json:"runs"`
}

// ManifestRun is one run's line of the manifest.
type ManifestRun struct {
	Index  int     `json:"index"`
	Label  string  `json:"label"`
	Status string  `json:"status"`
	WallMS float64 `json:"wall_ms"`
}

func (c *Config) writeManifest(w io.Writer, results []*storedRun, start time.Time, version string) error {
	m := Manifest{
		Name: c.Name, Description: c.Description, Config: string(c.raw), ConfigHash: c.Hash(),
		WB: version, Build: BuildID(), Go: runtime.Version(), Seed: c.Seed, Replicas: c.ReplicaCount(),
		Streams: "replica r draws from rand.NewPCG(seed, r)",
		Inputs:  map[string]string{}, End: time.Now().UTC().Format(time.RFC3339),
	}
	if !start.IsZero() {
		m.Start = start.UTC().Format(time.RFC3339)
	}
	// Inputs are keyed as the config names them, hashed where they are.
	c.eachInput(func(named, path string) {
		if h, err := FileHash(path); err == nil {
			m.Inputs[named] = h
		}
	})
	for _, r := range results {
		m.Runs = append(m.Runs, ManifestRun{Index: r.Index, Label: r.Label, Status: r.Status, WallMS: r.WallMS})
	}
	e := json.NewEncoder(w)
	e.SetIndent("", "  ")
	return e.Encode(&m)
}

func stripFormat(spec string) string {
	if f, p, ok := bytes.Cut([]byte(spec), []byte(":")); ok && len(f) > 0 && !bytes.ContainsAny(f, `/\.`) {
		return string(p)
	}
	return spec
}

// FileHash is the SHA-256 of the file at path, in hex: what the manifest
// and a run's config hash record of each input, and what a command's
// --out list records of each file it wrote.
func FileHash(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Plot redraws an experiment's figures from the result files in dir,
// without simulating, using the config stored there; it returns the files
// written and what the figures' check found.
func Plot(dir string) ([]string, []string, error) {
	c, err := loadStored(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, fmt.Errorf("%w (is %s the results directory of wb experiment?)", err, dir)
	}
	if err != nil {
		return nil, nil, err
	}
	c.Out = dir
	lk, err := lockDir(dir, false)
	if err != nil {
		return nil, nil, err
	}
	defer lk.unlock()
	if err := c.sameRunsAsManifest(dir); err != nil {
		return nil, nil, err
	}
	return c.Kind().Plot(c, dir)
}

// sameRunsAsManifest refuses a config copy whose runs' definitions (the
// workloads, schedulers, sweep, replicas, seed, inflation and sharing
// sections) are not those of the config the runs were made with, as the
// manifest recorded it: a scheduler's definition changed under its name,
// or a sweep value edited, would have its figures label runs that never
// ran so. The figures' and outputs' sections may be edited to redraw. A
// results directory without a manifest (runs never finished) is not
// checked.
func (c *Config) sameRunsAsManifest(dir string) error {
	b, err := os.ReadFile(filepath.Join(dir, ManifestFile))
	if err != nil {
		return nil
	}
	var m Manifest
	if json.Unmarshal(b, &m) != nil || m.Config == "" {
		return nil
	}
	src := ""
	if s, err := os.ReadFile(filepath.Join(dir, sourceFile)); err == nil {
		src = strings.TrimSpace(string(s))
	}
	orig, err := parseConfig([]byte(m.Config), filepath.Join(dir, ManifestFile), src)
	if err != nil {
		return nil // (a manifest of another wb's format: its runs are checked by summary.csv)
	}
	for _, part := range []struct {
		name      string
		copy, ran any
	}{
		{"workloads", c.Workloads, orig.Workloads}, {"schedulers", c.Schedulers, orig.Schedulers},
		{"sweep", c.Sweep, orig.Sweep}, {"replicas", c.ReplicaCount(), orig.ReplicaCount()}, {"seed", c.Seed, orig.Seed},
		{"inflation", c.Inflation, orig.Inflation}, {"sharing", c.Sharing, orig.Sharing},
		// what the result files hold is the runs' too: timeseries.csv's
		// bins were refused as "cut short" (a reviewer's find)
		{"outputs", c.Outputs, orig.Outputs},
	} {
		if !reflect.DeepEqual(part.copy, part.ran) {
			return fmt.Errorf("%s: its %q section differs from that of the config the runs were made with (%s records it): was the config copy (%s) edited since the runs? "+
				"Its figures may be edited to redraw; to run anything else, edit the experiment's config and run it again",
				filepath.Join(dir, ConfigCopy), part.name, filepath.Join(dir, ManifestFile), ConfigCopy)
		}
	}
	return nil
}

// BuildID identifies the running wb (buildid.ID): a run file records it,
// and --resume and merging take only the runs of this build: another
// build (a rebuilt binary, a changed model or constant) may give the same
// config other results.
var BuildID = buildid.ID

// orNone is s, or "none recorded" when it is empty.
func orNone(s string) string {
	if s == "" {
		return "none recorded"
	}
	return s
}

// prepareHeldOut trains the held-out predictor (held_out) before the runs
// that need it, saying so on progress (nil: silently), so that the wait is
// explained and the runs' time left counts the runs alone. An interrupt
// (ctx) returns at once, no run begun, saying what to do (resumed: the
// runs kept are kept by --resume; afresh: nothing was run): the training,
// which cannot be cut short, is left to the process's end.
func (c *Config) prepareHeldOut(ctx context.Context, todo []RunKey, resumed bool, progress io.Writer) error {
	stopped := func() error {
		if resumed {
			return interrupted{"interrupted before any run began: the runs kept are kept; run again with --resume to finish", ctx.Err()}
		}
		return interrupted{"interrupted before any run began: nothing to keep; run again to start", ctx.Err()}
	}
	for _, k := range todo {
		if w := c.Workloads[k.Workload]; w.HeldOut && w.Throughputs == ThroughputsPredicted {
			if progress != nil {
				fmt.Fprintln(progress, "held_out: training the GPU op model without each Gavel GPU's chip and fitting Gavel's constants (about 11 s) ...")
			}
			if ctx.Err() != nil {
				return stopped()
			}
			done, train := make(chan error, 1), trainHeldOut
			go func() {
				_, err := train()
				done <- err
			}()
			select {
			case err := <-done:
				return err
			case <-ctx.Done():
				return stopped()
			}
		}
	}
	return nil
}

// trainHeldOut is heldOut, a variable so that a test can stand in a
// training that waits.
var trainHeldOut = func() (*heldOutFit, error) { return heldOut() }

// article puts "a" or "an" before a trace format's name as it is said
// ("an openb", "an swf": ess-double-u-eff).
func article(format string) string {
	if format == "swf" || strings.ContainsAny(format[:1], "aeiou") {
		return "an " + format
	}
	return "a " + format
}
