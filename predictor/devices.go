// Package predictor estimates the run time of DNN training work on a device:
// the device table, the Paleo-style analytical model, its learned correction,
// and the job-runtime estimators the scheduler uses.
package predictor

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/wb-sim/wb/dnn"
	"github.com/wb-sim/wb/internal/registry"
)

// Precision names a number format. It is dnn's type, so that the work a layer
// reports per precision and the peak a device reaches in it need no conversion.
type Precision = dnn.Precision

// The precisions the device table knows.
const (
	FP32 = dnn.FP32
	TF32 = dnn.TF32
	FP16 = dnn.FP16
	BF16 = dnn.BF16
)

// Device kinds.
const (
	KindGPU = "gpu"
	KindCPU = "cpu"
)

// Device is one accelerator or CPU as the analytical model sees it.
//
// Units: FLOP/s, bytes/s and bytes, all decimal except memory sizes: NVIDIA's
// "80 GB" of HBM or GDDR is 80 GiB, so MemBytes counts GiB × 2^30.
type Device struct {
	Name    string // registry key: "v100", "a100-40", "h100-sxm", "cpu" ...
	Display string // "NVIDIA V100 SXM2 32 GB"
	Kind    string // KindGPU or KindCPU

	// Peak FLOP/s per precision: dense, without sparsity. Vector (CUDA cores /
	// SIMD) and matrix (tensor cores) peaks separately; a precision a device
	// lacks is 0 (absent from the map).
	PeakVector map[Precision]float64
	PeakMatrix map[Precision]float64

	MemBandwidth float64 // bytes/s, device memory (HBM/GDDR), or DRAM for CPUs
	MemBytes     float64 // bytes of device memory, or DRAM for CPUs

	SMs        int     // streaming multiprocessors, or physical cores for CPUs
	LanesPerSM int     // fp32 lanes (CUDA cores) per SM; 0 for CPUs
	L2Bytes    float64 // L2 cache; 0 where unknown
	// CacheBytes is a CPU's last-level cache (LocalCPUSpec reads it from
	// sysfs; a profile's sidecar records its machine's, ProfileDevice);
	// 0 where unknown, and on GPUs, whose last level is L2Bytes.
	CacheBytes float64
	// SpecSheet is the name the GPU reports to CUDA (torch.cuda.get_device_name),
	// which is the "Device" of its spec sheet in NeuSight's format; "" when
	// the board has none bundled.
	SpecSheet string
	// CUDANames are other names the board reports to CUDA (its memory
	// sizes' variants, a board with no bundled sheet): a user's spec sheet
	// that names the board so is this entry's ([Device.ReportsAs]).
	CUDANames     []string
	BoostClockMHz float64 // the clock the peaks are quoted at (see each entry)
	BaseClockMHz  float64 // 0 where unknown

	PCIeGen         int     // 3, 4, 5; 0 for CPUs
	PCIeBandwidth   float64 // bytes/s per direction, x16 link
	NVLinkBandwidth float64 // bytes/s per direction per GPU, total over its links; 0 = none

	Sources []string // where the figures come from

	// profiled are a CPU's figures as its profiles recorded them
	// (ProfileDevice); zero elsewhere.
	profiled ProfiledCPU
}

// Peak returns the peak FLOP/s the device reaches in precision p: for a
// GEMM-like op (matrix true) the tensor-core peak when the device has tensor
// cores for p, else the vector peak; for an elementwise op (matrix false) the
// vector peak, at the device's fp16/bf16 vector rate where it has one.
//
// A device without native arithmetic in p computes it in fp32, so Peak falls
// back to the fp32 vector peak for tf32 (a tensor-core format only: without
// tensor cores for it, an "allow tf32" GEMM is an fp32 GEMM), fp16 (K80: cuBLAS
// computes fp16 GEMMs in fp32 before sm_53) and bf16 (K80, P100, V100, T4:
// frameworks convert to fp32). It returns 0 for a precision it does not know.
// FP32 GEMMs never use tensor cores here: asking for TF32 is the caller's choice.
func (d *Device) Peak(p Precision, matrix bool) float64 {
	if matrix {
		if v := d.PeakMatrix[p]; v > 0 {
			return v
		}
	}
	if v := d.PeakVector[p]; v > 0 {
		return v
	}
	switch p {
	case TF32, FP16, BF16:
		return d.PeakVector[FP32]
	}
	return 0
}

// ErrUnknownDevice is what LookupDevice's error wraps for a name it does not know.
var ErrUnknownDevice = errors.New("unknown device")

