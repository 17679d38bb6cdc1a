package profiler_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/profiler"
)

// overheadNet has 8 distinct keys and 8 layers repeating them.
func overheadNet() *dnn.Network {
	var layers []dnn.Layer
	for i := range 16 {
		layers = append(layers, layer("conv2d", fmt.Sprint(i%8)))
	}
	return network(layers...)
}

// BenchmarkProfileOverhead profiles a network of kernels spinning a fixed
// time, with the default rule and a telemetry-free harness, in one round
// and in the CPU backend's 8 (with its minimum time, scaled as MaxTime
// is), and reports the harness overhead: the share of wall time outside
// the runs (harness-%), and inside Measure only (measure-%).
func BenchmarkProfileOverhead(b *testing.B) {
	for _, spin := range []time.Duration{10 * time.Microsecond, 100 * time.Microsecond, time.Millisecond} {
		for _, rounds := range []int{1, 8} {
			b.Run(fmt.Sprintf("%v/rounds=%d", spin, rounds), func(b *testing.B) {
				benchOverhead(b, spin, rounds)
			})
		}
	}
}

func benchOverhead(b *testing.B, spin time.Duration, rounds int) {
	rule := profiler.Rule{MaxTime: 50 * time.Millisecond}
	if rounds > 1 {
		rule.MinTime = 5 * time.Millisecond // 200 ms of a 2 s budget, as on the CPU
	}
	var harness, measure float64
	for b.Loop() {
		p, err := profiler.Run(context.Background(), &fakeBackend{spin: spin}, overheadNet(),
			profiler.Options{Passes: []dnn.Pass{dnn.Forward}, Rule: rule, Rounds: rounds})
		if err != nil {
			b.Fatal(err)
		}
		harness += p.Meta.Timing.HarnessOverhead
		measure += p.Meta.Timing.MeasureOverhead
	}
	b.ReportMetric(100*harness/float64(b.N), "harness-%")
	b.ReportMetric(100*measure/float64(b.N), "measure-%")
}

// TestHarnessOverhead checks the bound, harness overhead ≤ 10% of
// profiling wall time, on 100 µs spinning kernels. The spin loop counts a
// preempted run as run time, but a preemption between runs counts as the
// harness's (one profile measured 11% in a CI run beside other packages'
// tests): the least of three profiles is held to the bound (measured on
// the 2-core VM: about 2%).
func TestHarnessOverhead(t *testing.T) {
	if testing.Short() {
		t.Skip("spins for about a second")
	}
	// The least of three profiles: time the machine gave to other
	// processes (other packages' tests share the cores) only adds to the
	// harness's share, so the least is the harness's own.
	least := 1.0
	for range 3 {
		p, err := profiler.Run(context.Background(), &fakeBackend{spin: 100 * time.Microsecond}, overheadNet(),
			profiler.Options{Passes: []dnn.Pass{dnn.Forward}, Rule: profiler.Rule{MaxTime: 50 * time.Millisecond}})
		if err != nil {
			t.Fatal(err)
		}
		tm := p.Meta.Timing
		t.Logf("wall %.3f s, runs %.3f s: harness overhead %.2f%%, measure overhead %.2f%%", tm.WallS, tm.RunS, 100*tm.HarnessOverhead, 100*tm.MeasureOverhead)
		least = min(least, tm.HarnessOverhead)
	}
	if least > 0.10 {
		t.Errorf("harness overhead %.1f%% of wall time at least, in three profiles; want ≤ 10%%", 100*least)
	}
}
