package predictor

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"gonum.org/v1/gonum/blas"
	"gonum.org/v1/gonum/blas/blas32"
)

// Defaults of the CPU estimate, used where the machine does not say.
const (
	// DefaultCPUClockMHz is the clock assumed when neither cpufreq nor
	// /proc/cpuinfo gives one: a typical server base clock.
	DefaultCPUClockMHz = 2000.0

	// DefaultCPUBandwidthPerSocket is the DRAM bandwidth assumed per socket
	// when it is not measured: 20 GB/s, about what one DDR4-3200 channel
	// (25.6 GB/s peak) sustains in STREAM copy. It is deliberately low: a
	// server socket has 6 to 12 channels (a 12-channel DDR5 socket sustains
	// ~400 GB/s), so anything that depends on it should measure instead
	// (MeasureMemBandwidth).
	DefaultCPUBandwidthPerSocket = 20e9
)

// CPUInfo is what /proc/cpuinfo says about the machine's processors.
// Fields a file does not report are zero.
type CPUInfo struct {
	Model             string   // "model name" of the first processor
	Vendor            string   // "vendor_id" (x86) or "CPU implementer" (arm64)
	Processors        int      // logical CPUs listed ("processor" entries)
	Sockets           int      // distinct "physical id" values
	CoresPerSocket    int      // "cpu cores" of the first processor
	SiblingsPerSocket int      // "siblings" (logical CPUs per socket) of the first processor
	MHz               float64  // "cpu MHz" of the first processor: its clock when read, not a maximum
	Flags             []string // "flags" (x86) or "Features" (arm64) of the first processor
}

// ParseCPUInfo reads /proc/cpuinfo's format: "key<tabs>: value" lines, one
// blank-line-separated block per logical CPU. Numbers that do not parse and
// lines without a colon are errors naming their line; so is a file that lists
// no processor.
func ParseCPUInfo(r io.Reader) (CPUInfo, error) {
	var info CPUInfo
	sockets := map[string]bool{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 1<<20) // flags lines run to a few KB
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		key, value, ok := strings.Cut(text, ":")
		if !ok {
			return CPUInfo{}, fmt.Errorf("predictor: cpuinfo line %d: %q has no colon", line, text)
		}
		key, value = strings.TrimSpace(key), strings.TrimSpace(value)
		first := info.Processors <= 1 // still in the first processor's block
		number := func() (float64, error) {
			v, err := strconv.ParseFloat(value, 64)
			if err != nil {
				return 0, fmt.Errorf("predictor: cpuinfo line %d: %s: %q is not a number", line, key, value)
			}
			return v, nil
		}
		switch key {
		case "processor":
			info.Processors++
		case "model name":
			if info.Model == "" {
				info.Model = value
			}
		case "vendor_id", "CPU implementer":
			if info.Vendor == "" {
				info.Vendor = value
			}
		case "physical id":
			sockets[value] = true
		case "cpu MHz":
			v, err := number()
			if err != nil {
				return CPUInfo{}, err
			}
			if first && info.MHz == 0 {
				info.MHz = v
			}
		case "cpu cores", "siblings":
			v, err := number()
			if err != nil {
				return CPUInfo{}, err
			}
			if first && key == "cpu cores" && info.CoresPerSocket == 0 {
				info.CoresPerSocket = int(v)
			}
			if first && key == "siblings" && info.SiblingsPerSocket == 0 {
				info.SiblingsPerSocket = int(v)
			}
		case "flags", "Features":
			if info.Flags == nil {
				info.Flags = strings.Fields(value)
			}
		}
	}
	if err := sc.Err(); err != nil {
		return CPUInfo{}, fmt.Errorf("predictor: cpuinfo: %w", err)
	}
	if info.Processors == 0 {
		return CPUInfo{}, fmt.Errorf("predictor: cpuinfo: no \"processor\" entry")
	}
	info.Sockets = len(sockets)
	return info, nil
}

// HasFlag reports whether the first processor lists flag.
func (c CPUInfo) HasFlag(flag string) bool {
	for _, f := range c.Flags {
		if f == flag {
			return true
		}
	}
	return false
}

