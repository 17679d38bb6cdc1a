package profiler

import (
	"context"
	"errors"
	"testing"
	"time"
)

// probes returns a probe that answers the durations given, in µs, then
// the last one for ever.
func probes(us ...float64) (func() (time.Duration, error), *int) {
	n := 0
	return func() (time.Duration, error) {
		d := us[min(n, len(us)-1)]
		n++
		return time.Duration(d * 1e3), nil
	}, &n
}

func TestGate(t *testing.T) {
	ctx := context.Background()
	// Calibration: ten probes, the fastest 40 µs. Then a slow stretch of
	// three probes (80 µs, above 1.6 × 40) before a fast one.
	cal := []float64{50, 45, 40, 41, 42, 40, 44, 43, 41, 40}
	p, n := probes(append(cal, 80, 80, 80, 42, 60, 100)...)
	g := &Gate{Probe: p, Pause: time.Millisecond}
	if err := g.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if *n != 14 || g.Stats.Held != 1 || g.Stats.Contended != 0 || g.Stats.BestProbe != 40e-6 || g.Stats.Threshold != 1.6 {
		t.Fatalf("after a slow stretch: %d probes, %+v", *n, g.Stats)
	}
	if w := g.Stats.Waited; w < 2.9e-3 || w > 3.1e-3 {
		t.Errorf("waited %g s, want the three pauses", w)
	}
	// 60 µs is within 1.6 × 40: no wait.
	if err := g.Wait(ctx); err != nil || *n != 15 || g.Stats.Held != 1 {
		t.Fatalf("a probe within the threshold held the measurement: %d probes, %+v, %v", *n, g.Stats, err)
	}
	// Slow for ever: the budget runs out, the measurement goes ahead, counted.
	g.Budget = 5 * time.Millisecond
	if err := g.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if g.Stats.Held != 2 || g.Stats.Contended != 1 {
		t.Errorf("slow past the budget: %+v", g.Stats)
	}
	// A faster probe lowers the bar.
	p2, _ := probes(append(cal, 20, 40)...)
	g2 := &Gate{Probe: p2, Pause: time.Millisecond, Budget: time.Millisecond}
	_ = g2.Wait(ctx)
	_ = g2.Wait(ctx)
	if g2.Stats.BestProbe != 20e-6 || g2.Stats.Contended != 1 {
		t.Errorf("after a 20 µs probe, 40 µs is 2× the fastest: %+v", g2.Stats)
	}
}

func TestGateOff(t *testing.T) {
	ctx := context.Background()
	var g *Gate
	if err := g.Wait(ctx); err != nil || g.Err() != nil {
		t.Fatal("a nil gate held or failed")
	}
	if err := (&Gate{}).Wait(ctx); err != nil {
		t.Fatal(err)
	}
	// A failing probe turns the gate off and says why; measuring goes on.
	calls := 0
	bad := &Gate{Probe: func() (time.Duration, error) { calls++; return 0, errors.New("no FMA") }}
	if err := bad.Wait(ctx); err != nil {
		t.Fatal(err)
	}
	if err := bad.Wait(ctx); err != nil || calls != 1 || bad.Err() == nil || bad.Err().Error() != "no FMA" {
		t.Errorf("after a failed probe: %d calls, err %v", calls, bad.Err())
	}
	// A cancelled context ends a wait.
	p, _ := probes(40, 40, 40, 40, 40, 40, 40, 40, 40, 40, 200)
	slow := &Gate{Probe: p, Pause: time.Millisecond, Budget: time.Hour}
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	if err := slow.Wait(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled wait: %v", err)
	}
}
