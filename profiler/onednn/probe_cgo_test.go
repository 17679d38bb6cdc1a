//go:build cgo

package onednn_test

import (
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/wb-sim/wb/profiler/onednn"
)

// TestProbe: the gate's probe times each thread's own chains, so within one
// run the slowest thread's time is at most the span from the first start
// to the last end (the skew in starting is in the span alone), and it
// times the work: four times the chain steps take 2–8 times as long
// (fastest of five runs each; both under 1 ms). With twice as many threads
// as cores, some start only when others are done: the span then holds at
// least two threads' runs one after the other, and the slowest thread's
// own time one (median of nine runs: the span over 1.5× it).
func TestProbe(t *testing.T) {
	b := newBackend(t)
	w := onednn.ISAWidth()
	if w == 0 {
		t.Skip("no AVX2/AVX-512 FMA")
	}
	const iters = 12000
	fastest := func(n int64) float64 {
		best := 1.0
		for range 5 {
			each, span := onednn.ProbeRun(w, 2, n)
			if !(each > 0) || each > span {
				t.Fatalf("probe of %d steps: slowest thread %g s, span %g s", n, each, span)
			}
			best = min(best, each)
		}
		return best
	}
	one, four := fastest(iters), fastest(4*iters)
	if r := four / one; r < 2 || r > 8 {
		t.Errorf("4× the steps took %.2f× as long (%g s, %g s)", r, four, one)
	}
	if d, err := b.Probe(); err != nil || d <= 0 || d > 100*time.Millisecond {
		t.Errorf("Probe %v, %v", d, err)
	}
	threads := min(2*runtime.NumCPU(), 256)
	var ratios []float64
	for range 9 {
		each, span := onednn.ProbeRun(w, threads, iters)
		if !(each > 0) || each > span {
			t.Fatalf("%d threads: slowest thread %g s, span %g s", threads, each, span)
		}
		ratios = append(ratios, span/each)
	}
	slices.Sort(ratios)
	if r := ratios[len(ratios)/2]; r < 1.5 {
		t.Errorf("%d threads on %d cores: span a median %.2f× the slowest thread's own time, want ≥ 1.5 (%.2f)", threads, runtime.NumCPU(), r, ratios)
	}
}