// ThreadsPerCore is siblings / cpu cores: 2 with SMT (Hyper-Threading) on, else 1.
// SMT siblings share one core's vector units, so the peak counts cores, not
// logical CPUs. A hypervisor may hide SMT; then every vCPU counts as a core.
func (c CPUInfo) ThreadsPerCore() int {
	if c.SiblingsPerSocket > 0 && c.CoresPerSocket > 0 && c.SiblingsPerSocket >= c.CoresPerSocket {
		return c.SiblingsPerSocket / c.CoresPerSocket
	}
	return 1
}

// VectorUnit is a core's fp32 SIMD capability as the peak estimate sees it.
type VectorUnit struct {
	ISA   string // "avx512f", "avx2+fma", "avx", "sse", "neon" or "scalar"
	Lanes int    // fp32 lanes per vector
	FMA   bool   // fused multiply-add
	// Ports is the number of vector pipes that each start one FMA per cycle;
	// without FMA, 1 stands for one add pipe plus one multiply pipe.
	Ports int
}

// FlopsPerCycle is one core's fp32 peak per cycle: lanes × 2 (an FMA, or an
// add and a multiply) × ports.
func (v VectorUnit) FlopsPerCycle() float64 { return float64(v.Lanes * 2 * v.Ports) }

// VectorUnit picks the widest SIMD the flags show. Assumptions, all per core:
//   - avx512f: 16 lanes, 2 FMA ports (Skylake-SP Gold 6xxx/Platinum, Ice Lake-SP,
//     Sapphire Rapids, Zen 5). Overestimates 2× on Xeon Bronze/Silver and some
//     Gold 5xxx (one 512-bit FMA) and on Zen 4 (512-bit ops split in two).
//   - avx2 and fma: 8 lanes, 2 FMA ports (Haswell onwards, Zen 2 onwards).
//     Overestimates 2× on Zen 1 (2 × 128-bit FMA).
//   - avx without fma: 8 lanes, one add and one multiply pipe (Sandy/Ivy Bridge).
//   - sse: 4 lanes, one add and one multiply pipe.
//   - asimd (arm64 NEON): 4 lanes, 2 FMA ports (Neoverse N1/N2, Cortex-A76
//     onwards); Apple M-series and Neoverse V1/V2 have 4 and are underestimated.
//
// Without flags it goes by goarch: amd64 guarantees SSE2, arm64 NEON; any
// other architecture, or flags showing none of these, counts as scalar.
func (c CPUInfo) VectorUnit(goarch string) VectorUnit {
	switch {
	case c.HasFlag("avx512f"):
		return VectorUnit{ISA: "avx512f", Lanes: 16, FMA: true, Ports: 2}
	case c.HasFlag("avx2") && c.HasFlag("fma"):
		return VectorUnit{ISA: "avx2+fma", Lanes: 8, FMA: true, Ports: 2}
	case c.HasFlag("avx"):
		return VectorUnit{ISA: "avx", Lanes: 8, Ports: 1}
	case c.HasFlag("sse") || c.HasFlag("sse2"):
		return VectorUnit{ISA: "sse", Lanes: 4, Ports: 1}
	case c.HasFlag("asimd"):
		return VectorUnit{ISA: "neon", Lanes: 4, FMA: true, Ports: 2}
	}
	if len(c.Flags) == 0 {
		switch goarch {
		case "amd64":
			return VectorUnit{ISA: "sse", Lanes: 4, Ports: 1}
		case "arm64":
			return VectorUnit{ISA: "neon", Lanes: 4, FMA: true, Ports: 2}
		}
	}
	return VectorUnit{ISA: "scalar", Lanes: 1, Ports: 1}
}

// CPUSpec is what the CPU estimate is computed from. LocalCPUSpec fills one
// from the running machine; tests fill one from fixtures. Zero fields fall
// back as documented.
type CPUSpec struct {
	Info   CPUInfo
	GOARCH string // picks the SIMD unit when Info has no flags; "" = runtime.GOARCH

	// LogicalCPUs is the number of CPUs this process may run on
	// (runtime.NumCPU: the affinity mask, hyperthreads included, CPU quotas
	// not); 0 = Info.Processors, then 1.
	LogicalCPUs int

	ClockMHz    float64 // clock of the peak; 0 = Info.MHz, then DefaultCPUClockMHz
	ClockSource string  // where ClockMHz came from, for Device.Sources

	MemBytes     float64 // DRAM size; 0 = unknown
	CacheBytes   float64 // last-level cache; 0 = unknown
	MemBandwidth float64 // measured DRAM bytes/s; 0 = DefaultCPUBandwidthPerSocket × sockets

	Notes []string // problems met while reading the machine, copied to Device.Sources
}

