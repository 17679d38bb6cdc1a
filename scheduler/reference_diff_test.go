package scheduler

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/wb-sim/wb/scheduler/internal/reference"
)

// TestAgainstReference compares the simulator job by job with a plain,
// independent implementation of the processor-pool contract
// (internal/reference) on random workloads with submit ties, run-0 jobs
// and under-, over- and missing estimates.
func TestAgainstReference(t *testing.T) {
	policies := map[string]string{"none": "fcfs", "easy": "easy", "conservative": "conservative"}
	for seed := range uint64(150) {
		r := rand.New(rand.NewPCG(seed, 5))
		machine := 1 + r.IntN(48)
		jobs := randomPoolJobs(r, 120, machine, 0, seed%3 == 0)
		for bf, policy := range policies {
			for _, est := range []string{"user", "exact"} {
				s := build(t, Spec{Backfill: bf, Estimate: est})
				ref := make([]reference.Job, len(jobs))
				for i, j := range jobs {
					ref[i] = reference.Job{ID: j.ID, Submit: int64(j.Submit), Run: int64(j.Run),
						Estimate: int64(s.Estimator.Estimate(&jobs[i])), Procs: int64(j.Tasks[0].Request.CPU / MilliPerCore)}
				}
				want, err := reference.Simulate(ref, int64(machine), policy)
				if err != nil {
					t.Fatal(err)
				}
				res, err := Simulate(NewPool("p", machine), jobs, s)
				if err != nil {
					t.Fatal(err)
				}
				got := starts(res)
				for i, j := range jobs {
					if got[j.ID] != Time(want[i]) {
						t.Fatalf("%s: job %d starts at %d, reference says %d", fmt.Sprintf("seed %d %s/%s", seed, bf, est), j.ID, got[j.ID], want[i])
					}
				}
			}
		}
	}
}
