package sharing

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Job is a training job: Steps steps of a kind of the model.
type Job struct {
	ID   int64
	Kind int // an index of the model's kinds, or NoKind
	// GPUs is the GPUs a job of NoKind asks for; a job of a kind asks
	// for its kind's.
	GPUs   int
	Submit Seconds
	Steps  float64
}

// NoKind is the kind of a job the model has no throughput of on its GPUs
// (Gavel did not measure it there): it is unschedulable, its deadline
// NaN, as a job wider than the cluster is.
const NoKind = -1

// Switch changes the policy during a run: at a time, or when a trigger
// fires. Each switch happens at most once.
type Switch struct {
	// At, when positive, is the time of the switch, in seconds after the
	// run's first submit.
	At Seconds
	// Below, when positive, is the trigger: the switch happens at the
	// first round at which the SLO attainment of the jobs finished so far
	// (at least MinFinished of them) is below it.
	Below float64
	// To is the policy switched to.
	To string
}

// The kinds of SLO (Options.SLO).
const (
	SLOCompletion = "completion"
	SLOThroughput = "throughput"
)

// MinFinished is the number of finished jobs a trigger waits for.
const MinFinished = 20

// Options configure a run. Zero values are the documented defaults.
type Options struct {
	GPUs   int    // GPUs of the cluster (one GPU type); required
	Policy string // the policy at the start; required (see Policies)
	// Switches change the policy during the run.
	Switches []Switch
	// Round is the period of the policy's rounds (weight updates,
	// re-ordering, triggers); default 360 s (Gavel's round).
	Round Seconds
	// MaxPerGPU is the most jobs on one GPU; default 2 (Gavel measured
	// pairs).
	MaxPerGPU int
	// SLOFactor f sets a job's deadline, submit + f × its solo run time;
	// default 2. CriticalSLOFactor is that of critical jobs; default 1.5.
	SLOFactor, CriticalSLOFactor float64
	// SLO is the kind of SLO: SLOCompletion (default: the job ends by
	// submit + f × its solo run time) or SLOThroughput (once started, it
	// trains at 1/f of its solo throughput or more on average: it ends by
	// start + f × its solo run time; waiting does not count against it).
	SLO string
	// CriticalFraction is the probability that a job is critical (drawn
	// per job); default 0 (none).
	CriticalFraction float64
	// ReservedFraction of the GPUs (rounded up) are reserved for critical
	// jobs by the slo policy, in [0, 1), at most all GPUs but one; nil: 0.1
	// when some jobs are critical, else 0. (The three
	// pointers tell an explicit 0, which means none, from the default.)
	ReservedFraction *float64
	// Alpha is α of the weight update w ← w × exp(α × (target − actual));
	// nil: 0.5 (0: the weights never change).
	Alpha *float64
	// SLOTarget is the target of that update, in (0, 1]; default 0.95.
	SLOTarget float64
	// MaxInterference is the most a co-location may slow a job below the
	// pace its share of the GPU gives it (its solo pace × ShareScale(share)),
	// when the jct and slo policies place it; nil: 0.5 (0: no co-location
	// that slows a job at all). The slo policy's later re-split of a running
	// pair's shares towards the job at risk does not check it.
	MaxInterference *float64
	// PredictionSigma is σ of the lognormal error of the solo throughputs
	// the policies predict with (one draw per kind); default 0 (exact).
	PredictionSigma float64
}

// Weight bounds: weights are kept within [MinWeight, MaxWeight] so that a
// long wait cannot overflow them.
const (
	MinWeight = 1e-3
	MaxWeight = 1e3
)

