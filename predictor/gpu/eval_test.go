package gpu

import (
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/wb-sim/wb/datasets/neusight"
)

func TestEvalReport(t *testing.T) {
	if os.Getenv("WB_EVAL") == "" {
		t.Skip("WB_EVAL unset")
	}
	p, _ := neusight.Bundled()
	d, err := neusight.ReadDir(p)
	if err != nil {
		t.Fatal(err)
	}
	st := time.Now()
	s, err := LoadOps(d)
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]Spec{}
	for k, v := range d.Devices {
		specs[k] = SpecOf(v)
	}
	fmt.Println("load", time.Since(st), len(s))
	an := make([]float64, len(s))
	for i := range s {
		an[i] = Analytical(specs[s[i].GPU], &s[i].Kernel)
	}
	st = time.Now()
	pp := DefaultParams()
	pp.Boost.Trees = 100
	pp.PerGPU = 1500
	pr, err := LeaveOneGPUOut(s, specs, pp, func(g string) { fmt.Println("fold", g, time.Since(st)) })
	if err != nil {
		t.Fatal(err)
	}
	a := Scores(s, pr)
	var big []Sample
	var bp []float64
	for i := range s {
		if s[i].Seconds >= 3*s[i].Floor {
			big = append(big, s[i])
			bp = append(bp, pr[i])
		}
	}
	b := Scores(big, bp)
	for i := range a {
		fmt.Printf("%-24s %-8s %6d  all %6.1f%% %5.1f%% bias %.2f", a[i].GPU, a[i].Op, a[i].N, a[i].MAPE, a[i].Within10, a[i].Bias)
		for j := range b {
			if b[j].GPU == a[i].GPU && b[j].Op == a[i].Op {
				fmt.Printf("   >=3 floors %6d %6.1f%% %5.1f%% bias %.2f", b[j].N, b[j].MAPE, b[j].Within10, b[j].Bias)
			}
		}
		fmt.Println()
	}
}

func TestEvalLabels(t *testing.T) {
	if os.Getenv("WB_EVAL") == "" {
		t.Skip("WB_EVAL unset")
	}
	p, _ := neusight.Bundled()
	d, err := neusight.ReadDir(p)
	if err != nil {
		t.Fatal(err)
	}
	s, err := LoadOps(d)
	if err != nil {
		t.Fatal(err)
	}
	specs := map[string]Spec{}
	for k, v := range d.Devices {
		specs[k] = SpecOf(v)
	}
	pp := DefaultParams()
	pp.Boost.Trees = 100
	pp.PerGPU = 1500
	full, err := Train(s, specs, nil, pp)
	if err != nil {
		t.Fatal(err)
	}
	v, err := ValidateLabels(d, s, specs, full, pp, nil)
	if err != nil {
		t.Fatal(err)
	}
	v.WriteCSV(os.Stdout)
	for _, g := range v.Groups() {
		fmt.Printf("%-24s %-5s %-18s n=%d MAE %.1f%% max %.1f%% bias %+.1f%%\n", g.GPU, g.Mode, g.Held, g.N, g.MAE, g.Max, g.Bias)
	}
}
