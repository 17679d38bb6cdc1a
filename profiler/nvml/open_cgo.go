//go:build cgo

package nvml

import (
	"errors"
	"fmt"
	"math"
	"sync"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
)

// Open loads and initialises NVML (libnvidia-ml.so.1, found by the dynamic
// loader). Its error says why NVML is not available.
func Open() (Source, error) {
	lib := gonvml.New()
	if ret := lib.Init(); ret != gonvml.SUCCESS {
		if ret == gonvml.ERROR_LIBRARY_NOT_FOUND {
			return nil, errors.New("libnvidia-ml.so.1 not found (no NVIDIA driver)")
		}
		return nil, fmt.Errorf("nvml init: %v", ret)
	}
	return &library{lib: lib}, nil
}

type library struct {
	lib gonvml.Interface
	// instant says, per GPU index, whether its power is read from the
	// NVML_FI_DEV_POWER_INSTANT field (probed once, instantPower): Sample
	// runs on the sampler's goroutine, Devices on the caller's.
	mu      sync.Mutex
	instant map[int]bool
}

// instantPower says whether GPU i's power is read from the instantaneous
// field (instantWatts), where the GPU gives it, rather than from
// nvmlDeviceGetPowerUsage. The first call probes; later ones keep its
// answer, so that every sample of a row is of one kind.
func (l *library) instantPower(i int, d gonvml.Device) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	instant, probed := l.instant[i]
	if !probed {
		_, instant = instantWatts(d)
		if l.instant == nil {
			l.instant = map[int]bool{}
		}
		l.instant[i] = instant
	}
	return instant
}

// instantWatts reads NVML_FI_DEV_POWER_INSTANT (nvmlDeviceGetFieldValues),
// in watts.
func instantWatts(d gonvml.Device) (float64, bool) {
	fv := []gonvml.FieldValue{{FieldId: gonvml.FI_DEV_POWER_INSTANT}}
	if ret := d.GetFieldValues(fv); ret != gonvml.SUCCESS || gonvml.Return(fv[0].NvmlReturn) != gonvml.SUCCESS {
		return 0, false
	}
	return FieldWatts(fv[0].ValueType, fv[0].Value)
}

var _ UUIDResolver = (*library)(nil)

func (l *library) Devices() ([]Info, error) {
	n, ret := l.lib.DeviceGetCount()
	if ret != gonvml.SUCCESS {
		return nil, fmt.Errorf("nvml: device count: %v", ret)
	}
	driver, _ := l.lib.SystemGetDriverVersion()
	var cuda string
	if v, ret := l.lib.SystemGetCudaDriverVersion(); ret == gonvml.SUCCESS {
		cuda = fmt.Sprintf("%d.%d", v/1000, v%1000/10)
	}
	out := make([]Info, 0, n)
	for i := range n {
		d, ret := l.lib.DeviceGetHandleByIndex(i)
		if ret != gonvml.SUCCESS {
			return nil, fmt.Errorf("nvml: device %d: %v", i, ret)
		}
		info := Info{Index: i, Driver: driver, CUDA: cuda}
		info.Name, _ = d.GetName()
		info.UUID, _ = d.GetUUID()
		if m, ret := d.GetMemoryInfo(); ret == gonvml.SUCCESS {
			info.MemoryBytes = m.Total
		}
		if c, ret := d.GetMaxClockInfo(gonvml.CLOCK_SM); ret == gonvml.SUCCESS {
			info.SMClockMaxMHz = float64(c)
		}
		if c, ret := d.GetMaxClockInfo(gonvml.CLOCK_MEM); ret == gonvml.SUCCESS {
			info.MemClockMaxMHz = float64(c)
		}
		if p, ret := d.GetPowerManagementLimit(); ret == gonvml.SUCCESS {
			info.PowerLimitW = float64(p) / 1000
		}
		if l.instantPower(i, d) {
			info.Power = PowerInstant
		} else if _, ret := d.GetPowerUsage(); ret == gonvml.SUCCESS {
			info.Power = PowerAverage
		}
		out = append(out, info)
	}
	return out, nil
}

