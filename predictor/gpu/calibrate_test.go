package gpu

import (
	"bytes"
	"maps"
	"math"
	"slices"
	"testing"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/dnn"
)

// Calibrate scales a calibrated GPU's linear measurements and nothing
// else; what the model learns is their kernel time divided by the factor,
// and which rows it learns from does not change.
func TestCalibrate(t *testing.T) {
	const floor, overlap = 30e-6, 18e-6
	lin := Kernel{Op: "linear", Batch: 1, M: 4096, N: 1280, K: 5120}
	in := []Sample{
		{GPU: "T4", Kernel: lin, Seconds: 10e-3, Floor: floor, Overlap: overlap},
		{GPU: "T4", Kernel: Kernel{Op: "bmm", Batch: 8, M: 512, N: 512, K: 64}, Seconds: 1e-3, Floor: floor, Overlap: overlap},
		{GPU: "T4", Kernel: Kernel{Op: "add", Rows: 4096, Width: 1024, Inputs: 2}, Seconds: 1e-3, Floor: floor, Overlap: overlap},
		{GPU: "A100", Kernel: lin, Seconds: 1e-3, Floor: floor, Overlap: overlap},
		{GPU: "V100", Kernel: lin, Seconds: 2e-3, Floor: floor, Overlap: overlap},
	}
	orig := slices.Clone(in)
	out := Calibrate(in, Calibration{"T4": 1.25, "A100": 0.8})
	if !slices.Equal(in, orig) {
		t.Fatal("Calibrate changed its input")
	}
	for i, want := range []float64{1.25, 0, 0, 0.8, 0} {
		if out[i].Scale != want {
			t.Errorf("%s on %s: scale %g, want %g", in[i].Kernel.Op, in[i].GPU, out[i].Scale, want)
		}
		if out[i].Seconds != in[i].Seconds || out[i].Floor != in[i].Floor {
			t.Errorf("%s on %s: the measurement changed", in[i].Kernel.Op, in[i].GPU)
		}
		k := in[i].Seconds - floor + overlap
		if want > 0 {
			k /= want
		}
		if got := out[i].kernel(); math.Abs(got-k) > 1e-15 {
			t.Errorf("%s on %s: kernel time learned %g s, want %g", in[i].Kernel.Op, in[i].GPU, got, k)
		}
	}
	if got := Calibrate(in, nil); !slices.Equal(got, in) {
		t.Error("no calibration changed the samples")
	}
}

// The calibration splits an iteration into its linear layers and the rest: their
// sum is the iteration Model.Iteration predicts, forward and training.
func TestProductTime(t *testing.T) {
	d := bundledData(t)
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		model      string
		seq, batch int
		train      bool
	}{{"bert_large", 512, 2, true}, {"gpt2_large", 1024, 1, false}, {"switchxl4", 512, 1, false}} {
		cfg, err := dnn.ReadHFConfig(d.Dir.ModelPath(c.model))
		if err != nil {
			t.Fatal(err)
		}
		p, err := Lower(cfg, c.seq, c.batch, c.train)
		if err != nil {
			t.Fatal(err)
		}
		s := d.Specs["Tesla_V100-PCIE-32GB"]
		lin, rest := m.calibratedTime(s, p, c.train)
		it := m.Iteration(s, p, c.train)
		if math.Abs(lin+rest-it.Total()) > 1e-9*it.Total() || !(lin > rest) || !(rest > 0) {
			t.Errorf("%s: linear layers %g s + rest %g s, iteration %g s", c.model, lin, rest, it.Total())
		}
	}
}

// smallTraining is the bundled data and settings small enough to train
// the four models a calibration test needs in seconds (skipped in -short).
func smallTraining(t *testing.T) (*Data, Params) {
	t.Helper()
	if testing.Short() {
		t.Skip("trains four models")
	}
	p := DefaultParams()
	p.PerGPU, p.Boost.Trees = 200, 10
	return bundledData(t), p
}

