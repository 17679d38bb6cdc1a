package experiments

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wb-sim/wb/datasets/gavel"
	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/scheduler"
	"github.com/wb-sim/wb/sharing"
)

// SharingConfig is the GPU-sharing model and SLOs of the schedulers that
// name a sharing policy (package sharing). A field left out takes its
// default; the pointers tell a 0 written from one left out (0 is refused
// where it means nothing, kept where it does: alpha, max_interference,
// reserved_fraction).
type SharingConfig struct {
	Round             float64  `yaml:"round" doc:"seconds between policy rounds (weight updates, re-ordering, triggers), at least 1; default (or 0) 360"`
	MaxPerGPU         int      `yaml:"max_per_gpu" doc:"most jobs sharing one GPU; default (or 0) 2 (Gavel measured pairs)"`
	ShareExponent     *float64 `yaml:"share_exponent" doc:"γ of T_solo(m, s) = T_meas(m) × min(1, 2s)^γ, above 0 and at most 10 (a job on less of a GPU never runs faster); default 1"`
	SLO               string   `yaml:"slo" doc:"completion (a job ends by submit + f × its solo run time) or throughput (once started it trains at ≥ 1/f of its solo throughput on average: ends by start + f × solo run time); default completion"`
	SLOFactor         *float64 `yaml:"slo_factor" doc:"f, at least 1: a job's deadline is submit + f × its solo run time (start + … for throughput SLOs); default 2"`
	CriticalSLOFactor *float64 `yaml:"critical_slo_factor" doc:"the same for critical jobs, at least 1; default 1.5"`
	CriticalFraction  float64  `yaml:"critical_fraction" doc:"probability that a job is critical, drawn per job from the replica's stream; default 0"`
	ReservedFraction  *float64 `yaml:"reserved_fraction" doc:"share of the GPUs (rounded up, at most all but one) the slo policy keeps for critical jobs, in [0, 1); a non-critical gang of more GPUs than the rest has may take them (it could never run otherwise); 0 keeps none; default 0.1 when critical_fraction > 0, else 0"`
	Alpha             *float64 `yaml:"alpha" doc:"α of the goodput weights' update w ← w × exp(α × (slo_target − SLO_actual)); 0 keeps every weight at 1; default 0.5"`
	SLOTarget         *float64 `yaml:"slo_target" doc:"SLO_target of that update, in (0, 1]; default 0.95"`
	MaxInterference   *float64 `yaml:"max_interference" doc:"jct, slo: the most a co-location may slow a job below the pace its share of the GPU gives it, when placing it (slo's later re-split towards a job at risk does not check it); 0: no co-location that slows a job at all; default 0.5"`
	PredictionSigma   float64  `yaml:"prediction_sigma" doc:"σ of the lognormal error of the solo throughputs the policies predict with (one draw per job type, corrected from observed progress); default 0"`
}

