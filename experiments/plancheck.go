package experiments

import (
	"cmp"
	"fmt"
	"maps"
	"math"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/wb-sim/wb/datasets/gavel"
	"github.com/wb-sim/wb/datasets/workload"
)

// PlanTargets are what the measured-vs-predicted check asks of wb's
// predictor for capacity planning: every cluster's mean JCT within
// MaxJCTError of the measured-throughput simulation's, and the clusters
// ranked alike by each metric (Kendall's τ at least MinTau).
const (
	MaxJCTError = 0.10
	MinTau      = 0.8
)

// PlanCheck compares, per scheduler, the candidate clusters simulated
// with measured and with predicted throughputs (twin workloads: the same
// trace, cluster and preparation, throughputs measured and predicted).
type PlanCheck struct {
	Rows []PlanCheckRow
	// Tau is Kendall's τ between the clusters' measured and predicted
	// ranking, by scheduler, for mean JCT and for makespan; TauCost the
	// same by cost (GPUs × makespan × price, where the twins are priced:
	// the ranking a buyer reads; NaN where not), and TauAll by mean JCT
	// and makespan over every cluster × scheduler point at once (the
	// clusters' JCTs apart by 2–35× rank alike almost whatever the
	// predictor; the schedulers within a cluster do not: a reviewer's
	// find).
	Tau     map[string][2]float64
	TauCost map[string]float64
	TauAll  [2]float64
	// Clusters is the number of clusters compared (twin workloads): τ
	// ranks two or more, and is NaN for one, or where twins share a
	// cluster (Shared: variants of one cluster's prediction, which τ
	// would rank as clusters).
	Clusters int
	Shared   bool
	// Load is the load the twins are compared at (the sweep's last);
	// Loads the number swept.
	Load  float64
	Loads int
	// Drivers are the job types, on so many GPUs, whose predicted run
	// time moves most GPU-time from the measured one, over every twin of
	// replica 0.
	Drivers []PlanDriver
	// GPUTime is each cluster's GPU-time, measured and predicted, over
	// its twins' jobs of replica 0 (the first scheduler's runs).
	GPUTime []PlanGPUTime
	// Unlike lists the twins' runs that did not simulate or complete the
	// same number of jobs (one twin dropped a job the other kept, or one
	// never started a job the other ran): their means compare different
	// jobs, and the check is not met.
	Unlike []string
}

// PlanGPUTime is one cluster's GPU-time (run time × GPUs, seconds) with
// measured and with predicted throughputs, in all and of the jobs that ran
// on more than one GPU.
type PlanGPUTime struct {
	Cluster                       string
	Measured, Predicted           float64
	MeasuredMulti, PredictedMulti float64
	// Load is the offered load with measured throughputs: the measured
	// GPU-time over the cluster's GPUs × the span of the jobs' arrivals
	// (0 where either is unknown). Near or past 1 a queue amplifies a
	// small error in the jobs' GPU-time into a large one in their waits,
	// and so in the mean JCT.
	Load float64
	// Drivers are this cluster's job types, on so many GPUs, whose
	// predicted GPU-time differs most from the measured, most first.
	Drivers []PlanDriver
	// Mixed: the cluster has several GPU models, on which each twin placed
	// its jobs as its own run times made it; its GPU-time is not split by
	// job type and counts in no driver (a job's ratio would say where it
	// ran as much as what the predictor said).
	Mixed bool
}

// OutOfStepDifference is the part of the cluster's GPU-time difference
// (predicted − measured, seconds) in its drivers measured OutOfStep: job
// types whose measurements no model of the network's work follows.
func (g *PlanGPUTime) OutOfStepDifference() float64 {
	var x float64
	for _, d := range g.Drivers {
		if len(d.OutOfStep) > 0 {
			x += d.Predicted - d.Measured
		}
	}
	return x
}