// Devices returns the GPU table in a fixed order (by generation). Each call
// builds a fresh table, so callers may modify what they get. The local CPU is
// not in it (its figures depend on the machine): LookupDevice("cpu") or
// LocalCPU give it.
func Devices() []Device {
	table := []Device{
		k80(), p100(), p4(), p100PCIe(), v100(32), v100(16), v100PCIe(), t4(), a10(),
		a100(40), a100(80), a100PCIe(40), a100PCIe(80), l4(), h100SXM(), h100PCIe(), h200SXM(),
	}
	for i := range table {
		d := &table[i]
		a := archOf(d.Name)
		d.LanesPerSM, d.L2Bytes = a.lanes, a.l2MB*(1<<20)
		d.SpecSheet, d.CUDANames = specSheets[d.Name], cudaNames[d.Name]
	}
	return table
}

// arch is what a GPU's architecture fixes: fp32 lanes per SM and the L2.
type arch struct {
	lanes int
	l2MB  float64
}

// archOf gives each table GPU's lanes per SM and L2 (MiB), from NVIDIA's
// architecture whitepapers (Kepler GK210: 192 lanes, 1.5 MB; Pascal GP100
// and GP104: 64 lanes, 4 and 2 MB; Volta GV100: 64, 6 MB; Turing TU104: 64,
// 4 MB; Ampere GA100: 64, 40 MB; GA102: 128, 6 MB; Ada AD104: 128, 48 MB;
// Hopper GH100: 128, 50 MB).
func archOf(name string) arch {
	switch name {
	case "k80":
		return arch{192, 1.5}
	case "p100", "p100-pcie":
		return arch{64, 4}
	case "p4":
		return arch{64, 2}
	case "v100", "v100-16", "v100-pcie":
		return arch{64, 6}
	case "t4":
		return arch{64, 4}
	case "a10":
		return arch{128, 6}
	case "a100-40", "a100-80", "a100-40-pcie", "a100-80-pcie":
		return arch{64, 40}
	case "l4":
		return arch{128, 48}
	case "h100-sxm", "h100-pcie":
		return arch{128, 50}
	case "h200-sxm":
		// 60 MB: the L2 an H200 reports to CUDA (cudaDeviceProp.l2CacheSize
		// 62,914,560 bytes, read by scripts/neusight_measure.py on 2026-11-28;
		// datasets/data/h200/env.json), where the H100 SXM5 reports 50 MB.
		return arch{128, 60}
	}
	return arch{}
}

// specSheets maps table names to the names their boards report to CUDA,
// those of the spec sheets bundled in datasets/data/neusight/devices and
// datasets/data/h200/devices.
var specSheets = map[string]string{
	"p100-pcie":    "Tesla P100-PCIE-16GB",
	"p4":           "Tesla P4",
	"v100-pcie":    "Tesla V100-PCIE-32GB",
	"t4":           "Tesla T4",
	"a100-40":      "NVIDIA A100-SXM4-40GB",
	"a100-40-pcie": "NVIDIA A100-PCIE-40GB",
	"a100-80-pcie": "NVIDIA A100 80GB PCIe",
	"l4":           "NVIDIA L4",
	"h100-sxm":     "NVIDIA H100 80GB HBM3",
	"h200-sxm":     "NVIDIA H200",
}

// cudaNames are the names boards of the table report to CUDA
// (torch.cuda.get_device_name, nvidia-smi's name) beyond specSheets'.
var cudaNames = map[string][]string{
	"k80":       {"Tesla K80"},
	"p100":      {"Tesla P100-SXM2-16GB"},
	"v100":      {"Tesla V100-SXM2-32GB"},
	"v100-16":   {"Tesla V100-SXM2-16GB"},
	"v100-pcie": {"Tesla V100-PCIE-16GB"},
	"a10":       {"NVIDIA A10"},
	"a100-80":   {"NVIDIA A100-SXM4-80GB"},
	"h100-pcie": {"NVIDIA H100 PCIe"},
}

// ReportsAs says whether name, a spec sheet's "Device" (as CUDA reports
// the board), names d's board: its bundled sheet's name, another CUDA
// name of it, or its display name; in any case.
func (d *Device) ReportsAs(name string) bool {
	if strings.EqualFold(d.SpecSheet, name) && name != "" || strings.EqualFold(d.Display, name) {
		return true
	}
	return slices.ContainsFunc(d.CUDANames, func(n string) bool { return strings.EqualFold(n, name) })
}

// p4 is the Tesla P4 (Pascal GP104, 75 W, PCIe).
func p4() Device {
	return Device{
		Name:    "p4",
		Display: "NVIDIA Tesla P4 8 GB",
		Kind:    KindGPU,
		// 2560 cores × 2 × 1114 MHz = 5.70 at boost, as the table quotes
		// peaks; the datasheet's "5.5 TFLOPS" is at a lower clock. GP104
		// runs fp16 at 1/64 of fp32: absent (Peak computes it in fp32).
		PeakVector:   map[Precision]float64{FP32: 5.7 * tera},
		MemBandwidth: 192 * giga,
		MemBytes:     8 * gib,
		// NeuSight's spec sheet counts the 2560 lanes as 40 SMs of 64, and
		// the GPU op model learned from ops timed against that sheet, so
		// the table keeps its figures; GP104 has 20 SMs of 128 lanes
		// (4 GPCs × 5 SMs).
		SMs:             40,
		BoostClockMHz:   1114,
		BaseClockMHz:    886,
		PCIeGen:         3,
		PCIeBandwidth:   pcieX16(3),
		NVLinkBandwidth: 0,
		Sources: []string{
			"NVIDIA Tesla P4 datasheet, https://images.nvidia.com/content/pdf/tesla/184457-Tesla-P4-Datasheet-NV-Final-Letter-Web.pdf: 2560 CUDA cores, 5.5 TFLOPS single precision, 8 GB GDDR5, 192 GB/s, 50/75 W, PCIe 3.0 x16",
			srcTPU + ": Tesla P4 base 886 MHz, boost 1114 MHz",
		},
	}
}

