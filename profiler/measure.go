package profiler

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"time"
)

// Rule is the measurement method of one layer pass: warm-up, then
// repetitions until the 95% confidence interval of the median lies within
// RelCI of it, or a budget runs out. Zero fields are the defaults.
type Rule struct {
	// Warmup runs come before any measured run, and warm-up goes on until
	// WarmupTime of runs; defaults 2 runs and 20 ms.
	Warmup     int
	WarmupTime time.Duration
	// MinReps measured runs are always made (unless MaxTime runs out
	// first); default 10.
	MinReps int
	// MinTime of measured runs is always made too (unless MaxReps or
	// MaxTime runs out first), so that a fast pass is sampled over a
	// stretch of time, not a few microseconds of it; default 0.
	MinTime time.Duration
	// MaxReps and MaxTime are the budget: at most MaxReps measured runs,
	// and at most MaxTime of run time, warm-up included (the sum of the
	// durations the kernel reports; the wall clock may run to twice it
	// before the budget counts as spent). Defaults 10000 and 2 s.
	MaxReps int
	MaxTime time.Duration
	// RelCI is the half-width of the median's confidence interval,
	// relative to the median, at which measuring stops; default 0.02.
	RelCI float64
}

// Defaults of Rule.
const (
	DefaultWarmup     = 2
	DefaultWarmupTime = 20 * time.Millisecond
	DefaultMinReps    = 10
	DefaultMaxReps    = 10000
	DefaultMaxTime    = 2 * time.Second
	DefaultRelCI      = 0.02
)

// WithDefaults fills the zero fields with the defaults.
func (r Rule) WithDefaults() Rule {
	if r.Warmup == 0 {
		r.Warmup = DefaultWarmup
	}
	if r.WarmupTime == 0 {
		r.WarmupTime = DefaultWarmupTime
	}
	if r.MinReps == 0 {
		r.MinReps = DefaultMinReps
	}
	if r.MaxReps == 0 {
		r.MaxReps = DefaultMaxReps
	}
	if r.MaxTime == 0 {
		r.MaxTime = DefaultMaxTime
	}
	if r.RelCI == 0 {
		r.RelCI = DefaultRelCI
	}
	return r
}

// Validate reports every field out of range (after defaults).
func (r Rule) Validate() error {
	var errs []error
	if r.Warmup < 0 {
		errs = append(errs, fmt.Errorf("warmup %d: want 0 or more runs", r.Warmup))
	}
	if r.WarmupTime < 0 {
		errs = append(errs, fmt.Errorf("warmup time %v: want 0 or more", r.WarmupTime))
	}
	if r.MinReps < 1 {
		errs = append(errs, fmt.Errorf("min reps %d: want at least 1", r.MinReps))
	}
	if r.MinTime < 0 {
		errs = append(errs, fmt.Errorf("min time %v: want 0 or more", r.MinTime))
	}
	if r.MaxReps < 1 {
		errs = append(errs, fmt.Errorf("max reps %d: want at least 1", r.MaxReps))
	}
	if r.MaxTime <= 0 {
		errs = append(errs, fmt.Errorf("max time %v: want a positive duration", r.MaxTime))
	}
	if !(r.RelCI > 0 && r.RelCI < 1) {
		errs = append(errs, fmt.Errorf("relative CI %g: want between 0 and 1", r.RelCI))
	}
	return errors.Join(errs...)
}

// Share is the rule for one of n rounds that measure a layer pass
// between the other passes' (Options.Rounds): the repetitions and the time
// budget split n ways, with at least 3 measured runs a round where the
// rule's MinReps and MaxReps allow, and never more than MaxReps runs in
// all. A round stops at a confidence interval √n times the rule's (at most
// 50%): the width of a median's interval falls as one over the square root
// of the runs, so n rounds that each reach it pool to about the rule's,
// and the pooled runs are what the rule is judged on (job.outcome). The
// warm-up runs are not split, since the caches are cold again at each
// round; its time is, so a round warms up for at least the rule's runs.
func (r Rule) Share(n int) Rule {
	r = r.WithDefaults()
	if n <= 1 {
		return r
	}
	r.MaxReps = max(r.MaxReps/n, 1)
	r.MinReps = min(max((r.MinReps+n-1)/n, min(3, r.MinReps)), r.MaxReps)
	r.MaxTime = max(r.MaxTime/time.Duration(n), 1)
	r.MinTime /= time.Duration(n)
	r.WarmupTime = max(r.WarmupTime/time.Duration(n), 1)
	r.RelCI = min(r.RelCI*math.Sqrt(float64(n)), 0.5)
	return r
}

