package gpu

import (
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets/neusight"
)

// A level scales a kernel's time by its factor: products by the products',
// every other kernel by the bandwidth's.
func TestLevelScalesKernels(t *testing.T) {
	m := shippedModel(t)
	s := bundledData(t).Specs["Tesla_V100-PCIE-32GB"]
	lv := s
	lv.Level = Level{Products: math.Log(1.5), Bandwidth: math.Log(0.8)}
	for _, c := range []struct {
		k    Kernel
		want float64
	}{
		{Kernel{Op: neusight.BMM, Batch: 16, M: 512, N: 512, K: 64}, 1.5},
		{Kernel{Op: neusight.Linear, Batch: 1, M: 4096, N: 1024, K: 1024, Bias: true}, 1.5},
		{ConvKernel(8, 64, 64, 3, 56, 1, 1), 1.5},
		{Kernel{Op: "add", Rows: 4096, Width: 1024, Inputs: 2, Outputs: 1}, 0.8},
		{Kernel{Op: neusight.Softmax, Rows: 4096, Width: 512}, 0.8},
		{Kernel{Op: "embedding", Rows: 512, Width: 1024}, 0.8},
	} {
		k := c.k
		if r := m.Kernel(lv, &k) / m.Kernel(s, &k); math.Abs(r-c.want) > 1e-9 {
			t.Errorf("%s: ×%.6f at the level, want ×%.2f", k.Op, r, c.want)
		}
	}
	// a faster level speeds a product up to its FLOPs at the fp32 peak,
	// never past it
	fast := s
	fast.Level = Level{Products: math.Log(0.05)}
	k := Kernel{Op: neusight.BMM, Batch: 16, M: 512, N: 512, K: 64}
	if got, floor := m.Kernel(fast, &k), k.FLOPs()/s.FP32; math.Abs(got/floor-1) > 1e-9 || m.Kernel(s, &k) < 1.2*floor {
		t.Errorf("a product at ×0.05: %.4g s, want its FLOPs at the peak, %.4g s (%.4g s at the sheet's level)", got, floor, m.Kernel(s, &k))
	}
	// a small product, far from the peak at either level, as it is (its
	// envelope over more rows, Model.kernel, may meet products the peak
	// holds at ×0.05: ×0.053 for this one)
	small := Kernel{Op: neusight.Linear, Batch: 1, M: 64, N: 256, K: 256, Bias: true}
	if r := m.kernelAt(fast, &small) / m.kernelAt(s, &small); math.Abs(r-0.05) > 1e-9 {
		t.Errorf("a small product at ×0.05: ×%.4f", r)
	}
	if r := m.Kernel(fast, &small) / m.Kernel(s, &small); r < 0.05-1e-9 || r > 0.06 {
		t.Errorf("a small product at ×0.05, its envelope: ×%.4f", r)
	}
}

// LevelOf reads a GPU's level off its large adds and batched products, and
// off nothing else: measurements made at a known level give it back.
func TestLevelOf(t *testing.T) {
	m := shippedModel(t)
	s := bundledData(t).Specs["Tesla_T4"]
	const floor, overlap = 30e-6, 20e-6
	at := func(k Kernel, f float64) Sample {
		return Sample{GPU: "T4", Kernel: k, Seconds: floor - overlap + f*m.Kernel(s, &k), Floor: floor, Overlap: overlap}
	}
	big := func(rows int) Kernel { return Kernel{Op: "add", Rows: rows, Width: 4096, Inputs: 2, Outputs: 1} }
	prod := func(b int) Kernel { return Kernel{Op: neusight.BMM, Batch: b, M: 1024, N: 1024, K: 1024} }
	samples := []Sample{
		at(big(2048), 1.3), at(big(4096), 1.3), at(big(8192), 1.3),
		at(prod(32), 0.7), at(prod(64), 0.7),
		// not read: an add within 4× the L2, a product under 2^36 FLOPs,
		// a mul (no probe times it), another GPU's add, one near the floor
		at(Kernel{Op: "add", Rows: 256, Width: 1024, Inputs: 2, Outputs: 1}, 9),
		at(Kernel{Op: neusight.BMM, Batch: 8, M: 512, N: 512, K: 512}, 9),
		at(Kernel{Op: "mul", Rows: 8192, Width: 4096, Inputs: 2, Outputs: 1}, 9),
		{GPU: "P4", Kernel: big(4096), Seconds: 1, Floor: floor},
		{GPU: "T4", Kernel: big(4096), Seconds: 2 * floor, Floor: floor},
	}
	lv, n := m.LevelOf(samples, "T4", s)
	if math.Abs(lv.Bandwidth-math.Log(1.3)) > 1e-9 || math.Abs(lv.Products-math.Log(0.7)) > 1e-9 || n != [2]int{2, 3} {
		t.Errorf("level ×%.4f products (%d), ×%.4f bandwidth (%d); want ×0.7 (2), ×1.3 (3)",
			math.Exp(lv.Products), n[0], math.Exp(lv.Bandwidth), n[1])
	}
	// a spec already at a level reads the same: the level is against the sheet
	s.Level = Level{Products: 1, Bandwidth: -1}
	if lv2, _ := m.LevelOf(samples, "T4", s); lv2 != lv {
		t.Errorf("level %+v read with a levelled spec, want %+v", lv2, lv)
	}
	if lv, n := m.LevelOf(samples, "V100", s); lv != (Level{}) || n != [2]int{} {
		t.Errorf("a GPU with no measurement: %+v, %v", lv, n)
	}
}