// GavelDevices are the GPUs of the device table that Gavel's measured
// throughputs call "k80", "p100" and "v100". Gavel's P100 was the PCIe card:
// the clouds whose prices Gavel's scheduler reads offer no other (AWS no
// P100 at all, Azure's NCv2 and Google Cloud the PCIe card), and its
// data-parallel jobs' all-reduce ran at 2.2–5.6 GB/s (`wb predict --validate
// gavel` fits it per job family left out and GPU count), a PCIe link's rate,
// where the K80's ran at 1.4–5.0 GB/s and the V100's at 3.2 GB/s to the
// fit's ceiling of 100, NVLink's (Google Cloud's V100 is the SXM2 module).
var GavelDevices = map[string]string{"k80": "k80", "p100": "p100-pcie", "v100": "v100"}

// p100PCIe is the Tesla P100 PCIe 16 GB (250 W).
func p100PCIe() Device {
	d := p100()
	d.Name, d.Display = "p100-pcie", "NVIDIA Tesla P100 PCIe 16 GB"
	// datasheet: 9.3 TFLOPS single, 18.7 half at the PCIe card's 1303 MHz boost
	d.PeakVector = map[Precision]float64{FP32: 9.3 * tera, FP16: 18.7 * tera}
	d.BoostClockMHz, d.BaseClockMHz = 1303, 1126
	d.NVLinkBandwidth = 0
	d.Sources = []string{
		"NVIDIA Tesla P100 datasheet, https://images.nvidia.com/content/tesla/pdf/nvidia-tesla-p100-PCIe-datasheet.pdf: PCIe 16 GB: 9.3 TFLOPS single, 18.7 half, 732 GB/s CoWoS HBM2, 250 W",
		srcTPU + ": Tesla P100 PCIe 16 GB base 1126 MHz, boost 1303 MHz",
	}
	return d
}

// v100PCIe is the V100 PCIe 32 GB (250 W).
func v100PCIe() Device {
	d := v100(32)
	d.Name, d.Display = "v100-pcie", "NVIDIA V100 PCIe 32 GB"
	// datasheet: V100 PCIe 14 TFLOPS single, 112 tensor (5120 × 2 × 1380 MHz
	// = 14.1; 640 tensor cores × 64 × 2 × 1380 MHz = 113)
	d.PeakVector = map[Precision]float64{FP32: 14.1 * tera, FP16: 28.3 * tera}
	d.PeakMatrix = map[Precision]float64{FP16: 113 * tera}
	d.BoostClockMHz, d.BaseClockMHz = 1380, 1230
	d.NVLinkBandwidth = 0
	d.Sources = []string{
		"NVIDIA Tesla V100 datasheet, https://images.nvidia.com/content/technologies/volta/pdf/volta-v100-datasheet-update-us-1165301-r5.pdf: V100 PCIe 14 TFLOPS single, 112 TFLOPS tensor, 32/16 GB HBM2, 900 GB/s, 250 W",
		srcTPU + ": V100 PCIe base 1230 MHz, boost 1380 MHz",
	}
	return d
}

// a100PCIe is the A100 PCIe board: 40 GB (250 W) or 80 GB (300 W, 1,935
// GB/s); the SXM4 module's peaks at the same 1410 MHz boost.
func a100PCIe(gb int) Device {
	d := a100(gb)
	d.Name = fmt.Sprintf("a100-%d-pcie", gb)
	d.Display = fmt.Sprintf("NVIDIA A100 PCIe %d GB", gb)
	d.BaseClockMHz = 765
	if gb == 80 {
		d.MemBandwidth = 1935 * giga // datasheet: A100 80GB PCIe 1,935 GB/s
		d.BaseClockMHz = 1065
	}
	// datasheet: "NVLink Bridge for 2 GPUs: 600 GB/s" bidirectional, 300 GB/s
	// per direction, joining a PAIR of cards alone (NVLinkJoins), as the
	// H100 PCIe's bridge
	d.NVLinkBandwidth = 300 * giga
	d.Sources = []string{srcA100DS + ": A100 80GB PCIe 1,935 GB/s, 300 W; A100 40GB PCIe 1,555 GB/s, 250 W; NVLink Bridge for 2 GPUs 600 GB/s", srcTPU + ": A100 PCIe 40 GB base 765 MHz, 80 GB base 1065 MHz, boost 1410 MHz"}
	return d
}

