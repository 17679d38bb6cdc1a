package predictor

import (
	"fmt"
	"math"
	"strings"
	"testing"
	"testing/fstest"
	"time"
)

// cpuinfoBlock is one processor's block of /proc/cpuinfo, in the x86 layout.
func cpuinfoBlock(proc int, vendor, model string, mhz string, physical, siblings, core, cores int, flags string) string {
	return fmt.Sprintf(`processor	: %d
vendor_id	: %s
cpu family	: 6
model		: 85
model name	: %s
stepping	: 4
microcode	: 0x2007006
cpu MHz		: %s
cache size	: 33792 KB
physical id	: %d
siblings	: %d
core id		: %d
cpu cores	: %d
apicid		: %d
fpu		: yes
fpu_exception	: yes
cpuid level	: 13
wp		: yes
flags		: %s
bugs		: cpu_meltdown spectre_v1 spectre_v2 spec_store_bypass
bogomips	: 5000.00
clflush size	: 64
cache_alignment	: 64
address sizes	: 46 bits physical, 48 bits virtual
power management:

`, proc, vendor, model, mhz, physical, siblings, core, cores, proc, flags)
}

// xeonFlags are an AWS m5 (Xeon Platinum 8175M, Skylake-SP) guest's flags.
const xeonFlags = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc arch_perfmon rep_good nopl xtopology nonstop_tsc cpuid aperfmperf tsc_known_freq pni pclmulqdq ssse3 fma cx16 pcid sse4_1 sse4_2 x2apic movbe popcnt tsc_deadline_timer aes xsave avx f16c rdrand hypervisor lahf_lm abm 3dnowprefetch invpcid_single pti fsgsbase tsc_adjust bmi1 hle avx2 smep bmi2 erms invpcid rtm mpx avx512f avx512dq rdseed adx smap clflushopt clwb avx512cd avx512bw avx512vl xsaveopt xsavec xgetbv1 xsaves ida arat pku ospke"

// epycFlags are an AWS c5a (EPYC 7R32, Zen 2) guest's flags: AVX2 and FMA, no AVX-512.
const epycFlags = "fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse sse2 ht syscall nx mmxext fxsr_opt pdpe1gb rdtscp lm constant_tsc rep_good nopl nonstop_tsc cpuid extd_apicid aperfmperf tsc_known_freq pni pclmulqdq ssse3 fma cx16 sse4_1 sse4_2 movbe popcnt aes xsave avx f16c rdrand hypervisor lahf_lm cmp_legacy cr8_legacy abm sse4a misalignsse 3dnowprefetch topoext perfctr_core ssbd ibrs ibpb stibp vmmcall fsgsbase bmi1 avx2 smep bmi2 rdseed adx smap clflushopt clwb sha_ni xsaveopt xsavec xgetbv1 clzero xsaveerptr rdpru wbnoinvd arat npt nrip_save rdpid"

// xeonFixture: one socket, 2 cores × 2 hyperthreads = 4 logical CPUs, AVX-512,
// 2500 MHz on the first processor (later ones read differently, as they do).
func xeonFixture() string {
	var b strings.Builder
	for p, mhz := range []string{"2500.000", "3100.206", "2499.998", "3000.000"} {
		b.WriteString(cpuinfoBlock(p, "GenuineIntel", "Intel(R) Xeon(R) Platinum 8175M CPU @ 2.50GHz", mhz, 0, 4, p%2, 2, xeonFlags))
	}
	return b.String()
}

// epycFixture: two sockets × 2 cores × 2 SMT threads = 8 logical CPUs, AVX2+FMA, 2800 MHz.
func epycFixture() string {
	var b strings.Builder
	for p := range 8 {
		b.WriteString(cpuinfoBlock(p, "AuthenticAMD", "AMD EPYC 7R32", "2800.000", p/4, 4, p%2, 2, epycFlags))
	}
	return b.String()
}