// orZero is *p, or 0 (the sharing package's default) where p is nil.
func orZero(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

// SwitchConfig is a policy switch during a run: at a time or on a trigger.
type SwitchConfig struct {
	At    float64 `yaml:"at" doc:"switch at this many seconds after the run's first submit"`
	Below float64 `yaml:"below" doc:"or: switch at the first round where the SLO attainment of the jobs finished so far (20 at least) is below this"`
	To    string  `yaml:"to" doc:"the policy switched to"`
}

// The summary.csv columns of a config with sharing schedulers, after the
// others (empty for the runs of other schedulers).
var sharingMetricColumns = []string{
	"slo_attainment", "critical_slo_attainment", "critical_jobs",
	"goodput", "throughput", "shared_jobs", "policy_switches",
}

// hasSharing reports whether some scheduler names a sharing policy.
func (c *Config) hasSharing() bool {
	return slices.ContainsFunc(c.Schedulers, func(s SchedulerConfig) bool { return s.Sharing != "" })
}

// sloJobColumns follow jobColumns in the jobs.csv of a config with a
// sharing scheduler: per job of a sharing run, whether it was critical,
// its deadline (s, as submit: submit + its SLO factor × its solo run time,
// the estimate column; start + that under slo: throughput), whether it ended by it, and whether it shared a GPU
// at some time; empty for the other schedulers' runs, and for a job that
// never ran but critical and deadline.
var sloJobColumns = []string{"critical", "deadline", "met_slo", "shared"}

// jobColumns are the columns of the experiment's jobs.csv.
func (c *Config) jobColumns() []string {
	if c.hasSharing() {
		return append(slices.Clone(jobColumns), sloJobColumns...)
	}
	return jobColumns
}

// sloCells writes job j's sloJobColumns: from the sharing run's job
// (nil: a run of another scheduler, empty cells).
func sloCells(l *csvLine, j *sharing.JobResult) {
	if j == nil {
		for range sloJobColumns {
			l.sep()
		}
		return
	}
	l.bool(j.Critical)
	// whole seconds, as the job's submit, start and end (met_slo compares
	// the exact times, which can tie once rounded); none for a job of no
	// throughput on the GPU
	if math.IsNaN(float64(j.Deadline)) {
		l.sep()
	} else {
		l.float(math.Round(float64(j.Deadline)))
	}
	if j.Status == sharing.Unschedulable {
		l.sep()
		l.sep()
		return
	}
	l.bool(j.MetSLO)
	l.bool(j.Shared)
}

// summaryColumns are the columns of the experiment's summary.csv.
func (c *Config) summaryColumns() []string {
	cols := experimentSummaryColumns()
	if c.hasSharing() {
		cols = append(cols, sharingMetricColumns...)
	}
	if c.hasPrice() {
		cols = append(cols, planMetricColumns...)
	}
	return cols
}

// writeSharingMetrics writes a run's sharingMetricColumns (empty for a
// run without them).
func writeSharingMetrics(l *csvLine, r *RunResult) {
	for _, col := range sharingMetricColumns {
		if r.Sharing == nil || r.Status != "ok" || (col == "critical_slo_attainment" && r.Sharing.CriticalJobs == 0) {
			l.sep() // (no critical job, no attainment of theirs)
			continue
		}
		v, _ := sharingMetric(r, col)
		l.float(v)
	}
}

// sharingMetric is a sharing column of a run; false for another column.
func sharingMetric(r *RunResult, col string) (float64, bool) {
	m := r.Sharing
	if m == nil {
		m = &sharing.Metrics{}
	}
	switch col {
	case "slo_attainment":
		return m.SLOAttainment, true
	case "critical_slo_attainment":
		return m.CriticalSLO, true
	case "critical_jobs":
		return float64(m.CriticalJobs), true
	case "goodput":
		return m.Goodput, true
	case "throughput":
		return m.Throughput, true
	case "shared_jobs":
		return float64(m.Shared), true
	case "policy_switches":
		return float64(m.PolicySwitches), true
	}
	return 0, false
}

// sharingOptions is scheduler i's sharing options on gpus GPUs.
func (c *Config) sharingOptions(i, gpus int) sharing.Options {
	s := &c.Schedulers[i]
	var sc SharingConfig
	if c.Sharing != nil {
		sc = *c.Sharing
	}
	o := sharing.Options{GPUs: gpus, Policy: s.Sharing, Round: sharing.Seconds(sc.Round), MaxPerGPU: sc.MaxPerGPU,
		SLO: sc.SLO, SLOFactor: orZero(sc.SLOFactor), CriticalSLOFactor: orZero(sc.CriticalSLOFactor), CriticalFraction: sc.CriticalFraction,
		ReservedFraction: sc.ReservedFraction, Alpha: sc.Alpha, SLOTarget: orZero(sc.SLOTarget),
		MaxInterference: sc.MaxInterference, PredictionSigma: sc.PredictionSigma}
	for _, w := range s.Switches {
		o.Switches = append(o.Switches, sharing.Switch{At: sharing.Seconds(w.At), Below: w.Below, To: w.To})
	}
	return o
}

// validateSharing reports the problems of the sharing fields.
func (c *Config) validateSharing(bad func(path, format string, args ...any)) {
	if !c.hasSharing() {
		if c.Sharing != nil {
			bad("sharing", "no scheduler names a sharing policy (schedulers[].sharing)")
		}
		for i, m := range c.Metrics {
			if slices.Contains(sharingMetricColumns, m) {
				bad(fmt.Sprintf("metrics[%d]", i), "%q is a column of sharing schedulers only", m)
			}
		}
		for i, f := range c.Figures {
			if slices.Contains(sharingMetricColumns, f.Metric) && (f.Kind == "bar" || f.Kind == "line") {
				bad(fmt.Sprintf("figures[%d].metric", i), "%q is a column of sharing schedulers only", f.Metric)
			}
		}
		for i, s := range c.Schedulers {
			if len(s.Switches) > 0 {
				bad(fmt.Sprintf("schedulers[%d].switches", i), "only a sharing scheduler switches policies")
			}
		}
		return
	}
	// A 0 written where the sharing package would read it as its default.
	if sc := c.Sharing; sc != nil {
		for _, f := range []struct {
			name string
			v    *float64
			want string
		}{
			{"slo_factor", sc.SLOFactor, "at least 1 (leave it out for 2)"},
			{"critical_slo_factor", sc.CriticalSLOFactor, "at least 1 (leave it out for 1.5)"},
			{"slo_target", sc.SLOTarget, "in (0, 1] (leave it out for 0.95)"},
		} {
			if f.v != nil && *f.v == 0 {
				bad("sharing."+f.name, "0: want %s", f.want)
			}
		}
		if g := sc.ShareExponent; g != nil && !(*g > 0 && *g <= 10) {
			// γ ≤ 0 would run a job on a part of a GPU faster than on all of it
			bad("sharing.share_exponent", "%v: want γ above 0 and at most 10 (leave it out for 1)", *g)
		}
	}
	// The shared fields, once, with a valid policy.
	o := c.sharingOptions(0, 1)
	o.Policy, o.Switches = "exclusive", nil
	if err := o.Validate(); err != nil {
		for _, e := range strings.Split(err.Error(), "\n") {
			field, msg, _ := strings.Cut(e, ": ")
			bad("sharing."+field, "%s", msg)
		}
	}
	for i, s := range c.Schedulers {
		p := fmt.Sprintf("schedulers[%d]", i)
		if s.Sharing == "" {
			if len(s.Switches) > 0 {
				bad(p+".switches", "only a sharing scheduler switches policies")
			}
			continue
		}
		if s.Order != "" || s.Backfill != "" || s.Placement != "" || s.Estimate != "" || s.Sigma != 0 || s.KillAtUserLimit || s.KillFactor != 0 || s.Consolidate || s.hasArgs() {
			bad(p+".sharing", "a sharing scheduler has no order, backfill, placement, consolidate, estimate, sigma, kill or *_args fields")
		}
		if err := c.sharingOptions(i, 1).Validate(); err != nil {
			for _, e := range strings.Split(err.Error(), "\n") {
				field, msg, _ := strings.Cut(e, ": ")
				switch {
				case field == "policy":
					bad(p+".sharing", "%s", msg)
				case strings.HasPrefix(field, "switches"):
					bad(p+"."+field, "%s", msg)
				}
			}
		}
	}
	for i, w := range c.Workloads {
		if w.Synthetic != nil || !(strings.HasPrefix(w.Trace, "gavel:") || strings.Contains(filepath.Base(w.Trace), ".trace")) {
			bad(fmt.Sprintf("workloads[%d].trace", i), "sharing schedulers run Gavel traces (*.trace or gavel:PATH), which measured co-location")
		}
		if w.Throughputs == ThroughputsPredicted {
			bad(fmt.Sprintf("workloads[%d].throughputs", i), "predicted: sharing schedulers time jobs by Gavel's measured throughputs on gpu_type (where co-location was measured), never by predicted ones; run the sharing schedulers in a config of their own")
		}
		if strings.HasPrefix(w.Cluster, "nodes:") || strings.HasPrefix(w.Cluster, "pool:") {
			if cl, _, err := workload.ParseCluster(w.Cluster); err == nil {
				if _, _, g := cl.Capacity(); g == 0 {
					bad(fmt.Sprintf("workloads[%d].cluster", i), "%s", noGPUs(w.Cluster))
				} else if err := oneModel(cl); err != nil {
					bad(fmt.Sprintf("workloads[%d].cluster", i), "%v", err)
				}
			}
		}
	}
}

// gpuModelsNamed is the GPU models cl's nodes name (a pool's GPUs name
// none).
func gpuModelsNamed(cl *scheduler.Cluster) []string {
	return slices.DeleteFunc(workload.GPUModels(cl), func(m string) bool { return m == "" })
}

// oneModel says why cl, a cluster of GPUs of several models, cannot run a
// sharing scheduler: the sharing simulator times jobs on GPUs of one.
func oneModel(cl *scheduler.Cluster) error {
	if models := gpuModelsNamed(cl); len(models) > 1 {
		return fmt.Errorf("cluster %s has GPUs of %d models (%s); the sharing simulator times jobs on GPUs of one: a cluster of one model",
			cl.Name, len(models), strings.Join(models, ", "))
	}
	return nil
}

// runSharing simulates run k of a sharing scheduler on the run's jobs,
// filling r as runOne does.
func (c *Config) runSharing(r *runOutput, w *workload.Workload, jobs []scheduler.Job, k RunKey, rng *rand.Rand) {
	fail := func(err error) { r.Status, r.Error = "failed", err.Error() }
	if w.Format != "gavel" {
		fail(fmt.Errorf("sharing: %s is a %s trace; sharing schedulers run Gavel traces", w.Name, w.Format))
		return
	}
	gpuType := c.Workloads[k.Workload].GPUType
	if gpuType == "" {
		gpuType = "v100"
	}
	tp, _, err := gavel.BundledThroughputs()
	if err != nil {
		fail(err)
		return
	}
	// the jobs run at the throughputs of the cluster's GPUs, as they do
	// under a queue scheduler (a K80 cluster ran them at V100 speed): the
	// sharing simulator models GPUs of one type
	if err := oneModel(w.Cluster); err != nil {
		fail(fmt.Errorf("sharing: %w", err))
		return
	}
	if models := gpuModelsNamed(w.Cluster); len(models) == 1 && tp[models[0]] != nil {
		gpuType = models[0]
	}
	gamma := 0.0
	if c.Sharing != nil {
		gamma = orZero(c.Sharing.ShareExponent)
	}
	model, _, err := sharing.FromGavel(tp, gpuType, gamma)
	if err != nil {
		fail(err)
		return
	}
	_, _, gpuMilli := w.Cluster.Capacity()
	gpus := int(gpuMilli / scheduler.MilliPerGPU)
	if gpus == 0 {
		fail(fmt.Errorf("sharing: cluster %s", noGPUs(w.Cluster.Name))) // (one read from a file)
		return
	}
	sj := make([]sharing.Job, 0, len(jobs))
	byID := make(map[int64]*scheduler.Job, len(jobs))
	for i := range jobs {
		j := &jobs[i]
		n := 1
		if len(j.Tasks) > 0 {
			n = j.Tasks[0].Replicas
		}
		// the simulator shares GPUs alone, holding no cores or memory: a
		// replica no node could hold is refused, not run
		if len(j.Tasks) > 0 && !slices.ContainsFunc(w.Cluster.Nodes, func(nd scheduler.Node) bool {
			return nd.CPU >= j.Tasks[0].Request.CPU && nd.Mem >= j.Tasks[0].Request.Mem
		}) {
			rq := j.Tasks[0].Request
			fail(fmt.Errorf("sharing: job %d: a replica asks for %g cores and %d MiB, more than any node of %s has; the sharing simulator shares GPUs alone and would run it: give the nodes more (nodes:NxG:MODEL:CORES:GIB)",
				j.ID, float64(rq.CPU)/float64(scheduler.MilliPerCore), rq.Mem, w.Cluster.Name))
			return
		}
		// a job Gavel did not measure on the cluster's GPU (at its
		// scale) cannot run there: unschedulable, as under a queue
		// scheduler, where its type's throughputs leave that GPU out
		kind, ok := model.Kind(sharing.KindName(gavel.JobKey{JobType: j.Name, ScaleFactor: n}))
		if !ok {
			kind = sharing.NoKind
		}
		sj = append(sj, sharing.Job{ID: j.ID, Kind: kind, GPUs: n, Submit: sharing.Seconds(j.Submit), Steps: float64(j.Steps)})
		byID[j.ID] = j
	}
	res, err := sharing.Simulate(model, sj, c.sharingOptions(k.Scheduler, gpus), rng)
	if err != nil {
		fail(err)
		return
	}
	r.Status, r.res, r.slo = "ok", sharingResult(w.Cluster, res, byID), res.Jobs // (sharingResult keeps res.Jobs' order)
	r.Jobs, r.Dropped, r.DroppedReasons, r.Skipped = len(jobs), w.Dropped.Total(), w.Dropped.String(), w.Skipped
	r.SkippedFirst = firstSkipped(w)
	r.Summary = r.res.Summary
	m := res.Metrics
	r.Sharing = &m
}

// noGPUs says that cluster, of no GPUs, cannot run sharing schedulers.
func noGPUs(cluster string) string {
	return cluster + " has no GPUs, and sharing schedulers share GPUs: give a cluster of GPUs of one model (nodes:NxG:MODEL)"
}

// sharingResult writes a sharing run as a scheduler result, so that
// jobs.csv, timeseries.csv and their figures read it as any other: times
// rounded to whole seconds; a job's estimate is its solo run time and its
// slowdown max(1, JCT / max(solo run time, 10 s)). The summary's times
// come from the exact (float) ones.
func sharingResult(cl *scheduler.Cluster, res *sharing.Result, jobs map[int64]*scheduler.Job) *scheduler.Result {
	sec := func(t sharing.Seconds) scheduler.Time { return scheduler.Time(math.Round(float64(t))) }
	out := &scheduler.Result{Cluster: cl, Scheduler: "sharing"}
	sm := &out.Summary
	sm.Jobs = len(res.Jobs)
	var waits []float64
	var sumBSLD float64
	for _, j := range res.Jobs {
		src := jobs[j.ID]
		jr := scheduler.JobResult{ID: j.ID, User: src.User, Name: src.Name, Submit: sec(j.Submit), Start: -1, End: -1, Wait: -1,
			Run: src.Run, Estimate: sec(j.SoloTime), Replicas: int32(j.GPUs), Status: scheduler.Done}
		if len(src.Tasks) > 0 {
			jr.CPU = src.Tasks[0].Request.CPU * scheduler.MilliCPU(j.GPUs)
			jr.Mem = src.Tasks[0].Request.Mem * scheduler.MiB(j.GPUs)
		}
		if j.Status == sharing.Unschedulable {
			jr.Status = scheduler.Unschedulable
			sm.Unschedulable++
			out.Jobs = append(out.Jobs, jr)
			continue
		}
		jr.GPUs, jr.GPU = int32(j.GPUs), scheduler.MilliGPU(j.GPUs)*scheduler.MilliPerGPU
		jr.Start, jr.End = sec(j.Start), sec(j.End)
		jr.Wait, jr.Run = jr.Start-jr.Submit, jr.End-jr.Start
		jr.Slowdown = max(1, float64(j.JCT())/max(float64(j.SoloTime), scheduler.BoundSeconds))
		sm.Completed++
		wait := float64(j.Start - j.Submit)
		waits = append(waits, wait)
		sm.MaxWait = max(sm.MaxWait, jr.Wait)
		sumBSLD += jr.Slowdown
		sm.MaxBSLD = max(sm.MaxBSLD, jr.Slowdown)
		out.Jobs = append(out.Jobs, jr)
	}
	m := res.Metrics
	sm.Makespan = sec(m.Makespan)
	sm.MeanWait, sm.MeanJCT, sm.UtilGPU = m.MeanWait, m.MeanJCT, m.UtilGPU
	sm.MedianJCT, sm.P95JCT = m.MedianJCT, m.P95JCT
	if n := len(waits); n > 0 {
		sm.MeanBSLD = sumBSLD / float64(n)
		slices.Sort(waits)
		sm.MedianWait = waits[max(int(math.Ceil(0.5*float64(n)))-1, 0)]
		sm.P95Wait = waits[max(int(math.Ceil(0.95*float64(n)))-1, 0)]
	}
	for _, s := range res.Series {
		smp := scheduler.Sample{Time: sec(s.Time), GPU: scheduler.MilliGPU(math.Round(s.Allocated * float64(scheduler.MilliPerGPU))),
			Queue: int32(s.Queue), Running: int32(s.Running)}
		if n := len(out.Series); n > 0 && out.Series[n-1].Time == smp.Time {
			out.Series[n-1] = smp
			continue
		}
		out.Series = append(out.Series, smp)
	}
	return out
}

// sharingName is a sharing scheduler's default label: its policy, then
// each policy it switches to ("exclusive→slo").
func (s *SchedulerConfig) sharingName() string {
	n := s.Sharing
	for _, w := range s.Switches {
		n += "→" + w.To
	}
	return n
}