func (o Options) withDefaults() Options {
	if o.Round == 0 {
		o.Round = 360
	}
	if o.MaxPerGPU == 0 {
		o.MaxPerGPU = 2
	}
	if o.SLOFactor == 0 {
		o.SLOFactor = 2
	}
	if o.SLO == "" {
		o.SLO = SLOCompletion
	}
	if o.CriticalSLOFactor == 0 {
		o.CriticalSLOFactor = 1.5
	}
	if o.ReservedFraction == nil {
		o.ReservedFraction = new(0.0)
		if o.CriticalFraction > 0 {
			o.ReservedFraction = new(0.1)
		}
	}
	if o.Alpha == nil {
		o.Alpha = new(0.5)
	}
	if o.SLOTarget == 0 {
		o.SLOTarget = 0.95
	}
	if o.MaxInterference == nil {
		o.MaxInterference = new(0.5)
	}
	return o
}

// Validate reports every problem of the options, paths named as the YAML
// fields of an experiment config.
func (o Options) Validate() error {
	var errs []error
	bad := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	known := Policies()
	if o.GPUs <= 0 {
		bad("gpus: %d; want at least one GPU", o.GPUs)
	}
	if _, ok := known.Get(o.Policy); !ok {
		bad("policy: unknown %q (known: %s)", o.Policy, strings.Join(known.Names(), ", "))
	}
	for i, s := range o.Switches {
		if _, ok := known.Get(s.To); !ok {
			bad("switches[%d].to: unknown %q (known: %s)", i, s.To, strings.Join(known.Names(), ", "))
		}
		switch {
		case s.At < 0 || math.IsInf(float64(s.At), 0) || math.IsNaN(float64(s.At)):
			bad("switches[%d].at: %v is not a time (seconds from the start, above 0)", i, s.At)
		case s.Below < 0 || s.Below > 1 || math.IsNaN(s.Below):
			bad("switches[%d].below: %v is not an attainment in (0, 1]", i, s.Below)
		case (s.At > 0) == (s.Below > 0):
			bad("switches[%d]: want one of at (a time) or below (an SLO-attainment trigger)", i)
		}
	}
	check := func(name string, v, lo, hi float64) {
		if math.IsNaN(v) || v < lo || v > hi {
			bad("%s: %v is not in [%v, %v]", name, v, lo, hi)
		}
	}
	// a round shorter than a second is no scheduling round, and one small
	// beside the clock's value (t + round == t) would never advance it
	if o.Round != 0 { // 0: the default
		check("round", float64(o.Round), 1, 1e9)
	}
	check("max_per_gpu", float64(o.MaxPerGPU), 0, 8)
	if o.SLO != "" && o.SLO != SLOCompletion && o.SLO != SLOThroughput {
		bad("slo: unknown %q (known: %s, %s)", o.SLO, SLOCompletion, SLOThroughput)
	}
	check("slo_factor", o.SLOFactor, 0, 1e6)
	check("critical_slo_factor", o.CriticalSLOFactor, 0, 1e6)
	check("critical_fraction", o.CriticalFraction, 0, 1)
	if r := o.ReservedFraction; r != nil {
		switch {
		case math.IsNaN(*r) || *r < 0 || *r >= 1:
			bad("reserved_fraction: %v is not in [0, 1)", *r)
		case *r > 0 && o.CriticalFraction == 0:
			bad("reserved_fraction: %v of the GPUs kept for critical jobs, but no job is critical (critical_fraction 0): they would stay idle", *r)
		}
	}
	if o.Alpha != nil {
		check("alpha", *o.Alpha, 0, 100)
	}
	check("slo_target", o.SLOTarget, 0, 1)
	if o.MaxInterference != nil {
		check("max_interference", *o.MaxInterference, 0, 1)
	}
	check("prediction_sigma", o.PredictionSigma, 0, 10)
	if o.SLOFactor != 0 && o.SLOFactor < 1 {
		bad("slo_factor: %v; a deadline below the solo run time (factor 1) cannot be met", o.SLOFactor)
	}
	if o.CriticalSLOFactor != 0 && o.CriticalSLOFactor < 1 {
		bad("critical_slo_factor: %v; a deadline below the solo run time (factor 1) cannot be met", o.CriticalSLOFactor)
	}
	return errors.Join(errs...)
}

