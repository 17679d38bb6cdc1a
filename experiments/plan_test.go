package experiments

import (
	"math"
	"strings"
	"testing"
)

func TestKendallTau(t *testing.T) {
	for _, c := range []struct {
		a, b []float64
		want float64
	}{
		{[]float64{1, 2, 3}, []float64{10, 20, 30}, 1},
		{[]float64{1, 2, 3}, []float64{3, 2, 1}, -1},
		{[]float64{1, 2, 3, 4}, []float64{1, 3, 2, 4}, 4.0 / 6}, // one discordant pair of six
		{[]float64{1, 1, 2}, []float64{1, 2, 3}, 2.0 / 3},       // the tie counts as neither
		{[]float64{5}, []float64{7}, 1},
	} {
		if got := KendallTau(c.a, c.b); math.Abs(got-c.want) > 1e-12 {
			t.Errorf("τ(%v, %v) = %v, want %v", c.a, c.b, got, c.want)
		}
	}
}

func TestParetoFront(t *testing.T) {
	pts := []paretoPoint{{"a", 1, 10}, {"b", 2, 5}, {"c", 3, 5}, {"d", 4, 1}, {"e", 2, 8}, {"f", 1, 10}}
	var got []string
	for _, p := range paretoFront(pts) {
		got = append(got, p.label)
	}
	// c is dominated by b (same JCT, more cost), e by b; a and f are the
	// same point, neither dominating the other.
	if want := "a f b d"; strings.Join(got, " ") != want {
		t.Errorf("front %v, want %s", got, want)
	}
}

// TestPlanConfig runs configs/plan.yaml as a fresh clone would: every run
// completes on its 300 sampled jobs, costs are GPUs × makespan × price,
// the measured/predicted twins are paired and checked, the faster GPUs
// predicted faster, and the figures pass their check.
func TestPlanConfig(t *testing.T) {
	c, rep, rows, path := runBundled(t, "plan.yaml")
	jct := map[string]float64{}
	for i, r := range rows {
		if r["status"] != "ok" || r["jobs"] != "300" || r["gpus"] != "32" {
			t.Fatalf("run %s (%s): status %s, %s jobs on %s GPUs", r["run"], r["workload"], r["status"], r["jobs"], r["gpus"])
		}
		mk, _ := rows.float(path, i, "makespan")
		cost, _ := rows.float(path, i, "cost")
		price := c.Workloads[c.workloadIndex(r["workload"])].Price
		if want := 32 * mk / 3600 * price; math.Abs(cost-want) > 1e-6*want {
			t.Errorf("run %s: cost %v, want 32 × %v s × %v/h = %v", r["run"], cost, mk, price, want)
		}
		if r["scheduler"] == "FIFO" {
			v, _ := rows.float(path, i, "mean_jct")
			jct[r["workload"]] += v
		}
	}
	for _, pair := range [][2]string{{"H100 (predicted)", "A100 (predicted)"}, {"A100 (predicted)", "V100 (predicted)"},
		{"V100 (predicted)", "P100 (predicted)"}, {"P100 (predicted)", "K80 (predicted)"}, {"V100 (measured)", "K80 (measured)"}} {
		if !(jct[pair[0]] < jct[pair[1]]) {
			t.Errorf("mean JCT on %s %.0f s, on %s %.0f s: want the newer GPU faster", pair[0], jct[pair[0]], pair[1], jct[pair[1]])
		}
	}
	p := rep.Plan
	if p == nil || len(p.Rows) != 6 || len(p.Tau) != 2 || len(p.Drivers) == 0 {
		t.Fatalf("plan check %+v: want 3 clusters × 2 schedulers, τ for both, the driving jobs", p)
	}
	for _, r := range p.Rows {
		if !(r.MeasuredJCT > 0 && r.PredictedJCT > 0) || !strings.HasPrefix(r.Cluster, "nodes:8x4:") {
			t.Errorf("check row %+v", r)
		}
	}
	if s := p.String(); !strings.Contains(s, "Kendall's τ, FIFO") || !strings.Contains(s, "targets") {
		t.Errorf("check table:\n%s", s)
	}
}
