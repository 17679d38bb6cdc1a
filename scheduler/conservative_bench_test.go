package scheduler

import (
	"math/rand/v2"
	"testing"
)

// BenchmarkConservativeOverloaded times conservative backfilling with
// compression on an overloaded processor pool: 3,000 jobs of 32-64
// processors on 128, one every 10 s on average, running 100-2,000 s with
// estimates up to 5× as long, so that the queue grows to thousands and
// every end compresses all of it.
func BenchmarkConservativeOverloaded(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	specs := make([]pj, 3000)
	t := int64(0)
	for i := range specs {
		t += r.Int64N(21)
		run := 100 + r.Int64N(1901)
		specs[i] = pj{id: int64(i + 1), submit: t, procs: 32 + r.Int64N(33), run: run, estimate: run + r.Int64N(4*run+1)}
	}
	jobs := poolJobs(specs...)
	for b.Loop() {
		s, err := DefaultParts().Build(Spec{Backfill: "conservative", Estimate: "user"})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := Simulate(NewPool("p", 128), jobs, s); err != nil {
			b.Fatal(err)
		}
	}
}