// CPUDevice estimates a CPU's peak:
//
//	cores × clock × fp32 lanes × 2 (FMA) × FMA ports
//
// where cores = logical CPUs / threads per core (rounded up: SMT siblings
// share vector units). The clock is the highest the machine reports (cpufreq's
// maximum, which all-core and AVX-512 loads do not sustain), so this is an
// upper bound. Only fp32 has a peak: fp16/bf16 are converted to fp32 on CPUs
// without avx512_fp16 (Peak falls back to fp32), and no matrix unit (AMX,
// SME) is counted, as gonum does not use one.
func CPUDevice(s CPUSpec) Device {
	goarch := s.GOARCH
	if goarch == "" {
		goarch = runtime.GOARCH
	}
	logical := s.LogicalCPUs
	if logical <= 0 {
		logical = s.Info.Processors
	}
	if logical <= 0 {
		logical = 1
	}
	tpc := s.Info.ThreadsPerCore()
	cores := (logical + tpc - 1) / tpc

	clock, clockSource := s.ClockMHz, s.ClockSource
	switch {
	case clock > 0:
		if clockSource == "" {
			clockSource = "given"
		}
	case s.Info.MHz > 0:
		clock, clockSource = s.Info.MHz, "/proc/cpuinfo \"cpu MHz\" (the clock when read)"
	default:
		clock, clockSource = DefaultCPUClockMHz, "default (DefaultCPUClockMHz)"
	}

	vu := s.Info.VectorUnit(goarch)
	peak := float64(cores) * clock * 1e6 * vu.FlopsPerCycle()

	sockets := max(s.Info.Sockets, 1)
	bw, bwSource := s.MemBandwidth, "measured"
	if bw <= 0 {
		bw = DefaultCPUBandwidthPerSocket * float64(sockets)
		bwSource = fmt.Sprintf("not measured: default %.0f GB/s per socket × %d socket(s)", DefaultCPUBandwidthPerSocket/1e9, sockets)
	}

	display := s.Info.Model
	if display == "" {
		display = "CPU (" + goarch + ")"
	}
	sources := []string{
		fmt.Sprintf("peak fp32: %d cores (%d logical CPUs / %d threads per core) × %.0f MHz × %d lanes (%s) × 2 × %d ports = %.4g FLOP/s",
			cores, logical, tpc, clock, vu.Lanes, vu.ISA, vu.Ports, peak),
		"clock: " + clockSource,
		"memory bandwidth: " + bwSource,
	}
	if s.CacheBytes > 0 {
		sources = append(sources, fmt.Sprintf("last-level cache: %.0f MiB", s.CacheBytes/(1<<20)))
	}
	sources = append(sources, s.Notes...)
	return Device{
		Name:          KindCPU,
		Display:       display,
		Kind:          KindCPU,
		PeakVector:    map[Precision]float64{FP32: peak},
		PeakMatrix:    map[Precision]float64{},
		MemBandwidth:  bw,
		MemBytes:      s.MemBytes,
		CacheBytes:    s.CacheBytes,
		SMs:           cores,
		BoostClockMHz: clock,
		Sources:       sources,
	}
}

// Where LocalCPUSpec reads the machine.
const (
	procCPUInfo   = "/proc/cpuinfo"
	procMemInfo   = "/proc/meminfo"
	sysCPUMaxFreq = "/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq" // kHz
	sysCPU0Cache  = "/sys/devices/system/cpu/cpu0/cache"                    // index*/{level,type,size}
)