// Stop says why measuring stopped.
type Stop string

// The reasons.
const (
	// Converged: the median's 95% confidence interval is within RelCI.
	Converged Stop = "converged"
	// Budget: MaxReps or MaxTime ran out first.
	Budget Stop = "budget"
	// Interrupted: the profile stopped (Ctrl-C) before the row's rounds
	// ended; it holds the runs of those it had, whatever the rule says of
	// them.
	Interrupted Stop = "interrupted"
)

// Stats summarises the measured runs of one layer pass, in seconds.
type Stats struct {
	Reps             int
	Median, P10, P90 float64
	Mean             float64
	// Min is the fastest run: the estimate least disturbed by what else
	// the machine does (Chen and Revels, "Robust benchmarking in noisy
	// environments", 2016), and the steadiest between profiles on shared
	// CPUs. Zero in cache entries written before it was kept.
	Min float64
	// CV is the coefficient of variation: standard deviation / mean.
	CV float64
	// CILo and CIHi bound the median's 95% confidence interval.
	CILo, CIHi float64
}

// RelCI is the half-width of the median's confidence interval relative to
// the median.
func (s Stats) RelCI() float64 {
	if s.CIHi == s.CILo {
		return 0
	}
	if s.Median <= 0 {
		return math.Inf(1)
	}
	return (s.CIHi - s.CILo) / 2 / s.Median
}

// StatsOf computes the statistics of a sample of run times in seconds.
// It panics on an empty sample.
func StatsOf(x []float64) Stats {
	if len(x) == 0 {
		panic("profiler: StatsOf no runs")
	}
	s := slices.Clone(x)
	slices.Sort(s)
	st := Stats{Reps: len(s), Median: quantile(s, 0.5), P10: quantile(s, 0.1), P90: quantile(s, 0.9), Min: s[0]}
	var sum float64
	for _, v := range s {
		sum += v
	}
	st.Mean = sum / float64(len(s))
	if s[0] < s[len(s)-1] && st.Mean > 0 { // a constant sample's CV is 0, not rounding noise
		var ss float64
		for _, v := range s {
			ss += (v - st.Mean) * (v - st.Mean)
		}
		st.CV = math.Sqrt(ss/float64(len(s)-1)) / st.Mean
	}
	st.CILo, st.CIHi = MedianCI(s)
	return st
}

// quantile interpolates linearly between the order statistics of sorted s
// (R's type 7, NumPy's default).
func quantile(s []float64, q float64) float64 {
	h := q * float64(len(s)-1)
	i := int(math.Floor(h))
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (h-float64(i))*(s[i+1]-s[i])
}

// MedianCI is the distribution-free 95% confidence interval of the median
// of a sorted sample: the order statistics of (1-based) ranks
// ⌊n/2 − 1.96·√n/2⌋ and ⌈1 + n/2 + 1.96·√n/2⌉, clamped to the sample (so
// below about 10 runs it is the whole range). It holds whatever the
// distribution of run times, which are skewed and often multimodal; see
// Conover, Practical Nonparametric Statistics, §3.2, or Le Boudec,
// Performance Evaluation of Computer and Communication Systems, §2.2.1.
func MedianCI(sorted []float64) (lo, hi float64) {
	n := float64(len(sorted))
	half := 1.96 * math.Sqrt(n) / 2
	j := int(math.Floor(n/2 - half))
	k := int(math.Ceil(1 + n/2 + half))
	j = min(max(j, 1), len(sorted))
	k = min(max(k, 1), len(sorted))
	return sorted[j-1], sorted[k-1]
}