func TestParseCPUInfo(t *testing.T) {
	for _, c := range []struct {
		name    string
		fixture string
		want    CPUInfo
		isa     string
	}{
		{"xeon-avx512", xeonFixture(), CPUInfo{Model: "Intel(R) Xeon(R) Platinum 8175M CPU @ 2.50GHz", Vendor: "GenuineIntel",
			Processors: 4, Sockets: 1, CoresPerSocket: 2, SiblingsPerSocket: 4, MHz: 2500}, "avx512f"},
		{"epyc-avx2", epycFixture(), CPUInfo{Model: "AMD EPYC 7R32", Vendor: "AuthenticAMD",
			Processors: 8, Sockets: 2, CoresPerSocket: 2, SiblingsPerSocket: 4, MHz: 2800}, "avx2+fma"},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := ParseCPUInfo(strings.NewReader(c.fixture))
			if err != nil {
				t.Fatal(err)
			}
			flags := got.Flags
			got.Flags = nil
			if fmt.Sprint(got) != fmt.Sprint(c.want) {
				t.Errorf("got  %+v\nwant %+v", got, c.want)
			}
			if len(flags) < 50 || !(CPUInfo{Flags: flags}).HasFlag("fma") {
				t.Errorf("flags %v", flags)
			}
			if got.ThreadsPerCore() != 2 {
				t.Errorf("ThreadsPerCore = %d, want 2", got.ThreadsPerCore())
			}
			if isa := (CPUInfo{Flags: flags}).VectorUnit("amd64").ISA; isa != c.isa {
				t.Errorf("ISA %q, want %q", isa, c.isa)
			}
		})
	}
}

func TestParseCPUInfoErrors(t *testing.T) {
	for _, c := range []struct{ name, in, want string }{
		{"empty", "", "no \"processor\" entry"},
		{"no colon", "processor\t: 0\ngarbage line\n", "line 2: \"garbage line\" has no colon"},
		{"bad MHz", "processor\t: 0\ncpu MHz\t\t: fast\n", "line 2: cpu MHz: \"fast\" is not a number"},
		{"bad cores", "processor\t: 0\ncpu cores\t: two\n", "line 2: cpu cores: \"two\" is not a number"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := ParseCPUInfo(strings.NewReader(c.in))
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %v, want one containing %q", err, c.want)
			}
		})
	}
}

// TestCPUDeviceFixtures checks the estimate against values computed by hand
// from the fixtures; both are exact products of small numbers, so the
// tolerance is only float64 rounding (1e-12 relative).
func TestCPUDeviceFixtures(t *testing.T) {
	for _, c := range []struct {
		name      string
		fixture   string
		logical   int     // runtime.NumCPU on that machine; 0 = all listed
		clockMHz  float64 // cpufreq maximum; 0 = none
		peak      float64
		cores     int
		bandwidth float64
	}{
		// 4 logical / 2 threads per core = 2 cores × 2.5 GHz × 16 lanes × 2 (FMA) × 2 ports.
		{"xeon-avx512", xeonFixture(), 0, 0, 2 * 2.5e9 * 16 * 2 * 2, 2, 20e9},
		// With cpufreq's 3.1 GHz maximum instead of "cpu MHz".
		{"xeon-avx512/cpufreq", xeonFixture(), 0, 3100, 2 * 3.1e9 * 16 * 2 * 2, 2, 20e9},
		// Affinity to 3 hyperthreads spans at least 2 cores.
		{"xeon-avx512/3-cpus", xeonFixture(), 3, 0, 2 * 2.5e9 * 16 * 2 * 2, 2, 20e9},
		// 8 logical / 2 = 4 cores × 2.8 GHz × 8 lanes × 2 × 2 ports; 2 sockets × 20 GB/s.
		{"epyc-avx2", epycFixture(), 0, 0, 4 * 2.8e9 * 8 * 2 * 2, 4, 40e9},
	} {
		t.Run(c.name, func(t *testing.T) {
			info, err := ParseCPUInfo(strings.NewReader(c.fixture))
			if err != nil {
				t.Fatal(err)
			}
			d := CPUDevice(CPUSpec{Info: info, GOARCH: "amd64", LogicalCPUs: c.logical, ClockMHz: c.clockMHz})
			if got := d.PeakVector[FP32]; math.Abs(got-c.peak) > 1e-12*c.peak {
				t.Errorf("fp32 peak %g, want %g (%v)", got, c.peak, d.Sources)
			}
			if d.SMs != c.cores {
				t.Errorf("cores %d, want %d", d.SMs, c.cores)
			}
			if d.MemBandwidth != c.bandwidth {
				t.Errorf("bandwidth %g, want %g", d.MemBandwidth, c.bandwidth)
			}
			if d.Name != "cpu" || d.Kind != KindCPU || d.Display != info.Model {
				t.Errorf("name %q kind %q display %q", d.Name, d.Kind, d.Display)
			}
			if d.Peak(BF16, true) != d.PeakVector[FP32] {
				t.Errorf("bf16 GEMM peak %g, want the fp32 peak", d.Peak(BF16, true))
			}
		})
	}
}