// deviceAliases maps other names, lower case, to table names.
func deviceAliases() map[string]string {
	return map[string]string{
		"gk210":     "k80",
		"p100-sxm2": "p100",
		"v100-32":   "v100",
		"v100-sxm2": "v100",
		"v100m32":   "v100", // the GPU model names of Alibaba's openb trace
		"v100m16":   "v100-16",
		"a100":      "a100-40",
		"a100-40gb": "a100-40",
		"a100-80gb": "a100-80",
		"h100":      "h100-sxm",
		"h100-sxm5": "h100-sxm",
		"h200":      "h200-sxm",
	}
}

// LookupDevice returns the device called name: a table name, an alias ("h100"
// = "h100-sxm", "a100" = "a100-40", ...), or "cpu" for LocalCPU(); any case.
// An unknown name's error lists the known names, sorted.
func LookupDevice(name string) (*Device, error) {
	key := strings.ToLower(strings.TrimSpace(name))
	if key == KindCPU {
		d := LocalCPU()
		return &d, nil
	}
	if d, ok := deviceIndex().Get(key); ok {
		return &d, nil // a copy: callers may change it
	}
	return nil, fmt.Errorf("predictor: %w %q (known: %s)", ErrUnknownDevice, name, strings.Join(DeviceNames(), ", "))
}

// deviceIndex is the table as a registry, each device under its name and
// its aliases, built once; a name or alias taken twice panics at the first
// lookup (TestDeviceTable looks up every name).
var deviceIndex = sync.OnceValue(func() *registry.Registry[Device] {
	r := registry.New[Device]("device")
	table := Devices()
	for _, d := range table {
		r.MustRegister(d.Name, d)
	}
	for alias, canon := range deviceAliases() {
		d, ok := r.Get(canon)
		if !ok {
			panic(fmt.Sprintf("predictor: device alias %q of %q, which the table lacks", alias, canon))
		}
		r.MustRegister(alias, d)
	}
	return r
})

// DeviceNames returns the names LookupDevice knows, aliases included, sorted.
func DeviceNames() []string {
	names := append(deviceIndex().Names(), KindCPU)
	slices.Sort(names)
	return names
}

// Unit helpers for the table.
const (
	tera = 1e12
	giga = 1e9
	gib  = 1 << 30
)

// NVLinkJoins reports whether gpus of d talk over NVLink: d has it, and
// it is not a PCIe card's NVLink bridge (the H100 PCIe's), which joins a
// pair of cards alone.
func (d *Device) NVLinkJoins(gpus int) bool {
	bridged := strings.Contains(strings.ToLower(d.Display), "pcie")
	return d.NVLinkBandwidth > 0 && (!bridged || gpus <= 2)
}

// PCIeX16 is the bandwidth per direction of a x16 link of PCIe generation
// gen (3, 4 or 5), bytes/s.
func PCIeX16(gen int) float64 { return pcieX16(gen) }

// pcieX16 is the bandwidth per direction of a x16 link: lanes × transfer rate
// × encoding efficiency / 8 bits. Gen3 8 GT/s, gen4 16 GT/s, gen5 32 GT/s, all
// 128b/130b (PCI-SIG base specifications 3.0, 4.0, 5.0): 15.75, 31.5 and
// 63.0 GB/s. NVIDIA's datasheets quote the bidirectional sum rounded up
// ("PCIe Gen4: 64 GB/s", "PCIe Gen5: 128 GB/s"); packet overhead takes a
// further ~10% in practice, which belongs to an efficiency factor, not here.
func pcieX16(gen int) float64 {
	rate := map[int]float64{3: 8e9, 4: 16e9, 5: 32e9}[gen]
	return 16 * rate * 128 / 130 / 8
}

// Sources cited by several entries.
const (
	srcTPU     = "TechPowerUp GPU Database, https://www.techpowerup.com/gpu-specs/ (SM counts and base/boost clocks; NVIDIA datasheets do not list base clocks)"
	srcH100WP  = "NVIDIA H100 Tensor Core GPU Architecture whitepaper, Table 3 (also in https://developer.nvidia.com/blog/nvidia-hopper-architecture-in-depth/); per-precision table reproduced at https://glennklockwood.com/garden/processors/h100"
	srcH100DS  = "NVIDIA H100 Tensor Core GPU datasheet, https://resources.nvidia.com/en-us-tensor-core/nvidia-tensor-core-gpu-datasheet (table reproduced at https://archive-lib.hpctech.co.jp/gpuproduct/nvidia-h100.html)"
	srcA100DS  = "NVIDIA A100 Tensor Core GPU datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a100/pdf/nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf"
	srcA100WP  = "NVIDIA A100 Tensor Core GPU Architecture (Ampere) whitepaper, Table 1, https://images.nvidia.com/aem-dam/en-zz/Solutions/data-center/nvidia-ampere-architecture-whitepaper.pdf (non-tensor fp16/bf16 rows quoted at https://forums.developer.nvidia.com/t/theoretical-tflops-for-fp16-bf16-and-tf32-for-tensor-and-non-tensor/218102)"
	srcVoltaWP = "NVIDIA Tesla V100 GPU Architecture (Volta) whitepaper, https://images.nvidia.com/content/volta-architecture/pdf/volta-architecture-whitepaper.pdf"
	srcV100DS  = "NVIDIA Tesla V100 GPU Accelerator datasheet (V100 SXM2: 15.7 TFLOPS single, 125 TFLOPS tensor, 900 GB/s, NVLink 300 GB/s), https://www.nvidia.com/en-us/data-center/v100/"
)