func (l *library) Sample(i int) (Sample, error) {
	d, ret := l.lib.DeviceGetHandleByIndex(i)
	if ret != gonvml.SUCCESS {
		return Sample{}, fmt.Errorf("nvml: device %d: %v", i, ret)
	}
	nan := math.NaN()
	s := Sample{nan, nan, nan, nan, nan, nan, nan}
	if c, ret := d.GetClockInfo(gonvml.CLOCK_SM); ret == gonvml.SUCCESS {
		s.SMClockMHz = float64(c)
	}
	if c, ret := d.GetClockInfo(gonvml.CLOCK_MEM); ret == gonvml.SUCCESS {
		s.MemClockMHz = float64(c)
	}
	// the reading Devices says (a failed instantaneous reading is left
	// out, not replaced by the 1-second average)
	if l.instantPower(i, d) {
		if w, ok := instantWatts(d); ok {
			s.PowerW = w
		}
	} else if p, ret := d.GetPowerUsage(); ret == gonvml.SUCCESS {
		s.PowerW = float64(p) / 1000 // milliwatts
	}
	if t, ret := d.GetTemperature(gonvml.TEMPERATURE_GPU); ret == gonvml.SUCCESS {
		s.TempC = float64(t)
	}
	if m, ret := d.GetMemoryInfo(); ret == gonvml.SUCCESS {
		s.MemUsedBytes = float64(m.Used)
	}
	if u, ret := d.GetUtilizationRates(); ret == gonvml.SUCCESS {
		s.UtilGPU, s.UtilMem = float64(u.Gpu), float64(u.Memory)
	}
	return s, nil
}

// IndexByUUID finds the device of UUID uuid with
// nvmlDeviceGetHandleByUUID ("The UUID of the target GPU or MIG instance",
// nvml.h), trying the "MIG-" spelling of the same digits where the "GPU-"
// one is not found (CUDA's UUID of a MIG instance, formatted as a GPU's),
// and gives the index of its GPU: the parent's
// (nvmlDeviceGetDeviceHandleFromMigDeviceHandle) for a MIG instance,
// whose own handle has no index and little telemetry.
func (l *library) IndexByUUID(uuid string) (int, error) {
	hex := uuidHex(uuid)
	if hex == "" {
		return 0, fmt.Errorf("nvml: %q is not a UUID", uuid)
	}
	dashed := fmt.Sprintf("%s-%s-%s-%s-%s", hex[0:8], hex[8:12], hex[12:16], hex[16:20], hex[20:32])
	var d gonvml.Device
	ret := gonvml.ERROR_NOT_FOUND
	for _, name := range []string{"GPU-" + dashed, "MIG-" + dashed} {
		if d, ret = l.lib.DeviceGetHandleByUUID(name); ret == gonvml.SUCCESS {
			break
		}
	}
	if ret != gonvml.SUCCESS {
		return 0, fmt.Errorf("nvml: device %s: %v", uuid, ret)
	}
	if mig, ret := d.IsMigDeviceHandle(); ret == gonvml.SUCCESS && mig {
		parent, ret := d.GetDeviceHandleFromMigDeviceHandle()
		if ret != gonvml.SUCCESS {
			return 0, fmt.Errorf("nvml: the GPU of MIG device %s: %v", uuid, ret)
		}
		d = parent
	}
	i, ret := d.GetIndex()
	if ret != gonvml.SUCCESS {
		return 0, fmt.Errorf("nvml: index of device %s: %v", uuid, ret)
	}
	return i, nil
}

func (l *library) Close() error {
	if ret := l.lib.Shutdown(); ret != gonvml.SUCCESS {
		return fmt.Errorf("nvml shutdown: %v", ret)
	}
	return nil
}
