package profiler_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/wb-sim/wb/profiler"
)

func TestMedianCI(t *testing.T) {
	seq := func(n int) []float64 {
		s := make([]float64, n)
		for i := range s {
			s[i] = float64(i + 1)
		}
		return s
	}
	tests := []struct {
		name   string
		x      []float64
		lo, hi float64
	}{
		{"one run", []float64{7}, 7, 7},
		// n=10: ranks ⌊5−3.10⌋=1 and ⌈6+3.10⌉=10: the whole range.
		{"ten runs", seq(10), 1, 10},
		// n=100: ranks ⌊50−9.8⌋=40 and ⌈51+9.8⌉=61 (Le Boudec, Table A.1: 40 and 61).
		{"hundred runs", seq(100), 40, 61},
		// n=1000: ranks ⌊500−30.99⌋=469 and ⌈501+30.99⌉=532.
		{"thousand runs", seq(1000), 469, 532},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi := profiler.MedianCI(tt.x)
			if lo != tt.lo || hi != tt.hi {
				t.Errorf("MedianCI = [%g, %g], want [%g, %g]", lo, hi, tt.lo, tt.hi)
			}
		})
	}
}

// TestMedianCICoverage checks the interval's coverage on a skewed
// distribution: over 2000 samples of 100 exponential runs, the true
// median ln 2 lies inside about 95% of the intervals (order-statistic
// intervals are conservative: the exact coverage for n=100 at ranks 40,
// 61 is 96.5%); the bound 93–98% is ±3.5 binomial standard deviations.
func TestMedianCICoverage(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	const trials = 2000
	in := 0
	for range trials {
		x := make([]float64, 100)
		for i := range x {
			x[i] = rng.ExpFloat64()
		}
		st := profiler.StatsOf(x)
		if st.CILo <= math.Ln2 && math.Ln2 <= st.CIHi {
			in++
		}
	}
	if c := float64(in) / trials; c < 0.93 || c > 0.98 {
		t.Errorf("coverage %.3f, want about 0.96", c)
	}
}

func TestStatsOf(t *testing.T) {
	st := profiler.StatsOf([]float64{5, 1, 4, 2, 3})
	// Type-7 quantiles of 1..5: median 3, p10 1.4, p90 4.6; sd of 1..5 is √2.5.
	want := profiler.Stats{Reps: 5, Median: 3, P10: 1.4, P90: 4.6, Mean: 3, Min: 1, CV: math.Sqrt(2.5) / 3, CILo: 1, CIHi: 5}
	const tol = 1e-12 // float rounding of a few operations
	if st.Reps != want.Reps || st.CILo != want.CILo || st.CIHi != want.CIHi || st.Min != want.Min ||
		math.Abs(st.Median-want.Median) > tol || math.Abs(st.P10-want.P10) > tol || math.Abs(st.P90-want.P90) > tol ||
		math.Abs(st.Mean-want.Mean) > tol || math.Abs(st.CV-want.CV) > tol {
		t.Errorf("StatsOf = %+v, want %+v", st, want)
	}
}

// stream is a kernel reporting synthetic times.
func stream(f func(i int) time.Duration) *streamKernel {
	i := 0
	return &streamKernel{next: func() time.Duration { i++; return f(i) }}
}

