// Package nvml samples GPU telemetry (clocks, power, temperature, memory,
// utilisation) through NVIDIA's management library while the profiler
// measures, and describes the GPUs a machine has.
//
// go-nvml keeps its library handle in package state; this package keeps
// it behind Source, opened once and closed by its owner, so that the rest
// of wb and its tests see a value (and tests a fake). Where NVML is absent
// (no driver, or libnvidia-ml.so.1 not found), Open returns an error the
// caller reports once; it is never a failure of the profile.
package nvml

import (
	"encoding/binary"
	"fmt"
	"math"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/wb-sim/wb/profiler"
)

// Info describes one GPU.
type Info struct {
	Index          int
	Name           string // "NVIDIA H100 80GB HBM3"
	UUID           string
	MemoryBytes    uint64
	SMClockMaxMHz  float64 // 0 where NVML does not say
	MemClockMaxMHz float64
	PowerLimitW    float64
	Driver         string // "550.54.15"
	CUDA           string // the driver's CUDA version, "12.4"
	// Power is the reading Sample's PowerW is (PowerInstant,
	// PowerAverage), "" where the GPU reports none.
	Power string
}

// The power readings a Sample's PowerW may be. nvmlDeviceGetPowerUsage
// "returns power averaged over 1 sec interval" on Ampere (except GA100)
// and newer GPUs (nvml.h), longer than most passes are measured for, so
// a row's power would be mostly the passes before it; the field
// NVML_FI_DEV_POWER_INSTANT is the "current GPU power, supported on all
// architectures" (nvml.h), read where the GPU gives it.
const (
	PowerInstant = "NVML_FI_DEV_POWER_INSTANT (instantaneous)"
	PowerAverage = "nvmlDeviceGetPowerUsage (a 1-second average on Ampere, but GA100, and newer; instantaneous on older GPUs)"
)

// The nvmlValueType_t of an nvmlFieldValue_t's value (nvml.h).
const (
	valueDouble           = 0
	valueUnsignedInt      = 1
	valueUnsignedLong     = 2 // unsigned long: 8 bytes on the 64-bit Linux NVML runs on
	valueUnsignedLongLong = 3
	valueSignedLongLong   = 4
	valueSignedInt        = 5
	valueUnsignedShort    = 6
)

// FieldWatts reads a power field's value (milliwatts, as
// nvmlDeviceGetPowerUsage's) in watts: value is nvmlValue_t's 8 bytes,
// the union read as its valueType says (drivers have given
// NVML_FI_DEV_POWER_INSTANT as an unsigned int and as an unsigned long
// long). ok is false for a type it does not know.
func FieldWatts(valueType uint32, value [8]byte) (w float64, ok bool) {
	var mw float64
	switch valueType {
	case valueDouble:
		mw = math.Float64frombits(binary.LittleEndian.Uint64(value[:]))
	case valueUnsignedInt:
		mw = float64(binary.LittleEndian.Uint32(value[:4]))
	case valueUnsignedLong, valueUnsignedLongLong:
		mw = float64(binary.LittleEndian.Uint64(value[:]))
	case valueSignedLongLong:
		mw = float64(int64(binary.LittleEndian.Uint64(value[:])))
	case valueSignedInt:
		mw = float64(int32(binary.LittleEndian.Uint32(value[:4])))
	case valueUnsignedShort:
		mw = float64(binary.LittleEndian.Uint16(value[:2]))
	default:
		return 0, false
	}
	return mw / 1000, true
}

// Sample is one reading of a GPU. A value NVML does not report on the GPU
// (power on some boards, for instance) is NaN.
type Sample struct {
	SMClockMHz, MemClockMHz float64
	PowerW                  float64
	TempC                   float64
	MemUsedBytes            float64
	UtilGPU, UtilMem        float64 // percent over NVML's last sample period
}

// Source reads GPUs' telemetry.
type Source interface {
	// Devices lists the GPUs, by NVML index.
	Devices() ([]Info, error)
	// Sample reads GPU i now.
	Sample(i int) (Sample, error)
	// Close releases the library.
	Close() error
}

// DefaultInterval is how often a Sampler samples.
const DefaultInterval = 10 * time.Millisecond

// Sampler samples one GPU of a Source in a goroutine while a pass is
// measured: a profiler.Monitor.
type Sampler struct {
	src   Source
	info  Info
	every time.Duration
}

var _ profiler.Monitor = (*Sampler)(nil)