func TestVectorUnit(t *testing.T) {
	for _, c := range []struct {
		flags, goarch string
		isa           string
		flopsPerCycle float64
	}{
		{"sse sse2 avx avx2 fma avx512f", "amd64", "avx512f", 64},
		{"sse sse2 avx avx2 fma", "amd64", "avx2+fma", 32},
		{"sse sse2 avx", "amd64", "avx", 16}, // Sandy Bridge: one 8-wide add + one 8-wide mul
		{"sse sse2", "amd64", "sse", 8},
		{"fp asimd evtstrm aes crc32", "arm64", "neon", 16},
		{"", "arm64", "neon", 16},
		{"", "amd64", "sse", 8},
		{"", "riscv64", "scalar", 2},
	} {
		vu := CPUInfo{Flags: strings.Fields(c.flags)}.VectorUnit(c.goarch)
		if vu.ISA != c.isa || vu.FlopsPerCycle() != c.flopsPerCycle {
			t.Errorf("flags %q on %s: %+v (%g flops/cycle), want %s, %g", c.flags, c.goarch, vu, vu.FlopsPerCycle(), c.isa, c.flopsPerCycle)
		}
	}
}

func TestCPUDeviceDefaults(t *testing.T) {
	d := CPUDevice(CPUSpec{GOARCH: "arm64"})
	// 1 core × DefaultCPUClockMHz × 4 NEON lanes × 2 × 2 ports.
	if want := 1 * DefaultCPUClockMHz * 1e6 * 16; d.PeakVector[FP32] != want {
		t.Errorf("peak %g, want %g", d.PeakVector[FP32], want)
	}
	if d.MemBandwidth != DefaultCPUBandwidthPerSocket {
		t.Errorf("bandwidth %g", d.MemBandwidth)
	}
	if d.Display != "CPU (arm64)" {
		t.Errorf("display %q", d.Display)
	}
	if got := CPUDevice(CPUSpec{GOARCH: "arm64", MemBandwidth: 55e9}).MemBandwidth; got != 55e9 {
		t.Errorf("measured bandwidth not used: %g", got)
	}
}

func TestParseMemTotal(t *testing.T) {
	got, err := parseMemTotal(strings.NewReader("MemTotal:       24684092 kB\nMemFree:        1000 kB\n"))
	if err != nil || got != 24684092*1024 {
		t.Errorf("got %g, %v", got, err)
	}
	if _, err := parseMemTotal(strings.NewReader("MemFree: 1 kB\n")); err == nil {
		t.Error("no error without MemTotal")
	}
}

func TestLocalCPU(t *testing.T) {
	d := LocalCPU()
	if !(d.PeakVector[FP32] > 0) || !(d.MemBandwidth > 0) || d.SMs < 1 {
		t.Errorf("LocalCPU = %+v", d)
	}
	t.Logf("%s: %.1f GFLOP/s fp32 peak, %d cores, %.0f GB/s; %v", d.Display, d.PeakVector[FP32]/1e9, d.SMs, d.MemBandwidth/1e9, d.Sources)
	l, err := LookupDevice("cpu")
	if err != nil || l.PeakVector[FP32] != d.PeakVector[FP32] {
		t.Errorf("LookupDevice(cpu) = %v, %v", l, err)
	}
}

func TestMeasureGEMM(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for ~0.1 s")
	}
	rate := MeasureGEMM(256)
	// No bound from above: a peak estimate is an upper bound only for the
	// machine it describes, and CI machines vary.
	if !(rate > 0) || math.IsInf(rate, 0) {
		t.Fatalf("MeasureGEMM(256) = %g FLOP/s", rate)
	}
	t.Logf("gonum blas32 SGEMM n=256: %.2f GFLOP/s", rate/1e9)
}

