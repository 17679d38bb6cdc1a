package nvml

import (
	"encoding/binary"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/wb-sim/wb/profiler"
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

// twoGPUs is NVML on a machine of two GPUs; sampled records the indices
// Sample read.
type twoGPUs struct {
	sampled []int
	// migParent, where ≥ 0, is the GPU a MIG instance's UUID resolves to
	// (IndexByUUID); -1: the source resolves nothing.
	migParent int
}

const (
	uuid0 = "GPU-11111111-2222-3333-4444-555555555555"
	uuid1 = "GPU-5a3c0b5e-2b7a-11ee-8001-deadbeef0042"
)

func (g *twoGPUs) Devices() ([]Info, error) {
	return []Info{{Index: 0, Name: "NVIDIA A100-SXM4-80GB", UUID: uuid0, Power: PowerAverage},
		{Index: 1, Name: "NVIDIA H100 80GB HBM3", UUID: uuid1, Power: PowerInstant}}, nil
}
func (g *twoGPUs) Sample(i int) (Sample, error) {
	g.sampled = append(g.sampled, i)
	return Sample{PowerW: 1}, nil
}
func (g *twoGPUs) Close() error { return nil }

type resolving struct{ *twoGPUs }

func (r resolving) IndexByUUID(uuid string) (int, error) {
	if r.migParent < 0 {
		return 0, errors.New("NOT_FOUND")
	}
	return r.migParent, nil
}

// TestForProfileByUUID: telemetry samples the GPU whose UUID the backend
// gives (CUDA's device 0 may be NVML's GPU 1), whatever the case and
// prefix of its spelling; a MIG instance's UUID resolves to its GPU where
// the source can; a UUID NVML does not know gets no telemetry rather
// than another GPU's; a device that gives no UUID gets GPU 0 as before.
func TestForProfileByUUID(t *testing.T) {
	dev := func(uuid string) profiler.DeviceInfo {
		d := profiler.DeviceInfo{Name: "h100-sxm", Predictor: "h100-sxm", Versions: map[string]string{}}
		if uuid != "" {
			d.Versions[DeviceUUIDKey] = uuid
		}
		return d
	}
	for _, tc := range []struct {
		name    string
		src     Source
		uuid    string
		note    string
		sampled int // -1: no monitor
	}{
		{"the CUDA device is NVML's GPU 1", &twoGPUs{}, uuid1,
			"telemetry: NVML, GPU 1 NVIDIA H100 80GB HBM3 (" + uuid1 + "), the CUDA device's by UUID, every 10ms; power: " + PowerInstant, 1},
		{"upper case", &twoGPUs{}, strings.ToUpper(uuid1), "GPU 1 NVIDIA H100", 1},
		{"MIG instance of GPU 0", resolving{&twoGPUs{migParent: 0}}, "MIG-99999999-8888-7777-6666-555555555555", "GPU 0 NVIDIA A100", 0},
		{"unknown UUID", &twoGPUs{}, "GPU-99999999-8888-7777-6666-555555555555",
			"telemetry: none: nvml: no GPU GPU-99999999-8888-7777-6666-555555555555 among 2", -1},
		{"unresolved MIG", resolving{&twoGPUs{migParent: -1}}, "MIG-99999999-8888-7777-6666-555555555555", "telemetry: none: nvml: no GPU MIG-99999999-8888-7777-6666-555555555555 among 2 (NOT_FOUND)", -1},
		{"not a UUID", &twoGPUs{}, "GPU-xyz", `telemetry: none: nvml: "GPU-xyz" is not a UUID`, -1},
		{"no UUID: GPU 0", &twoGPUs{}, "", "telemetry: NVML, GPU 0 NVIDIA A100-SXM4-80GB (" + uuid0 + "), every 10ms; power: " + PowerAverage, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mon, note, closeNVML := ForProfile(func() (Source, error) { return tc.src, nil }, dev(tc.uuid))
			defer closeNVML()
			if !strings.Contains(note, tc.note) {
				t.Errorf("note %q, want it to say %q", note, tc.note)
			}
			if (mon == nil) != (tc.sampled < 0) {
				t.Fatalf("monitor %v", mon)
			}
			if mon == nil {
				return
			}
			mon.Start()()
			var g *twoGPUs
			switch s := tc.src.(type) {
			case *twoGPUs:
				g = s
			case resolving:
				g = s.twoGPUs
			}
			if len(g.sampled) == 0 || g.sampled[0] != tc.sampled || mon.GPU().Index != tc.sampled {
				t.Errorf("sampled %v (GPU %d), want GPU %d", g.sampled, mon.GPU().Index, tc.sampled)
			}
			if want := []string{PowerAverage, PowerInstant}[tc.sampled]; mon.GPU().Power != want {
				t.Errorf("the sidecar's GPU says power %q, want %q", mon.GPU().Power, want)
			}
		})
	}
}

func TestSameUUID(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		same bool
	}{
		{uuid1, uuid1, true},
		{uuid1, "5a3c0b5e-2b7a-11ee-8001-deadbeef0042", true},
		{uuid1, "MIG-5A3C0B5E2B7A11EE8001DEADBEEF0042", true},
		{uuid1, uuid0, false},
		{"", "", false},
		{"GPU-5a3c", "GPU-5a3c", false},
		{"GPU-5a3c0b5e-2b7a-11ee-8001-deadbeef004g", "GPU-5a3c0b5e-2b7a-11ee-8001-deadbeef004g", false},
	} {
		if got := SameUUID(tc.a, tc.b); got != tc.same {
			t.Errorf("SameUUID(%q, %q) = %v", tc.a, tc.b, got)
		}
	}
}

// TestFieldWatts: a power field's value in watts, from milliwatts, read
// as the union's type says (NVML_FI_DEV_POWER_INSTANT comes as an unsigned
// int or an unsigned long long, by driver).
func TestFieldWatts(t *testing.T) {
	le := func(v uint64) (b [8]byte) {
		binary.LittleEndian.PutUint64(b[:], v)
		return b
	}
	for _, tc := range []struct {
		typ   uint32
		value [8]byte
		w     float64
		ok    bool
	}{
		{valueUnsignedInt, le(0xdeadbeef_0004_93e0), 300, true}, // the high word not the value's
		{valueUnsignedLongLong, le(412_345), 412.345, true},
		{valueUnsignedLong, le(1000), 1, true},
		{valueSignedInt, le(uint64(uint32(250_000))), 250, true},
		{valueSignedLongLong, le(uint64(700_000)), 700, true},
		{valueUnsignedShort, le(0xffff_0000_0000_1f40), 8, true},
		{valueDouble, le(math.Float64bits(123456.5)), 123.4565, true},
		{7, le(1000), 0, false},
	} {
		w, ok := FieldWatts(tc.typ, tc.value)
		if ok != tc.ok || math.Abs(w-tc.w) > 1e-9 {
			t.Errorf("FieldWatts(%d, % x) = %v, %v; want %v, %v", tc.typ, tc.value, w, ok, tc.w, tc.ok)
		}
	}
}