// PlanCheckRow is one cluster under one scheduler: the means over the
// replicas.
type PlanCheckRow struct {
	Cluster, Scheduler        string
	Twin                      string // the predicted twin's workload
	MeasuredJCT, PredictedJCT float64
	MeasuredMakespan          float64
	PredictedMakespan         float64
	// Noise, where the predicted twin has a noisy twin (the same
	// workload with run_noise), is the range over the replicas of the
	// noisy twin's mean JCT over the predicted twin's, less 1: how far the
	// predictor's own error, drawn as noise, moves the answer. Noisy
	// names that twin ("" for none).
	Noisy string
	Noise [2]float64
	// Paired is, beside a band, the same statistic for the measured twin:
	// the mean over the replicas of its mean JCT over the predicted
	// twin's, less 1 (the band's ends are replicas' such ratios; the
	// ratio of the replicas' means is another statistic: a reviewer's
	// find); Within counts the replicas whose own ratio lies in the band,
	// of Replicas.
	Paired           float64
	Within, Replicas int
	// JCTRange is the lowest and highest over the replicas of the
	// predicted twin's mean JCT over the measured twin's, less 1, replica
	// by replica (the difference's spread, which its mean of 5 replicas
	// hides; NaN where no replica pairs).
	JCTRange [2]float64
}

// Covered reports whether the row has a noise band and the measured
// twin's difference from the predicted one, paired replica by replica as
// the band's are, lies within it in most replicas (Within of Replicas:
// the band's ends are single replicas', so a mean over the replicas,
// which varies less, would be held to a looser test; a reviewer's find).
func (r *PlanCheckRow) Covered() bool {
	return r.Noisy != "" && 2*r.Within > r.Replicas
}

// JCTError is the predicted mean JCT's relative difference from the
// measured one.
func (r *PlanCheckRow) JCTError() float64 { return r.PredictedJCT/r.MeasuredJCT - 1 }

// MakespanError is the predicted makespan's relative difference.
func (r *PlanCheckRow) MakespanError() float64 { return r.PredictedMakespan/r.MeasuredMakespan - 1 }

// PlanDriver is a job type's predicted over measured GPU-time (run time ×
// GPUs), summed over the twins' jobs of replica 0 that ran on GPUs GPUs.
type PlanDriver struct {
	Job                 string
	GPUs                int
	Measured, Predicted float64 // GPU-seconds
	// OutOfStep are the cluster's GPU types on which Gavel measured the
	// job type out of step with another batch of its family, on as many
	// GPUs (gavel.Throughputs.OutOfStep): measurements no model of the
	// network's work follows (a cluster's drivers only).
	OutOfStep []gavel.BatchAnomaly
}

// Met reports whether the check meets PlanTargets.
func (p *PlanCheck) Met() bool {
	if len(p.Unlike) > 0 {
		return false
	}
	for i := range p.Rows {
		// a NaN (a twin with no replica done) meets nothing
		if !(math.Abs(p.Rows[i].JCTError()) <= MaxJCTError) {
			return false
		}
	}
	for _, t := range p.Tau {
		// (a single cluster has no ranking to keep: no target; nor have
		// variants of one cluster's prediction, which τ is not taken over)
		if !(t[0] >= MinTau && t[1] >= MinTau) && p.Clusters > 1 && !p.Shared {
			return false
		}
	}
	if p.Clusters > 1 && !p.Shared {
		// by cost where priced (NaN: not), and over every point
		for _, t := range append(slices.Collect(maps.Values(p.TauCost)), p.TauAll[:]...) {
			if t < MinTau {
				return false
			}
		}
	}
	return len(p.Rows) > 0
}

// planTwins pairs the workloads that differ only in their throughputs,
// measured first.
func (c *Config) planTwins() [][2]int {
	var out [][2]int
	for i, a := range c.Workloads {
		if a.Throughputs != ThroughputsMeasured {
			continue
		}
		for j, b := range c.Workloads {
			if b.Throughputs != ThroughputsPredicted {
				continue
			}
			a2 := a
			// the links and the predictor a prediction assumes are the predicted twin's alone
			a2.Name, a2.Throughputs, a2.Price, a2.Prices, a2.AllReduceGBps, a2.AllReduceGavel, a2.HeldOut = b.Name, b.Throughputs, b.Price, b.Prices, b.AllReduceGBps, b.AllReduceGavel, b.HeldOut
			a2.Interconnect, a2.GPUSpecs, a2.InternodeGBps = b.Interconnect, b.GPUSpecs, b.InternodeGBps
			if reflect.DeepEqual(a2, b) {
				out = append(out, [2]int{i, j})
			}
		}
	}
	return out
}

