package profiler

import (
	"testing"
	"time"
)

// TestPooledMinTime: runs pooled over rounds are converged only when they
// are the rule's MinTime or more, as a single round's are (a pass of
// 150 ns ran its most runs in 1.5 ms of the 200 ms asked and was called
// converged).
func TestPooledMinTime(t *testing.T) {
	rule := Rule{MinReps: 10, RelCI: 0.02, MinTime: 200 * time.Millisecond, MaxReps: 10000}.WithDefaults()
	pooled := func(perRun float64, runs int) Stop {
		j := &job{}
		for range 2 {
			x := make([]float64, runs/2)
			for i := range x {
				x[i] = perRun * (1 + 0.001*float64(i%3))
			}
			j.add(roundOutcome{out: Outcome{Status: OK}, runs: x})
		}
		return j.outcome(rule).Stop
	}
	if got := pooled(150e-9, 10000); got != Budget {
		t.Errorf("10,000 runs of 150 ns (1.5 ms of 200): %s, want %s", got, Budget)
	}
	if got := pooled(1e-3, 400); got != Converged {
		t.Errorf("400 runs of 1 ms (400 ms of 200): %s, want %s", got, Converged)
	}
}

// TestFillOneRun: a row of one run has no spread and no interval (empty,
// where 0 read as exact); of two runs, both.
func TestFillOneRun(t *testing.T) {
	var r Record
	r.fill(Outcome{Status: OK, Stop: Budget, Stats: StatsOf([]float64{3e-7})})
	if r.CV.OK || r.CIRel.OK || !r.Median.OK || r.Reps != 1 {
		t.Errorf("one run: cv %v, ci_rel %v, median %v, reps %d", r.CV, r.CIRel, r.Median, r.Reps)
	}
	r = Record{}
	r.fill(Outcome{Status: OK, Stop: Budget, Stats: StatsOf([]float64{3e-7, 4e-7})})
	if !r.CV.OK || !r.CIRel.OK || !(r.CIRel.V > 0) {
		t.Errorf("two runs: cv %v, ci_rel %v", r.CV, r.CIRel)
	}
}
