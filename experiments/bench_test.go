package experiments

import (
	"context"
	"testing"

	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/scheduler"
)

// benchSimulate measures a whole `wb simulate`: read the trace, simulate,
// write jobs.csv, summary.csv, timeseries.csv and schedule.swf.
func benchSimulate(b *testing.B, opts SimulateOptions) {
	opts.Out = b.TempDir()
	for b.Loop() {
		if _, err := Simulate(context.Background(), opts); err != nil {
			b.Fatal(err)
		}
	}
}

// Target: ≤ 0.3 s (issue "Scheduler simulator..."); the plain Python
// reference (scripts/swf_reference.py) takes about 10 s on this trace.
func BenchmarkHPC2NEasyUser(b *testing.B) {
	benchSimulate(b, SimulateOptions{
		Workload: workload.Options{Trace: data("swf/HPC2N-2002-2.1-cln.swf.gz")},
		Spec:     scheduler.Spec{Backfill: "easy", Estimate: "user"},
	})
}

// Target: ≤ 0.2 s; the Python reference takes about 3 s.
func BenchmarkKTHConservativeUser(b *testing.B) {
	benchSimulate(b, SimulateOptions{
		Workload: workload.Options{Trace: data("swf/KTH-SP2-1996-2.1-cln.swf.gz")},
		Spec:     scheduler.Spec{Backfill: "conservative", Estimate: "user"},
	})
}

// Target: ≤ 0.5 s: the openb default pods on the openb GPU nodes, best-fit,
// with arrivals and departures.
func BenchmarkOpenbBestFit(b *testing.B) {
	benchSimulate(b, SimulateOptions{
		Workload: workload.Options{Trace: data("openb/openb_pod_list_default.csv.gz")},
		Spec:     scheduler.Spec{Placement: "best-fit"},
	})
}