// PlanBand is the noise band of a workload run again with run_noise (its
// noisy twin: the same workload but for its name and noise), for a
// workload no measured twin checks: the noisy twin's mean JCT over the
// workload's, less 1, lowest and highest over the replicas done in both,
// under one scheduler. A candidate no measurement covers, an H100, is the
// one a buyer needs it for (it was printed for measured twins alone: a
// reviewer's find).
type PlanBand struct {
	Workload, Noisy, Scheduler string
	Lo, Hi                     float64
	Replicas                   int
}

// noisyTwins pairs every workload of no run_noise with the first that
// differs from it only in its name and its noise.
func (c *Config) noisyTwins() [][2]int {
	var out [][2]int
	for i, b := range c.Workloads {
		if b.RunNoise > 0 {
			continue
		}
		for k, n := range c.Workloads {
			if n.RunNoise <= 0 {
				continue
			}
			n.Name, n.RunNoise, n.RunNoiseBy, n.RunNoiseGPUs = b.Name, b.RunNoise, b.RunNoiseBy, b.RunNoiseGPUs
			if reflect.DeepEqual(n, b) {
				out = append(out, [2]int{i, k})
				break
			}
		}
	}
	return out
}

// NoiseBands reads the results in dir and gives the noise band of every
// workload of predicted throughputs with a noisy twin that no measured
// twin checks (CheckPlan
// prints those beside the measured answer), per scheduler, at the sweep's
// last load.
func (c *Config) NoiseBands(dir string) ([]PlanBand, error) {
	checked := map[int]bool{}
	for _, tw := range c.planTwins() {
		checked[tw[1]] = true
	}
	var pairs [][2]int
	for _, p := range c.noisyTwins() {
		// (a predictor's error: the noise on a trace's own run times, an
		// SWF trace's, is another question, which the table answers)
		if !checked[p[0]] && c.Workloads[p[0]].Throughputs == ThroughputsPredicted {
			pairs = append(pairs, p)
		}
	}
	if len(pairs) == 0 {
		return nil, nil
	}
	t, at, err := c.lastLoadSummary(dir)
	if err != nil {
		return nil, err
	}
	var out []PlanBand
	for _, p := range pairs {
		for s := range c.Schedulers {
			base, err := c.byReplica(t, p[0], s, at, "mean_jct")
			if err != nil {
				return nil, err
			}
			noisy, err := c.byReplica(t, p[1], s, at, "mean_jct")
			if err != nil {
				return nil, err
			}
			b := PlanBand{Workload: c.WorkloadName(p[0]), Noisy: c.WorkloadName(p[1]), Scheduler: c.SchedulerName(s)}
			b.Lo, b.Hi, b.Replicas = ratioRange(base, noisy)
			if b.Replicas > 0 {
				out = append(out, b)
			}
		}
	}
	return out, nil
}

// planNoisy maps each predicted twin (its workload index) to the first
// workload that differs from it only in its name and its run_noise (and
// run_noise_by, run_noise_gpus): its noisy twin.
func (c *Config) planNoisy(twins [][2]int) map[int]int {
	noisy := map[int]int{}
	for _, p := range c.noisyTwins() {
		noisy[p[0]] = p[1]
	}
	out := map[int]int{}
	for _, tw := range twins {
		if k, ok := noisy[tw[1]]; ok {
			out[tw[1]] = k
		}
	}
	return out
}

// byReplica is a workload's and scheduler's metric at load x, by replica.
func (c *Config) byReplica(t table, w, s int, x float64, metric string) (map[int]float64, error) {
	out := map[int]float64{}
	var bad error
	err := c.eachSummary(t, w, s, "load", x, metric, func(row map[string]string, v float64) {
		r, err := strconv.Atoi(row["replica"])
		if err != nil && bad == nil {
			bad = fmt.Errorf("%s: replica %q", SummaryFile, row["replica"])
		}
		out[r] = v
	})
	return out, cmp.Or(err, bad)
}

