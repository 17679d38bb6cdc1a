package profiler

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestBundledProfiles: the CPU profiles bundled for the learned predictor
// (and the blind one, datasets/profiles/blind) read back, were made by
// wb's oneDNN CPU backend, and cover several models, batch sizes and every
// pass, with measured times beside predictions.
func TestBundledProfiles(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("..", "datasets", "profiles", "*.csv"))
	blind, _ := filepath.Glob(filepath.Join("..", "datasets", "profiles", "blind", "*.csv"))
	files = append(files, blind...)
	if err != nil || len(files) < 5 || len(blind) < 1 {
		t.Fatalf("%d bundled profiles, %d of them blind (%v); want at least 5 models and the blind one", len(files), len(blind), err)
	}
	models, batches, passes := map[string]bool{}, map[int]bool{}, map[string]bool{}
	ok := 0
	for _, f := range files {
		p, err := Read(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range p.Records {
			if r.Backend != "onednn" || !strings.HasPrefix(r.Device, "cpu") {
				t.Fatalf("%s: row of backend %s on %s", f, r.Backend, r.Device)
			}
			models[r.Model], batches[r.Batch] = true, true
			if r.Status != OK {
				continue
			}
			ok++
			passes[r.Pass] = true
			if !r.Median.OK || r.Median.V <= 0 || !r.Predicted.OK || r.Predicted.V <= 0 || r.Reps < 1 {
				t.Fatalf("%s: %s %s batch %d: median %v, predicted %v, %d reps", f, r.Layer, r.Pass, r.Batch, r.Median, r.Predicted, r.Reps)
			}
		}
	}
	if len(models) < 5 || len(batches) < 3 || len(passes) != 4 || ok < 500 {
		t.Errorf("%d models, %d batch sizes, passes %v, %d measured rows", len(models), len(batches), passes, ok)
	}
}
