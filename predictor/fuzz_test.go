package predictor

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/wb-sim/wb/dnn"
)

// FuzzLoadLearned: any file is loaded or refused without a panic, and a
// predictor that loads corrects any feature row by a finite, positive
// factor.
func FuzzLoadLearned(f *testing.F) {
	s := bundledSamples(f)
	for _, fam := range Families {
		l, err := Fit(s[:60], fam)
		if err != nil {
			f.Fatal(err)
		}
		l.Trees = l.Trees[:min(len(l.Trees), 2)] // small inputs mutate faster
		path := filepath.Join(f.TempDir(), fam+".json")
		if err := l.Save(path); err != nil {
			f.Fatal(err)
		}
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"version":1,"model":"knn","k":1,"features":[],"featurizer":{},"mean":[],"std":[],"points":[[1,2]],"targets":[0]}`))
	f.Add([]byte(`{"version":1,"model":"tree","stat":"mean"}`))
	cpu, err := LookupDevice("cpu")
	if err != nil {
		f.Fatal(err)
	}
	rows := []FeatureRow{
		NewFeatureRow("conv2d", dnn.Forward, 1e9, 1e7, 8, dnn.FP32, cpu, true),
		NewFeatureRow("never-seen", dnn.Update, 0, 0, 1, dnn.BF16, cpu, false),
		s[0].Row,
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		path := filepath.Join(dir, "p.json")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		l, err := LoadLearned(path)
		if err != nil {
			return
		}
		for _, r := range rows {
			if c := l.Correct(r); !(c > 0) || math.IsInf(c, 0) {
				t.Fatalf("%s predictor corrects %+v by %v", l.Model, r, c)
			}
		}
	})
}

// TestLoadLearnedRefusesShapes: a predictor file whose arrays do not match
// its features is refused on loading, not left to panic on use.
func TestLoadLearnedRefusesShapes(t *testing.T) {
	s := bundledSamples(t)
	for _, tc := range []struct {
		fam  string
		edit func(l *Learned)
	}{
		{"knn", func(l *Learned) { l.Points[3] = append(l.Points[3], 1) }},
		{"knn", func(l *Learned) { l.Points[0] = l.Points[0][:1] }},
		{"knn", func(l *Learned) { l.Mean = l.Mean[1:] }},
		{"linear", func(l *Learned) { l.Std = append(l.Std, 1) }},
		{"median", func(l *Learned) { l.Forest = nil }},
		{"median", func(l *Learned) { l.Points = nil }},
		{"median", func(l *Learned) { l.Trees = nil }},
	} {
		if _, err := LoadLearned(editedPredictor(t, s, tc.fam, tc.edit)); err == nil {
			t.Errorf("%s predictor with mismatched arrays loaded", tc.fam)
		}
	}
}

// editedPredictor fits a predictor of family fam on a few samples, edits
// it, and saves it: the file's path.
func editedPredictor(t *testing.T, s []Sample, fam string, edit func(*Learned)) string {
	t.Helper()
	l, err := Fit(s[:60], fam)
	if err != nil {
		t.Fatal(err)
	}
	edit(l)
	path := filepath.Join(t.TempDir(), "p.json")
	if err := l.Save(path); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestLoadLearnedRefusesValues: a predictor whose numbers would make its
// corrections NaN or ±Inf (a zero spread, a weight of ±1e308, a NaN in a
// tree) is refused on loading, naming what is wrong.
func TestLoadLearnedRefusesValues(t *testing.T) {
	s := bundledSamples(t)
	for _, tc := range []struct {
		fam, want string
		edit      func(l *Learned)
	}{
		{"linear", "standard deviation 0", func(l *Learned) { l.Std[2] = 0 }},
		{"linear", "weight 1e+308", func(l *Learned) { l.Weights[0] = 1e308 }},
		{"linear", "weight -1e+308", func(l *Learned) { l.Weights[1] = -1e308 }},
		{"linear", "intercept", func(l *Learned) { l.Intercept = 1e200 }},
		{"knn", "target 3", func(l *Learned) { l.Targets[3] = -1e300 }},
		{"tree", "tree 0", func(l *Learned) { l.Tree.Threshold = 1e101 }},
		{"boost", "tree 1", func(l *Learned) { l.Trees[0].Value = -2e100 }},
		{"median", "forest tree 1", func(l *Learned) { l.Forest[1].Value = 5e100 }},
		{"tree", "cold_traffic -0.5", func(l *Learned) { l.ColdTraffic = -0.5 }},
		{"tree", "cold_traffic 1e+200", func(l *Learned) { l.ColdTraffic = 1e200 }},
		{"tree", "cold_cache_bytes -1", func(l *Learned) { l.ColdCache = -1 }},
		{"tree", "cpu: peak_flops -2e+11", func(l *Learned) { l.CPU = &ProfiledCPU{PeakFLOPs: -2e11} }},
		{"tree", "cpu: mem_bandwidth 1e+300", func(l *Learned) { l.CPU = &ProfiledCPU{PeakFLOPs: 2e11, MemBandwidth: 1e300} }},
		{"tree", "cpu: cores -3", func(l *Learned) { l.CPU = &ProfiledCPU{Cores: -3} }},
		{"tree", "cpu: peak_flops 1000 out of range (0 where not recorded, else 1e+08 to 1e+16)", func(l *Learned) { l.CPU = &ProfiledCPU{PeakFLOPs: 1e3} }},
		{"tree", "cpu: mem_bandwidth 5e+13", func(l *Learned) { l.CPU = &ProfiledCPU{PeakFLOPs: 2e11, MemBandwidth: 5e13} }},
		{"knn", "not a complete", func(l *Learned) { l.K = len(l.Points) + 1 }},
	} {
		if _, err := LoadLearned(editedPredictor(t, s, tc.fam, tc.edit)); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s predictor edited (%s): %v", tc.fam, tc.want, err)
		}
	}
}

// FuzzLearnedNumbers mutates the numbers of a small linear predictor and of
// a one-split tree, not the bytes of a file: a predictor that loads must
// correct every row by a finite positive factor.
func FuzzLearnedNumbers(f *testing.F) {
	s := bundledSamples(f)
	lin, err := Fit(s[:60], "linear")
	if err != nil {
		f.Fatal(err)
	}
	cpu, err := LookupDevice("cpu")
	if err != nil {
		f.Fatal(err)
	}
	rows := []FeatureRow{s[0].Row, s[7].Row, NewFeatureRow("conv2d", dnn.Forward, 1e15, 1e12, 4096, dnn.FP32, cpu, true),
		NewFeatureRow("never-seen", dnn.Update, 0, 0, 1, dnn.BF16, cpu, false)}
	f.Add(1.0, 0.5, 0.0, 1.0, 0.1, 2.0)
	f.Add(1e300, -1e300, 1e-300, 1e-300, 1e300, math.Inf(1))
	f.Add(0.0, 0.0, 0.0, 0.0, 0.0, math.NaN())
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, w0, w1, mean, std, intercept, threshold float64) {
		l := *lin
		l.Weights = slices.Clone(lin.Weights)
		l.Mean, l.Std = slices.Clone(lin.Mean), slices.Clone(lin.Std)
		l.Weights[0], l.Weights[len(l.Weights)-1] = w0, w1
		l.Mean[0], l.Std[0], l.Intercept = mean, std, intercept
		tree := l
		tree.Model, tree.Weights, tree.Intercept = "tree", nil, 0
		tree.Tree = &TreeNode{Feature: 0, Threshold: threshold, Left: &TreeNode{Value: w0}, Right: &TreeNode{Value: w1}}
		for i, p := range []*Learned{&l, &tree} {
			path := filepath.Join(dir, fmt.Sprintf("p%d.json", i))
			if err := p.Save(path); err != nil {
				return // NaN and ±Inf do not encode as JSON
			}
			got, err := LoadLearned(path)
			if err != nil {
				continue
			}
			for _, r := range rows {
				if c := got.Correct(r); !(c > 0) || math.IsInf(c, 0) {
					t.Fatalf("%s predictor (%v %v %v %v %v %v) corrects %+v by %v", got.Model, w0, w1, mean, std, intercept, threshold, r, c)
				}
			}
		}
	})
}

// TestFitRefusesMachine: profiles whose sidecars measured a machine no
// processor is are refused when training, as the file would be when
// predicting (wb train wrote a predictor wb predict then refused).
func TestFitRefusesMachine(t *testing.T) {
	s := slices.Clone(bundledSamples(t)[:60])
	for i := range s {
		s[i].machine.PeakFLOPs, s[i].machine.MemBandwidth = 1e3, 3e10
	}
	if _, err := Fit(s, "tree"); err == nil || !strings.Contains(err.Error(), "cpu: peak_flops 1000 out of range") {
		t.Errorf("a machine of 1e3 FLOP/s: %v", err)
	}
}

// A predictor file that never ends (a device named by mistake) is refused
// at the cap, not read until memory runs out.
func TestLoadLearnedNeverEnds(t *testing.T) {
	if _, err := LoadLearned("/dev/zero"); err == nil || !strings.Contains(err.Error(), "/dev/zero: not a regular file") {
		t.Errorf("LoadLearned(/dev/zero): %v", err)
	}
}
