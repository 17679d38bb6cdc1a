package paisim

import (
	"testing"

	"github.com/wb-sim/wb/scheduler"
)

// BenchmarkPAIPolicies simulates the bundled synthetic table's 20,000
// jobs, re-timed to 1,000 a minute (the PAI simulator's setting), on a
// pool of 1,024 GPUs under each of its policies with the greedy rule.
func BenchmarkPAIPolicies(b *testing.B) {
	rows, err := Read("../data/pai/pai_sim_jobs_synthetic.csv.gz")
	if err != nil {
		b.Fatal(err)
	}
	jobs, _, err := Jobs(rows)
	if err != nil {
		b.Fatal(err)
	}
	for k := range jobs {
		jobs[k].Submit = scheduler.Time(k/1000) * 60 // rows are in (submit, id) order
	}
	c := scheduler.NewGPUPool("pai", 1024, 23777)
	for _, p := range []struct{ name, order, est string }{
		{"FIFO", "fifo", "exact"}, {"SJF", "sjf", "exact"}, {"SJU", "sjf", "user-dur"},
		{"SJG", "sjf", "group-dur"}, {"SJGG", "sjf", "group-gpu-dur"},
	} {
		b.Run(p.name, func(b *testing.B) {
			var jct float64
			for b.Loop() {
				s, err := scheduler.DefaultParts().Build(scheduler.Spec{Order: p.order, Backfill: "greedy", Estimate: p.est})
				if err != nil {
					b.Fatal(err)
				}
				r, err := scheduler.Simulate(c, jobs, s)
				if err != nil {
					b.Fatal(err)
				}
				jct = r.Summary.MeanJCT
			}
			b.ReportMetric(jct, "meanJCT_s")
		})
	}
}
