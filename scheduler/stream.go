package scheduler

import (
	"context"
	"errors"
	"fmt"
	"io"
)

// Source yields a workload's jobs one at a time, for [Stream].
type Source interface {
	// Next returns the next job, in strictly increasing (submit, id)
	// order, or io.EOF after the last. The job belongs to the simulation
	// until its schedule has gone to the sink.
	Next() (*Job, error)
}

// Sink receives a streamed simulation's output as it is produced.
type Sink interface {
	// Job receives every job's schedule once it is final, in (submit, id)
	// order, as [Result.Jobs] lists them. r and its Slots are valid during
	// the call only.
	Job(r *JobResult) error
	// Sample receives the cluster's state after each scheduling pass, as
	// [Result.Series] lists them.
	Sample(s *Sample) error
}

// ErrUnsorted is the error of a source whose jobs are not in (submit, id)
// order.
var ErrUnsorted = errors.New("jobs not in (submit, id) order")

// Stream runs the jobs src yields on cluster c under scheduler s, as
// [Simulate] does, and hands each job's schedule and each sample of the
// cluster's use to sink as soon as they are final, so that memory holds
// only the jobs that are queued or running or whose schedule waits for an
// earlier job's: a trace of any length streams through. The result it
// returns has the summary but neither Jobs nor Series; the sink got those,
// in the same order and with the same values as Simulate gives them.
//
// A placement that sees the whole workload before the first job
// ([Workloader], [JobPlacement]) cannot stream: Stream reads src to its
// end first, then simulates the jobs in memory.
func Stream(c *Cluster, src Source, s Scheduler, sink Sink) (*Result, error) {
	return StreamContext(context.Background(), c, src, s, sink)
}

// StreamContext is Stream, stopped when ctx is done, as SimulateContext is.
func StreamContext(ctx context.Context, c *Cluster, src Source, s Scheduler, sink Sink) (_ *Result, err error) {
	if err := check(c, s); err != nil {
		return nil, err
	}
	if err := claim(&s); err != nil {
		return nil, err
	}
	_, whole := s.Placement.(Workloader)
	if _, ok := s.Placement.(JobPlacement); ok {
		whole = true
	}
	if whole {
		return streamWhole(ctx, c, src, s, sink)
	}
	m := newSim(c, s)
	defer m.catch(&err)
	m.watch(ctx)
	m.str = &streaming{src: src, sink: sink}
	if err := m.loadCluster(); err != nil {
		return nil, err
	}
	m.run()
	if m.stopped != nil {
		return nil, m.stopped
	}
	st := m.str
	if st.err == nil {
		st.emit(m)
		st.flush()
	}
	if st.err != nil {
		return nil, st.err
	}
	if m.stranded != nil {
		return nil, m.stranded
	}
	if len(st.pending) > st.head {
		return nil, fmt.Errorf("scheduler: job %d never ended", st.pending[st.head].Job.ID)
	}
	r := m.newResult()
	st.tally.close(m, &r.Summary)
	return r, nil
}

// streamWhole reads src to its end, simulates in memory and hands the
// result to sink.
func streamWhole(ctx context.Context, c *Cluster, src Source, s Scheduler, sink Sink) (*Result, error) {
	var jobs []Job
	for {
		j, err := src.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, err
		}
		jobs = append(jobs, *j)
	}
	r, err := simulateCtx(ctx, c, jobs, s, nil) // checked and claimed by StreamContext
	if err != nil {
		return nil, err
	}
	for i := range r.Jobs {
		if err := sink.Job(&r.Jobs[i]); err != nil {
			return nil, err
		}
	}
	for i := range r.Series {
		if err := sink.Sample(&r.Series[i]); err != nil {
			return nil, err
		}
	}
	r.Jobs, r.Series = nil, nil
	return r, nil
}