// NewSampler samples GPU index of src every interval (DefaultInterval
// when 0).
func NewSampler(src Source, index int, every time.Duration) (*Sampler, error) {
	devs, err := src.Devices()
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(devs, func(d Info) bool { return d.Index == index })
	if i < 0 {
		return nil, fmt.Errorf("nvml: no GPU %d (%d GPUs)", index, len(devs))
	}
	if every <= 0 {
		every = DefaultInterval
	}
	return &Sampler{src: src, info: devs[i], every: every}, nil
}

// GPU describes the GPU sampled.
func (s *Sampler) GPU() profiler.GPU {
	return profiler.GPU{Index: s.info.Index, Name: s.info.Name, UUID: s.info.UUID, Driver: s.info.Driver, CUDA: s.info.CUDA, Power: s.info.Power}
}

// Start samples at once and then every interval until stop, which
// aggregates the samples into the row's telemetry (a failed reading is
// left out). A measurement shorter than the interval gets one sample.
func (s *Sampler) Start() (stop func() profiler.Telemetry) {
	var (
		mu      sync.Mutex
		samples []Sample
		done    = make(chan struct{})
		exited  = make(chan struct{})
	)
	read := func() {
		if x, err := s.src.Sample(s.info.Index); err == nil {
			mu.Lock()
			samples = append(samples, x)
			mu.Unlock()
		}
	}
	go func() {
		defer close(exited)
		t := time.NewTicker(s.every)
		defer t.Stop()
		read()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				read()
			}
		}
	}()
	return func() profiler.Telemetry {
		close(done)
		<-exited
		tel := Aggregate(samples)
		tel.GPU, tel.GPUUUID = s.info.Name, s.info.UUID
		return tel
	}
}

// Aggregate sums samples up as a row's telemetry: means of clocks, power
// and utilisation, maxima of power, temperature and memory used. NaN
// readings are left out; a quantity never read stays empty.
func Aggregate(samples []Sample) profiler.Telemetry {
	tel := profiler.Telemetry{Samples: len(samples)}
	mean := func(f func(Sample) float64) profiler.Num {
		var sum float64
		var n int
		for _, x := range samples {
			if v := f(x); !math.IsNaN(v) && !math.IsInf(v, 0) {
				sum += v
				n++
			}
		}
		if n == 0 {
			return profiler.Num{}
		}
		return profiler.Some(sum / float64(n))
	}
	most := func(f func(Sample) float64) profiler.Num {
		var m profiler.Num
		for _, x := range samples {
			if v := f(x); !math.IsNaN(v) && !math.IsInf(v, 0) && (!m.OK || v > m.V) {
				m = profiler.Some(v)
			}
		}
		return m
	}
	tel.SMClockMHz = mean(func(x Sample) float64 { return x.SMClockMHz })
	tel.MemClockMHz = mean(func(x Sample) float64 { return x.MemClockMHz })
	tel.PowerW = mean(func(x Sample) float64 { return x.PowerW })
	tel.PowerMaxW = most(func(x Sample) float64 { return x.PowerW })
	tel.TempMaxC = most(func(x Sample) float64 { return x.TempC })
	tel.MemUsedMaxB = most(func(x Sample) float64 { return x.MemUsedBytes })
	tel.UtilGPU = mean(func(x Sample) float64 { return x.UtilGPU })
	tel.UtilMem = mean(func(x Sample) float64 { return x.UtilMem })
	return tel
}

// TableName guesses the predictor device table's name for a GPU from its
// NVML name and memory ("NVIDIA H100 80GB HBM3" → "h100-sxm", "Tesla
// V100-PCIE-16GB" → "v100-16"), or "" for a GPU the table lacks. PCIe and
// SXM boards share a table entry except the H100's.
func TableName(name string, memBytes uint64) string {
	tokens := strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9')
	})
	has := func(t string) bool { return slices.Contains(tokens, t) }
	gib := float64(memBytes) / (1 << 30)
	switch {
	case has("h200"):
		return "h200-sxm"
	case has("h100"):
		if has("pcie") {
			return "h100-pcie"
		}
		return "h100-sxm"
	case has("a100"):
		if gib > 48 {
			return "a100-80"
		}
		return "a100-40"
	case has("v100"):
		if gib > 20 || memBytes == 0 {
			return "v100"
		}
		return "v100-16"
	case has("a10"):
		return "a10"
	case has("l4"):
		return "l4"
	case has("t4"):
		return "t4"
	case has("p100"):
		return "p100"
	case has("k80"):
		return "k80"
	}
	return ""
}

// DeviceUUIDKey is the key of the device's versions (DeviceInfo.Versions)
// under which a GPU backend gives the UUID of the device it runs on, as
// NVML writes it ("GPU-5a3c0b5e-..."): the CUDA backend's
// cuda.VersionUUID.
const DeviceUUIDKey = "gpu_uuid"

