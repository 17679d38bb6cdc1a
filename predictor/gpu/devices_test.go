package gpu

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wb-sim/wb/datasets/neusight"
	"github.com/wb-sim/wb/predictor"
)

// The device table and the bundled spec sheets agree wherever both describe
// a GPU: every sheet has its board in the table, and every figure matches
// within 1% except the disagreements listed here, each with its reason.
func TestSpecSheetsAgree(t *testing.T) {
	known := map[string]string{
		"l4/SMs":             "the sheet takes TechPowerUp's 60 SMs (31.3 TFLOPS); NVIDIA's 30.3 TFLOPS means 58",
		"l4/FP32":            "the same: 60 × 128 × 2 × 2040 MHz against NVIDIA's 30.3 TFLOPS",
		"h100-sxm/Bandwidth": "the sheet says 3,430 GB/s; NVIDIA's datasheet 3.35 TB/s",
		"t4/Memory":          "the sheet has the 15 GiB CUDA reports; the board has 16 GB",
		"p100-pcie/Clock":    "the sheet's 1380 MHz is not the PCIe card's 1303 MHz boost (datasheet 9.3 TFLOPS)",
		"p100-pcie/FP32":     "the sheet's 9,519 GFLOP/s is 56 × 64 × 2 × 1328 MHz, neither its own clock nor the datasheet's",
	}
	dir := bundledDir(t)
	files, _ := filepath.Glob(filepath.Join(dir, "devices", "*.json"))
	if len(files) != 9 {
		t.Fatalf("%d spec sheets", len(files))
	}
	// The H200's, measured by wb (datasets/data/h200).
	files = append(files, filepath.Join(dir, "..", "h200", "devices", "NVIDIA_H200.json"))
	used := map[string]bool{}
	for _, f := range files {
		sheet, err := neusight.ReadDevice(f)
		if err != nil {
			t.Fatal(err)
		}
		var dev *predictor.Device
		for _, d := range predictor.Devices() {
			if d.SpecSheet == sheet.Name {
				dev = &d
			}
		}
		if dev == nil {
			t.Errorf("%s: no device of the table has SpecSheet %q", filepath.Base(f), sheet.Name)
			continue
		}
		a := SpecOf(sheet)
		b, err := SpecOfDevice(dev)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			field string
			x, y  float64
		}{
			{"SMs", fl(a.SMs), fl(b.SMs)}, {"Lanes", fl(a.LanesPerSM), fl(b.LanesPerSM)},
			{"Clock", a.ClockMHz, b.ClockMHz}, {"FP32", a.FP32, b.FP32}, {"Bandwidth", a.Bandwidth, b.Bandwidth},
			{"L2", a.L2, b.L2}, {"Memory", a.Memory, b.Memory},
		} {
			key := dev.Name + "/" + c.field
			agree := math.Abs(c.x/c.y-1) <= 0.01
			if _, ok := known[key]; ok {
				used[key] = true
				if agree {
					t.Errorf("%s: listed as a disagreement, but the two agree (%g, %g)", key, c.x, c.y)
				}
				continue
			}
			if !agree {
				t.Errorf("%s: the spec sheet says %g, the table %g", key, c.x, c.y)
			}
		}
	}
	for k := range known {
		if !used[k] {
			t.Errorf("%s: listed disagreement not met", k)
		}
	}
}

// LoadData refuses a folder without spec sheets, which ReadDir takes for
// a validation's labels (it said "no training samples", naming nothing).
func TestLoadDataNeedsSheets(t *testing.T) {
	dir := t.TempDir()
	os.MkdirAll(filepath.Join(dir, "labels", "G"), 0o755)
	os.WriteFile(filepath.Join(dir, "labels", "G", "gpt2-inf-512-4.json"), []byte(`{"e2e_latency":1}`), 0o644)
	if _, err := LoadData(dir); err == nil || !strings.Contains(err.Error(), "no spec sheets (devices/*.json): training needs") {
		t.Errorf("LoadData: %v", err)
	}
}