// ratioRange is the lowest and highest over the replicas in both of b's
// value over a's, less 1, and how many replicas it was taken over (those
// of a value above 0 in a).
func ratioRange(a, b map[int]float64) (lo, hi float64, n int) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for rep, v := range b {
		if m, ok := a[rep]; ok && m > 0 {
			lo, hi, n = min(lo, v/m-1), max(hi, v/m-1), n+1
		}
	}
	return lo, hi, n
}

// lastLoadSummary is dir's summary.csv and the load the checks compare
// at, the sweep's last.
func (c *Config) lastLoadSummary(dir string) (table, float64, error) {
	t, err := readTable(filepath.Join(dir, SummaryFile))
	return t, c.Loads()[len(c.Loads())-1], err
}

// CheckPlan reads the results in dir and compares the twins; nil when
// the config has none.
func (c *Config) CheckPlan(dir string) (*PlanCheck, error) {
	twins := c.planTwins()
	if len(twins) == 0 {
		return nil, nil
	}
	t, at, err := c.lastLoadSummary(dir)
	if err != nil {
		return nil, err
	}
	// the mean over the replicas done in both twins, in replica order: a
	// replica that failed in one is left out of both
	mean := func(w, other, s int, col string) (float64, error) {
		mine, err := c.byReplica(t, w, s, at, col)
		if err != nil {
			return 0, err
		}
		theirs, err := c.byReplica(t, other, s, at, col)
		if err != nil {
			return 0, err
		}
		var vals []float64
		for _, r := range slices.Sorted(maps.Keys(mine)) {
			if _, ok := theirs[r]; ok {
				vals = append(vals, mine[r])
			}
		}
		return meanOf(vals), nil
	}
	p := &PlanCheck{Tau: map[string][2]float64{}, TauCost: map[string]float64{}, Load: at, Loads: len(c.Loads())}
	var allMJ, allPJ, allMM, allPM []float64 // every cluster × scheduler point
	seen := map[string]bool{}
	for _, tw := range twins {
		cl := c.Workloads[tw[0]].Cluster
		p.Shared = p.Shared || seen[cl]
		seen[cl] = true
	}
	p.Clusters = len(seen)
	noisy := c.planNoisy(twins)
	for s := range c.Schedulers {
		var mj, pj, mm, pm, mc, pc []float64
		for _, tw := range twins {
			r := PlanCheckRow{Cluster: c.Workloads[tw[0]].Cluster, Scheduler: c.SchedulerName(s), Twin: c.WorkloadName(tw[1])}
			for _, v := range []struct {
				dst  *float64
				w    int
				col  string
				list *[]float64
			}{{&r.MeasuredJCT, tw[0], "mean_jct", &mj}, {&r.PredictedJCT, tw[1], "mean_jct", &pj},
				{&r.MeasuredMakespan, tw[0], "makespan", &mm}, {&r.PredictedMakespan, tw[1], "makespan", &pm}} {
				other := tw[0] + tw[1] - v.w // the twin
				if *v.dst, err = mean(v.w, other, s, v.col); err != nil {
					return nil, err
				}
				*v.list = append(*v.list, *v.dst)
			}
			if c.hasPrice() {
				// (an unpriced twin's cells are empty: NaN, no ranking)
				for _, v := range []struct {
					w    int
					list *[]float64
				}{{tw[0], &mc}, {tw[1], &pc}} {
					x, err := mean(v.w, tw[0]+tw[1]-v.w, s, "cost")
					if err != nil {
						return nil, err
					}
					*v.list = append(*v.list, x)
				}
			}
			mr, err := c.byReplica(t, tw[0], s, at, "mean_jct")
			if err != nil {
				return nil, err
			}
			pr, err := c.byReplica(t, tw[1], s, at, "mean_jct")
			if err != nil {
				return nil, err
			}
			if lo, hi, n := ratioRange(mr, pr); n > 0 {
				r.JCTRange = [2]float64{lo, hi}
			} else {
				r.JCTRange = [2]float64{math.NaN(), math.NaN()}
			}
			for _, col := range []string{"jobs", "completed"} {
				m, err := c.byReplica(t, tw[0], s, at, col)
				if err != nil {
					return nil, err
				}
				q, err := c.byReplica(t, tw[1], s, at, col)
				if err != nil {
					return nil, err
				}
				for _, rep := range slices.Sorted(maps.Keys(m)) {
					if v, ok := q[rep]; ok && v != m[rep] {
						p.Unlike = append(p.Unlike, fmt.Sprintf("%s (%s), %s, replica %d: %s %g measured, %g predicted",
							r.Cluster, r.Twin, r.Scheduler, rep, col, m[rep], v))
						break
					}
				}
			}
			if k, ok := noisy[tw[1]]; ok {
				nr, err := c.byReplica(t, k, s, at, "mean_jct")
				if err != nil {
					return nil, err
				}
				if lo, hi, n := ratioRange(pr, nr); n > 0 {
					r.Noisy, r.Noise = c.Workloads[k].Name, [2]float64{lo, hi}
					var sum float64
					for _, rep := range slices.Sorted(maps.Keys(mr)) {
						if base := pr[rep]; base > 0 {
							e := mr[rep]/base - 1
							sum += e
							r.Replicas++
							if e >= lo && e <= hi {
								r.Within++
							}
						}
					}
					if r.Replicas > 0 {
						r.Paired = sum / float64(r.Replicas)
					} else {
						r.Noisy = "" // no replica to pair: no band to hold it
					}
				}
			}
			p.Rows = append(p.Rows, r)
		}
		tj, tm := rankTau(mj, pj, p.Shared), rankTau(mm, pm, p.Shared)
		p.Tau[c.SchedulerName(s)] = [2]float64{tj, tm}
		if len(mc) > 0 {
			p.TauCost[c.SchedulerName(s)] = rankTau(mc, pc, p.Shared)
		}
		allMJ, allPJ, allMM, allPM = append(allMJ, mj...), append(allPJ, pj...), append(allMM, mm...), append(allPM, pm...)
	}
	p.TauAll = [2]float64{rankTau(allMJ, allPJ, p.Shared), rankTau(allMM, allPM, p.Shared)}
	jobs, err := readTable(filepath.Join(dir, JobsFile))
	if err == nil {
		p.Drivers, p.GPUTime = c.planDrivers(jobs, twins, at)
	}
	return p, nil
}

