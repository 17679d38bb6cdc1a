package profiler

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// cpuSample is, in the kernel's clock ticks (/proc/stat and
// /proc/self/stat, both in USER_HZ), the CPU time so far of the CPUs this
// process may run on (its affinity: a container's cpuset, not the host's
// every CPU): busy (a hypervisor's steal included) and in all, and this
// process's own; cpus counts them. ok false where they cannot be read
// (not Linux).
type cpuSample struct {
	busy, total, self float64
	cpus              int
	ok                bool
}

// allowedCPUs is the CPUs this process may run on, from /proc/self/status's
// Cpus_allowed_list ("0-3,8"); nil where unknown (every CPU then counts).
func allowedCPUs() map[int]bool {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return nil
	}
	for _, line := range strings.Split(string(b), "\n") {
		list, ok := strings.CutPrefix(line, "Cpus_allowed_list:")
		if !ok {
			continue
		}
		set := map[int]bool{}
		for _, r := range strings.Split(strings.TrimSpace(list), ",") {
			lo, hi, isRange := strings.Cut(r, "-")
			a, err1 := strconv.Atoi(lo)
			z := a
			var err2 error
			if isRange {
				z, err2 = strconv.Atoi(hi)
			}
			if err1 != nil || err2 != nil || z < a || z-a > 1<<16 {
				return nil
			}
			for c := a; c <= z; c++ {
				set[c] = true
			}
		}
		return set
	}
	return nil
}

// sampleCPU reads the CPU time of the CPUs allowed (all where allowed is
// nil) and this process's, now.
func sampleCPU(allowed map[int]bool) cpuSample {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuSample{}
	}
	var s cpuSample
	for _, line := range strings.Split(string(stat), "\n") {
		name, rest, ok := strings.Cut(line, " ")
		n, err := strconv.Atoi(strings.TrimPrefix(name, "cpu"))
		if !ok || !strings.HasPrefix(name, "cpu") || err != nil || allowed != nil && !allowed[n] {
			continue // the all-CPUs line, other lines, CPUs not ours
		}
		f := strings.Fields(rest)
		if len(f) < 8 {
			return cpuSample{}
		}
		var v [8]float64 // user nice system idle iowait irq softirq steal
		for i := range v {
			if v[i], err = strconv.ParseFloat(f[i], 64); err != nil {
				return cpuSample{}
			}
		}
		busy := v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
		s.busy += busy
		s.total += busy + v[3] + v[4]
		s.cpus++
	}
	self, ok := selfTicks()
	if !ok || s.cpus == 0 {
		return cpuSample{}
	}
	s.self, s.ok = self, true
	return s
}

// selfTicks is this process's user and system time (all its threads).
func selfTicks() (float64, bool) {
	b, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0, false
	}
	// the command's name, in parentheses, may hold spaces: fields count
	// from after its closing one (state is field 3, utime 14, stime 15)
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseFloat(f[11], 64)
	s, err2 := strconv.ParseFloat(f[12], 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return u + s, true
}

// othersTicks is, between a and b, the CPU time of this process's CPUs
// that went to anything but it (a hypervisor's steal included), and the
// wall time, both in ticks (the wall the CPUs' time over their count);
// ok false where either sample is missing. Others' time over the wall is
// how many of this process's CPUs they took on average: one busy loop is
// one CPU, whatever the machine's size, and one CPU taken from an OpenMP
// team, which waits for its slowest thread, slows every parallel kernel.
// The gate's probe, a few microseconds of arithmetic, fits within another
// process's time slices and does not see it (a busy loop beside a profile
// took a 1024 product's fastest run to 2.6× its own, unseen: a reviewer's
// find).
func othersTicks(a, b cpuSample) (others, wall float64, ok bool) {
	if !a.ok || !b.ok || a.cpus != b.cpus || b.total < a.total {
		return 0, 0, false
	}
	return max((b.busy-a.busy)-(b.self-a.self), 0), (b.total - a.total) / float64(b.cpus), true
}

// minJudgedTicks is the least wall time (in /proc/stat's ticks of 10 ms)
// over which a key's others are judged: over fewer, one tick of a
// background task, or of the tick-sampled busy time against the process's
// exact own, reads as a large share.
const minJudgedTicks = 20