// Status is what became of a job.
type Status int

const (
	Completed     Status = iota
	Unschedulable        // more GPUs than the cluster has, or of NoKind
)

func (s Status) String() string {
	if s == Unschedulable {
		return "unschedulable"
	}
	return "completed"
}

// JobResult is one job's run.
type JobResult struct {
	ID       int64
	Kind     int
	GPUs     int
	Critical bool
	Submit   Seconds
	Start    Seconds // -1 when it never ran
	End      Seconds // -1 when it never ran
	Deadline Seconds
	SoloTime Seconds // Steps / T_meas: its run time alone
	Steps    float64
	// Done is the steps completed, Steps for a completed job; Residue is
	// Steps minus the steps accumulated rate × time, set to Done at the
	// completion event (floating-point error only).
	Done, Residue float64
	Shared        bool // it shared a GPU at some time
	MetSLO        bool // ended by its deadline
	Status        Status
}

// JCT is End − Submit.
func (j *JobResult) JCT() Seconds { return j.End - j.Submit }

// Sample is the cluster after one event's scheduling.
type Sample struct {
	Time      Seconds
	Allocated float64 // GPU shares held, in GPUs
	Queue     int
	Running   int
	Policy    string
}

// SwitchEvent is a policy switch that happened.
type SwitchEvent struct {
	Time     Seconds
	From, To string
	Reason   string // "at" or "below"
}

// Result is a run.
type Result struct {
	Jobs     []JobResult // by (submit, id)
	Series   []Sample
	Switches []SwitchEvent
	Metrics  Metrics
	// MaxShare is the largest sum of shares seen on one GPU.
	MaxShare float64
}

type jobState int

const (
	future jobState = iota
	waiting
	running
	finished
)

type job struct {
	Job
	gpus     int
	critical bool
	deadline Seconds
	slof     float64 // the job's SLO factor f
	solo     float64 // T_meas
	done     float64
	rate     float64 // steps/s now
	start    Seconds
	end      Seconds
	on       []int
	share    float64
	state    jobState
	weight   float64
	shared   bool
	residue  float64
}

// runs says whether the job can run on gpus GPUs: it is of a kind the
// model has a throughput of, on no more GPUs than there are.
func (j *job) runs(gpus int) bool { return j.Kind != NoKind && j.gpus <= gpus }

type sim struct {
	m      *Model
	o      Options
	jobs   []job
	gpus   [][]int // job indices per GPU
	now    Seconds
	t0     Seconds
	pred   []float64 // predicted T_meas per kind
	policy Policy
	name   string
	max    float64
	queue  []int // waiting, in (submit, id) order
	run    []int // running, in start order
}

// MaxSubmit is the latest a job may be submitted, seconds: 2^50, the
// scheduler's horizon too, where rounds of a second or more still advance
// the clock (a submit of 1e17 s left them below its resolution, and the
// simulation never ended: a reviewer's find).
const MaxSubmit Seconds = 1 << 50