// k80 is ONE GK210 die of the dual-die Tesla K80 board: Gavel's "k80" (and
// CUDA's device list) counts each die as a GPU, so the board's figures are halved.
func k80() Device {
	return Device{
		Name:    "k80",
		Display: "NVIDIA Tesla K80 (one GK210 die of the two on the board)",
		Kind:    KindGPU,
		PeakVector: map[Precision]float64{
			// Board: 8.74 TFLOPS single precision at GPU Boost (2 × 2496 cores ×
			// 2 × 875 MHz); one die is half. Kepler (sm_37) has no fp16 or bf16
			// arithmetic (absent; Peak falls back to fp32). No tensor cores.
			FP32: 8.74 / 2 * tera,
		},
		PeakMatrix:   map[Precision]float64{},
		MemBandwidth: 480.0 / 2 * giga, // board 480 GB/s = 2 × 240 GB/s (2 × 384-bit GDDR5 at 5 GT/s)
		MemBytes:     12 * gib,         // board 24 GB = 2 × 12 GB
		SMs:          13,               // 2496 cores / 192 per SMX
		// Boost 875 MHz is reached only with power headroom (the board's 300 W
		// is shared); sustained clocks often sit between base and boost.
		BoostClockMHz: 875,
		BaseClockMHz:  562,
		// Both dies share the board's one gen3 x16 link (through an on-board PCIe switch).
		PCIeGen:         3,
		PCIeBandwidth:   pcieX16(3),
		NVLinkBandwidth: 0,
		Sources: []string{
			"NVIDIA Tesla K80 GPU Accelerator board specification BD-07317-001_v05 (https://docslib.org/doc/29366/tesla-k80-gpu-accelerator): 8.73 TFLOPS single (GPU Boost), 24 GB, 480 GB/s",
			"AnandTech, NVIDIA Launches Tesla K80, GK210 GPU, https://www.anandtech.com/show/8729/nvidia-launches-tesla-k80-gk210-gpu: 2 × 2496 cores, 562 MHz base, 875 MHz boost, 2 × 12 GB, 8.74 TFLOPS",
		},
	}
}

// p100 is the Tesla P100 SXM2 16 GB (NVLink). The PCIe card differs: 9.3 TFLOPS
// fp32, 18.7 fp16, 1303 MHz boost, no NVLink, and 732 GB/s (16 GB) or 549 GB/s
// (12 GB); it is not in the table.
func p100() Device {
	return Device{
		Name:    "p100",
		Display: "NVIDIA Tesla P100 SXM2 16 GB",
		Kind:    KindGPU,
		PeakVector: map[Precision]float64{
			FP32: 10.6 * tera, // 3584 cores × 2 × 1480 MHz
			// No tensor cores, but GP100 runs fp16 at 2× fp32 on the CUDA
			// cores (half2 FMA): 21.2 TFLOPS. No bf16 arithmetic (absent).
			FP16: 21.2 * tera,
		},
		PeakMatrix:    map[Precision]float64{},
		MemBandwidth:  732 * giga,
		MemBytes:      16 * gib,
		SMs:           56,
		BoostClockMHz: 1480,
		BaseClockMHz:  1328,
		PCIeGen:       3,
		PCIeBandwidth: pcieX16(3),
		// 4 NVLink 1.0 links × 20 GB/s per direction = 80 GB/s (NVIDIA: "160 GB/s bidirectional").
		NVLinkBandwidth: 80 * giga,
		Sources: []string{
			"NVIDIA Tesla P100 (Pascal GP100) architecture whitepaper, https://images.nvidia.com/content/pdf/tesla/whitepaper/pascal-architecture-whitepaper.pdf: 10.6 TFLOPS fp32, 21.2 fp16, 56 SMs, 1328/1480 MHz",
			"Microway, NVIDIA Tesla P100 NVLink 16GB GPU Accelerator Up Close, https://www.microway.com/hpc-tech-tips/nvidia-tesla-p100-nvlink-16gb-gpu-accelerator-pascal-gp100-sxm2-close/: 732 GB/s, NVLink 80 GB/s (160 GB/s bidirectional), PCIe gen3 x16 to the host",
			"Tech4Gamers, table of the P100 variants, https://tech4gamers.com/nvidia-tesla-p100-will-be-available-in-two-variants-of-16gb-12gb-hbm2/: PCIe 9.3/18.7 TFLOPS",
		},
	}
}