func TestMeasureStoppingRule(t *testing.T) {
	ms := time.Millisecond
	rule := profiler.Rule{Warmup: 2, WarmupTime: time.Nanosecond, MinReps: 10, MaxReps: 1000, MaxTime: time.Hour}
	noisy := func(sd float64) func(int) time.Duration {
		rng := rand.New(rand.NewPCG(7, 8))
		return func(int) time.Duration { return time.Duration(float64(ms) * math.Exp(sd*rng.NormFloat64())) }
	}
	tests := []struct {
		name     string
		rule     profiler.Rule
		k        *streamKernel
		stop     profiler.Stop
		minReps  int
		maxReps  int
		maxCalls int
	}{
		{"constant stops at the minimum", rule, stream(func(int) time.Duration { return ms }), profiler.Converged, 10, 10, 2},
		// Warm-up doubles its runs up to MaxReps when no time is reported.
		{"zero times converge", rule, stream(func(int) time.Duration { return 0 }), profiler.Converged, 10, 10, 12},
		// The median's CI half-width under log-normal noise of σ is
		// ≈ 1.96·1.2533·σ/√n (the median's asymptotic standard error,
		// 1/(2f(m)√n)): under 2% from n ≈ 38 at σ = 0.05, n ≈ 340 at σ = 0.15.
		{"little noise converges soon", rule, stream(noisy(0.05)), profiler.Converged, 15, 100, 20},
		{"noise needs more runs", rule, stream(noisy(0.15)), profiler.Converged, 200, 600, 30},
		{"rep budget", profiler.Rule{MinReps: 10, MaxReps: 50, MaxTime: time.Hour, WarmupTime: time.Nanosecond}, stream(noisy(1)), profiler.Budget, 50, 50, 20},
		// A constant 10 µs pass converges at once, but MinTime asks for
		// 5 ms of runs: 500, in a few batches.
		{"min time", profiler.Rule{Warmup: 2, WarmupTime: time.Nanosecond, MinReps: 3, MinTime: 5 * ms}, stream(func(int) time.Duration { return 10 * time.Microsecond }), profiler.Converged, 500, 510, 3},
		// MaxReps comes before MinTime.
		{"min time capped by reps", profiler.Rule{Warmup: 2, WarmupTime: time.Nanosecond, MinReps: 3, MaxReps: 40, MinTime: 5 * ms}, stream(func(int) time.Duration { return 10 * time.Microsecond }), profiler.Budget, 40, 40, 3},
		// 100 ms runs against a 2 s budget: 2 warm-up runs (0.2 s) leave 18.
		{"time budget", profiler.Rule{MinReps: 10, MaxTime: 2 * time.Second, WarmupTime: time.Nanosecond}, stream(noisy(1)), profiler.Budget, 10, 30, 20},
	}
	tests[len(tests)-1].k = stream(func(i int) time.Duration { return time.Duration(100+i%7*20) * ms })
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, err := profiler.Measure(context.Background(), tt.k, tt.rule)
			if err != nil {
				t.Fatal(err)
			}
			if m.Stop != tt.stop || m.Reps < tt.minReps || m.Reps > tt.maxReps {
				t.Errorf("stopped %s after %d runs, want %s after %d to %d", m.Stop, m.Reps, tt.stop, tt.minReps, tt.maxReps)
			}
			if m.Stop == profiler.Converged && m.RelCI() > 0.02 {
				t.Errorf("converged with CI ±%.3f", m.RelCI())
			}
			if tt.k.calls > tt.maxCalls {
				t.Errorf("%d Time calls, want at most %d (runs go in batches)", tt.k.calls, tt.maxCalls)
			}
			if tt.k.runs != m.Reps+m.WarmupRuns {
				t.Errorf("kernel ran %d times, measurement counts %d + %d warm-up", tt.k.runs, m.Reps, m.WarmupRuns)
			}
		})
	}
}

func TestMeasureWarmupTime(t *testing.T) {
	k := stream(func(int) time.Duration { return time.Millisecond })
	m, err := profiler.Measure(context.Background(), k, profiler.Rule{Warmup: 1, WarmupTime: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if m.WarmupRuns < 20 || m.WarmupRuns > 40 {
		t.Errorf("%d warm-up runs of 1 ms for 20 ms of warm-up", m.WarmupRuns)
	}
}

type failingKernel struct{ err error }

func (k failingKernel) Time(n int) ([]time.Duration, error) { return nil, k.err }
func (k failingKernel) Close() error                        { return nil }

func TestMeasureErrors(t *testing.T) {
	boom := errors.New("boom")
	if _, err := profiler.Measure(context.Background(), failingKernel{boom}, profiler.Rule{}); !errors.Is(err, boom) {
		t.Errorf("kernel error: got %v", err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	k := stream(func(int) time.Duration { return time.Millisecond })
	if _, err := profiler.Measure(ctx, k, profiler.Rule{}); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled: got %v", err)
	}
	_, err := profiler.Measure(context.Background(), k, profiler.Rule{MinReps: -1, RelCI: 2, MinTime: -time.Second})
	if err == nil || !containsAll(err.Error(), "min reps -1", "relative CI 2", "min time -1s") {
		t.Errorf("bad rule: got %v", err)
	}
}

func ExampleMedianCI() {
	x := make([]float64, 100)
	for i := range x {
		x[i] = float64(i + 1)
	}
	lo, hi := profiler.MedianCI(x)
	fmt.Println(lo, hi)
	// Output: 40 61
}
