package profiler

import (
	"bytes"
	"os"
	"strconv"
	"strings"
)

// cpuSample is the machine's CPU time so far (busy, of it stolen by the
// hypervisor, and in all, over every CPU) and this process's, in the
// kernel's clock ticks (/proc/stat and /proc/self/stat); ok false where
// they cannot be read (not Linux).
type cpuSample struct {
	busy, total, self float64
	ok                bool
}

// sampleCPU reads the machine's and this process's CPU time now.
func sampleCPU() cpuSample {
	stat, err := os.ReadFile("/proc/stat")
	if err != nil {
		return cpuSample{}
	}
	line, _, _ := bytes.Cut(stat, []byte("\n"))
	f := strings.Fields(string(line))
	if len(f) < 9 || f[0] != "cpu" {
		return cpuSample{}
	}
	var v [8]float64 // user nice system idle iowait irq softirq steal
	for i := range v {
		if v[i], err = strconv.ParseFloat(f[i+1], 64); err != nil {
			return cpuSample{}
		}
	}
	busy := v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
	self, ok := selfTicks()
	if !ok {
		return cpuSample{}
	}
	return cpuSample{busy: busy, total: busy + v[3] + v[4], self: self, ok: true}
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

// othersShare is the share of the machine's CPU time between a and b
// that went to anything but this process, a hypervisor's steal included
// (0 to 1); ok false where either sample is missing or no time passed.
// The gate's probe, a few microseconds of arithmetic, fits within another
// process's time slices and does not see it; this does (a busy loop beside
// a profile took a 1024 product's fastest run to 2.6× its own, unseen: a
// reviewer's find).
func othersShare(a, b cpuSample) (float64, bool) {
	if !a.ok || !b.ok || b.total <= a.total {
		return 0, false
	}
	others := (b.busy - a.busy) - (b.self - a.self)
	return min(max(others/(b.total-a.total), 0), 1), true
}

// othersTicks is the CPU time between a and b that went to anything but
// this process, and the machine's CPU time in all (ticks); ok false where
// either sample is missing.
func othersTicks(a, b cpuSample) (others, total float64, ok bool) {
	if !a.ok || !b.ok || b.total < a.total {
		return 0, 0, false
	}
	return max((b.busy-a.busy)-(b.self-a.self), 0), b.total - a.total, true
}

// minJudgedTicks is the least CPU time (the machine's, all CPUs, in
// /proc/stat's ticks of 10 ms) over which a row's share of others is
// judged: over a few ticks one tick of a background task reads as tens of
// percent.
const minJudgedTicks = 20
