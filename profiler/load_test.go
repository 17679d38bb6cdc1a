package profiler

import (
	"math"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestOthersTicks: the arithmetic on two samples (others' ticks, and the
// wall as the CPUs' ticks over their count), and on Linux real samples
// around work of this process alone: this process's own work not counted
// as others'.
func TestOthersTicks(t *testing.T) {
	a := cpuSample{busy: 100, total: 400, self: 50, cpus: 2, ok: true}
	b := cpuSample{busy: 300, total: 800, self: 150, cpus: 2, ok: true}
	// 200 ticks busy, 100 of them ours; 400 ticks of 2 CPUs: 200 of wall
	if ot, wall, ok := othersTicks(a, b); !ok || ot != 100 || wall != 200 {
		t.Errorf("others %v over %v (%v), want 100 over 200", ot, wall, ok)
	}
	if _, _, ok := othersTicks(cpuSample{}, b); ok {
		t.Error("a missing sample: want none")
	}
	if _, _, ok := othersTicks(a, cpuSample{busy: 300, total: 800, self: 150, cpus: 3, ok: true}); ok {
		t.Error("samples of other CPUs: want none")
	}
	if ot, _, _ := othersTicks(a, cpuSample{busy: 150, total: 800, self: 150, cpus: 2, ok: true}); ot != 0 {
		t.Errorf("ours more than the CPUs' busy time (ticks counted apart): others %v, want 0", ot)
	}
	if runtime.GOOS != "linux" {
		return
	}
	cs := newCPUSampler()
	defer cs.close()
	if len(cs.allowed) == 0 {
		t.Fatal("no Cpus_allowed_list in /proc/self/status")
	}
	s0 := cs.sample()
	if !s0.ok || s0.cpus != len(cs.allowed) {
		t.Fatalf("sample %+v of %d CPUs allowed", s0, len(cs.allowed))
	}
	deadline := time.Now().Add(300 * time.Millisecond)
	x := 1.0
	for time.Now().Before(deadline) {
		x = x*1.0000001 + 1e-9
	}
	s1 := cs.sample()
	if s1.self <= s0.self || s1.total <= s0.total || x == 0 {
		t.Fatalf("samples %+v then %+v: this process's 300 ms of work not counted", s0, s1)
	}
	if ot, wall, ok := othersTicks(s0, s1); !ok || ot < 0 || math.Abs(wall-30) > 10 {
		t.Errorf("others %v over a wall of %v ticks (%v), want about 30 ticks of wall", ot, wall, ok)
	}
}

// TestAllowedCPUs reads this process's affinity: as many CPUs as
// GOMAXPROCS defaults to, where the environment does not set it.
func TestAllowedCPUs(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("/proc/self/status is Linux's")
	}
	if got := len(allowedCPUs()); got < 1 || got < runtime.NumCPU() {
		t.Errorf("%d CPUs allowed, runtime.NumCPU %d", got, runtime.NumCPU())
	}
}

// TestParseCPULines: the cpuN lines of /proc/stat's start, the CPUs
// allowed summed (steal busy, iowait idle), the all-CPUs line and the lines
// after them left out; a buffer that ends within them is not complete.
func TestParseCPULines(t *testing.T) {
	stat := "cpu  9 9 9 9 9 9 9 9 0 0\ncpu0 10 1 2 100 3 4 5 6 0 0\ncpu1 20 0 0 50 0 0 0 0 0 0\ncpu2 1 1 1 1 1 1 1 1 0 0\nintr 123 4 5\n"
	s, complete := parseCPULines([]byte(stat), map[int]bool{0: true, 1: true})
	if !complete || s.cpus != 2 || s.busy != 10+1+2+4+5+6+20 || s.total != s.busy+100+3+50 {
		t.Errorf("allowed 0 and 1: %+v, complete %v", s, complete)
	}
	if s, _ := parseCPULines([]byte(stat), nil); s.cpus != 3 {
		t.Errorf("every CPU: %d counted, want 3", s.cpus)
	}
	if _, complete := parseCPULines([]byte(stat[:50]), nil); complete {
		t.Error("a buffer ending within the cpu lines read as complete")
	}
}

// TestOthersLoadString: a profile disturbed over its whole span with no
// key judged over the threshold says so, not "0 of the 0 keys judged" (a
// reviewer's find); one with keys over it counts them.
func TestOthersLoadString(t *testing.T) {
	for _, c := range []struct {
		l    OthersLoad
		want string
	}{
		{OthersLoad{CPUs: 1.01, Measured: 4, Threshold: 0.5}, "took 1.01 of wb's CPUs on average over the profile, 0.5 or more (none of its keys ran long enough to be judged one by one): its 4 keys' times may be slower"},
		{OthersLoad{CPUs: 0.7, Judged: 3, Measured: 9, Threshold: 0.5}, "(none of the 3 keys judged one by one while it did): its 9 keys' times"},
		{OthersLoad{CPUs: 0.9, Keys: 2, Judged: 3, Measured: 9, Threshold: 0.5}, "and 0.5 or more while 2 of the 3 keys judged were timed"},
	} {
		if !c.l.Disturbed() {
			t.Errorf("%+v: not disturbed", c.l)
		}
		if got := c.l.String(); !strings.Contains(got, c.want) || strings.Contains(got, "0 of the 0") {
			t.Errorf("%+v:\n%s\nwant %q", c.l, got, c.want)
		}
	}
}
