package predictor

import (
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

func TestDevicesComplete(t *testing.T) {
	seen := map[string]bool{}
	for _, d := range Devices() {
		t.Run(d.Name, func(t *testing.T) {
			if d.Name != strings.ToLower(d.Name) || d.Name == "" || seen[d.Name] {
				t.Errorf("name %q: want unique, non-empty, lower case", d.Name)
			}
			seen[d.Name] = true
			if d.Kind != KindGPU || d.Display == "" {
				t.Errorf("kind %q, display %q", d.Kind, d.Display)
			}
			for field, v := range map[string]float64{
				"PeakVector[fp32]": d.PeakVector[FP32],
				"MemBandwidth":     d.MemBandwidth,
				"MemBytes":         d.MemBytes,
				"PCIeBandwidth":    d.PCIeBandwidth,
				"BoostClockMHz":    d.BoostClockMHz,
				"BaseClockMHz":     d.BaseClockMHz,
			} {
				if !(v > 0) {
					t.Errorf("%s = %g, want > 0", field, v)
				}
			}
			if d.SMs <= 0 || d.PCIeGen < 3 || d.PCIeGen > 5 || d.NVLinkBandwidth < 0 {
				t.Errorf("SMs %d, PCIe gen %d, NVLink %g", d.SMs, d.PCIeGen, d.NVLinkBandwidth)
			}
			if d.BaseClockMHz > d.BoostClockMHz {
				t.Errorf("base clock %g > boost %g", d.BaseClockMHz, d.BoostClockMHz)
			}
			if len(d.Sources) == 0 {
				t.Error("no sources")
			}
			// The fp32 peak a device's cores and clock allow, 2 FLOPs per core per
			// cycle, bounds the table's figure from above (NVIDIA quotes 64 or
			// 128 fp32 cores per SM at boost; Kepler has 192).
			perSM := float64(d.LanesPerSM)
			if want := map[int]bool{64: true, 128: true, 192: true}; !want[d.LanesPerSM] || !(d.L2Bytes > 0) {
				t.Errorf("lanes per SM %d, L2 %g: want 64, 128 or 192 lanes and a positive L2", d.LanesPerSM, d.L2Bytes)
			}
			if bound := float64(d.SMs) * perSM * 2 * d.BoostClockMHz * 1e6; d.PeakVector[FP32] > bound*1.005 {
				t.Errorf("fp32 peak %g above SMs × cores × 2 × boost = %g", d.PeakVector[FP32], bound)
			}
			for p, m := range d.PeakMatrix {
				if m <= 0 {
					t.Errorf("PeakMatrix[%s] = %g: a lacking precision is absent, not ≤ 0", p, m)
				}
				if m < d.PeakVector[p] || m < d.PeakVector[FP32] {
					t.Errorf("PeakMatrix[%s] = %g below the vector peaks (%s %g, fp32 %g)", p, m, p, d.PeakVector[p], d.PeakVector[FP32])
				}
			}
			for p, v := range d.PeakVector {
				if v < d.PeakVector[FP32] {
					t.Errorf("PeakVector[%s] = %g below fp32's %g", p, v, d.PeakVector[FP32])
				}
			}
		})
	}
}

// within1 checks got against a datasheet figure to 1%: the datasheets round
// to three significant figures, and the table stores their figures.
func within1(t *testing.T, what string, got, want float64) {
	t.Helper()
	if math.Abs(got-want) > 0.01*want {
		t.Errorf("%s = %.4g, want %.4g ± 1%%", what, got, want)
	}
}

func TestDatasheetSpotValues(t *testing.T) {
	const T, G = 1e12, 1e9
	for _, c := range []struct {
		device, source         string
		fp32, tf32, fp16, bf16 float64 // dense tensor-core peaks; 0 = none
		bandwidth, nvlink      float64 // nvlink per direction
	}{
		{"v100", "NVIDIA Tesla V100 datasheet (SXM2): 15.7 TFLOPS single, 125 tensor, 900 GB/s, NVLink 300 GB/s bidirectional",
			15.7 * T, 0, 125 * T, 0, 900 * G, 150 * G},
		{"a100-40", "NVIDIA A100 datasheet (40GB SXM): 19.5 FP32, TF32 156 (312 sparse), FP16/BF16 312 (624 sparse), 1555 GB/s, NVLink 600 GB/s bidirectional",
			19.5 * T, 156 * T, 312 * T, 312 * T, 1555 * G, 300 * G},
		{"a100-80", "NVIDIA A100 datasheet (80GB SXM): as 40GB, 2039 GB/s",
			19.5 * T, 156 * T, 312 * T, 312 * T, 2039 * G, 300 * G},
		{"a100-80-pcie", "NVIDIA A100 datasheet (80GB PCIe): as 40GB, 1935 GB/s, NVLink Bridge for 2 GPUs 600 GB/s bidirectional",
			19.5 * T, 156 * T, 312 * T, 312 * T, 1935 * G, 300 * G},
		{"h100-sxm", "NVIDIA H100 datasheet (SXM): 67 FP32, TF32 989 sparse, BF16 1979 sparse, 3.35 TB/s, NVLink 900 GB/s bidirectional; whitepaper dense TF32 494.7, FP16/BF16 989.4",
			67 * T, 494.7 * T, 989.4 * T, 989.4 * T, 3350 * G, 450 * G},
		{"h100-pcie", "NVIDIA H100 datasheet (PCIe): 51 FP32, TF32 756 sparse, BF16/FP16 1513 sparse, 2 TB/s, NVLink bridge 600 GB/s bidirectional",
			51 * T, 378 * T, 756.5 * T, 756.5 * T, 2000 * G, 300 * G},
		{"h200-sxm", "NVIDIA H200 product page (SXM): 67 FP32, TF32 989 sparse, BF16 1979 sparse, 4.8 TB/s, NVLink 900 GB/s",
			67 * T, 494.7 * T, 989.4 * T, 989.4 * T, 4800 * G, 450 * G},
		{"t4", "NVIDIA T4 datasheet: 8.1 TFLOPS FP32, 65 TFLOPS FP16/FP32 mixed, 320 GB/s",
			8.1 * T, 0, 65 * T, 0, 320 * G, 0},
		{"a10", "NVIDIA A10 datasheet: 31.2 FP32, TF32 62.5, BF16/FP16 125 (dense), 600 GB/s",
			31.2 * T, 62.5 * T, 125 * T, 125 * T, 600 * G, 0},
		{"l4", "NVIDIA L4 datasheet: 30.3 FP32, TF32 120 sparse, FP16/BF16 242 sparse, 300 GB/s",
			30.3 * T, 60 * T, 121 * T, 121 * T, 300 * G, 0},
		{"p100", "Pascal whitepaper (P100 SXM2): 10.6 FP32, 21.2 FP16, 732 GB/s, NVLink 160 GB/s bidirectional",
			10.6 * T, 0, 0, 0, 732 * G, 80 * G},
		{"k80", "Tesla K80 board specification: 8.73 FP32 at boost and 480 GB/s for two GK210 dies; one die is half",
			8.73 / 2 * T, 0, 0, 0, 240 * G, 0},
	} {
		t.Run(c.device, func(t *testing.T) {
			d, err := LookupDevice(c.device)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("source: %s", c.source)
			within1(t, "fp32 vector", d.PeakVector[FP32], c.fp32)
			for p, want := range map[Precision]float64{TF32: c.tf32, FP16: c.fp16, BF16: c.bf16} {
				if want == 0 {
					if got, ok := d.PeakMatrix[p]; ok {
						t.Errorf("PeakMatrix[%s] = %g, want absent (no tensor cores for it)", p, got)
					}
					continue
				}
				within1(t, "matrix "+string(p), d.PeakMatrix[p], want)
			}
			within1(t, "bandwidth", d.MemBandwidth, c.bandwidth)
			if c.nvlink == 0 {
				if d.NVLinkBandwidth != 0 {
					t.Errorf("NVLink = %g, want 0", d.NVLinkBandwidth)
				}
			} else {
				within1(t, "NVLink per direction", d.NVLinkBandwidth, c.nvlink)
			}
		})
	}
}

func TestNoTensorCoreTraps(t *testing.T) {
	for _, c := range []struct {
		device string
		p      Precision
		why    string
	}{
		{"k80", FP16, "Kepler has no fp16 arithmetic"},
		{"k80", BF16, "no bf16 before Ampere"},
		{"p100", BF16, "no bf16 before Ampere"},
		{"v100", BF16, "no bf16 before Ampere"},
		{"t4", BF16, "no bf16 before Ampere"},
	} {
		d, _ := LookupDevice(c.device)
		if v, ok := d.PeakVector[c.p]; ok {
			t.Errorf("%s PeakVector[%s] = %g, want absent: %s", c.device, c.p, v, c.why)
		}
	}
	// P100: no tensor cores, fp16 at 2× fp32 on the CUDA cores (Pascal whitepaper).
	p100, _ := LookupDevice("p100")
	if len(p100.PeakMatrix) != 0 {
		t.Errorf("p100 PeakMatrix = %v, want empty", p100.PeakMatrix)
	}
	within1(t, "p100 fp16/fp32", p100.PeakVector[FP16]/p100.PeakVector[FP32], 2)
}

func TestPeak(t *testing.T) {
	const T = 1e12
	for _, c := range []struct {
		device string
		p      Precision
		matrix bool
		want   float64
	}{
		{"a100-40", TF32, true, 156 * T},    // tensor cores
		{"a100-40", FP32, true, 19.5 * T},   // fp32 GEMMs stay on CUDA cores unless tf32 is asked for
		{"a100-40", FP16, false, 78 * T},    // fp16 vector rate
		{"a100-40", BF16, false, 39 * T},    // bf16 vector rate
		{"a100-40", TF32, false, 19.5 * T},  // tf32 has no vector rate: fp32
		{"v100", FP16, true, 125 * T},       // tensor cores
		{"v100", FP16, false, 31.4 * T},     // half2 on CUDA cores
		{"v100", BF16, true, 15.7 * T},      // no bf16: computed in fp32
		{"v100", TF32, true, 15.7 * T},      // no tf32 tensor cores: an fp32 GEMM
		{"p100", FP16, true, 21.2 * T},      // no tensor cores: vector fp16
		{"k80", FP16, true, 4.37 * T},       // no fp16 arithmetic: fp32
		{"h100-sxm", BF16, true, 989.4 * T}, // dense, not 1979
		{"h100-sxm", FP32, false, 66.9 * T},
		{"h100", "int8", true, 0}, // unknown precision
	} {
		t.Run(fmt.Sprintf("%s/%s/matrix=%v", c.device, c.p, c.matrix), func(t *testing.T) {
			d, err := LookupDevice(c.device)
			if err != nil {
				t.Fatal(err)
			}
			got := d.Peak(c.p, c.matrix)
			if c.want == 0 {
				if got != 0 {
					t.Errorf("Peak = %g, want 0", got)
				}
				return
			}
			within1(t, "Peak", got, c.want)
		})
	}
}

func TestLookupDevice(t *testing.T) {
	for name, want := range map[string]string{
		"h100":       "h100-sxm",
		"H100":       "h100-sxm",
		" H100-SXM ": "h100-sxm",
		"a100":       "a100-40",
		"A100-80GB":  "a100-80",
		"h200":       "h200-sxm",
		"V100":       "v100",
		"v100m16":    "v100-16",
		"K80":        "k80",
		"cpu":        "cpu",
		"CPU":        "cpu",
	} {
		d, err := LookupDevice(name)
		if err != nil {
			t.Errorf("LookupDevice(%q): %v", name, err)
			continue
		}
		if d.Name != want {
			t.Errorf("LookupDevice(%q).Name = %q, want %q", name, d.Name, want)
		}
	}

	_, err := LookupDevice("h1000")
	if !errors.Is(err, ErrUnknownDevice) {
		t.Fatalf("LookupDevice(h1000) error = %v, want ErrUnknownDevice", err)
	}
	names := DeviceNames()
	if !slices.IsSorted(names) {
		t.Errorf("DeviceNames not sorted: %v", names)
	}
	if want := "(known: " + strings.Join(names, ", ") + ")"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q does not list the known names %s", err, want)
	}
	for _, n := range []string{"a10", "a100-40", "cpu", "h100-sxm", "k80", "v100"} {
		if !slices.Contains(names, n) {
			t.Errorf("DeviceNames lacks %q", n)
		}
	}
}

