package gpu

import (
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/wb-sim/wb/datasets/neusight"
)

// FuzzLoadData: a folder of one spec sheet and one GPU's ops of one family
// (any bytes) loads or is refused, without a panic; every
// sample loaded has a positive, finite time, floor and overlap of 0 or more.
func FuzzLoadData(f *testing.F) {
	sheet, err := os.ReadFile(filepath.Join("..", "..", "datasets", "data", "neusight", "devices", "Tesla_T4.json"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add([]byte("OPName,Latency,B,M,N,K\nlinear,0.1,1,2,3,4\nlinear,0.2,1,4,3,4\n"), 2)
	f.Add([]byte("OPName,Latency,B,H\nsoftmax,0.1,1,2\nsoftmax,1e-300,1,2\n"), 4)
	f.Add([]byte("OPName,Latency,B,H\nadd,0.1,1,2\nadd,1e300,1,2\nadd,1e-300,1,2\n"), 5)
	fams := neusight.Families()
	f.Fuzz(func(t *testing.T, ops []byte, fi int) {
		fam := fams[((fi%len(fams))+len(fams))%len(fams)]
		dir := t.TempDir()
		for _, d := range []string{"devices", filepath.Join("ops", fam)} {
			if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(dir, "devices", "T4.json"), sheet, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ops", fam, "T4.csv"), ops, 0o644); err != nil {
			t.Fatal(err)
		}
		d, err := LoadData(dir)
		if err != nil {
			return
		}
		for _, s := range d.Samples {
			if !(s.Seconds > 0) || math.IsInf(s.Seconds, 0) || !(s.Floor > 0) || math.IsInf(s.Floor, 0) || !(s.Overlap >= 0) || math.IsInf(s.Overlap, 0) {
				t.Fatalf("sample %+v", s)
			}
		}
	})
}
