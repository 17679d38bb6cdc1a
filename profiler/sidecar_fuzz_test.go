package profiler_test

import (
	"bytes"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/wb-sim/wb/predictor"
	"github.com/wb-sim/wb/profiler"
)

// FuzzReadSidecar: a profile whose sidecar is any bytes reads, or is
// refused by an error naming the CSV or its sidecar, never a panic; what
// reads writes back (Write) and reads again to the same sidecar, and adds
// to a training set (predictor.AddProfile) without a panic, its CPU's
// figures positive and finite.
func FuzzReadSidecar(f *testing.F) {
	csv, err := os.ReadFile(filepath.Join("..", "datasets", "profiles", "cpu-lm.csv"))
	if err != nil {
		f.Fatal(err)
	}
	lines := bytes.SplitAfter(csv, []byte("\n"))
	csv = bytes.Join(lines[:min(len(lines), 6)], nil) // header and five rows
	side, err := os.ReadFile(filepath.Join("..", "datasets", "profiles", "cpu-lm.csv.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(side)
	f.Add([]byte(`{"model":"lm","backend":"onednn","predictor_device":"cpu","machine":{"threads":-3,"peak_flops":1e300,"llc_bytes":-1}}`))
	f.Add([]byte(`{"model":"lm","iterations":[{"batch":5,"median_s":1e-300,"min_s":-1,"runs":-2}]}`))
	f.Add([]byte(`{"interrupted":true}`))
	dir := f.TempDir()
	path := filepath.Join(dir, "p.csv")
	if err := os.WriteFile(path, csv, 0o644); err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		if err := os.WriteFile(profiler.SidecarPath(path), in, 0o644); err != nil {
			t.Fatal(err)
		}
		p, err := profiler.Read(path)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Fatalf("error %q names neither file", err)
			}
			return
		}
		back := filepath.Join(t.TempDir(), "q.csv")
		if err := profiler.Write(back, p); err != nil {
			t.Fatalf("writing what was read: %v", err)
		}
		q, err := profiler.Read(back)
		if err != nil {
			t.Fatalf("reading what was written: %v", err)
		}
		a, _ := json.Marshal(p.Meta)
		b, _ := json.Marshal(q.Meta)
		if !bytes.Equal(a, b) {
			t.Fatalf("sidecar changed:\n%s\n%s", a, b)
		}
		devs := map[string]*predictor.Device{}
		if _, err := predictor.AddProfile(nil, devs, p); err != nil {
			return
		}
		for name, d := range devs {
			if d.Kind != predictor.KindCPU {
				continue
			}
			fp := d.PeakVector[predictor.FP32]
			if d.SMs < 1 || !(fp > 0) || math.IsInf(fp, 0) || !(d.MemBandwidth > 0) || math.IsInf(d.MemBandwidth, 0) {
				t.Fatalf("device %q: cores %d, fp32 peak %v, bandwidth %v", name, d.SMs, fp, d.MemBandwidth)
			}
		}
	})
}