// v100 is the Tesla V100 SXM2 with 32 or 16 GB: the two have the same compute,
// bandwidth and links. Gavel's "v100" GPUs were 16 GB (AWS p3); "v100" here is
// the 32 GB part and "v100-16" the 16 GB one.
func v100(gb int) Device {
	name, display := "v100", "NVIDIA V100 SXM2 32 GB"
	if gb == 16 {
		name, display = "v100-16", "NVIDIA V100 SXM2 16 GB"
	}
	return Device{
		Name:    name,
		Display: display,
		Kind:    KindGPU,
		PeakVector: map[Precision]float64{
			FP32: 15.7 * tera, // 5120 cores × 2 × 1530 MHz
			// fp16 at 2× fp32 on the CUDA cores (half2 FMA). No bf16 arithmetic on sm_70 (absent).
			FP16: 2 * 15.7 * tera,
		},
		PeakMatrix: map[Precision]float64{
			// 640 tensor cores × 64 FMA × 2 × 1530 MHz = 125 TFLOPS, fp16 products
			// with fp32 accumulate. No tf32 or bf16 tensor cores (absent).
			FP16: 125 * tera,
		},
		MemBandwidth:  900 * giga,
		MemBytes:      float64(gb) * gib,
		SMs:           80,
		BoostClockMHz: 1530,
		BaseClockMHz:  1290,
		PCIeGen:       3,
		PCIeBandwidth: pcieX16(3),
		// 6 NVLink 2.0 links × 25 GB/s per direction = 150 GB/s (NVIDIA: "300 GB/s", bidirectional).
		NVLinkBandwidth: 150 * giga,
		Sources:         []string{srcV100DS, srcVoltaWP + ": 80 SMs, 640 tensor cores, 1530 MHz boost, six NVLinks", srcTPU + ": V100 SXM2 base 1290 MHz"},
	}
}

// t4 is the T4 (Turing TU104, 70 W, PCIe).
func t4() Device {
	return Device{
		Name:    "t4",
		Display: "NVIDIA T4 16 GB",
		Kind:    KindGPU,
		PeakVector: map[Precision]float64{
			FP32: 8.1 * tera, // 2560 cores × 2 × 1590 MHz = 8.14
			// Turing runs fp16 at 2× fp32 on the CUDA cores: 16.2 TFLOPS (derived,
			// not on the datasheet). No bf16 arithmetic on sm_75 (absent).
			FP16: 2 * 8.1 * tera,
		},
		PeakMatrix: map[Precision]float64{
			// "Mixed precision (FP16/FP32) 65 TFLOPS": 320 tensor cores × 64 FMA ×
			// 2 × 1590 MHz, dense (Turing has no sparsity). No tf32/bf16 (absent).
			FP16: 65 * tera,
		},
		MemBandwidth:    320 * giga,
		MemBytes:        16 * gib,
		SMs:             40,
		BoostClockMHz:   1590,
		BaseClockMHz:    585,
		PCIeGen:         3,
		PCIeBandwidth:   pcieX16(3),
		NVLinkBandwidth: 0,
		Sources: []string{
			"NVIDIA T4 Tensor Core GPU datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/tesla-t4/t4-tensor-core-datasheet-951643.pdf: 8.1 TFLOPS fp32, 65 TFLOPS fp16/fp32 mixed, 16 GB GDDR6, 320 GB/s, PCIe gen3 x16",
			"TechPowerUp entry mirrored at https://sysrqmts.com/en/gpus/nvidia/tesla/t4: 40 SMs, 320 tensor cores, 585/1590 MHz, 8.141 TFLOPS",
		},
	}
}

// a10 is the A10 (Ampere GA102, 150 W, PCIe).
func a10() Device {
	return Device{
		Name:    "a10",
		Display: "NVIDIA A10 24 GB",
		Kind:    KindGPU,
		PeakVector: map[Precision]float64{
			FP32: 31.2 * tera, // 9216 cores × 2 × 1695 MHz = 31.24
			// GA102 runs fp16 at the fp32 rate on the CUDA cores (1:1, TechPowerUp).
			// Its bf16 vector rate is not published; taken equal to fp16's, which
			// is also what Peak's fp32 fallback would give.
			FP16: 31.2 * tera,
			BF16: 31.2 * tera,
		},
		PeakMatrix: map[Precision]float64{
			// Datasheet: TF32 62.5 | 125*, BF16 125 | 250*, FP16 125 | 250*
			// (* with sparsity); the dense figures are used.
			TF32: 62.5 * tera,
			FP16: 125 * tera,
			BF16: 125 * tera,
		},
		MemBandwidth:    600 * giga,
		MemBytes:        24 * gib,
		SMs:             72,
		BoostClockMHz:   1695,
		BaseClockMHz:    885,
		PCIeGen:         4,
		PCIeBandwidth:   pcieX16(4),
		NVLinkBandwidth: 0,
		Sources: []string{
			"NVIDIA A10 Tensor Core GPU datasheet, https://www.nvidia.com/content/dam/en-zz/Solutions/Data-Center/a10/pdf/datasheet-new/nvidia-a10-datasheet.pdf: 31.2 TF fp32, TF32 62.5, BF16/FP16 125 dense, 24 GB GDDR6, 600 GB/s, PCIe gen4",
			"TechPowerUp entry mirrored at https://sysrqmts.com/ru/gpus/compare/nvidia-a10-pcie-vs-nvidia-quadro-rtx-4000: 72 SMs, 885/1695 MHz, fp16 31.24 TFLOPS (1:1)",
		},
	}
}

