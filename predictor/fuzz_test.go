package predictor

import (
	"math"
	"os"
	"path/filepath"
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
	} {
		l, err := Fit(s[:60], tc.fam)
		if err != nil {
			t.Fatal(err)
		}
		tc.edit(l)
		path := filepath.Join(t.TempDir(), "p.json")
		if err := l.Save(path); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadLearned(path); err == nil {
			t.Errorf("%s predictor with mismatched arrays loaded", tc.fam)
		}
	}
}