// planDrivers sums the twins' GPU-time of replica 0 under the first
// scheduler at load at, per job type and GPU count and per cluster. A
// workload twinned more than once counts in each of its pairs. Twins on a
// cluster of several GPU models are left out: each places its jobs on the
// models as its own run times make it, so their GPU-times differ by where
// the jobs ran as much as by the predictor.
func (c *Config) planDrivers(t table, twins [][2]int, at float64) ([]PlanDriver, []PlanGPUTime) {
	type key struct {
		job  string
		gpus int
	}
	// GPU-seconds by workload: in all, on several GPUs, by key
	type sums struct {
		all, multi  float64
		by          map[key]float64
		first, last float64 // submit times (+Inf and −Inf before any)
	}
	by := map[string]*sums{}
	for _, tw := range twins {
		for _, w := range tw {
			by[c.WorkloadName(w)] = &sums{by: map[key]float64{}, first: math.Inf(1), last: math.Inf(-1)}
		}
	}
	for k, row := range t {
		s := by[row["workload"]]
		if s == nil || row["replica"] != "0" || row["scheduler"] != c.SchedulerName(0) || row["status"] != "done" {
			continue
		}
		if l, err := strconv.ParseFloat(row["load"], 64); err != nil || l != at {
			continue
		}
		run, err1 := t.float(c.resultFile(JobsFile), k, "runtime")
		gpus, err2 := t.float(c.resultFile(JobsFile), k, "gpus")
		if err1 != nil || err2 != nil {
			continue
		}
		if sub, err := t.float(c.resultFile(JobsFile), k, "submit"); err == nil {
			s.first, s.last = min(s.first, sub), max(s.last, sub)
		}
		v := run * gpus
		s.all += v
		if gpus > 1 {
			s.multi += v
		}
		s.by[key{row["name"], int(gpus)}] += v
	}
	drivers := map[key]*PlanDriver{}
	clusters := make([]PlanGPUTime, len(twins))
	// Gavel's measurements, to mark the drivers measured out of step (a
	// Gavel workload's run times are these; none marked if unreadable)
	tp, _, tpErr := gavel.BundledThroughputs()
	for i, tw := range twins {
		m, p := by[c.WorkloadName(tw[0])], by[c.WorkloadName(tw[1])]
		clusters[i] = PlanGPUTime{Cluster: c.Workloads[tw[0]].Cluster, Measured: m.all, Predicted: p.all,
			MeasuredMulti: m.multi, PredictedMulti: p.multi}
		cl, _, clErr := workload.ParseCluster(c.resolve(c.Workloads[tw[0]].Cluster)) // a path relative to the config
		if clErr == nil {
			if g := clusterGPUs(cl); g > 0 && m.last > m.first {
				clusters[i].Load = m.all / (float64(g) * (m.last - m.first))
			}
		}
		if clErr == nil && len(workload.GPUModels(cl)) > 1 {
			clusters[i].Mixed = true
			continue
		}
		own := map[key]*PlanDriver{}
		for side, s := range []*sums{m, p} {
			for k, v := range s.by {
				for _, ds := range []map[key]*PlanDriver{drivers, own} {
					d := ds[k]
					if d == nil {
						d = &PlanDriver{Job: k.job, GPUs: k.gpus}
						ds[k] = d
					}
					if side == 0 {
						d.Measured += v
					} else {
						d.Predicted += v
					}
				}
			}
		}
		clusters[i].Drivers = sortedDrivers(own)
		if tpErr != nil || clErr != nil {
			continue
		}
		models := workload.GPUModels(cl)
		for k := range clusters[i].Drivers {
			d := &clusters[i].Drivers[k]
			for _, gm := range models {
				if a, ok := tp.OutOfStep(gm, d.Job, d.GPUs); ok {
					d.OutOfStep = append(d.OutOfStep, a)
				}
			}
		}
	}
	return sortedDrivers(drivers), clusters
}