// a100 is the A100 SXM4 with 40 or 80 GB: same compute and links; the 80 GB
// part has HBM2e at 2039 GB/s against 1555 GB/s, and a higher base clock.
func a100(gb int) Device {
	d := Device{
		Name:    "a100-40",
		Display: "NVIDIA A100 SXM4 40 GB",
		Kind:    KindGPU,
		PeakVector: map[Precision]float64{
			FP32: 19.5 * tera, // 6912 cores × 2 × 1410 MHz
			// Whitepaper Table 1: FP16 (non-tensor) 78 TFLOPS (4× fp32, "for
			// certain use cases" per NVIDIA), BF16 (non-tensor) 39 TFLOPS (2×).
			FP16: 78 * tera,
			BF16: 39 * tera,
		},
		PeakMatrix: map[Precision]float64{
			// Dense. The datasheet's "TF32 156 | 312*" and "FP16/BF16 312 | 624*":
			// the larger figures are with 2:4 sparsity.
			TF32: 156 * tera,
			FP16: 312 * tera,
			BF16: 312 * tera,
		},
		MemBandwidth:  1555 * giga,
		MemBytes:      40 * gib,
		SMs:           108,
		BoostClockMHz: 1410,
		BaseClockMHz:  1095,
		PCIeGen:       4,
		PCIeBandwidth: pcieX16(4),
		// 12 NVLink 3.0 links × 25 GB/s per direction = 300 GB/s (NVIDIA: "600 GB/s", bidirectional).
		NVLinkBandwidth: 300 * giga,
		Sources:         []string{srcA100DS, srcA100WP, srcTPU + ": A100 SXM4 40 GB base 1095 MHz, 80 GB base 1275 MHz, both 1410 MHz boost"},
	}
	if gb == 80 {
		d.Name, d.Display = "a100-80", "NVIDIA A100 SXM4 80 GB"
		d.MemBandwidth = 2039 * giga // datasheet: A100 80GB SXM 2,039 GB/s
		d.MemBytes = 80 * gib
		d.BaseClockMHz = 1275
	}
	return d
}

// l4 is the L4 (Ada AD104, 72 W, PCIe).
func l4() Device {
	return Device{
		Name:    "l4",
		Display: "NVIDIA L4 24 GB",
		Kind:    KindGPU,
		PeakVector: map[Precision]float64{
			FP32: 30.3 * tera, // 7424 cores × 2 × 2040 MHz = 30.29
			// Ada runs fp16 at the fp32 rate on the CUDA cores (1:1, TechPowerUp);
			// bf16 taken equal (not published; Peak's fallback gives the same).
			FP16: 30.3 * tera,
			BF16: 30.3 * tera,
		},
		PeakMatrix: map[Precision]float64{
			// The datasheet quotes only sparse figures (TF32 120*, FP16 242*,
			// BF16 242*); dense is half: 60, 121, 121.
			TF32: 120.0 / 2 * tera,
			FP16: 242.0 / 2 * tera,
			BF16: 242.0 / 2 * tera,
		},
		MemBandwidth: 300 * giga,
		MemBytes:     24 * gib,
		// TechPowerUp lists 60 SMs (7680 cores), which gives 31.3 TFLOPS at
		// 2040 MHz; NVIDIA's 30.3 implies 7424 cores = 58 SMs, used here.
		SMs:             58,
		BoostClockMHz:   2040,
		BaseClockMHz:    795,
		PCIeGen:         4,
		PCIeBandwidth:   pcieX16(4),
		NVLinkBandwidth: 0,
		Sources: []string{
			"NVIDIA L4 Tensor Core GPU datasheet, https://www.nvidia.com/en-us/data-center/l4/: 30.3 TFLOPS fp32, TF32 120*, FP16/BF16 242* (* sparsity), 24 GB, 300 GB/s, PCIe gen4 x16 (figures reproduced at https://grokipedia.com/page/NVIDIA_L4_vs_L40S and https://store.sourcecode.com/en-us/bg-bucket-compare/125/9820)",
			"TechPowerUp entry mirrored at https://fpsbench.com/compare/gpu/nvidia-l4-vs-nvidia-tesla-m40: 795/2040 MHz, fp16 1:1",
		},
	}
}

