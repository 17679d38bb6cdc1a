//go:build cgo

package nvml

import (
	"encoding/binary"
	"math"
	"testing"

	gonvml "github.com/NVIDIA/go-nvml/pkg/nvml"
	"github.com/NVIDIA/go-nvml/pkg/nvml/mock"
)

// fakeDevice is an NVML device of go-nvml's mock whose power field reads
// instant mW (NVML_FI_DEV_POWER_INSTANT, as an unsigned int), or is not
// supported where instant is 0, and whose nvmlDeviceGetPowerUsage reads
// average mW.
func fakeDevice(name string, instant, average uint32, fieldCalls *int) *mock.Device {
	return &mock.Device{
		GetNameFunc:                 func() (string, gonvml.Return) { return name, gonvml.SUCCESS },
		GetUUIDFunc:                 func() (string, gonvml.Return) { return "GPU-" + name, gonvml.SUCCESS },
		GetMemoryInfoFunc:           func() (gonvml.Memory, gonvml.Return) { return gonvml.Memory{Total: 80 << 30}, gonvml.SUCCESS },
		GetMaxClockInfoFunc:         func(gonvml.ClockType) (uint32, gonvml.Return) { return 1980, gonvml.SUCCESS },
		GetClockInfoFunc:            func(gonvml.ClockType) (uint32, gonvml.Return) { return 1755, gonvml.SUCCESS },
		GetPowerManagementLimitFunc: func() (uint32, gonvml.Return) { return 700_000, gonvml.SUCCESS },
		GetTemperatureFunc:          func(gonvml.TemperatureSensors) (uint32, gonvml.Return) { return 40, gonvml.SUCCESS },
		GetUtilizationRatesFunc:     func() (gonvml.Utilization, gonvml.Return) { return gonvml.Utilization{Gpu: 99}, gonvml.SUCCESS },
		GetPowerUsageFunc:           func() (uint32, gonvml.Return) { return average, gonvml.SUCCESS },
		GetFieldValuesFunc: func(fv []gonvml.FieldValue) gonvml.Return {
			*fieldCalls++
			for i := range fv {
				if fv[i].FieldId != gonvml.FI_DEV_POWER_INSTANT || instant == 0 {
					fv[i].NvmlReturn = uint32(gonvml.ERROR_NOT_SUPPORTED)
					continue
				}
				fv[i].NvmlReturn, fv[i].ValueType = uint32(gonvml.SUCCESS), valueUnsignedInt
				binary.LittleEndian.PutUint32(fv[i].Value[:4], instant)
			}
			return gonvml.SUCCESS
		},
	}
}

// TestPowerReading: a GPU that gives NVML_FI_DEV_POWER_INSTANT has its
// power read from it (nvmlDeviceGetPowerUsage averages over a second on
// Ampere and newer), probed once; one that does not, from
// nvmlDeviceGetPowerUsage; Devices says which, for the profile's notes
// and sidecar.
func TestPowerReading(t *testing.T) {
	var calls [2]int
	devs := []*mock.Device{fakeDevice("hopper", 350_000, 200_000, &calls[0]), fakeDevice("older", 0, 120_000, &calls[1])}
	l := &library{lib: &mock.Interface{
		DeviceGetCountFunc:             func() (int, gonvml.Return) { return len(devs), gonvml.SUCCESS },
		SystemGetDriverVersionFunc:     func() (string, gonvml.Return) { return "580.159.04", gonvml.SUCCESS },
		SystemGetCudaDriverVersionFunc: func() (int, gonvml.Return) { return 13000, gonvml.SUCCESS },
		DeviceGetHandleByIndexFunc:     func(i int) (gonvml.Device, gonvml.Return) { return devs[i], gonvml.SUCCESS },
	}}
	infos, err := l.Devices()
	if err != nil {
		t.Fatal(err)
	}
	if len(infos) != 2 || infos[0].Power != PowerInstant || infos[1].Power != PowerAverage {
		t.Fatalf("devices %+v", infos)
	}
	for i, want := range []float64{350, 120} {
		s, err := l.Sample(i)
		if err != nil || math.Abs(s.PowerW-want) > 1e-9 {
			t.Errorf("GPU %d: power %v W (%v), want %v", i, s.PowerW, err, want)
		}
	}
	if calls != [2]int{2, 1} {
		t.Errorf("field reads %v, want the probe and a sample's for the GPU that gives it, the probe alone for the other", calls)
	}
}
