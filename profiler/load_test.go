package profiler

import (
	"math"
	"runtime"
	"testing"
	"time"
)

// TestOthersShare: the arithmetic on two samples, and on Linux real
// samples around work of this process alone: others' share between 0 and
// 1, this process's own work not counted as theirs.
func TestOthersShare(t *testing.T) {
	a := cpuSample{busy: 100, total: 400, self: 50, ok: true}
	b := cpuSample{busy: 300, total: 800, self: 150, ok: true}
	// 200 ticks busy, 100 of them ours, of 400 in all
	if s, ok := othersShare(a, b); !ok || math.Abs(s-0.25) > 1e-12 {
		t.Errorf("share %v (%v), want 0.25", s, ok)
	}
	if _, ok := othersShare(a, a); ok {
		t.Error("no time passed: want no share")
	}
	if _, ok := othersShare(cpuSample{}, b); ok {
		t.Error("a missing sample: want no share")
	}
	if s, _ := othersShare(a, cpuSample{busy: 150, total: 800, self: 150, ok: true}); s != 0 {
		t.Errorf("ours more than the machine's busy (ticks counted apart): share %v, want 0", s)
	}
	if runtime.GOOS != "linux" {
		return
	}
	s0 := sampleCPU()
	if !s0.ok {
		t.Fatal("/proc/stat or /proc/self/stat unreadable on Linux")
	}
	deadline := time.Now().Add(300 * time.Millisecond)
	x := 1.0
	for time.Now().Before(deadline) {
		x = x*1.0000001 + 1e-9
	}
	s1 := sampleCPU()
	if s1.self <= s0.self || s1.total <= s0.total || x == 0 {
		t.Fatalf("samples %+v then %+v: this process's 300 ms of work not counted", s0, s1)
	}
	if s, ok := othersShare(s0, s1); !ok || s < 0 || s > 1 {
		t.Errorf("share %v (%v)", s, ok)
	}
}
