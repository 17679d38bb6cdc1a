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

func TestGavelPolicies(t *testing.T) {
	if testing.Short() {
		t.Skip("whole trace")
	}
	m, jobs := gavelRun(t, "msr/0e4a51.trace.gz")
	for _, p := range Policies().Names() {
		o := Options{GPUs: 48, Policy: p, CriticalFraction: 0.2, PredictionSigma: 0.3}
		res, err := Simulate(m, jobs, o, rand.New(rand.NewPCG(1, 2)))
		if err != nil {
			t.Fatal(err)
		}
		mt := res.Metrics
		t.Logf("%-9s jct %.0f p95 %.0f slo %.3f crit %.3f util %.3f thr %.3f good %.3f shared %d maxshare %.3f resid %.2g",
			p, mt.MeanJCT/3600, mt.P95JCT/3600, mt.SLOAttainment, mt.CriticalSLO, mt.UtilGPU, mt.Throughput, mt.Goodput, mt.Shared, res.MaxShare, mt.MaxResidue)
	}
}