func TestAliasesResolve(t *testing.T) {
	table := map[string]bool{}
	for _, d := range Devices() {
		table[d.Name] = true
	}
	for alias, name := range deviceAliases() {
		if table[alias] || alias == KindCPU {
			t.Errorf("alias %q shadows a table name", alias)
		}
		if !table[name] {
			t.Errorf("alias %q → %q, not in the table", alias, name)
		}
		if alias != strings.ToLower(alias) {
			t.Errorf("alias %q is not lower case", alias)
		}
	}
}

func TestDevicesFresh(t *testing.T) {
	a := Devices()
	a[0].PeakVector[FP32] = 1
	if b := Devices(); b[0].PeakVector[FP32] == 1 {
		t.Error("Devices shares its maps between calls")
	}
}

func TestPCIeX16(t *testing.T) {
	// PCI-SIG: 8, 16, 32 GT/s per lane, 128b/130b encoding.
	for gen, want := range map[int]float64{3: 15.75e9, 4: 31.5e9, 5: 63.0e9} {
		within1(t, fmt.Sprintf("gen%d", gen), pcieX16(gen), want)
	}
}

func ExampleLookupDevice() {
	d, err := LookupDevice("a100")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("%s: fp32 %.1f, tf32 GEMM %.0f, bf16 GEMM %.0f TFLOP/s; %.0f GB/s; NVLink %.0f GB/s per direction\n",
		d.Display, d.Peak(FP32, false)/1e12, d.Peak(TF32, true)/1e12, d.Peak(BF16, true)/1e12,
		d.MemBandwidth/1e9, d.NVLinkBandwidth/1e9)
	_, err = LookupDevice("b200")
	fmt.Println(err != nil)
	// Output:
	// NVIDIA A100 SXM4 40 GB: fp32 19.5, tf32 GEMM 156, bf16 GEMM 312 TFLOP/s; 1555 GB/s; NVLink 300 GB/s per direction
	// true
}