// streaming is the state of a simulation whose jobs stream in and whose
// schedules stream out.
type streaming struct {
	src  Source
	sink Sink
	err  error // the first error of the source, a job or the sink

	peek *jobState // the next job to arrive, read ahead
	eof  bool
	prev *Job // the last job read, to check the order
	// slab is where the next jobs' states go: allocated a few hundred at
	// a time, not one by one.
	slab []jobState

	// pending are the jobs that arrived and whose schedule has not gone
	// out, in arrival order, from head on.
	pending []*jobState
	head    int

	tally tally
	out   JobResult
	cur   Sample // the last sample, which a later pass at the same time replaces
	has   bool
}

func (st *streaming) upcoming(m *sim) *jobState {
	if st.peek != nil || st.eof || st.err != nil {
		return st.peek
	}
	j, err := st.src.Next()
	switch {
	case err == io.EOF:
		st.eof = true
		return nil
	case err != nil:
		st.err = err
		return nil
	}
	if err := m.validate(j); err != nil {
		st.err = err
		return nil
	}
	if p := st.prev; p != nil {
		if p.ID == j.ID && p.Submit == j.Submit {
			st.err = fmt.Errorf("job %d: listed twice", j.ID)
			return nil
		}
		if bySubmit(p, j) > 0 {
			st.err = fmt.Errorf("job %d (submitted at %d) after job %d (submitted at %d): %w", j.ID, j.Submit, p.ID, p.Submit, ErrUnsorted)
			return nil
		}
	}
	st.prev = j
	if len(st.slab) == 0 {
		st.slab = make([]jobState, 256)
	}
	js := &st.slab[0]
	st.slab = st.slab[1:]
	m.bind(js, j)
	st.peek = js
	return js
}

func (st *streaming) taken() {
	st.pending = append(st.pending, st.peek)
	st.peek = nil
}

// emit hands the sink the schedules that are final, in arrival order.
func (st *streaming) emit(m *sim) {
	for st.err == nil && st.head < len(st.pending) && st.pending[st.head].over {
		j := st.pending[st.head]
		st.pending[st.head] = nil
		st.head++
		st.tally.add(j, m.slotsOf(j), &st.out)
		st.err = st.sink.Job(&st.out)
	}
	// reuse the slice once the pending jobs are few against its length
	if st.head > 1024 && st.head > len(st.pending)/2 {
		n := copy(st.pending, st.pending[st.head:])
		clear(st.pending[n:])
		st.pending, st.head = st.pending[:n], 0
	}
	st.compact(m)
}

// compact drops the asks, replica counts and slots of the jobs whose
// schedules have gone out from the front of the simulation's arrays, once
// they are most of them, and moves the offsets of the jobs still in the
// system (pending and the one read ahead, whose offsets are in arrival
// order) down with them: memory holds only the jobs in the system.
func (st *streaming) compact(m *sim) {
	a, s := len(m.asks), len(m.slots) // the first live ask and slot
	first := st.peek
	if st.head < len(st.pending) {
		first = st.pending[st.head]
	}
	if first != nil {
		a, s = int(first.a0), int(first.s0)
	}
	if a < 4096 || a < len(m.asks)/2 {
		return
	}
	m.asks = m.asks[:copy(m.asks, m.asks[a:])]
	m.reps = m.reps[:copy(m.reps, m.reps[a:])]
	m.slots = m.slots[:copy(m.slots, m.slots[s:])]
	for _, j := range st.pending[st.head:] {
		j.a0 -= int32(a)
		j.s0 -= int32(s)
	}
	if st.peek != nil {
		st.peek.a0 -= int32(a)
		st.peek.s0 -= int32(s)
	}
}

func (st *streaming) sample(s *Sample) {
	if st.has && st.cur.Time == s.Time {
		st.cur = *s
		return
	}
	if st.has && st.err == nil {
		st.err = st.sink.Sample(&st.cur)
	}
	st.cur, st.has = *s, true
}

// flush hands the sink the last sample.
func (st *streaming) flush() {
	if st.has && st.err == nil {
		st.err = st.sink.Sample(&st.cur)
		st.has = false
	}
}

func (m *sim) emit() { m.str.emit(m) }