// h100SXM is the H100 SXM5 80 GB. NVIDIA quotes its fp32/fp64 vector peaks at
// the 1980 MHz boost clock and its tensor peaks at 1830 MHz, so the tensor
// figures are not 8×/16× the fp32 one.
func h100SXM() Device {
	return Device{
		Name:    "h100-sxm",
		Display: "NVIDIA H100 SXM5 80 GB",
		Kind:    KindGPU,
		PeakVector: map[Precision]float64{
			// Whitepaper 66.9 TFLOPS (16896 cores × 2 × 1980 MHz); the
			// datasheet rounds to 67. The PCIe card is 51.
			FP32: 66.9 * tera,
			// Whitepaper: FP16 and BF16 (non-tensor) 133.8 TFLOPS, 2× fp32.
			FP16: 133.8 * tera,
			BF16: 133.8 * tera,
		},
		PeakMatrix: map[Precision]float64{
			// Dense. The datasheet's TF32 989 and BF16/FP16 1979 TFLOPS are with
			// sparsity; the whitepaper gives dense 494.7 and 989.4
			// (528 tensor cores × 512 fp16 FMA × 2 × 1830 MHz = 989.4).
			TF32: 494.7 * tera,
			FP16: 989.4 * tera,
			BF16: 989.4 * tera,
		},
		MemBandwidth:  3.35 * tera,
		MemBytes:      80 * gib,
		SMs:           132,
		BoostClockMHz: 1980,
		BaseClockMHz:  1590,
		PCIeGen:       5,
		PCIeBandwidth: pcieX16(5),
		// 18 NVLink 4.0 links × 25 GB/s per direction = 450 GB/s (NVIDIA: "900 GB/s", bidirectional).
		NVLinkBandwidth: 450 * giga,
		Sources:         []string{srcH100DS, srcH100WP, srcTPU + ": H100 SXM5 base 1590 MHz, boost 1980 MHz"},
	}
}

// h100PCIe is the H100 PCIe 80 GB (HBM2e, 350 W).
func h100PCIe() Device {
	return Device{
		Name:    "h100-pcie",
		Display: "NVIDIA H100 PCIe 80 GB",
		Kind:    KindGPU,
		PeakVector: map[Precision]float64{
			FP32: 51 * tera, // datasheet 51; 14592 cores × 2 × 1755 MHz = 51.2
			// Whitepaper: FP16 and BF16 (non-tensor) 102.4 TFLOPS, 2× fp32.
			FP16: 102.4 * tera,
			BF16: 102.4 * tera,
		},
		PeakMatrix: map[Precision]float64{
			// Datasheet TF32 756*, BF16/FP16 1513* (* sparsity); dense is half.
			TF32: 756.0 / 2 * tera,
			FP16: 1513.0 / 2 * tera,
			BF16: 1513.0 / 2 * tera,
		},
		MemBandwidth:  2000 * giga, // datasheet "2TB/s" (HBM2e)
		MemBytes:      80 * gib,
		SMs:           114,
		BoostClockMHz: 1755,
		BaseClockMHz:  1125,
		PCIeGen:       5,
		PCIeBandwidth: pcieX16(5),
		// Datasheet "NVLink: 600 GB/s" bidirectional = 300 GB/s per direction,
		// but only through NVLink bridges joining a PAIR of cards: beyond two
		// GPUs (or with no bridge installed) traffic goes over PCIe.
		NVLinkBandwidth: 300 * giga,
		Sources:         []string{srcH100DS, srcH100WP, srcTPU + ": H100 PCIe base 1125 MHz, boost 1755 MHz"},
	}
}

// h200SXM is the H200 SXM 141 GB: the H100 SXM5's GH100 with HBM3e, so the
// same compute, clocks and links.
func h200SXM() Device {
	d := h100SXM()
	d.Name = "h200-sxm"
	d.Display = "NVIDIA H200 SXM 141 GB"
	d.MemBandwidth = 4.8 * tera
	d.MemBytes = 141 * gib
	d.Sources = []string{
		"NVIDIA H200 Tensor Core GPU product page and datasheet, https://www.nvidia.com/en-us/data-center/h200/: 141 GB HBM3e, 4.8 TB/s, FP32 67 TFLOPS, TF32 989*, BF16/FP16 1979* (* sparsity), NVLink 900 GB/s, PCIe gen5 128 GB/s (reproduced at https://lzwjava.github.io/nvidia-h200-gpu-specs-en and https://www.saulelectric.com/nvidia-h200.html)",
		srcH100WP + " (same GH100 compute as H100 SXM5)",
		srcTPU + ": H200 SXM base 1590 MHz, boost 1980 MHz",
	}
	return d
}