func TestMeasureMemBandwidth(t *testing.T) {
	if testing.Short() {
		t.Skip("measures for ~0.1 s")
	}
	bw := MeasureMemBandwidth(50 * time.Millisecond)
	if !(bw > 0) || math.IsInf(bw, 0) {
		t.Fatalf("MeasureMemBandwidth = %g B/s", bw)
	}
	t.Logf("copy bandwidth: %.1f GB/s", bw/1e9)
}

func TestMeasureGEMMPanics(t *testing.T) {
	defer func() {
		if r := recover(); r == nil || !strings.HasPrefix(fmt.Sprint(r), "predictor:") {
			t.Errorf("recover() = %v, want a predictor: panic", r)
		}
	}()
	MeasureGEMM(0)
}

// cacheDir is a sysfs cache directory listing the caches (level, type,
// size) as index0, index1, ...
func cacheDir(caches ...[3]string) fstest.MapFS {
	fsys := fstest.MapFS{}
	for i, c := range caches {
		d := fmt.Sprintf("index%d/", i)
		fsys[d+"level"] = &fstest.MapFile{Data: []byte(c[0] + "\n")}
		fsys[d+"type"] = &fstest.MapFile{Data: []byte(c[1] + "\n")}
		fsys[d+"size"] = &fstest.MapFile{Data: []byte(c[2] + "\n")}
	}
	return fsys
}

func TestLastLevelCache(t *testing.T) {
	// This machine's: L1d and L1i 32K, L2 1024K, L3 32768K.
	epyc := cacheDir([3]string{"1", "Data", "32K"}, [3]string{"1", "Instruction", "32K"},
		[3]string{"2", "Unified", "1024K"}, [3]string{"3", "Unified", "32768K"})
	if got, err := LastLevelCache(epyc); err != nil || got != 32<<20 {
		t.Errorf("EPYC: %v, %v; want 32 MiB", got, err)
	}
	// No L3: the L2; an instruction cache never counts, however large.
	l2 := cacheDir([3]string{"1", "Data", "64K"}, [3]string{"2", "Unified", "4M"}, [3]string{"3", "Instruction", "8M"})
	if got, err := LastLevelCache(l2); err != nil || got != 4<<20 {
		t.Errorf("L2 only: %v, %v; want 4 MiB", got, err)
	}
	for name, fsys := range map[string]fstest.MapFS{
		"empty":      {},
		"bad size":   cacheDir([3]string{"3", "Unified", "lots"}),
		"zero size":  cacheDir([3]string{"3", "Unified", "0K"}),
		"bad level":  cacheDir([3]string{"L3", "Unified", "32M"}),
		"only instr": cacheDir([3]string{"1", "Instruction", "32K"}),
	} {
		if got, err := LastLevelCache(fsys); err == nil {
			t.Errorf("%s: %v, want an error", name, got)
		}
	}
	// An entry that cannot be read is passed over.
	partial := cacheDir([3]string{"2", "Unified", "1M"}, [3]string{"3", "Unified", "32M"})
	delete(partial, "index1/size")
	if got, err := LastLevelCache(partial); err != nil || got != 1<<20 {
		t.Errorf("L3 without a size: %v, %v; want the L2's 1 MiB", got, err)
	}
	// A CPU device says its cache and where it came from.
	d := CPUDevice(CPUSpec{Info: CPUInfo{Processors: 2}, CacheBytes: 32 << 20})
	if d.CacheBytes != 32<<20 || !strings.Contains(strings.Join(d.Sources, "\n"), "last-level cache: 32 MiB") {
		t.Errorf("device cache %v, sources %q", d.CacheBytes, d.Sources)
	}
}

// FuzzLastLevelCache: whatever sysfs says, a size or an error, never a
// panic, and a size is positive.
func FuzzLastLevelCache(f *testing.F) {
	f.Add("3", "Unified", "32768K")
	f.Add("2", "Data", "1M")
	f.Add("x", "Unified", "9G")
	f.Add("1", "Instruction", "")
	f.Fuzz(func(t *testing.T, level, typ, size string) {
		got, err := LastLevelCache(cacheDir([3]string{"1", "Data", "32K"}, [3]string{level, typ, size}))
		if err == nil && !(got > 0) {
			t.Fatalf("%q %q %q: %v", level, typ, size, got)
		}
	})
}