// Simulate runs jobs on o.GPUs GPUs of the model's type. Randomness (which
// jobs are critical, the prediction errors) comes from r only.
func Simulate(m *Model, jobs []Job, o Options, r *rand.Rand) (*Result, error) {
	if err := o.Validate(); err != nil {
		return nil, fmt.Errorf("sharing: %w", err)
	}
	o = o.withDefaults()
	s := &sim{m: m, o: o, gpus: make([][]int, o.GPUs), pred: make([]float64, len(m.Kinds))}
	for k := range m.Kinds {
		s.pred[k] = m.Kinds[k].Solo
		if o.PredictionSigma > 0 {
			s.pred[k] *= math.Exp(o.PredictionSigma * r.NormFloat64())
		}
	}
	s.jobs = make([]job, len(jobs))
	for i, j := range jobs {
		if (j.Kind < 0 || j.Kind >= len(m.Kinds)) && (j.Kind != NoKind || j.GPUs < 1) {
			return nil, fmt.Errorf("sharing: job %d: kind %d of %d (%d GPUs)", j.ID, j.Kind, len(m.Kinds), j.GPUs)
		}
		if !(j.Steps > 0) || math.IsInf(j.Steps, 0) || !(j.Submit >= 0) || j.Submit > MaxSubmit {
			return nil, fmt.Errorf("sharing: job %d: %v steps submitted at %v; want positive steps at a time from 0 to 2^50 s", j.ID, j.Steps, j.Submit)
		}
		if j.Kind == NoKind {
			s.jobs[i] = job{Job: j, gpus: j.GPUs, start: -1, end: -1, weight: 1}
			continue
		}
		s.jobs[i] = job{Job: j, gpus: m.Kinds[j.Kind].GPUs, solo: m.Kinds[j.Kind].Solo, start: -1, end: -1, weight: 1}
	}
	slices.SortStableFunc(s.jobs, func(a, b job) int { return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.ID, b.ID)) })
	for i := range s.jobs {
		j := &s.jobs[i]
		f := o.SLOFactor
		if o.CriticalFraction > 0 && r.Float64() < o.CriticalFraction {
			j.critical, f = true, o.CriticalSLOFactor
		}
		j.slof = f
		j.deadline = j.Submit + Seconds(f*j.Steps/j.solo)
		if j.Kind == NoKind {
			j.deadline = Seconds(math.NaN())
		}
	}
	p, err := Policies().New(o.Policy, o)
	if err != nil {
		return nil, err
	}
	s.policy, s.name = p, o.Policy
	res := &Result{}
	if err := s.loop(res); err != nil {
		return nil, err
	}
	for i := range s.jobs {
		j := &s.jobs[i]
		if o.SLO == SLOThroughput && j.start >= 0 {
			j.deadline = s.deadline(j)
		}
		jr := JobResult{ID: j.ID, Kind: j.Kind, GPUs: j.gpus, Critical: j.critical, Submit: j.Submit, Start: j.start, End: j.end,
			Deadline: j.deadline, Steps: j.Steps, Done: j.done, Residue: j.residue, Shared: j.shared}
		if j.Kind != NoKind {
			jr.SoloTime = Seconds(j.Steps / j.solo)
		}
		if !j.runs(o.GPUs) {
			jr.Status = Unschedulable
		} else {
			jr.MetSLO = j.end <= j.deadline
		}
		res.Jobs = append(res.Jobs, jr)
	}
	res.MaxShare = s.max
	res.Metrics = computeMetrics(res, o.GPUs)
	return res, nil
}