// SameUUID reports whether two UUIDs name the same device: their hex
// digits, whatever the case, the hyphens and the "GPU-" or "MIG-" prefix
// (NVML writes a GPU's UUID "GPU-" + 8-4-4-4-12 hex digits and a MIG
// instance's "MIG-" + the same; CUDA gives the 16 bytes). Two empty or
// malformed UUIDs are never the same.
func SameUUID(a, b string) bool {
	x, y := uuidHex(a), uuidHex(b)
	return x != "" && x == y
}

// uuidHex is a UUID's 32 hex digits, lower case, or "" for a string that
// is not a UUID.
func uuidHex(s string) string {
	s = strings.ToLower(strings.TrimSpace(s))
	for _, p := range []string{"gpu-", "mig-"} {
		s = strings.TrimPrefix(s, p)
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= '0' && r <= '9' || r >= 'a' && r <= 'f':
			b.WriteRune(r)
		case r == '-':
		default:
			return ""
		}
	}
	if b.Len() != 32 {
		return ""
	}
	return b.String()
}

// UUIDResolver is a Source that finds a device by UUID itself, where
// Devices' list does not hold it: the real NVML finds a MIG instance
// (nvmlDeviceGetHandleByUUID) and gives its parent GPU's index, the one
// Sample reads.
type UUIDResolver interface {
	IndexByUUID(uuid string) (int, error)
}

// ForProfile opens telemetry for a profile measured on dev: the GPU of
// the Source open gives whose UUID is dev's (dev.Versions[DeviceUUIDKey],
// which the CUDA backend sets from cuDeviceGetUuid_v2), sampled every
// DefaultInterval; GPU 0 for a device that gives no UUID. Where NVML
// opens, a backend on the CPU ("cpu" predictor device) still gets none,
// as a GPU's telemetry says nothing of its runs, and so does a device
// whose UUID NVML does not know: sampling another GPU would describe
// the wrong one. It returns the monitor (nil for none), one line saying
// what telemetry the profile has or why it has none, and a function
// closing the source (never nil). It does not fail: absent NVML is a
// note.
//
// Matching by UUID rather than by index matters because NVML numbers the
// GPUs by PCI bus, and CUDA by speed (CUDA_DEVICE_ORDER=FASTEST_FIRST,
// its default) after CUDA_VISIBLE_DEVICES has filtered and reordered
// them: CUDA's device 0 is NVML's GPU 0 only by chance.
func ForProfile(open func() (Source, error), dev profiler.DeviceInfo) (profiler.Monitor, string, func() error) {
	none := func() error { return nil }
	src, err := open()
	if err != nil {
		return nil, "telemetry: none: NVML not available: " + err.Error(), none
	}
	if dev.Predictor == "cpu" {
		return nil, "telemetry: none (NVML found, but the backend runs on the CPU)", src.Close
	}
	index, how := 0, ""
	if uuid := dev.Versions[DeviceUUIDKey]; uuid != "" {
		var err error
		if index, err = IndexOf(src, uuid); err != nil {
			src.Close()
			return nil, "telemetry: none: " + err.Error(), none
		}
		how = ", the CUDA device's by UUID"
	}
	s, err := NewSampler(src, index, 0)
	if err != nil {
		src.Close()
		return nil, "telemetry: none: " + err.Error(), none
	}
	power := "none"
	if s.info.Power != "" {
		power = s.info.Power
	}
	return s, fmt.Sprintf("telemetry: NVML, GPU %d %s (%s)%s, every %v; power: %s", s.info.Index, s.info.Name, s.info.UUID, how, s.every, power), src.Close
}

// IndexOf is the NVML index of the GPU of UUID uuid: the device of
// src.Devices whose UUID is the same (SameUUID), else, for a Source that
// resolves UUIDs itself (UUIDResolver: a MIG instance's), the index it
// gives.
func IndexOf(src Source, uuid string) (int, error) {
	if uuidHex(uuid) == "" {
		return 0, fmt.Errorf("nvml: %q is not a UUID", uuid)
	}
	devs, err := src.Devices()
	if err != nil {
		return 0, err
	}
	for _, d := range devs {
		if SameUUID(d.UUID, uuid) {
			return d.Index, nil
		}
	}
	if r, ok := src.(UUIDResolver); ok {
		i, err := r.IndexByUUID(uuid)
		if err == nil {
			return i, nil
		}
		return 0, fmt.Errorf("nvml: no GPU %s among %d (%v)", uuid, len(devs), err)
	}
	return 0, fmt.Errorf("nvml: no GPU %s among %d", uuid, len(devs))
}
