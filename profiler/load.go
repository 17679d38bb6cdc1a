package profiler

import (
	"bytes"
	"io"
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

// cpuSampler reads the CPU time of the CPUs this process may run on and
// its own, around every timed set of runs: /proc/stat and /proc/self/stat
// held open and read from their start into one buffer (ReadFile and a
// split of the whole of /proc/stat, its interrupt counts included, took
// 29 µs a sample, over a tenth of a short key's harness time; this takes a
// few).
type cpuSampler struct {
	stat, self *os.File
	allowed    map[int]bool // nil: every CPU
	buf        []byte
}

// newCPUSampler opens the files; a sampler whose files did not open (not
// Linux) samples nothing (ok false).
func newCPUSampler() *cpuSampler {
	s := &cpuSampler{allowed: allowedCPUs(), buf: make([]byte, 16<<10)}
	var err error
	if s.stat, err = os.Open("/proc/stat"); err != nil {
		return s
	}
	if s.self, err = os.Open("/proc/self/stat"); err != nil {
		s.stat.Close()
		s.stat = nil
	}
	return s
}

// close closes the files.
func (s *cpuSampler) close() {
	if s != nil && s.stat != nil {
		s.stat.Close()
		s.self.Close()
	}
}

// sample reads the CPU time of the CPUs allowed and this process's now.
func (s *cpuSampler) sample() cpuSample {
	if s == nil || s.stat == nil {
		return cpuSample{}
	}
	var out cpuSample
	for {
		n, err := s.stat.ReadAt(s.buf, 0)
		if err != nil && err != io.EOF {
			return cpuSample{}
		}
		// the cpuN lines come first: read until the first other line,
		// growing the buffer where they do not fit in it
		var complete bool
		out, complete = parseCPULines(s.buf[:n], s.allowed)
		if complete || n < len(s.buf) {
			break
		}
		s.buf = make([]byte, 2*len(s.buf))
	}
	self, ok := s.selfTicks()
	if !ok || out.cpus == 0 {
		return cpuSample{}
	}
	out.self, out.ok = self, true
	return out
}

// parseCPULines sums the cpuN lines of /proc/stat's start b for the CPUs
// allowed (every one where nil); complete is whether a line after them was
// reached.
func parseCPULines(b []byte, allowed map[int]bool) (s cpuSample, complete bool) {
	for len(b) > 0 {
		line, rest, found := bytes.Cut(b, []byte("\n"))
		if !found {
			return s, false // a line cut short: the buffer ends in it
		}
		b = rest
		name, fields, _ := bytes.Cut(line, []byte(" "))
		id, isCPU := bytes.CutPrefix(name, []byte("cpu"))
		if !isCPU {
			return s, true
		}
		n, err := strconv.Atoi(string(id))
		if err != nil || allowed != nil && !allowed[n] {
			continue // the all-CPUs line, or a CPU not ours
		}
		var v [8]float64 // user nice system idle iowait irq softirq steal
		f := bytes.Fields(fields)
		if len(f) < len(v) {
			return cpuSample{}, true
		}
		for i := range v {
			x, err := strconv.ParseUint(string(f[i]), 10, 64)
			if err != nil {
				return cpuSample{}, true
			}
			v[i] = float64(x)
		}
		busy := v[0] + v[1] + v[2] + v[5] + v[6] + v[7]
		s.busy += busy
		s.total += busy + v[3] + v[4]
		s.cpus++
	}
	return s, false
}

// selfTicks is this process's user and system time (all its threads).
func (s *cpuSampler) selfTicks() (float64, bool) {
	n, err := s.self.ReadAt(s.buf, 0)
	if err != nil && err != io.EOF {
		return 0, false
	}
	b := s.buf[:n]
	// the command's name, in parentheses, may hold spaces: fields count
	// from after its closing one (state is field 3, utime 14, stime 15)
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, false
	}
	f := bytes.Fields(b[i+1:])
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseFloat(string(f[11]), 64)
	t, err2 := strconv.ParseFloat(string(f[12]), 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return u + t, true
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

// OthersDuring runs f and returns how many of this process's CPUs other
// processes (and the hypervisor's steal) took on average while it ran, as
// a profile's keys are judged (ok false where /proc cannot tell, or f ran
// for fewer than minJudgedTicks). wb profile measures the machine's peak
// and bandwidth this way: a burst of load there read both low and skewed
// every row's prediction, unseen (a reviewer's find).
func OthersDuring(f func()) (cpus float64, ok bool) {
	s := newCPUSampler()
	defer s.close()
	a := s.sample()
	f()
	others, wall, ok := othersTicks(a, s.sample())
	if !ok || wall < minJudgedTicks {
		return 0, false
	}
	return others / wall, true
}