// loop runs the events.
func (s *sim) loop(res *Result) error {
	n := len(s.jobs)
	if n == 0 {
		return nil
	}
	s.t0 = s.jobs[0].Submit
	s.now = s.t0
	next := 0 // next arrival
	left := 0 // jobs still to finish
	for i := range s.jobs {
		if s.jobs[i].runs(s.o.GPUs) {
			left++
		} else {
			s.jobs[i].state = finished // unschedulable: never runs
		}
	}
	nextRound := s.t0 + s.o.Round
	switches := slices.Clone(s.o.Switches)
	fired := make([]bool, len(switches))
	met, ended := 0, 0
	inf := Seconds(math.Inf(1))
	for left > 0 {
		for next < n && s.jobs[next].state == finished {
			next++
		}
		ta := inf
		if next < n {
			ta = s.jobs[next].Submit
		}
		tc, first := inf, -1
		for _, i := range s.run {
			j := &s.jobs[i]
			if t := s.now + Seconds((j.Steps-j.done)/j.rate); t < tc {
				tc, first = t, i
			}
		}
		active := len(s.run) > 0 || len(s.queue) > 0
		if !active {
			// Idle until the next arrival: rounds resume on their grid
			// (a gap of more than 2^20 rounds jumped at once, where the
			// loop would take as long as the gap is long)
			if ta != inf && nextRound <= ta && float64(ta-nextRound) > float64(s.o.Round)*(1<<20) {
				nextRound += s.o.Round * Seconds(math.Floor(float64(ta-nextRound)/float64(s.o.Round)))
			}
			for nextRound <= ta && ta != inf {
				nextRound += s.o.Round
			}
		}
		tr := inf
		if active {
			tr = nextRound
		}
		ts := inf
		for k, sw := range switches {
			if !fired[k] && sw.At > 0 {
				ts = min(ts, s.t0+sw.At)
			}
		}
		t := min(ta, tc, tr, ts)
		if t == inf {
			return fmt.Errorf("sharing: policy %s left %d jobs waiting on an idle cluster at %v s", s.name, len(s.queue), s.now)
		}
		if t < s.now {
			panic(fmt.Sprintf("sharing: event at %v before now %v", t, s.now))
		}
		// Advance every running job at its rate.
		dt := t - s.now
		for _, i := range s.run {
			j := &s.jobs[i]
			j.done += j.rate * float64(dt)
		}
		s.now = t
		// Completions: the earliest, and any other within rounding of its end.
		for k := 0; k < len(s.run); {
			i := s.run[k]
			j := &s.jobs[i]
			if (i == first && t == tc) || j.Steps-j.done <= 1e-9*j.Steps {
				j.residue = j.Steps - j.done
				j.done = j.Steps
				j.end = t
				j.state = finished
				left--
				ended++
				if j.end <= s.deadline(j) {
					met++
				}
				s.release(i)
				s.run = slices.Delete(s.run, k, k+1)
				continue
			}
			k++
		}
		// Arrivals.
		for next < n && s.jobs[next].Submit <= t {
			if s.jobs[next].state == future {
				s.jobs[next].state = waiting
				s.queue = append(s.queue, next)
			}
			next++
		}
		if t >= nextRound {
			if nextRound+s.o.Round == nextRound {
				// a round too small beside the clock to advance it (steps
				// so many that the run outlasts 2^53 rounds): it would
				// never end
				return fmt.Errorf("sharing: the clock reached %v s, where a round of %v s no longer advances it: too many steps for the run to end", float64(nextRound), float64(s.o.Round))
			}
			nextRound += s.o.Round
			s.learn()
			s.updateWeights()
			for k, sw := range switches {
				if !fired[k] && sw.Below > 0 && ended >= MinFinished && float64(met)/float64(ended) < sw.Below {
					fired[k] = true
					if err := s.switchTo(sw.To, "below", res); err != nil {
						return err
					}
				}
			}
			if r, ok := s.policy.(Rounder); ok {
				r.Round(&View{s})
			}
		}
		for k, sw := range switches {
			if !fired[k] && sw.At > 0 && s.t0+sw.At <= t {
				fired[k] = true
				if err := s.switchTo(sw.To, "at", res); err != nil {
					return err
				}
			}
		}
		s.policy.Place(&View{s})
		s.rates()
		alloc := 0.0
		for g := range s.gpus {
			sum := 0.0
			for _, i := range s.gpus[g] {
				sum += s.jobs[i].share
			}
			s.max = max(s.max, sum)
			alloc += sum
		}
		res.Series = append(res.Series, Sample{Time: t, Allocated: alloc, Queue: len(s.queue), Running: len(s.run), Policy: s.name})
	}
	return nil
}

func (s *sim) switchTo(name, reason string, res *Result) error {
	if name == s.name {
		return nil
	}
	p, err := Policies().New(name, s.o)
	if err != nil {
		return err
	}
	res.Switches = append(res.Switches, SwitchEvent{Time: s.now - s.t0, From: s.name, To: name, Reason: reason})
	s.policy, s.name = p, name
	return nil
}

