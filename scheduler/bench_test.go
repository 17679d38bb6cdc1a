package scheduler_test

import (
	"path/filepath"
	"testing"

	"github.com/wb-sim/wb/datasets/swf"
	"github.com/wb-sim/wb/scheduler"
)

// BenchmarkSimulate times the simulation alone (the trace read once,
// before the clock starts) on the bundled SWF traces.
func BenchmarkSimulate(b *testing.B) {
	for _, trace := range []string{"KTH-SP2-1996-2.1-cln.swf.gz", "HPC2N-2002-2.1-cln.swf.gz"} {
		t, err := swf.ReadFile(filepath.Join("..", "datasets", "data", "swf", trace))
		if err != nil {
			b.Fatal(err)
		}
		jobs, _, err := swf.Jobs(t, 0)
		if err != nil {
			b.Fatal(err)
		}
		procs, _ := swf.MachineProcs(t)
		c := scheduler.NewPool(trace, procs)
		for _, bf := range []string{"none", "easy", "conservative"} {
			b.Run(trace[:5]+"/"+bf, func(b *testing.B) {
				for b.Loop() {
					s, err := scheduler.DefaultParts().Build(scheduler.Spec{Backfill: bf, Estimate: "user"})
					if err != nil {
						b.Fatal(err)
					}
					if _, err := scheduler.Simulate(c, jobs, s); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