// LocalCPUSpec reads the running machine: runtime.NumCPU, /proc/cpuinfo,
// cpufreq's maximum clock where present, and /proc/meminfo. What it cannot
// read falls back to CPUDevice's defaults and is noted. It measures nothing.
func LocalCPUSpec() CPUSpec {
	s := CPUSpec{GOARCH: runtime.GOARCH, LogicalCPUs: runtime.NumCPU()}
	if f, err := os.Open(procCPUInfo); err != nil {
		s.Notes = append(s.Notes, fmt.Sprintf("%s unreadable (%v): SIMD from GOARCH, SMT not detected", procCPUInfo, err))
	} else {
		info, err := ParseCPUInfo(f)
		f.Close()
		if err != nil {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: %v: SIMD from GOARCH, SMT not detected", procCPUInfo, err))
		} else {
			s.Info = info
		}
	}
	if b, err := os.ReadFile(sysCPUMaxFreq); err == nil {
		if khz, err := strconv.ParseFloat(strings.TrimSpace(string(b)), 64); err == nil && khz > 0 {
			s.ClockMHz, s.ClockSource = khz/1000, sysCPUMaxFreq+" (maximum, turbo included)"
		}
	}
	if c, err := LastLevelCache(os.DirFS(sysCPU0Cache)); err == nil {
		s.CacheBytes = c
	} else {
		s.Notes = append(s.Notes, fmt.Sprintf("%s: %v: last-level cache unknown", sysCPU0Cache, err))
	}
	if f, err := os.Open(procMemInfo); err == nil {
		if total, err := parseMemTotal(f); err == nil {
			s.MemBytes = total
		} else {
			s.Notes = append(s.Notes, fmt.Sprintf("%s: %v", procMemInfo, err))
		}
		f.Close()
	}
	return s
}

// LocalCPU estimates the running machine's CPU (see CPUDevice), without
// measuring anything: for measured bandwidth, set LocalCPUSpec's
// MemBandwidth from MeasureMemBandwidth and call CPUDevice.
func LocalCPU() Device { return CPUDevice(LocalCPUSpec()) }

// LastLevelCache is the size in bytes of the highest-level data or unified
// cache that a CPU's sysfs cache directory (fsys: the contents of
// /sys/devices/system/cpu/cpuN/cache) lists: index*/level, index*/type and
// index*/size ("32768K", "2M"). It is the one instance that CPU sees,
// shared by the cores of its complex or socket, not the sum over a
// machine's instances. An entry that cannot be read or parsed is passed
// over; none left is an error.
func LastLevelCache(fsys fs.FS) (float64, error) {
	dirs, err := fs.Glob(fsys, "index*")
	if err != nil {
		return 0, err
	}
	level, size := 0, 0.0
	var problems []string
	for _, d := range dirs {
		l, b, err := cacheEntry(fsys, d)
		switch {
		case err != nil:
			problems = append(problems, err.Error())
		case l > level || l == level && b > size:
			level, size = l, b
		}
	}
	if level == 0 {
		if len(problems) > 0 {
			return 0, fmt.Errorf("no data or unified cache readable: %s", strings.Join(problems, "; "))
		}
		return 0, errors.New("no data or unified cache listed")
	}
	return size, nil
}

// cacheEntry is one sysfs cache entry's level and size in bytes; level 0
// for an instruction cache.
func cacheEntry(fsys fs.FS, d string) (int, float64, error) {
	read := func(name string) (string, error) {
		b, err := fs.ReadFile(fsys, d+"/"+name)
		return strings.TrimSpace(string(b)), err
	}
	t, err := read("type")
	if err != nil {
		return 0, 0, err
	}
	if t == "Instruction" {
		return 0, 0, nil
	}
	lv, err := read("level")
	if err != nil {
		return 0, 0, err
	}
	l, err := strconv.Atoi(lv)
	if err != nil || l < 1 {
		return 0, 0, fmt.Errorf("%s/level: %q is not a level", d, lv)
	}
	sz, err := read("size")
	if err != nil {
		return 0, 0, err
	}
	b, err := parseCacheSize(sz)
	if err != nil {
		return 0, 0, fmt.Errorf("%s/size: %w", d, err)
	}
	return l, b, nil
}

