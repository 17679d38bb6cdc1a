package profiler

import (
	"testing"
	"time"
)

// TestMethodNamesTheBudget: a pass measured under another stopping rule is
// another cache entry: a smaller budget (stopped early), more runs or a
// looser interval; the defaults add nothing, so earlier entries stay valid.
func TestMethodNamesTheBudget(t *testing.T) {
	base := Options{Rounds: 8, Rule: Rule{MinTime: 200 * time.Millisecond}}
	if got := method(base); got != "rounds=8 min_time=200ms" {
		t.Errorf("defaults: %q", got)
	}
	seen := map[string]bool{method(base): true}
	for _, r := range []Rule{{MaxTime: 100 * time.Millisecond}, {MaxReps: 50000}, {MinReps: 3}, {RelCI: 0.05}} {
		o := base
		o.Rule.MaxTime, o.Rule.MaxReps, o.Rule.MinReps, o.Rule.RelCI = r.MaxTime, r.MaxReps, r.MinReps, r.RelCI
		m := method(o)
		if seen[m] {
			t.Errorf("rule %+v: method %q names no difference", r, m)
		}
		seen[m] = true
	}
	o := base
	o.Rule.MaxTime, o.Rule.MaxReps = DefaultMaxTime, DefaultMaxReps // the CLI's defaults, given explicitly
	if method(o) != method(base) {
		t.Errorf("explicit defaults: %q, want %q", method(o), method(base))
	}
	// gated rows are another entry, at their threshold
	g := base
	g.Gate = &Gate{}
	if m := method(g); m != "rounds=8 min_time=200ms gate=1.6" {
		t.Errorf("gated: %q", m)
	}
	g.Gate = &Gate{Threshold: 2}
	if m := method(g); m != "rounds=8 min_time=200ms gate=2" {
		t.Errorf("gated at 2: %q", m)
	}
}