// sortedDrivers lists the drivers by how much GPU-time their prediction
// moves, most first.
func sortedDrivers[K comparable](ds map[K]*PlanDriver) []PlanDriver {
	var out []PlanDriver
	for _, d := range ds {
		out = append(out, *d)
	}
	slices.SortFunc(out, func(a, b PlanDriver) int {
		return cmp.Or(cmp.Compare(math.Abs(b.Predicted-b.Measured), math.Abs(a.Predicted-a.Measured)),
			strings.Compare(a.Job, b.Job), cmp.Compare(a.GPUs, b.GPUs))
	})
	return out
}

// meanOf is the mean of xs; NaN for none.
func meanOf(xs []float64) float64 {
	if len(xs) == 0 {
		return math.NaN()
	}
	return sumOf(xs) / float64(len(xs))
}

// sumOf is the sum of xs.
func sumOf(xs []float64) float64 {
	sum := 0.0
	for _, v := range xs {
		sum += v
	}
	return sum
}

// rankTau is Kendall's τ between the measured points m and the predicted
// p, or NaN where there is no ranking to compare: fewer than two points, a
// twin with no run done (NaN), or variants of one cluster (shared), which
// are not clusters to rank.
func rankTau(m, p []float64, shared bool) float64 {
	if len(m) < 2 || shared || slices.ContainsFunc(slices.Concat(m, p), math.IsNaN) {
		return math.NaN()
	}
	return KendallTau(m, p)
}

