package sharing

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/wb-sim/wb/datasets/gavel"
)

const gavelData = "../datasets/data/gavel/"

// gavelRun loads a bundled Gavel trace as sharing jobs on V100s.
func gavelRun(tb testing.TB, trace string) (*Model, []Job) {
	tb.Helper()
	tp, err := gavel.ReadThroughputs(gavelData + "simulation_throughputs.json.gz")
	if err != nil {
		tb.Fatal(err)
	}
	m, _, err := FromGavel(tp, "v100", 1)
	if err != nil {
		tb.Fatal(err)
	}
	rows, err := gavel.ReadTrace(gavelData + trace)
	if err != nil {
		tb.Fatal(err)
	}
	var jobs []Job
	for i, r := range rows {
		k, ok := m.Kind(KindName(gavel.JobKey{JobType: r.JobType, ScaleFactor: r.ScaleFactor}))
		if !ok {
			continue
		}
		jobs = append(jobs, Job{ID: int64(i), Kind: k, Submit: Seconds(math.Round(r.Arrival)), Steps: float64(r.TotalSteps)})
	}
	return m, jobs
}

// TestGavelTrace runs every policy on the whole ed69ec trace (951 jobs of
// one GPU) on 20 V100s: the invariants hold, and sharing with interference
// awareness beats exclusive GPUs on mean JCT and SLO attainment (a margin of
// 3× and 5× in configs/sharing.yaml; asked here at 1.5× and 2×).
func TestGavelTrace(t *testing.T) {
	if testing.Short() {
		t.Skip("whole trace")
	}
	m, jobs := gavelRun(t, "msr/ed69ec.trace.gz")
	got := map[string]Metrics{}
	for _, p := range Policies().Names() {
		o := Options{GPUs: 20, Policy: p, CriticalFraction: 0.2, PredictionSigma: 0.3}
		res, err := Simulate(m, jobs, o, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		checkInvariants(t, res, jobs, o.GPUs, p)
		got[p] = res.Metrics
		mt := res.Metrics
		t.Logf("%-9s JCT mean %.1f d p95 %.1f d, SLO %.3f (critical %.3f), util %.3f, goodput %.3f, shared %d",
			p, mt.MeanJCT/86400, mt.P95JCT/86400, mt.SLOAttainment, mt.CriticalSLO, mt.UtilGPU, mt.Goodput, mt.Shared)
	}
	ex := got["exclusive"]
	for _, p := range []string{"jct", "slo", "goodput"} {
		if g := got[p]; !(g.MeanJCT*1.5 < ex.MeanJCT && g.SLOAttainment > 2*ex.SLOAttainment) {
			t.Errorf("%s: mean JCT %v, SLO attainment %v; exclusive %v, %v", p, g.MeanJCT, g.SLOAttainment, ex.MeanJCT, ex.SLOAttainment)
		}
	}
}
