//go:build cgo

package onednn_test

import (
	"testing"
	"time"

	"github.com/wb-sim/wb/profiler/onednn"
)

// TestProbe: the gate's probe times each thread's own chains, not the span
// from the first thread's start to the last one's end: within one run the
// slowest thread's time is at most that span, and where the second thread
// starts only when the first is done (a skew in starting as long as a
// run) the span holds both runs and the slowest thread's time one: the
// span at least 1.5× it in one of five runs, which a probe timing the span
// never is, whatever the machine's load (the span is at least the two
// runs' times summed by construction). Nothing is timed against a budget.
func TestProbe(t *testing.T) {
	b := newBackend(t)
	w := onednn.ISAWidth()
	if w == 0 {
		t.Skip("no AVX2/AVX-512 FMA to probe with (the gate is off there)")
	}
	const iters = 12000
	for range 5 {
		each, span := onednn.ProbeRun(w, 2, iters)
		if !(each > 0) || each > span {
			t.Fatalf("slowest thread %g s, span %g s", each, span)
		}
	}
	best := 0.0
	for range 5 {
		each, span := onednn.ProbeRunInTurn(w, 2, iters, true)
		if !(each > 0) || each > span {
			t.Fatalf("threads in turn: slowest thread %g s, span %g s", each, span)
		}
		best = max(best, span/each)
	}
	if best < 1.5 {
		t.Errorf("threads in turn: the span at most %.2f× the slowest thread's own time in five runs, want ≥ 1.5 (the second thread's start left out)", best)
	}
	if d, err := b.Probe(); err != nil || d <= 0 || d > time.Second {
		t.Errorf("Probe %v, %v", d, err)
	}
}