// The H200's labels at the level its own ops give (pinned, %): an unseen
// GPU, predicted by the shipped model, its level from the ops wb measured
// on it beside its labels.
func TestValidateH200Leveled(t *testing.T) {
	t.Parallel() // (long: overlaps the package's other long tests on a second core)
	d := bundledData(t)
	dir, err := neusight.ReadDir(filepath.Join(bundledDir(t), "..", "h200"))
	if err != nil {
		t.Fatal(err)
	}
	lv, err := ValidateLabelsLeveled(dir, filepath.Join(bundledDir(t), "models"), d, shippedModel(t), DefaultParams(),
		func(g string) { t.Errorf("trained a model without %s", g) })
	if err != nil {
		t.Fatal(err)
	}
	if len(lv.Levels) != 1 || lv.Levels[0].GPU != "NVIDIA_H200" || lv.Levels[0].N != [2]int{3, 6} {
		t.Fatalf("levels %+v, want the H200's from 3 products and 6 adds", lv.Levels)
	}
	l := lv.Levels[0].Level
	if math.Abs(math.Exp(l.Products)-1.04) > 0.01 || math.Abs(math.Exp(l.Bandwidth)-1.01) > 0.01 {
		t.Errorf("H200 level: products ×%.3f, bandwidth ×%.3f; pinned ×1.04, ×1.01", math.Exp(l.Products), math.Exp(l.Bandwidth))
	}
	want := map[string]map[neusight.Mode]float64{
		"sheet":     {neusight.Inference: 6.5, neusight.Training: 3.1},
		"both":      {neusight.Inference: 3.4, neusight.Training: 1.7},
		"products":  {neusight.Inference: 3.5, neusight.Training: 1.6},
		"bandwidth": {neusight.Inference: 6.4, neusight.Training: 3.0},
	}
	for name, v := range map[string]*Validation{"sheet": lv.Sheet, "both": lv.Both, "products": lv.Products, "bandwidth": lv.Bandwidth} {
		gs := v.Groups()
		if len(gs) != 2 {
			t.Fatalf("%s: %d groups", name, len(gs))
		}
		for _, g := range gs {
			if w := want[name][g.Mode]; math.Abs(g.MAE-w) > 0.1 {
				t.Errorf("%s %s: mean |error| %.2f%%, pinned %.2f%%", name, g.Mode, g.MAE, w)
			}
		}
	}
}

// The same H200 folder with its labels' folder and its ops named as torch
// names the GPU ("NVIDIA H200"), its sheet still NVIDIA_H200.json: the
// level is read off the ops by the folder's name, as before the rename.
func TestValidateH200LeveledRenamed(t *testing.T) {
	t.Parallel() // (long: overlaps the package's other long tests on a second core)
	d := bundledData(t)
	src := filepath.Join(bundledDir(t), "..", "h200")
	dir := t.TempDir()
	err := filepath.WalkDir(src, func(p string, e fs.DirEntry, err error) error {
		if err != nil || e.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if !strings.HasPrefix(rel, "labels") && !strings.HasPrefix(rel, "ops") && !strings.HasPrefix(rel, "devices") {
			return nil
		}
		if !strings.HasPrefix(rel, "devices") {
			rel = strings.ReplaceAll(rel, "NVIDIA_H200", "NVIDIA H200")
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		os.MkdirAll(filepath.Join(dir, filepath.Dir(rel)), 0o755)
		return os.WriteFile(filepath.Join(dir, rel), b, 0o644)
	})
	if err != nil {
		t.Fatal(err)
	}
	nd, err := neusight.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	lv, err := ValidateLabelsLeveled(nd, filepath.Join(bundledDir(t), "models"), d, shippedModel(t), DefaultParams(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(lv.Levels) != 1 || lv.Levels[0].N != [2]int{3, 6} {
		t.Fatalf("levels %+v, want the H200's from 3 products and 6 adds under the folder's name", lv.Levels)
	}
}