// A GPU left out is never calibrated by its own labels: the model trained
// without the T4 is the same, byte for byte, whatever the T4's labels say.
func TestCalibrationLeavesHeldOutLabels(t *testing.T) {
	d, p := smallTraining(t)
	train := func(d *Data) []byte {
		m, err := d.Train([]string{"Tesla_T4"}, p)
		if err != nil {
			t.Fatal(err)
		}
		if _, ok := m.Calibration["Tesla_T4"]; ok || len(m.Calibration) == 0 {
			t.Fatalf("calibrated %v", m.Calibration.GPUs())
		}
		js, err := m.Marshal()
		if err != nil {
			t.Fatal(err)
		}
		return js
	}
	want := train(d)
	dir := *d.Dir
	dir.Labels = slices.Clone(d.Dir.Labels)
	changed := 0
	for i := range dir.Labels {
		if dir.Labels[i].GPU == "Tesla_T4" {
			dir.Labels[i].E2E *= 3
			changed++
		}
	}
	if changed == 0 {
		t.Fatal("no T4 label to change")
	}
	other := Data{Dir: &dir, Samples: d.Samples, Specs: d.Specs} // models of its own
	if got := train(&other); !bytes.Equal(got, want) {
		t.Error("the T4's labels changed the model trained without the T4")
	}
	// and they do change the one trained with it
	v100 := *d.Dir
	v100.Labels = slices.Clone(dir.Labels)
	for i := range v100.Labels {
		if v100.Labels[i].GPU == "Tesla_V100-PCIE-32GB" {
			v100.Labels[i].E2E *= 3
		}
	}
	if got := train(&Data{Dir: &v100, Samples: d.Samples, Specs: d.Specs}); bytes.Equal(got, want) {
		t.Error("the V100's labels did not change its calibration")
	}
}

// The shipped model's factors: the low-power boards' linear sweeps ran
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
			t.Errorf("%s: factor %.3f, want > 1.15 (its linear sweep ran slower than its labels)", g, c[g])
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
		if math.Abs(f-1) > 0.06 {
			t.Errorf("%s: measured again on the calibrated model %.3f, want within 6%% of 1", g, f)
		}
	}
	if len(again) != 4 {
		t.Errorf("measured again: %v, want the four GPUs with labels", again)
	}
}

