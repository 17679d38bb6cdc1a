package nvml

import (
	"errors"
	"math"
	"testing"
)

func TestTableName(t *testing.T) {
	const gib = 1 << 30
	tests := []struct {
		name string
		mem  uint64
		want string
	}{
		{"NVIDIA H100 80GB HBM3", 80 * gib, "h100-sxm"},
		{"NVIDIA H100 PCIe", 80 * gib, "h100-pcie"},
		{"NVIDIA H200", 141 * gib, "h200-sxm"},
		{"NVIDIA A100-SXM4-40GB", 40 * gib, "a100-40"},
		{"NVIDIA A100 80GB PCIe", 80 * gib, "a100-80"},
		{"Tesla V100-SXM2-32GB", 32 * gib, "v100"},
		{"Tesla V100-PCIE-16GB", 16 * gib, "v100-16"},
		{"Tesla T4", 15 * gib, "t4"},
		{"NVIDIA A10", 24 * gib, "a10"},
		{"NVIDIA L4", 24 * gib, "l4"},
		{"NVIDIA L40S", 48 * gib, ""},
		{"Tesla P100-PCIE-16GB", 16 * gib, "p100"},
		{"Tesla K80", 12 * gib, "k80"},
		{"NVIDIA GeForce RTX 4090", 24 * gib, ""},
	}
	for _, tt := range tests {
		if got := TableName(tt.name, tt.mem); got != tt.want {
			t.Errorf("TableName(%q) = %q, want %q", tt.name, got, tt.want)
		}
	}
}

func TestAggregate(t *testing.T) {
	nan := math.NaN()
	tel := Aggregate([]Sample{
		{SMClockMHz: 1000, MemClockMHz: 2000, PowerW: 100, TempC: 50, MemUsedBytes: 5, UtilGPU: 90, UtilMem: nan},
		{SMClockMHz: 2000, MemClockMHz: 2000, PowerW: nan, TempC: 60, MemUsedBytes: 7, UtilGPU: 100, UtilMem: nan},
		{SMClockMHz: 1500, MemClockMHz: 2000, PowerW: 300, TempC: 55, MemUsedBytes: 6, UtilGPU: 95, UtilMem: nan},
	})
	// Means of exactly representable values: exact.
	if tel.Samples != 3 || tel.SMClockMHz.V != 1500 || tel.MemClockMHz.V != 2000 || tel.PowerW.V != 200 ||
		tel.PowerMaxW.V != 300 || tel.TempMaxC.V != 60 || tel.MemUsedMaxB.V != 7 || tel.UtilGPU.V != 95 || tel.UtilMem.OK {
		t.Errorf("Aggregate = %+v", tel)
	}
	if tel := Aggregate(nil); tel.Samples != 0 || tel.SMClockMHz.OK || tel.PowerMaxW.OK {
		t.Errorf("Aggregate(nil) = %+v", tel)
	}
}

type oneGPU struct{}

func (oneGPU) Devices() ([]Info, error)   { return []Info{{Index: 0, Name: "g"}}, nil }
func (oneGPU) Sample(int) (Sample, error) { return Sample{}, errors.New("gone") }
func (oneGPU) Close() error               { return nil }

func TestSampler(t *testing.T) {
	if _, err := NewSampler(oneGPU{}, 3, 0); err == nil || err.Error() != "nvml: no GPU 3 (1 GPUs)" {
		t.Errorf("NewSampler(3): %v", err)
	}
	s, err := NewSampler(oneGPU{}, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	// Failed readings are left out.
	if tel := s.Start()(); tel.Samples != 0 || tel.GPU != "g" {
		t.Errorf("telemetry of failed readings: %+v", tel)
	}
}

// TestOpen runs on any machine: NVML opens or says why not.
func TestOpen(t *testing.T) {
	src, err := Open()
	if err != nil {
		t.Logf("no NVML here: %v", err)
		return
	}
	defer src.Close()
	devs, err := src.Devices()
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range devs {
		s, err := src.Sample(d.Index)
		t.Logf("GPU %d %s %s: %+v %v", d.Index, d.Name, d.UUID, s, err)
	}
}
