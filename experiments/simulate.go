// Package experiments parses and validates experiment configs (YAML), runs
// them (sweep × replicas, in parallel, resumable, or as a Slurm array)
// through a registry of experiment kinds, and writes their CSVs, manifest
// and figures; also wb simulate's single run, whose results are the same
// per-job, per-run and over-time CSV files, and the schedule as SWF.
package experiments

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/wb-sim/wb/datasets/swf"
	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/internal/atomicfile"
	"github.com/wb-sim/wb/scheduler"
)

// SimulateOptions is one simulation: a workload, a scheduler and where its
// results go.
type SimulateOptions struct {
	Workload workload.Options
	Spec     scheduler.Spec
	// Out is the directory the results are written to; empty writes none.
	Out string
	// Stream says whether an SWF trace streams (only when writing to Out).
	Stream Streaming
}

// Outcome is what a simulation produced.
type Outcome struct {
	Workload *workload.Workload
	Result   *scheduler.Result
	Files    []string // written, in order
	// Sample is the jobs the run asked to draw from the trace (0: all).
	Sample int
}

// Result file names.
const (
	JobsFile     = "jobs.csv"
	SummaryFile  = "summary.csv"
	SeriesFile   = "timeseries.csv"
	ScheduleFile = "schedule.swf"
)

// Simulate loads the workload, runs the scheduler on it and writes the
// results to opts.Out.
func Simulate(ctx context.Context, opts SimulateOptions) (*Outcome, error) {
	sched, err := Parts().Build(opts.Spec)
	if err != nil {
		return nil, err
	}
	if opts.Out == "" {
		return simulate(ctx, opts, sched)
	}
	lk, err := lockDir(opts.Out, false)
	if err != nil {
		return nil, err
	}
	defer lk.unlock()
	if err := checkSimulateDir(opts.Out); err != nil {
		return nil, err
	}
	out, err := simulate(ctx, opts, sched)
	if err != nil {
		return nil, err
	}
	return out, markSimulateDir(opts.Out, opts.Workload.Trace)
}