// Labels the calibration cannot use are passed over, never an error:
// multi-GPU, torch.compile, unknown variants, a model without a config, a
// sequence beyond the model's positions, a GPU the model was not trained on.
func TestCalibrationSkips(t *testing.T) {
	d := bundledData(t)
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	want, err := CalibrationOf(m, d.Specs, d.Dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := *d.Dir
	dir.Labels = slices.Clone(d.Dir.Labels)
	var base neusight.Label
	for _, l := range d.Dir.Labels {
		if l.GPU == "Tesla_T4" && l.GPUs <= 1 && !l.Fused {
			base = l
			break
		}
	}
	if base.GPU == "" {
		t.Fatal("no T4 label")
	}
	add := func(edit func(l *neusight.Label)) {
		l := base
		l.E2E *= 100 // would move the T4's factor, were it used
		edit(&l)
		dir.Labels = append(dir.Labels, l)
	}
	add(func(l *neusight.Label) { l.GPUs, l.DP = 4, 4 })
	add(func(l *neusight.Label) { l.Fused = true })
	add(func(l *neusight.Label) { l.Variant = "fp16" })
	add(func(l *neusight.Label) { l.Model = "no_such_model" })
	add(func(l *neusight.Label) { l.Seq = 1 << 20 })
	add(func(l *neusight.Label) { l.GPU = "Unknown_GPU" })
	got, err := CalibrationOf(m, d.Specs, &dir, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("calibrated %v, want %v", got.GPUs(), want.GPUs())
	}
	for g, f := range want {
		if got[g] != f {
			t.Errorf("%s: %v with labels it cannot use, %v without", g, got[g], f)
		}
	}
	// a label whose measured time, less the rest's predicted time, leaves
	// its linear layers under MinCalibratedShare of it (here a quarter of
	// the measured time, about what the rest is predicted to take) is
	// passed over too
	dir.Labels = append(dir.Labels[:0:0], base)
	one, err := CalibrationOf(m, d.Specs, &dir, nil)
	if err != nil || len(one) != 1 {
		t.Fatalf("one T4 label: %v, %v", one, err)
	}
	short := base
	short.E2E *= 0.25
	dir.Labels = []neusight.Label{short}
	if none, err := CalibrationOf(m, d.Specs, &dir, nil); err != nil || len(none) != 0 {
		t.Errorf("a label that leaves its linear layers no time calibrated %v (%v)", none, err)
	}
}

// TestWithoutNetwork: the model that leaves a network out of the
// calibration too is the model Data.Train would fit on the samples
// calibrated without that network's labels, byte for byte (only the linear
// group is fitted again, on its own rows), and its factors do not move when
// that network's labels do; a network with no label gives the model back.
func TestWithoutNetwork(t *testing.T) {
	d, p := smallTraining(t)
	ex := []string{"Tesla_T4"}
	m, err := d.Train(ex, p)
	if err != nil {
		t.Fatal(err)
	}
	u, err := Train(d.Samples, d.Specs, ex, p)
	if err != nil {
		t.Fatal(err)
	}
	got, err := d.WithoutNetwork(m, ex, "gpt2_large", u)
	if err != nil {
		t.Fatal(err)
	}
	c, err := calibrationOf(u, d.Specs, d.Dir, ex, "gpt2_large")
	if err != nil {
		t.Fatal(err)
	}
	want, err := Train(Calibrate(d.Samples, c), d.Specs, ex, p)
	if err != nil {
		t.Fatal(err)
	}
	want.Calibration = c
	a, _ := got.Marshal()
	b, _ := want.Marshal()
	if maps.Equal(c, m.Calibration) || !bytes.Equal(a, b) {
		t.Errorf("factors %v (with gpt2_large %v); the model refitted in part equals the one fitted whole: %v", c, m.Calibration, bytes.Equal(a, b))
	}
	// the network's labels, tripled, change nothing
	dir := *d.Dir
	dir.Labels = slices.Clone(d.Dir.Labels)
	for i := range dir.Labels {
		if dir.Labels[i].Model == "gpt2_large" {
			dir.Labels[i].E2E *= 3
		}
	}
	other := Data{Dir: &dir, Samples: d.Samples, Specs: d.Specs} // models of its own
	again, err := other.WithoutNetwork(m, ex, "gpt2_large", u)
	if err != nil {
		t.Fatal(err)
	}
	if js, _ := again.Marshal(); !bytes.Equal(js, a) {
		t.Error("gpt2_large's labels changed the model that leaves gpt2_large out")
	}
	if same, err := d.WithoutNetwork(m, ex, "no_such_network", u); err != nil || same != m {
		t.Errorf("a network without labels: %v, %v", same == m, err)
	}
}

// TestWithoutUnlabelledNetwork: leaving out of the calibration a network
// none of whose labels calibrates the model leaves the model as it is,
// with nothing trained (the shipped model serves a user's own network);
// a network with labels is left out as WithoutNetwork leaves it.
func TestWithoutUnlabelledNetwork(t *testing.T) {
	d := bundledData(t)
	m, err := Shipped()
	if err != nil {
		t.Fatal(err)
	}
	if calibrates(d.Dir, m, nil, "myopt") || !calibrates(d.Dir, m, nil, "opt_13") {
		t.Fatal("calibrates: want no label of myopt, some of opt_13")
	}
	// no uncalibrated model is there to train: one would be trained
	nm := &networkModels{byNetwork: map[string]*Model{}, uncalibrated: map[string]*Model{}}
	got, err := nm.model(d, m, "", "myopt")
	if err != nil || got != m || len(nm.uncalibrated) != 0 {
		t.Errorf("a network of no label: model %p (shipped %p), %v, %d uncalibrated models trained", got, m, err, len(nm.uncalibrated))
	}
}