// release takes job i off its GPUs; the shares of the jobs left on a GPU
// are scaled up to fill it.
func (s *sim) release(i int) {
	j := &s.jobs[i]
	for _, g := range j.on {
		s.gpus[g] = slices.DeleteFunc(s.gpus[g], func(k int) bool { return k == i })
		sum := 0.0
		for _, k := range s.gpus[g] {
			sum += s.jobs[k].share
		}
		for _, k := range s.gpus[g] {
			s.jobs[k].share /= sum
		}
	}
	j.on, j.share, j.rate = nil, 0, 0
}

// rates computes every running job's rate from its GPU's slots.
func (s *sim) rates() {
	var slots []Slot
	for g := range s.gpus {
		on := s.gpus[g]
		slots = slots[:0]
		for _, i := range on {
			slots = append(slots, Slot{Kind: s.jobs[i].Kind, Share: s.jobs[i].share})
		}
		for k, i := range on {
			s.jobs[i].rate = s.m.Eff(slots, k)
			if len(on) > 1 {
				s.jobs[i].shared = true
			}
		}
	}
	for _, i := range s.run {
		if !(s.jobs[i].rate > 0) {
			panic(fmt.Sprintf("sharing: job %d runs at %v steps/s", s.jobs[i].ID, s.jobs[i].rate))
		}
	}
}

// learn corrects the predicted solo throughput of each kind with a running
// job from its observed progress: the observed rate over the predicted one
// (the interference model being known) moves the prediction half way, in
// logarithm, to the truth each round.
func (s *sim) learn() {
	seen := map[int]bool{}
	for _, i := range s.run {
		j := &s.jobs[i]
		if seen[j.Kind] || s.now <= j.start {
			continue
		}
		seen[j.Kind] = true
		s.pred[j.Kind] = math.Sqrt(s.pred[j.Kind] * j.solo)
	}
}

// updateWeights applies w ← w × exp(α × (target − actual)) to every job
// waiting or running that can still meet its deadline alone (by
// prediction). A job past that point keeps its weight: raising the weights
// of lost jobs, as the update taken literally does, gives them the GPUs
// that jobs still able to meet their SLO need (on the 0e4a51 trace it
// halved the SLO attainment of the goodput policy).
func (s *sim) updateWeights() {
	for _, list := range [][]int{s.queue, s.run} {
		for _, i := range list {
			j := &s.jobs[i]
			rate := j.rate
			if j.state == waiting {
				rate = s.pred[j.Kind]
			} else {
				rate *= s.pred[j.Kind] / j.solo
			}
			if s.now+Seconds((j.Steps-j.done)/s.pred[j.Kind]) > s.deadline(j) {
				continue // past risk: it misses its deadline even alone
			}
			j.weight = UpdateWeight(j.weight, *s.o.Alpha, s.o.SLOTarget, Attainment(s.now, s.deadline(j), j.Steps-j.done, rate))
		}
	}
}

// UpdateWeight is w × exp(α × (target − actual)), kept within
// [MinWeight, MaxWeight].
func UpdateWeight(w, alpha, target, actual float64) float64 {
	return min(MaxWeight, max(MinWeight, w*math.Exp(alpha*(target-actual))))
}

// deadline is job j's deadline as of now: its fixed deadline under
// completion SLOs; under throughput SLOs start + f × its solo run time once
// started, and now + that while it waits (waiting costs it nothing).
func (s *sim) deadline(j *job) Seconds {
	if s.o.SLO != SLOThroughput {
		return j.deadline
	}
	t := Seconds(j.slof * j.Steps / j.solo)
	if j.start >= 0 {
		return j.start + t
	}
	return s.now + t
}

// Attainment is SLO_actual at time now of a job with remaining steps due by
// deadline at rate steps/s: min(1, (deadline − now)⁺ × rate / remaining).
func Attainment(now, deadline Seconds, remaining, rate float64) float64 {
	if remaining <= 0 {
		return 1
	}
	return min(1, max(0, float64(deadline-now))*rate/remaining)
}