// parseCacheSize reads sysfs's cache size: a number of bytes with an
// optional K, M or G suffix (binary multiples).
func parseCacheSize(s string) (float64, error) {
	mult := 1.0
	switch {
	case strings.HasSuffix(s, "K"):
		mult, s = 1<<10, s[:len(s)-1]
	case strings.HasSuffix(s, "M"):
		mult, s = 1<<20, s[:len(s)-1]
	case strings.HasSuffix(s, "G"):
		mult, s = 1<<30, s[:len(s)-1]
	}
	n, err := strconv.ParseUint(s, 10, 40)
	if err != nil || n == 0 {
		return 0, fmt.Errorf("%q is not a cache size", s)
	}
	return float64(n) * mult, nil
}

// parseMemTotal reads MemTotal from /proc/meminfo's format ("MemTotal: 24684092 kB").
func parseMemTotal(r io.Reader) (float64, error) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), "MemTotal:")
		if !ok {
			continue
		}
		f := strings.Fields(rest)
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("MemTotal: %q is not \"N kB\"", strings.TrimSpace(rest))
		}
		kb, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			return 0, fmt.Errorf("MemTotal: %q is not a number", f[0])
		}
		return kb * 1024, nil
	}
	if err := sc.Err(); err != nil {
		return 0, err
	}
	return 0, fmt.Errorf("no MemTotal line")
}

// memCopyBytes is the size of each of MeasureMemBandwidth's two buffers.
// STREAM asks for arrays at least 4× the last-level cache; 64 MiB is that for
// caches up to 16 MiB, but part of it is cache on CPUs with more L3 (EPYCs
// have 32 MiB per CCD), where the result is an overestimate.
const memCopyBytes = 64 << 20

// MeasureMemBandwidth measures DRAM bandwidth with a STREAM-like copy of
// 64 MiB into another 64 MiB, split over GOMAXPROCS goroutines, repeated for
// about d (at least once after an untimed warm-up pass). It counts bytes as
// STREAM's copy does: one read plus one write per byte copied, without the
// write-allocate read. It takes about d plus ~0.1 s of setup; nothing calls
// it unless asked.
func MeasureMemBandwidth(d time.Duration) float64 {
	src := make([]byte, memCopyBytes)
	dst := make([]byte, memCopyBytes)
	for i := 0; i < len(src); i += 4096 {
		src[i] = byte(i >> 12) // fault the pages in: untouched pages all map the zero page
	}
	workers := max(runtime.GOMAXPROCS(0), 1)
	chunk := (len(src) + workers - 1) / workers
	pass := func() {
		var wg sync.WaitGroup
		for lo := 0; lo < len(src); lo += chunk {
			hi := min(lo+chunk, len(src))
			wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
		}
		wg.Wait()
	}
	pass() // warm-up: faults dst in
	passes := 0
	start := time.Now()
	for {
		pass()
		passes++
		if time.Since(start) >= d {
			break
		}
	}
	return 2 * float64(memCopyBytes) * float64(passes) / time.Since(start).Seconds()
}

// gemmMinTime is how long MeasureGEMM repeats its product for.
const gemmMinTime = 100 * time.Millisecond

// MeasureGEMM measures a square float32 GEMM, C = A·B with n×n matrices,
// through gonum's blas32 (pure Go, parallel for large n), and returns the
// achieved FLOP/s (2n³ per product). It runs one untimed product, then
// repeats it for at least 100 ms. It panics if n < 1.
func MeasureGEMM(n int) float64 {
	if n < 1 {
		panic(fmt.Sprintf("predictor: MeasureGEMM: n = %d, want ≥ 1", n))
	}
	matrix := func(seed int) blas32.General {
		m := blas32.General{Rows: n, Cols: n, Stride: n, Data: make([]float32, n*n)}
		for i := range m.Data {
			m.Data[i] = float32((i*7+seed)%13) / 13 // fixed, non-trivial values
		}
		return m
	}
	a, b, c := matrix(1), matrix(5), matrix(0)
	blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c) // warm-up
	reps := 0
	start := time.Now()
	for {
		blas32.Gemm(blas.NoTrans, blas.NoTrans, 1, a, b, 0, c)
		reps++
		if time.Since(start) >= gemmMinTime {
			break
		}
	}
	nf := float64(n)
	return 2 * nf * nf * nf * float64(reps) / time.Since(start).Seconds()
}
