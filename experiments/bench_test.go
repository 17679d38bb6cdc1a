package experiments

import (
	"bytes"
	"context"
	"io"
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

// BenchmarkHPC2NPhases splits BenchmarkHPC2NEasyUser into its phases.
func BenchmarkHPC2NPhases(b *testing.B) {
	wopts := workload.Options{Trace: data("swf/HPC2N-2002-2.1-cln.swf.gz")}
	b.Run("read", func(b *testing.B) {
		for b.Loop() {
			if _, err := workload.Load(wopts); err != nil {
				b.Fatal(err)
			}
		}
	})
	w, err := workload.Load(wopts)
	if err != nil {
		b.Fatal(err)
	}
	b.Run("simulate", func(b *testing.B) {
		for b.Loop() {
			s, _ := scheduler.DefaultParts().Build(scheduler.Spec{Backfill: "easy"})
			if _, err := scheduler.Simulate(w.Cluster, w.Jobs, s); err != nil {
				b.Fatal(err)
			}
		}
	})
	s, _ := scheduler.DefaultParts().Build(scheduler.Spec{Backfill: "easy"})
	r, _ := scheduler.Simulate(w.Cluster, w.Jobs, s)
	for _, f := range []struct {
		name  string
		write func(io.Writer) error
	}{
		{"jobs.csv", func(o io.Writer) error { return WriteJobs(o, r) }},
		{"timeseries.csv", func(o io.Writer) error { return WriteSeries(o, r) }},
		{"schedule.swf", func(o io.Writer) error { return WriteSchedule(o, w, r) }},
	} {
		b.Run(f.name, func(b *testing.B) {
			var buf bytes.Buffer
			for b.Loop() {
				buf.Reset()
				if err := f.write(&buf); err != nil {
					b.Fatal(err)
				}
			}
			b.SetBytes(int64(buf.Len()))
		})
	}
}
