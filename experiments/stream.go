package experiments

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync/atomic"

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
		res, err := scheduler.StreamContext(ctx, st.Cluster, st, sched, &dropSink{cancel: cancel{ctx: ctx}})
		if err != nil {
			return nil, err
		}
		return &Outcome{Workload: st.Workload, Result: res}, nil
	}
	undo, err := makeDir(opts.Out)
	if err != nil {
		return nil, err
	}
	committed := false
	defer func() {
		if !committed {
			undo() // after the files' temporaries are gone (deferred below)
		}
	}()
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
	enc, err := newScheduleEncoder(schedule, st.Header, st.Name, sched.Name(), st.Cluster, true)
	if err != nil {
		return nil, err
	}
	var sigma float64
	if n, ok := sched.Estimator.(*scheduler.Noisy); ok {
		sigma = n.Sigma
	}
	sink := newFileSink(ctx, st, sched.Name(), sigma, jobs, series, enc)
	res, err := scheduler.StreamContext(ctx, st.Cluster, st, sched, sink)
	if err := errors.Join(err, sink.close()); err != nil {
		return nil, err
	}
	if err := enc.Flush(); err != nil {
		return nil, err
	}
	if err := WriteSummary(summary, []SummaryRow{Summarize(st.Workload, res)}); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err // interrupted: nothing committed
	}
	if err := atomicfile.CommitAll(files...); err != nil {
		return nil, err
	}
	committed = true
	out := &Outcome{Workload: st.Workload, Result: res}
	for _, n := range names {
		out.Files = append(out.Files, filepath.Join(opts.Out, n))
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
// and schedule.swf. The simulation hands it each row's values; two
// goroutines of its own format and write them (jobs.csv with schedule.swf,
// and timeseries.csv), in batches, so that formatting overlaps the
// simulation. close waits for them.
type fileSink struct {
	cancel
	trace  *workload.Streamed
	jobs   *pipe[jobItem]
	series *pipe[scheduler.Sample]
	models func([]scheduler.Slot) string // slotModels of the cluster
}

// jobItem is a job's row: its schedule (without its slots, which are
// valid during the sink's call only: the nodes they are on counted then)
// and its record in the trace.
type jobItem struct {
	res    scheduler.JobResult
	nodes  int
	models string
	rec    *swf.Record
}

func newFileSink(ctx context.Context, st *workload.Streamed, sched string, sigma float64, jobs, series io.Writer, schedule *swf.Encoder) *fileSink {
	var kl csvLine
	writeKey(&kl, 0, st.Name, sched, 1, poolProcs(st.Cluster), sigma, 0)
	key := kl.b // the key columns of every row, formatted once
	var jl csvLine
	jw := func(it *jobItem) error {
		jl.b = append(jl.b[:0], key...)
		if err := jobRow(jobs, &jl, &it.res, it.nodes, it.models, nil); err != nil {
			return err
		}
		if it.res.Status == scheduler.Unschedulable {
			return nil
		}
		return scheduleRow(schedule, &it.res, it.rec, 0, nil)
	}
	util := utilOf(st.Cluster)
	var sl csvLine
	var t0 scheduler.Time
	sampled := false
	sw := func(x *scheduler.Sample) error {
		if !sampled {
			t0, sampled = x.Time, true
		}
		sl.b = append(sl.b[:0], key...)
		return seriesRow(series, &sl, float64(x.Time-t0), util(x), float64(x.Queue), float64(x.Running))
	}
	return &fileSink{cancel: cancel{ctx: ctx}, trace: st, jobs: newPipe(jw), series: newPipe(sw), models: slotModels(st.Cluster)}
}

func (s *fileSink) Job(j *scheduler.JobResult) error {
	if err := s.check(); err != nil {
		return err
	}
	rec, err := s.trace.Record(j.ID)
	if err != nil {
		return err
	}
	it := jobItem{res: *j, nodes: scheduler.NodesTouched(j.Slots), models: s.models(j.Slots), rec: rec}
	it.res.Slots = nil // valid during the call only
	return s.jobs.add(it)
}

func (s *fileSink) Sample(x *scheduler.Sample) error { return s.series.add(*x) }

// close waits for the rows handed over to be written; the first error of
// either writer.
func (s *fileSink) close() error {
	return errors.Join(s.jobs.close(), s.series.close())
}

// pipe writes items on a goroutine of its own, in batches of pipeBatch, in
// the order they were added.
type pipe[T any] struct {
	write  func(*T) error
	batch  []T
	ch     chan []T
	done   chan struct{}
	err    error // the writer's first error: read after failed or done
	failed atomic.Bool
}

const pipeBatch = 1024

func newPipe[T any](write func(*T) error) *pipe[T] {
	p := &pipe[T]{write: write, batch: make([]T, 0, pipeBatch), ch: make(chan []T, 4), done: make(chan struct{})}
	go p.run()
	return p
}

func (p *pipe[T]) run() {
	defer close(p.done)
	for b := range p.ch {
		for i := range b {
			if p.err != nil {
				break // what is left is drained, not written
			}
			if err := p.write(&b[i]); err != nil {
				p.err = err
				p.failed.Store(true)
			}
		}
	}
}

// add hands v to the writer; an error once the writer has failed.
func (p *pipe[T]) add(v T) error {
	if p.failed.Load() {
		return p.err
	}
	p.batch = append(p.batch, v)
	if len(p.batch) == pipeBatch {
		p.ch <- p.batch
		p.batch = make([]T, 0, pipeBatch)
	}
	return nil
}

// close hands over what is left, waits for the writer and returns its
// error; nothing is to be added after it.
func (p *pipe[T]) close() error {
	if len(p.batch) > 0 {
		p.ch <- p.batch
	}
	p.batch = nil
	close(p.ch)
	<-p.done
	return p.err
}

// makeDir makes dir and the folders above it that do not exist, and
// returns a function that removes those it made, deepest first, where they
// are still empty: a run that fails or is interrupted before its files are
// committed leaves no folder behind (an empty one was left, however the
// run ended: a reviewer's find).
func makeDir(dir string) (undo func(), err error) {
	var made []string
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		if _, err := os.Stat(d); !errors.Is(err, fs.ErrNotExist) {
			break
		}
		made = append(made, d)
		if filepath.Dir(d) == d {
			break
		}
	}
	if err := atomicfile.MkdirAll(dir, 0o755); err != nil {
		return func() {}, err
	}
	return func() {
		for _, d := range made {
			_ = os.Remove(d) // (a folder something else wrote into stays)
		}
	}, nil
}