// Measurement is the outcome of measuring one layer pass.
type Measurement struct {
	Stats
	Stop Stop
	// RunTime is the time of every run, warm-up included; WarmupRuns
	// counts the warm-up runs.
	RunTime    time.Duration
	WarmupRuns int
	// Runs are the measured run times in seconds, in the order run.
	Runs []float64
}

// Measure warms k up and runs it until r's rule stops. It checks ctx
// between batches of runs and returns ctx's error when it is done.
//
// Runs go to the kernel in batches (MinReps first, then a quarter of the
// runs so far), so a fast kernel is not timed one call at a time; the rule
// is checked after each batch, so measuring stops at most a batch after the
// rule is met. Batches never plan past the budget.
func Measure(ctx context.Context, k Kernel, r Rule) (Measurement, error) {
	r = r.WithDefaults()
	if err := r.Validate(); err != nil {
		return Measurement{}, err
	}
	var m Measurement
	wallStart := time.Now()
	run := func(n int) ([]time.Duration, error) {
		d, err := k.Time(n)
		if err != nil {
			return nil, err
		}
		if len(d) != n {
			return nil, fmt.Errorf("kernel returned %d times for %d runs", len(d), n)
		}
		for _, v := range d {
			m.RunTime += v
		}
		return d, nil
	}
	spent := func() bool {
		return m.RunTime >= r.MaxTime || time.Since(wallStart) >= 2*r.MaxTime
	}
	// fit is how many runs of per each fit in left, at least 1.
	fit := func(left, per time.Duration) int {
		if per <= 0 {
			return math.MaxInt32
		}
		return max(int(left/per), 1)
	}

	// Warm-up: Warmup runs, then more until WarmupTime, within a tenth of
	// the time budget.
	warmBudget := min(r.WarmupTime, r.MaxTime/10)
	if r.Warmup > 0 {
		d, err := run(r.Warmup)
		if err != nil {
			return m, err
		}
		m.WarmupRuns += len(d)
	}
	for m.RunTime < warmBudget && m.WarmupRuns < r.MaxReps {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		var per time.Duration // 0 while unknown: double the runs
		if m.WarmupRuns > 0 {
			per = m.RunTime / time.Duration(m.WarmupRuns)
		}
		n := min(fit(warmBudget-m.RunTime, per), max(m.WarmupRuns, 1), r.MaxReps)
		d, err := run(n)
		if err != nil {
			return m, err
		}
		m.WarmupRuns += len(d)
	}

	warmTime := m.RunTime
	var x []float64
	var perRun time.Duration
	if m.WarmupRuns > 0 {
		perRun = m.RunTime / time.Duration(m.WarmupRuns)
	}
	next := r.MinReps
	for {
		if err := ctx.Err(); err != nil {
			return m, err
		}
		n := min(next, r.MaxReps-len(x))
		if perRun > 0 {
			// Never plan past the time budget, once a run's time is known.
			n = min(n, fit(r.MaxTime-m.RunTime, perRun))
		}
		d, err := run(n)
		if err != nil {
			return m, err
		}
		for _, v := range d {
			x = append(x, v.Seconds())
		}
		m.Runs = x
		m.Stats = StatsOf(x)
		perRun = time.Duration(m.Median * 1e9)
		measured := m.RunTime - warmTime
		switch {
		case len(x) >= r.MinReps && measured >= r.MinTime && (m.CIHi-m.CILo)/2 <= r.RelCI*m.Median:
			m.Stop = Converged
			return m, nil
		case len(x) >= r.MaxReps || spent():
			m.Stop = Budget
			return m, nil
		}
		next = max(len(x)/4, 1)
		if len(x) < r.MinReps {
			next = r.MinReps - len(x)
		}
		if measured < r.MinTime && perRun > 0 {
			next = max(next, fit(r.MinTime-measured, perRun))
		}
	}
}
