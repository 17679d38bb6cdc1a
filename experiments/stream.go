package experiments

import (
	"context"
	"io"
	"os"
	"path/filepath"

	"github.com/wb-sim/wb/datasets/swf"
	"github.com/wb-sim/wb/datasets/workload"
	"github.com/wb-sim/wb/internal/atomicfile"
	"github.com/wb-sim/wb/scheduler"
)

// Streaming says whether [Simulate] streams an SWF trace: reads it as the
// simulation runs and writes each job's rows as its schedule is final,
// so that memory holds the jobs in the system rather than the trace.
// The files are the same, byte for byte, either way.
type Streaming int

// Streaming choices.
const (
	// StreamAuto streams SWF traces of workload.StreamAbove bytes or more.
	StreamAuto Streaming = iota
	// StreamNever loads every trace whole.
	StreamNever
	// StreamAlways streams every SWF trace that can stream (see
	// workload.OpenStream).
	StreamAlways
)

// openStream returns the streamed workload of opts when it should and can
// stream, else nil.
func openStream(opts SimulateOptions) (*workload.Streamed, error) {
	switch {
	case opts.Stream == StreamNever:
		return nil, nil
	case opts.Stream == StreamAuto && (opts.Out == "" || !workload.Streamable(opts.Workload)):
		return nil, nil
	}
	return workload.OpenStream(opts.Workload, opts.Out != "") // the schedule written takes the records
}

// simulateStream runs sched on the streamed workload st, writing the four
// result files as it goes; they replace those in opts.Out only when all
// are complete.
func simulateStream(ctx context.Context, opts SimulateOptions, st *workload.Streamed, sched scheduler.Scheduler) (*Outcome, error) {
	if opts.Out == "" {
		res, err := scheduler.Stream(st.Cluster, st, sched, &dropSink{cancel: cancel{ctx: ctx}})
		if err != nil {
			return nil, err
		}
		return &Outcome{Workload: st.Workload, Result: res}, nil
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return nil, err
	}
	names := []string{JobsFile, SummaryFile, SeriesFile, ScheduleFile}
	files := make([]*atomicfile.File, len(names))
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Abort() // nothing after Commit
			}
		}
	}()
	for i, n := range names {
		f, err := atomicfile.Create(filepath.Join(opts.Out, n))
		if err != nil {
			return nil, err
		}
		files[i] = f
	}
	jobs, summary, series, schedule := files[0], files[1], files[2], files[3]
	if err := writeHeader(jobs, jobColumns); err != nil {
		return nil, err
	}
	if err := writeHeader(series, seriesColumns); err != nil {
		return nil, err
	}
	enc, err := newScheduleEncoder(schedule, st.Header, st.Name, sched.Name(), st.Cluster)
	if err != nil {
		return nil, err
	}
	sink := &fileSink{cancel: cancel{ctx: ctx}, jobs: jobs, series: series, schedule: enc, trace: st,
		sched: sched.Name(), procs: poolProcs(st.Cluster), util: utilOf(st.Cluster)}
	res, err := scheduler.Stream(st.Cluster, st, sched, sink)
	if err != nil {
		return nil, err
	}
	if err := enc.Flush(); err != nil {
		return nil, err
	}
	if err := WriteSummary(summary, []SummaryRow{Summarize(st.Workload, res)}); err != nil {
		return nil, err
	}
	out := &Outcome{Workload: st.Workload, Result: res}
	for i, f := range files {
		if err := f.Commit(); err != nil {
			return nil, err
		}
		out.Files = append(out.Files, filepath.Join(opts.Out, names[i]))
	}
	return out, nil
}

// dropSink takes a streamed simulation's rows when no files are written
// (the trace keeps no records then).
type dropSink struct{ cancel }

func (s *dropSink) Job(*scheduler.JobResult) error { return s.check() }

func (s *dropSink) Sample(*scheduler.Sample) error { return nil }

// cancel is a sink's check of its context, made every 4,096 jobs.
type cancel struct {
	ctx context.Context
	n   int
}

func (c *cancel) check() error {
	if c.n++; c.n%4096 == 0 {
		return c.ctx.Err()
	}
	return nil
}

// fileSink writes a streamed simulation's rows to jobs.csv, timeseries.csv
// and schedule.swf.
type fileSink struct {
	cancel
	jobs, series io.Writer
	schedule     *swf.Encoder
	trace        *workload.Streamed
	sched        string
	procs        int
	util         func(*scheduler.Sample) float64
	line         csvLine
	t0           scheduler.Time // of the first sample
	sampled      bool
}

func (s *fileSink) key() { writeKey(&s.line, 0, s.trace.Name, s.sched, 1, s.procs, 0, 0) }

func (s *fileSink) Job(j *scheduler.JobResult) error {
	if err := s.check(); err != nil {
		return err
	}
	s.key()
	if err := jobRow(s.jobs, &s.line, j); err != nil {
		return err
	}
	rec, err := s.trace.Record(j.ID)
	if err != nil || j.Status == scheduler.Unschedulable {
		return err
	}
	return scheduleRow(s.schedule, j, rec)
}

func (s *fileSink) Sample(x *scheduler.Sample) error {
	if !s.sampled {
		s.t0, s.sampled = x.Time, true
	}
	s.key()
	return seriesRow(s.series, &s.line, float64(x.Time-s.t0), s.util(x), float64(x.Queue), float64(x.Running))
}
