package gpu

import (
	"math"
	"slices"
	"testing"
)

// Calibrate divides a calibrated GPU's product kernels' own time by its
// factor and leaves everything else as measured.
func TestCalibrate(t *testing.T) {
	const floor, overlap = 30e-6, 18e-6
	lin := Kernel{Op: "linear", Batch: 1, M: 4096, N: 1280, K: 5120}
	in := []Sample{
		{GPU: "T4", Kernel: lin, Seconds: 10e-3, Floor: floor, Overlap: overlap},
		{GPU: "T4", Kernel: Kernel{Op: "bmm", Batch: 8, M: 512, N: 512, K: 64}, Seconds: 1e-3, Floor: floor, Overlap: overlap},
		{GPU: "T4", Kernel: Kernel{Op: "add", Rows: 4096, Width: 1024, Inputs: 2}, Seconds: 1e-3, Floor: floor, Overlap: overlap},
		{GPU: "T4", Kernel: lin, Seconds: 0.5 * floor, Floor: floor, Overlap: overlap}, // below FloorShare: not learned from
		{GPU: "P4", Kernel: lin, Seconds: 1.6 * floor, Floor: floor, Overlap: overlap}, // within the floor after scaling
		{GPU: "V100", Kernel: lin, Seconds: 2e-3, Floor: floor, Overlap: overlap},
	}
	orig := slices.Clone(in)
	out := Calibrate(in, Calibration{"T4": 1.25, "P4": 4})
	if !slices.Equal(in, orig) {
		t.Fatal("Calibrate changed its input")
	}
	kernel := func(s Sample) float64 { return s.Seconds - s.Floor + s.Overlap }
	for i, want := range []float64{kernel(in[0]) / 1.25, kernel(in[1]) / 1.25} {
		if got := kernel(out[i]); math.Abs(got-want) > 1e-12 {
			t.Errorf("%s: kernel time %g s, want %g", in[i].Kernel.Op, got, want)
		}
	}
	if out[4].Seconds != floor {
		t.Errorf("a kernel the floor hides: %g s, want the floor %g", out[4].Seconds, floor)
	}
	for _, i := range []int{2, 3, 5} {
		if out[i] != in[i] {
			t.Errorf("sample %d (%s on %s) changed: %g → %g s", i, in[i].Kernel.Op, in[i].GPU, in[i].Seconds, out[i].Seconds)
		}
	}
	if got := Calibrate(in, nil); !slices.Equal(got, in) {
		t.Error("no calibration changed the samples")
	}
}

// The shipped model's factors: the low-power boards' sweeps ran products
// slower than their labels' iterations (the reason for calibrating); the
// V100's and the A100's agree with their labels; the A100 80GB, with no
// label, has none. Measured again with the calibrated model, every factor
// is near 1: one round reaches what the labels say.
func TestShippedCalibration(t *testing.T) {
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	c := m.Calibration
	if got, want := c.GPUs(), []string{"NVIDIA_A100-PCIE-40GB", "Tesla_P100-PCIE-16GB", "Tesla_P4", "Tesla_T4", "Tesla_V100-PCIE-32GB"}; !slices.Equal(got, want) {
		t.Fatalf("calibrated %v, want %v", got, want)
	}
	t.Logf("calibration %v", c)
	for _, g := range []string{"Tesla_P4", "Tesla_T4"} {
		if !(c[g] > 1.15) {
			t.Errorf("%s: factor %.3f, want > 1.15 (its sweeps ran products slower than its labels)", g, c[g])
		}
	}
	for _, g := range []string{"NVIDIA_A100-PCIE-40GB", "Tesla_V100-PCIE-32GB"} {
		if math.Abs(c[g]-1) > 0.05 {
			t.Errorf("%s: factor %.3f, want within 5%% of 1", g, c[g])
		}
	}
	d := bundledData(t)
	again, err := CalibrationOf(m, d.Specs, d.Dir, []string{"Tesla_T4"})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := again["Tesla_T4"]; ok {
		t.Error("a GPU left out was calibrated: its labels were read")
	}
	for g, f := range again {
		if math.Abs(f-1) > 0.1 {
			t.Errorf("%s: measured again on the calibrated model %.3f, want within 10%% of 1", g, f)
		}
	}
	if len(again) != 4 {
		t.Errorf("measured again: %v, want the four GPUs with labels", again)
	}
}