// KendallTau is Kendall's τ-b between a and b (equal lengths): the
// concordant pairs less the discordant ones over the geometric mean of the
// pairs untied in a and untied in b, so that two rankings alike, ties and
// all, give 1 (τ-a, over all pairs, gives 2/3 for [1 1 2] against itself).
// 1 for fewer than two values or where both are all ties; NaN (no
// ranking to compare) where one alone is.
func KendallTau(a, b []float64) float64 {
	n := len(a)
	if n < 2 {
		return 1
	}
	s, ua, ub := 0, 0, 0
	for i := range n {
		for j := i + 1; j < n; j++ {
			x, y := cmp.Compare(a[i], a[j]), cmp.Compare(b[i], b[j])
			s += x * y
			ua += x * x
			ub += y * y
		}
	}
	switch {
	case ua == 0 && ub == 0:
		return 1
	case ua == 0 || ub == 0:
		return math.NaN()
	}
	return float64(s) / math.Sqrt(float64(ua)*float64(ub))
}

// String is the check as a table, with the targets and the jobs that drive
// the differences.
func (p *PlanCheck) String() string {
	var b strings.Builder
	at := ""
	if p.Loads > 1 {
		at = fmt.Sprintf(" at load %g, the sweep's last", p.Load)
	}
	fmt.Fprintf(&b, "measured vs predicted throughputs%s (targets: mean JCT within %.0f%%, ranking τ ≥ %.1f):\n", at, 100*MaxJCTError, MinTau)
	tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "cluster\tscheduler\tmean JCT measured\tpredicted\tdifference\treplicas' own\tmakespan measured\tpredicted\tdifference")
	for _, r := range p.Rows {
		own := "–" // no replica paired
		if lo, hi := r.JCTRange[0], r.JCTRange[1]; !math.IsNaN(lo) && !math.IsNaN(hi) {
			own = fmt.Sprintf("%+.0f%% to %+.0f%%", 100*lo, 100*hi)
		}
		fmt.Fprintf(tw, "%s\t%s\t%.4g s\t%.4g s\t%+.1f%%\t%s\t%.4g s\t%.4g s\t%+.1f%%\n", p.label(&r), r.Scheduler,
			r.MeasuredJCT, r.PredictedJCT, 100*r.JCTError(), own, r.MeasuredMakespan, r.PredictedMakespan, 100*r.MakespanError())
	}
	tw.Flush()
	if len(p.Unlike) > 0 {
		b.WriteString("not like for like: these twins simulated or completed different numbers of jobs (a job one dropped or\n" +
			"never started that the other ran), so their means compare different jobs:\n")
		for _, u := range p.Unlike {
			fmt.Fprintf(&b, "  %s\n", u)
		}
	}
	for _, s := range slices.Sorted(maps.Keys(p.Tau)) {
		if t := p.Tau[s]; p.Shared {
			fmt.Fprintf(&b, "Kendall's τ, %s: not assessed (twins share a cluster: τ would rank variants of one cluster's prediction as clusters; give each cluster one predicted twin)\n", s)
		} else if math.IsNaN(t[0]) || math.IsNaN(t[1]) {
			fmt.Fprintf(&b, "Kendall's τ, %s: n/a (fewer than two clusters compared, or a twin with no run done)\n", s)
		} else {
			cost := ""
			if tc, ok := p.TauCost[s]; ok && !math.IsNaN(tc) {
				cost = fmt.Sprintf(", %.2f by cost", tc)
			}
			fmt.Fprintf(&b, "Kendall's τ, %s: %.2f by mean JCT, %.2f by makespan%s\n", s, t[0], t[1], cost)
		}
	}
	if t := p.TauAll; len(p.Tau) > 1 && !math.IsNaN(t[0]) && !math.IsNaN(t[1]) {
		fmt.Fprintf(&b, "Kendall's τ, all %d cluster × scheduler points: %.2f by mean JCT, %.2f by makespan\n", len(p.Rows), t[0], t[1])
	}
	var banded, covered, reps, within int
	for i := range p.Rows {
		if r := &p.Rows[i]; r.Noisy != "" {
			if banded == 0 {
				b.WriteString("the predictor's error as noise (each predicted twin again with run_noise): its mean JCT over the\n" +
					"predicted twin's, less 1, lowest and highest over the replicas, and whether the measured twin's, the same\n" +
					"ratio replica by replica, lies within in most replicas (its mean over the replicas; how many replicas' own do)\n")
			}
			banded++
			reps, within = reps+r.Replicas, within+r.Within
			in := "outside"
			if r.Covered() {
				covered++
				in = "within"
			}
			fmt.Fprintf(&b, "  %s, %s: %+.1f%% to %+.1f%% (%s); measured %+.1f%%: %s (%d of %d replicas)\n", p.label(r), r.Scheduler,
				100*r.Noise[0], 100*r.Noise[1], r.Noisy, 100*r.Paired, in, r.Within, r.Replicas)
		}
	}
	if banded > 0 {
		fmt.Fprintf(&b, "measured mean JCT within the noise band: %d of %d (replica by replica: %d of %d)\n", covered, banded, within, reps)
	}
	// a ratio, "–" where there is nothing to divide by
	ratio := func(x, y float64) string {
		if !(y > 0) {
			return "–"
		}
		return fmt.Sprintf("%.2f", x/y)
	}
	if len(p.GPUTime) > 0 {
		b.WriteString("GPU-time predicted / measured (replica 0): in all, of the jobs on one GPU, of the jobs on several\n")
		for _, g := range p.GPUTime {
			fmt.Fprintf(&b, "  %s: %s, %s, %s", g.Cluster, ratio(g.Predicted, g.Measured),
				ratio(g.Predicted-g.PredictedMulti, g.Measured-g.MeasuredMulti), ratio(g.PredictedMulti, g.MeasuredMulti))
			if g.Load > 0 {
				fmt.Fprintf(&b, "; offered load %.2f", g.Load)
			}
			if g.Mixed {
				b.WriteString("; several GPU models, on which each twin placed its jobs by its own run times: not split by job type")
			} else if g.Measured > 0 {
				fmt.Fprintf(&b, "; jobs on several GPUs %.0f%% of the measured GPU-time", 100*g.MeasuredMulti/g.Measured)
				// their share of a difference of at least 1%
				if d := g.Predicted - g.Measured; math.Abs(d) >= 0.01*g.Measured {
					fmt.Fprintf(&b, ", %.0f%% of the difference", 100*(g.PredictedMulti-g.MeasuredMulti)/d)
					if x := g.OutOfStepDifference(); x != 0 {
						fmt.Fprintf(&b, "; job types Gavel measured out of step with another batch %.0f%% of it", 100*x/d)
					}
				}
			}
			b.WriteString("\n")
			if len(g.Drivers) > 0 {
				b.WriteString("    moving it most:")
				for _, d := range g.Drivers[:min(3, len(g.Drivers))] {
					fmt.Fprintf(&b, " %s on %d GPU%s %s (%+.0f GPU-h", d.Job, d.GPUs, plural(d.GPUs), ratio(d.Predicted, d.Measured), (d.Predicted-d.Measured)/3600)
					for _, a := range d.OutOfStep {
						fmt.Fprintf(&b, "; %s", a)
					}
					b.WriteString(");")
				}
				b.WriteString("\n")
			}
		}
	}
	if len(p.Drivers) > 0 {
		b.WriteString("job types moving GPU-time most (replica 0, predicted / measured):")
		for _, d := range p.Drivers[:min(5, len(p.Drivers))] {
			fmt.Fprintf(&b, " %s on %d GPU%s %s;", d.Job, d.GPUs, plural(d.GPUs), ratio(d.Predicted, d.Measured))
		}
		b.WriteString("\n")
	}
	if p.Met() && p.Shared && p.Clusters > 1 {
		b.WriteString("targets met (τ not assessed: twins share a cluster)\n")
	} else if p.Met() {
		b.WriteString("targets met\n")
	} else {
		b.WriteString("targets NOT met\n")
	}
	return b.String()
}

// label names a row's cluster, and its predicted twin where several twins
// share the cluster.
func (p *PlanCheck) label(r *PlanCheckRow) string {
	if !p.Shared || r.Twin == "" {
		return r.Cluster
	}
	n := 0
	for i := range p.Rows {
		if p.Rows[i].Cluster == r.Cluster && p.Rows[i].Scheduler == r.Scheduler {
			n++
		}
	}
	if n < 2 {
		return r.Cluster
	}
	return r.Cluster + " (" + r.Twin + ")"
}

// plural is "s" unless n is 1.
func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