// simulate is Simulate once opts.Out is known to be free to write.
func simulate(ctx context.Context, opts SimulateOptions, sched scheduler.Scheduler) (*Outcome, error) {
	st, err := openStream(opts)
	if err != nil {
		return nil, err
	}
	if st != nil {
		out, err := simulateStream(ctx, opts, st, sched)
		st.Close()
		if !errors.Is(err, workload.ErrNotStreamable) {
			return out, err
		}
		// Found part of the way through: what was simulated is thrown
		// away (no file was committed) and the trace is read whole, under
		// a fresh scheduler (the parts remember what they saw of it: a
		// scheduler is refused a second simulation).
		if sched, err = Parts().Build(opts.Spec); err != nil {
			return nil, err
		}
	}
	w, err := workload.Load(opts.Workload)
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	res, err := scheduler.SimulateContext(ctx, w.Cluster, w.Jobs, sched)
	if err != nil {
		return nil, err
	}
	out := &Outcome{Workload: w, Result: res, Sample: opts.Workload.Sample}
	if opts.Out == "" {
		return out, nil
	}
	if err := atomicfile.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	files := []struct {
		name  string
		write func(io.Writer) error
	}{
		{JobsFile, func(f io.Writer) error { return WriteJobs(f, w, res) }},
		{SummaryFile, func(f io.Writer) error { return WriteSummary(f, []SummaryRow{Summarize(w, res)}) }},
		{SeriesFile, func(f io.Writer) error { return WriteSeries(f, w, res) }},
		{ScheduleFile, func(f io.Writer) error { return WriteSchedule(f, w, res) }},
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	// The files are independent: fill them side by side, then commit them
	// together, so that a failure (a full disk) leaves the earlier results
	// whole, never a mix of this run's files and the last one's.
	tmp := make([]*atomicfile.File, 0, len(files))
	abort := func() {
		for _, f := range tmp {
			f.Abort()
		}
	}
	for _, f := range files {
		p := filepath.Join(opts.Out, f.name)
		t, err := atomicfile.Create(p)
		if err != nil {
			abort()
			return nil, err
		}
		tmp = append(tmp, t)
		out.Files = append(out.Files, p)
	}
	errs := make([]error, len(files))
	var wg sync.WaitGroup
	for i, f := range files {
		wg.Go(func() {
			if err := f.write(tmp[i]); err != nil {
				errs[i] = fmt.Errorf("%s: %w", out.Files[i], err)
			}
		})
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		abort()
		return nil, err
	}
	if err := atomicfile.CommitAll(tmp...); err != nil {
		return nil, err
	}
	return out, nil
}

// WriteSchedule writes the simulated schedule as an SWF trace: submit,
// wait, run and processors from the simulation (CPU cores, rounded up, on a
// cluster of nodes), the other fields from the input trace where
// it was one. Jobs that never ran are left out, as a line of the header
// says; on a pool, the header's MaxProcs is the pool's.
func WriteSchedule(w io.Writer, wl *workload.Workload, r *scheduler.Result) error {
	var header []string
	find := func(int64) *swf.Record { return nil }
	if wl.SWF != nil {
		header = wl.SWF.Header
		find = wl.SWF.Finder()
	}
	e, err := newScheduleEncoder(w, header, wl.Name, r.Scheduler, r.Cluster, wl.SWF != nil)
	if err != nil {
		return err
	}
	base := int64(1) // SWF numbers jobs from 1; another trace's ids are from 0
	var users map[string]int64
	if wl.SWF != nil {
		base = 0
	} else {
		users = map[string]int64{} // another trace's named users, numbered
	}
	for i := range r.Jobs {
		j := &r.Jobs[i]
		if j.Status == scheduler.Unschedulable {
			continue
		}
		if err := scheduleRow(e, j, find(j.ID), base, users); err != nil {
			return err
		}
	}
	return e.Flush()
}

// newScheduleEncoder starts schedule.swf: the input trace's header, then
// wb's lines on what the schedule is.
func newScheduleEncoder(w io.Writer, trace []string, name, sched string, c *scheduler.Cluster, swfIDs bool) (*swf.Encoder, error) {
	// the trace's lines that count or span its log, which this schedule's
	// jobs (a window, a sample, jobs re-timed) need not: left out (a
	// 2,000-job sample's header said MaxJobs 28490: a reviewer's find)
	pool := c.Pool && len(c.Nodes) == 1
	var header, span, size []string // the lines kept; the keys left out
	for _, h := range trace {
		k, _, _ := strings.Cut(strings.TrimLeft(h, " \t;"), ":")
		switch k = strings.TrimSpace(k); {
		case k == "MaxJobs" || k == "MaxRecords" || k == "StartTime" || k == "EndTime":
			span = append(span, k)
		case !pool && (k == "MaxProcs" || k == "MaxNodes"):
			size = append(size, k) // (on nodes the size is the cluster's cores, below)
		default:
			header = append(header, h)
		}
	}
	if len(span) > 0 {
		header = append(header, "; wb: the trace's "+strings.Join(span, ", ")+" are left out: they count and span its log, not this schedule; its other lines are the trace's")
	}
	if len(size) > 0 {
		header = append(header, "; wb: the trace's "+strings.Join(size, ", ")+" are left out: the schedule ran on a cluster of nodes, sized below")
	}
	procs := int64(0)
	if !pool {
		// a cluster of nodes: MaxProcs counts its CPU cores, the unit of
		// field 5 there, so that the schedule reads back as a trace (it
		// had no size: a reviewer's find)
		for _, n := range c.Nodes {
			procs += int64(n.CPU / scheduler.MilliPerCore)
		}
		if procs > 0 {
			header = append(header, fmt.Sprintf("; MaxProcs: %d", procs), "; wb: MaxProcs counts the cluster's CPU cores")
		}
	}
	if !swfIDs {
		header = append(header, "; wb: field 1 is the job's id in jobs.csv + 1 (SWF numbers jobs from 1); field 12 numbers the trace's users in order of first appearance (jobs.csv names them), -1 for none; field 13 (group) is -1")
	}
	if pool {
		// the machine simulated, which --procs may have made another size
		// than the trace's header says: a reader of the schedule sizes it so
		procs = int64(c.Nodes[0].CPU / scheduler.MilliPerCore)
		// the key and its value's first field, as the reader takes it
		// ("100 nodes" says 100; -1 says nothing)
		key := func(h string) (k, v string) {
			k, v, _ = strings.Cut(strings.TrimLeft(h, " \t;"), ":")
			if f := strings.Fields(v); len(f) > 0 && f[0] != "-1" {
				v = f[0]
			} else {
				v = ""
			}
			return strings.TrimSpace(k), v
		}
		// the machine's size as a reader takes it: MaxProcs, else
		// MaxNodes; where the pool is another size, both say the pool's
		// (MaxNodes 100 beside MaxProcs 50 had claimed more nodes than
		// processors)
		size := ""
		for _, h := range header {
			if k, v := key(h); k == "MaxProcs" || (k == "MaxNodes" && size == "") {
				size = v
			}
		}
		if size != "" && size != strconv.FormatInt(procs, 10) {
			for i, h := range header {
				if k, v := key(h); (k == "MaxProcs" || k == "MaxNodes") && v != "" && v != strconv.FormatInt(procs, 10) {
					header[i] = fmt.Sprintf("; %s: %d", k, procs)
					header = append(header, fmt.Sprintf("; wb: %s is the simulated pool's (the trace's header said %s)", k, v))
				}
			}
		}
	}
	header = append(header,
		"; wb: simulated schedule of "+name+" under "+sched+" on "+c.Name,
		"; wb: fields 3 (wait) and 4 (run) are the simulation's; "+unitNote(c),
		"; wb: jobs that never ran (unschedulable; jobs.csv lists them) are left out")
	return swf.NewEncoder(w, header, procs)
}

// scheduleRow writes the record of a job that ran; orig is its record in
// the input trace, or nil.
func scheduleRow(e *swf.Encoder, j *scheduler.JobResult, orig *swf.Record, base int64, users map[string]int64) error {
	// Processors: the pool's, or whole cores (rounded up) on nodes.
	procs := max(1, int((j.CPU+scheduler.MilliPerCore-1)/scheduler.MilliPerCore))
	sj := swf.ScheduledJob{ID: j.ID + base, Submit: j.Submit, Start: j.Start, End: j.End, Procs: procs, Original: orig}
	rec, err := sj.Record()
	if err != nil {
		return err
	}
	// a trace that names its users (pai, pai-sim, openb): numbered from
	// 1 in order of first appearance, so that the schedule read back keeps
	// who submitted what (user-based estimates: -1 for every job made
	// them one user's; a reviewer's find)
	if users != nil && orig == nil && j.User != "" {
		n, ok := users[j.User]
		if !ok {
			n = int64(len(users) + 1)
			users[j.User] = n
		}
		rec.UserID = n
	}
	return e.Encode(&rec)
}

// elsewhere counts the jobs of wl that may run only on GPU models its
// cluster lacks (a request's Models: an openb pod's gpu_spec, a PAI job's
// GPU type, a Gavel job Gavel measured at 0 on the cluster's GPUs), and
// names those models.
func elsewhere(wl *workload.Workload) (int, string) {
	if wl == nil || wl.Cluster == nil {
		return 0, ""
	}
	have := workload.GPUModels(wl.Cluster)
	n := 0
	var want []string
	for i := range wl.Jobs {
		for k := range wl.Jobs[i].Tasks {
			ms := wl.Jobs[i].Tasks[k].Request.Models
			if len(ms) > 0 && !slices.ContainsFunc(ms, func(m string) bool { return slices.Contains(have, strings.ToLower(m)) }) {
				n++
				for _, m := range ms {
					if !slices.Contains(want, m) {
						want = append(want, m)
					}
				}
				break
			}
		}
	}
	slices.Sort(want)
	return n, strings.Join(want, ", ")
}

func unitNote(c *scheduler.Cluster) string {
	if c.Pool {
		return "field 5 counts processors"
	}
	return "field 5 counts CPU cores, rounded up (GPUs are in jobs.csv)"
}

// PrintSummary writes a run's figures as an aligned table.
func PrintSummary(w io.Writer, o *Outcome) error {
	s := Summarize(o.Workload, o.Result)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	row := func(k, format string, v ...any) { fmt.Fprintf(tw, "%s\t"+format+"\n", append([]any{k}, v...)...) }
	row("trace", "%s (%s)", s.Trace, s.Format)
	if c := o.Result.Cluster; c.Pool && len(c.Nodes) == 1 {
		row("cluster", "%s, a pool of %d processors", s.Cluster, c.Nodes[0].CPU/scheduler.MilliPerCore)
	} else {
		row("cluster", "%s", s.Cluster)
	}
	row("scheduler", "%s", o.Result.Scheduler)
	n := &s.Counts
	row("jobs", "%d simulated, %d dropped (%s), %d malformed lines skipped", n.Jobs, n.Dropped, s.DroppedReasons, n.Skipped)
	for _, note := range o.Workload.Notes {
		row("note", "%s", note)
	}
	if o.Sample > 0 && n.Jobs < o.Sample {
		row("note", "--sample %d, but the trace holds %d jobs: the run simulates them all", o.Sample, n.Jobs)
	}
	m := &n.Summary
	if note := runTimeEstimates(s.Estimate, m, 1, false); note != "" && schedulesByEstimate(s.Order, s.Backfill, false) {
		row("estimates", "%s", note)
	}
	row("completed", "%d", m.Completed)
	row("unschedulable", "%d", m.Unschedulable)
	lacking, models := elsewhere(o.Workload)
	if m.Unschedulable > 0 && lacking > 0 {
		why := "their requests name only GPU models it lacks"
		if o.Workload.Format == "gavel" {
			why = "Gavel measured them at 0 steps/s on its GPUs, where they did not fit"
		}
		row("note", "%d of them may run only on GPUs the cluster lacks (%s): %s", lacking, models, why)
	}
	if m.PlacementRefused > 0 && m.Completed > 0 {
		row("note", "%d of them are gangs that first-fit places on the empty cluster and placement %s placed nowhere (one that keeps state or draws may refuse at the end a gang it placed before)",
			m.PlacementRefused, s.Placement)
	}
	if rest := m.Unschedulable - lacking - m.PlacementRefused; rest > 0 && m.Completed > 0 {
		// (with none completed, the note below says it of them all; the
		// jobs themselves are in jobs.csv, which a streamed run does not
		// hold in memory to name here)
		where := ""
		if len(o.Files) > 0 {
			where = ": jobs.csv lists them (status unschedulable)"
		}
		row("note", "%d of them found no placement on the cluster even empty (more cores, memory or GPUs than its nodes hold), or waited at the end behind a gang the placement could not place%s", rest, where)
	}

	row("passed over", "%d jobs more than %d times", m.PassedOver, scheduler.PassedOverLimit)
	if m.Completed == 0 && n.Jobs > 0 {
		row("note", "%s", NoneCompleted(s.Cluster, n.Jobs, m))
	} else {
		row("makespan", "%d s", m.Makespan)
		row("wait", "mean %.1f s, median %.0f s, p95 %.0f s, max %d s", m.MeanWait, m.MedianWait, m.P95Wait, m.MaxWait)
		row("mean JCT", "%.1f s", m.MeanJCT)
		if m.MeanJCTReplicas != m.MeanJCT {
			row("over replicas", "mean JCT %.2f s, wait %.2f s (each job once per replica, as the PAI v2020 simulator's avg_jct)", m.MeanJCTReplicas, m.MeanWaitReplicas)
		}
		row("bounded slowdown", "mean %.3f, max %.1f", m.MeanBSLD, m.MaxBSLD)
		if o.Result.Cluster.Pool {
			row("utilisation", "%.2f%% of processors", 100*m.UtilCPU)
		} else {
			_, mem, gpu := o.Result.Cluster.Capacity()
			switch {
			case gpu == 0 && mem == 0:
				row("utilisation", "CPU %.2f%%", 100*m.UtilCPU)
			case gpu == 0:
				// no GPU to use (it printed GPU 0.00%)
				row("utilisation", "CPU %.2f%%, memory %.2f%%", 100*m.UtilCPU, 100*m.UtilMem)
			case mem == 0:
				row("utilisation", "GPU %.2f%%, CPU %.2f%%", 100*m.UtilGPU, 100*m.UtilCPU)
			default:
				row("utilisation", "GPU %.2f%%, CPU %.2f%%, memory %.2f%%", 100*m.UtilGPU, 100*m.UtilCPU, 100*m.UtilMem)
			}
		}
	}
	if len(o.Files) > 0 {
		row("wrote", "%s", strings.Join(o.Files, ", "))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	return printSkipped(w, o.Workload)
}

// firstSkipped is what was wrong with the first malformed line the
// workload's trace skipped, or "".
func firstSkipped(wl *workload.Workload) string {
	if len(wl.SkipErrors) == 0 {
		return ""
	}
	return fmt.Sprint(wl.SkipErrors[0])
}

// printSkipped lists what was wrong with the malformed lines a trace read
// with skip_invalid left out (the first swf.MaxSkipErrors of them).
func printSkipped(w io.Writer, wl *workload.Workload) error {
	if wl == nil || len(wl.SkipErrors) == 0 {
		return nil
	}
	head := "malformed lines skipped:"
	if wl.Skipped > len(wl.SkipErrors) {
		head = fmt.Sprintf("malformed lines skipped (the first %d of %d):", len(wl.SkipErrors), wl.Skipped)
	}
	if _, err := fmt.Fprintln(w, head); err != nil {
		return err
	}
	for _, e := range wl.SkipErrors {
		if _, err := fmt.Fprintf(w, "  %v\n", e); err != nil {
			return err
		}
	}
	return nil
}

// runTimeEstimates says how many of the jobs the estimate part est gives
// their own run time for want of a user estimate (SWF field 9): the user
// estimate every such job, the model estimate those without a model too
// (m's counts, summed over runs runs; perRun: the note gives means a run);
// "" where est takes none so.
func runTimeEstimates(est string, m *scheduler.Summary, runs int, perRun bool) string {
	var n int
	var what, extra string
	switch est {
	case "", "user":
		n, what = m.NoUserEstimate, "the user estimate takes their run time"
	case "model":
		n, what, extra = m.NoUserEstimateOrModel, "the model estimate falls back to the user's, which takes their run time", " or model"
	}
	have := "jobs have"
	if perRun {
		have = "jobs a run have"
	}
	r := float64(runs)
	if est == "model" && m.NoModel > n && runs >= 1 {
		// jobs of no DL model (an SWF trace's) are estimated as user
		// estimates them, which a user of model should hear
		s := fmt.Sprintf("%s of %s %s no deep-learning model to predict (only Gavel's traces name one): the model estimate takes their user estimate, as user does",
			countText(float64(m.NoModel)/r), countText(float64(m.Jobs)/r), have)
		if n > 0 {
			s += fmt.Sprintf("; %s of them have no user estimate either (SWF field 9, or a trace format without one): their run time, as exact does", countText(float64(n)/r))
		}
		return s
	}
	if n == 0 || runs < 1 {
		return ""
	}
	return fmt.Sprintf("%s of %s %s no user estimate%s (SWF field 9, or a trace format without one): %s, as exact does",
		countText(float64(n)/r), countText(float64(m.Jobs)/r), have, extra, what)
}

// schedulesByEstimate says whether a scheduler of these parts acts on its
// jobs' estimates: SJF's order, EASY's and conservative backfilling's
// reservations, a kill at k × the estimate. FIFO without backfilling, or
// with greedy backfilling, which reserves nothing, only records them.
func schedulesByEstimate(order, backfill string, killFactor bool) bool {
	return order == "sjf" || backfill == "easy" || backfill == "conservative" || killFactor
}

// countText prints a count, or a mean of counts, without an exponent:
// 1234, 4.2.
func countText(v float64) string {
	if v == math.Trunc(v) {
		return strconv.FormatFloat(v, 'f', 0, 64)
	}
	return strconv.FormatFloat(v, 'f', 1, 64)
}

// droppedNotes says, one line per workload whose trace lost jobs or lines
// as it was read, how many and why, from its first run that completed (every
// run of a workload reads the same trace).
func (c *Config) droppedNotes(runs []RunKey, results []*storedRun) []string {
	by := map[string][]int{} // a note's text → its workloads
	for _, i := range traceReads(runs, results) {
		k, r := runs[i], &results[i].RunResult
		if r.Dropped == 0 && r.Skipped == 0 {
			continue
		}
		var parts []string
		if r.Dropped > 0 {
			text := fmt.Sprintf("%d jobs of the trace dropped as it was read", r.Dropped)
			if r.DroppedReasons != "" {
				text += " (" + r.DroppedReasons + ")"
			}
			parts = append(parts, text)
		}
		if r.Skipped > 0 {
			text := fmt.Sprintf("%d malformed lines of the trace skipped", r.Skipped)
			if r.SkippedFirst != "" {
				text += fmt.Sprintf(" (the first: %s; wb simulate --skip-invalid lists the first %d)", r.SkippedFirst, swf.MaxSkipErrors)
			}
			parts = append(parts, text)
		}
		text := strings.Join(parts, ", ")
		if k.Procs > 0 {
			text = fmt.Sprintf("on %d processors, %s", k.Procs, text)
		}
		by[text] = append(by[text], k.Workload)
	}
	// the jobs of each run its cluster cannot run (RunResult.LeftOut)
	// (per machine size where one is swept: each size's window is drawn
	// from the trace as its own machine reads it, and leaves out what
	// that size cannot run)
	type count struct{ left, jobs, runs int }
	type at struct{ workload, procs int }
	left := map[at]*count{}
	for i, k := range runs {
		// (a run all of whose jobs were left out failed, and counts)
		if r := &results[i].RunResult; r.Status == "ok" || r.LeftOut > 0 {
			n := left[at{k.Workload, k.Procs}]
			if n == nil {
				n = &count{}
				left[at{k.Workload, k.Procs}] = n
			}
			n.left, n.jobs, n.runs = n.left+r.LeftOut, n.jobs+r.Jobs+r.LeftOut, n.runs+1
		}
	}
	for a, n := range left {
		if n.left > 0 {
			text := fmt.Sprintf("%s of a run's %s jobs (mean over its runs) left out, as its cluster cannot run them: its metrics are of the jobs it ran, a lighter mix than a cluster that runs them all",
				countText(float64(n.left)/float64(n.runs)), countText(float64(n.jobs)/float64(n.runs)))
			if a.procs > 0 {
				text = fmt.Sprintf("on %d processors, %s", a.procs, text)
			}
			by[text] = append(by[text], a.workload)
		}
	}
	return c.grouped(by)
}

// traceReads is, for each workload and machine size of runs (a trace is
// read once per machine size it is swept over), the index of its first run
// that completed, in the runs' order.
func traceReads(runs []RunKey, results []*storedRun) []int {
	type key struct{ workload, procs int }
	done := map[key]bool{}
	var out []int
	for i, k := range runs {
		if results[i].Status == "ok" && !done[key{k.Workload, k.Procs}] {
			done[key{k.Workload, k.Procs}] = true
			out = append(out, i)
		}
	}
	return out
}

// traceNotes are the runs' trace notes (RunResult.Notes), one line per
// note, led by the workloads it holds for.
func (c *Config) traceNotes(runs []RunKey, results []*storedRun) []string {
	by := map[string][]int{}
	for _, i := range traceReads(runs, results) {
		for _, n := range results[i].Notes {
			if !slices.Contains(by[n], runs[i].Workload) {
				by[n] = append(by[n], runs[i].Workload)
			}
		}
	}
	return c.grouped(by)
}

// grouped is one line per text of by, led by the workloads it holds for
// ("every workload" where it holds for all), sorted.
func (c *Config) grouped(by map[string][]int) []string {
	var lines []string
	for text, ws := range by {
		slices.Sort(ws)
		names := make([]string, len(ws))
		for i, w := range ws {
			names[i] = c.WorkloadName(w)
		}
		who := strings.Join(names, ", ")
		if len(ws) == len(c.Workloads) && len(ws) > 1 {
			who = "every workload"
		}
		lines = append(lines, who+": "+text)
	}
	slices.Sort(lines)
	return lines
}

// windowNotes names, one line per workload, a window (or a sample) that
// holds every job of the trace its runs kept: each replica then runs them
// all, and only what else the seed draws tells the replicas apart.
func (c *Config) windowNotes(runs []RunKey, results []*storedRun) []string {
	var lines []string
	for _, i := range traceReads(runs, results) {
		k, r := runs[i], &results[i].RunResult
		drawn := r.Jobs + r.LeftOut // (the jobs a cluster cannot run were drawn too)
		if wc := &c.Workloads[k.Workload]; wc.Window > 0 && wc.Sample == 0 && drawn < wc.Window {
			on := ""
			if k.Procs > 0 {
				on = fmt.Sprintf(" on %d processors", k.Procs)
			}
			lines = append(lines, fmt.Sprintf("%s: window %d, but the trace holds %d jobs%s: every replica runs them all, from the first", c.WorkloadName(k.Workload), wc.Window, drawn, on))
		}
		if wc := &c.Workloads[k.Workload]; wc.Sample > 0 && drawn < wc.Sample {
			lines = append(lines, fmt.Sprintf("%s: sample %d, but the trace holds %d jobs: every replica runs them all", c.WorkloadName(k.Workload), wc.Sample, drawn))
		}
	}
	slices.Sort(lines)
	return lines
}

// runTimeEstimateNotes says, one line per workload, under which of the
// config's schedulers acting on estimates the user or model estimate took
// jobs' own run times for want of a user estimate, and for how many jobs a
// run (the mean over its runs that completed, those with none counted
// too). Nil where none did.
func (c *Config) runTimeEstimateNotes(runs []RunKey, results []*storedRun) []string {
	type key struct{ workload, scheduler int }
	type sum struct {
		runs int
		m    scheduler.Summary // the counts summed
	}
	by := map[key]*sum{}
	for i, k := range runs {
		r := &results[i].RunResult
		sc := &c.Schedulers[k.Scheduler]
		if r.Status != "ok" || sc.Sharing != "" || !schedulesByEstimate(sc.Order, sc.Backfill, sc.KillFactor > 0) {
			continue
		}
		kk := key{k.Workload, k.Scheduler}
		if by[kk] == nil {
			by[kk] = &sum{}
		}
		s := by[kk]
		s.runs++
		s.m.Jobs += r.Summary.Jobs
		s.m.NoUserEstimate += r.Summary.NoUserEstimate
		s.m.NoUserEstimateOrModel += r.Summary.NoUserEstimateOrModel
		s.m.NoModel += r.Summary.NoModel
	}
	var lines []string
	for w := range c.Workloads {
		var texts []string
		under := map[string][]string{} // a note's text → its schedulers
		for si := range c.Schedulers {
			s := by[key{w, si}]
			if s == nil {
				continue
			}
			text := runTimeEstimates(c.Schedulers[si].Estimate, &s.m, s.runs, true)
			if text == "" {
				continue
			}
			if under[text] == nil {
				texts = append(texts, text)
			}
			under[text] = append(under[text], c.SchedulerName(si))
		}
		for _, text := range texts {
			lines = append(lines, fmt.Sprintf("%s, under %s: %s", c.WorkloadName(w), strings.Join(under[text], ", "), text))
		}
	}
	return lines
}
