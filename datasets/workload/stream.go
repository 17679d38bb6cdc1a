package workload

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/datasets/swf"
	"github.com/wb-sim/wb/scheduler"
)

// StreamAbove is the size of an SWF trace, in uncompressed bytes (a gzip
// file's trailer tells it), from which [Streamable] says to stream it:
// about 650,000 jobs. Below it, in a process that has simulated before
// (its memory already touched), reading the trace whole is faster than
// streaming it; a fresh process, as `wb simulate` is, streams faster at
// every size measured, and streams every SWF trace.
const StreamAbove = 64 << 20

// Streamable reports whether opts names an SWF trace of at least
// StreamAbove bytes that [OpenStream] could stream (neither sampled nor
// re-timed). Where the size is not
// known (a gzip file whose trailer's length wrapped past 4 GiB), a file
// of StreamAbove/16 bytes or more on disk counts as long: SWF compresses
// about tenfold.
func Streamable(opts Options) bool {
	format, path, err := splitTrace(opts.Trace)
	if err != nil || format != "swf" || len(opts.GPUModels) > 0 || opts.prepared() {
		return false
	}
	if n := gzfile.SizeHint(path); n > 0 {
		return n >= StreamAbove
	}
	st, err := os.Stat(path)
	return err == nil && st.Mode().IsRegular() && st.Size() >= StreamAbove/16
}

// Streamed is an SWF workload read as a simulation runs, for traces too
// long to hold in memory: it is a [scheduler.Source], and keeps the
// records of the jobs it has given until [Streamed.Record] takes them
// back, so that a schedule can be written with the trace's other fields.
//
// The trace is parsed and its records converted to jobs on a goroutine of
// its own, in batches of streamBatch jobs at most streamAhead batches
// ahead of the simulation (the file is decompressed on another), so that
// reading costs the simulation little more than taking the next job.
//
// Its Workload has no Jobs and no SWF; Dropped and Skipped are complete
// once Next has returned io.EOF. Opened without records, it keeps none
// and Record is not to be called.
type Streamed struct {
	*Workload
	// Header is the trace's comment lines, verbatim and in order: those
	// before the first record, which are all of them in a trace that
	// streams to its end.
	Header []string

	f      io.ReadCloser
	batch  chan *jobBatch
	stop   chan struct{} // closed by Close: the reader returns
	done   chan struct{} // closed by the reader when it returns
	closed bool          // by Close: Next fails

	cur *jobBatch // the batch Next gives from, at pos
	pos int
	// recs are the batches whose records have not all been taken back,
	// the first from rpos on.
	recs []*jobBatch
	rpos int
	// given and taken count the jobs Next gave and the records taken back.
	given, taken int
}

// streamBatch is the most jobs in one of a [Streamed] trace's batches;
// streamAhead, the most batches read ahead of the simulation.
const (
	streamBatch = 1024
	streamAhead = 4
)

// jobBatch is a run of a streamed trace's jobs, with their records, and
// what ends the trace where it ends there.
type jobBatch struct {
	jobs  []scheduler.Job
	tasks []scheduler.Task // the jobs' tasks, one each
	recs  []swf.Record     // recs[i] is jobs[i]'s
	// end is io.EOF after the trace's last job, the error that stopped it
	// or nil; dropped and skipped are the trace's counts at its end.
	end      error
	dropped  datasets.Dropped
	skipped  int
	skipErrs []*swf.SyntaxError
}

// reader parses a streamed trace and converts its records to jobs.
type reader struct {
	path    string
	records bool // keep each job's record
	header  int  // the header's length: a comment line among the records lengthens it
	procs   int64
	sc      *swf.Scanner
	// skipping: the scanner skips malformed record lines (no hint to)
	skipping bool
	users    swf.Users
	given    int
	// first says the scanner holds a record not yet read; prevID and
	// prevSubmit are the job number of the last record and the submit
	// time of the last job given, for the order check.
	first      bool
	seen       bool
	prevID     int64
	prevSubmit int64
	dropped    datasets.Dropped
}

// run sends the trace's jobs to out in batches until its end or an error,
// which the last batch carries, or until stop is closed.
func (r *reader) run(out chan<- *jobBatch, stop <-chan struct{}) {
	for {
		b := r.read(streamBatch)
		select {
		case out <- b:
		case <-stop:
			return
		}
		if b.end != nil {
			return
		}
	}
}

// read reads up to n jobs; a batch with fewer ends the trace.
func (r *reader) read(n int) *jobBatch {
	b := &jobBatch{jobs: make([]scheduler.Job, 0, n), tasks: make([]scheduler.Task, n)}
	if r.records {
		b.recs = make([]swf.Record, 0, n)
	}
	b.end = r.fill(b, n)
	if b.end != nil && b.end != io.EOF && !errors.Is(b.end, ErrNotStreamable) {
		b.end = damaged(r.path, b.end)
	}
	if b.end != nil {
		b.dropped, b.skipped, b.skipErrs = r.dropped, r.sc.Skipped, r.sc.SkipErrors
	}
	return b
}

// fill adds up to n jobs to b; it returns what ends the trace, if it ended.
func (r *reader) fill(b *jobBatch, n int) error {
	for len(b.jobs) < n && (r.first || r.sc.Scan()) {
		r.first = false
		if len(r.sc.Header) != r.header {
			return fmt.Errorf("%s:%d: a comment among the records: %w", r.path, r.sc.Line(), ErrNotStreamable)
		}
		rec := r.sc.Record()
		if r.seen && rec.JobID <= r.prevID {
			return fmt.Errorf("%s:%d: job %d after job %d: %w", r.path, r.sc.Line(), rec.JobID, r.prevID, ErrNotStreamable)
		}
		r.seen, r.prevID = true, rec.JobID
		procs, est, reason := swf.Convert(rec, r.procs)
		if reason != "" {
			r.dropped.AddFirst(reason, rec.Ref())
			continue
		}
		if r.given > 0 && rec.Submit < r.prevSubmit {
			return fmt.Errorf("%s:%d: job %d submitted before the job ahead of it: %w", r.path, r.sc.Line(), rec.JobID, ErrNotStreamable)
		}
		r.prevSubmit = rec.Submit
		r.given++
		k := len(b.jobs)
		if r.records {
			b.recs = append(b.recs, *rec)
		}
		b.jobs = b.jobs[:k+1]
		swf.SetJob(&b.jobs[k], b.tasks[k:k+1:k+1], rec, procs, est, r.users.Name(rec.UserID))
	}
	if len(b.jobs) == n {
		return nil
	}
	if err := r.sc.Err(); err != nil {
		return skipHint(err, r.skipping)
	}
	if len(r.sc.Header) != r.header {
		return fmt.Errorf("%s: a comment after the records: %w", r.path, ErrNotStreamable)
	}
	if r.given == 0 {
		return fmt.Errorf("%s: no job to simulate: %w", r.path, ErrNotStreamable)
	}
	return io.EOF
}

// ErrNotStreamable is the error of a [Streamed] trace that turns out,
// part of the way through, not to stream as [Load] would read it: job
// numbers that do not increase, jobs out of submit order, a comment line
// among the records, or no job to simulate. Whatever was simulated from
// it is to be thrown away and the trace loaded whole, which reads it as
// it is (or says what is wrong with it).
var ErrNotStreamable = errors.New("the trace does not stream: load it whole")

// OpenStream prepares the SWF trace opts names for streaming: it reads the
// header and the first record, and the trace is read once, as the
// simulation runs. It streams as long as its job numbers increase, its
// jobs come in submit order and no comment line comes among the records,
// as in the archive's files; where one does not, Next returns
// [ErrNotStreamable]. A malformed line is Next's error, as [Load]'s. With
// records, each job's record is kept until [Streamed.Record] takes it back;
// without, none is (a third of what reading allocates).
//
// For traces of other formats, with a GPU model map, sampled or re-timed
// (see Options), not in a regular file (a pipe can be read only once),
// whose header or first record does not read, or whose header before the
// first record gives no machine size and no Procs is set, OpenStream returns nil and
// no error: load the trace with [Load], which says what is wrong, if
// anything.
func OpenStream(opts Options, records bool) (*Streamed, error) {
	format, path, err := splitTrace(opts.Trace)
	if err != nil {
		return nil, err
	}
	if err := opts.check(format, path); err != nil {
		return nil, err
	}
	if format != "swf" || len(opts.GPUModels) > 0 || opts.prepared() {
		return nil, nil
	}
	if st, err := os.Stat(path); err != nil || !st.Mode().IsRegular() {
		return nil, nil // a pipe can be read once: Load says what is wrong, if anything
	}
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, err
	}
	sc := swf.ReadOptions{SkipInvalid: opts.SkipInvalid}.NewScanner(f, path)
	if !sc.Scan() {
		f.Close()
		return nil, nil
	}
	procs := int64(opts.machineProcs())
	if procs <= 0 {
		p, err := swf.MachineProcs(&sc.Trace)
		if err != nil {
			// the header before the first record does not give the
			// machine: Load reads the whole file, whose later comments may,
			// and says what to do if none does
			f.Close()
			return nil, nil
		}
		procs = int64(p)
	}
	w := &Workload{Name: filepath.Base(path), Format: format, Inputs: []string{path}}
	if spec := opts.Cluster; spec == "" {
		w.Cluster = scheduler.NewPool(strings.TrimSuffix(w.Name, ".gz"), int(procs))
	} else {
		c, inputs, err := ParseCluster(spec)
		if err != nil {
			f.Close()
			return nil, err
		}
		w.Cluster = c
		w.Inputs = append(w.Inputs, inputs...)
	}
	rd := &reader{path: path, records: records, header: len(sc.Header), procs: procs, sc: sc, skipping: opts.SkipInvalid, users: swf.Users{}, first: true}
	st := &Streamed{Workload: w, Header: slices.Clip(sc.Header), f: f,
		batch: make(chan *jobBatch, streamAhead), stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(st.done)
		defer close(st.batch)
		rd.run(st.batch, st.stop)
	}()
	return st, nil
}

// Next is the next job of the trace, or io.EOF after the last.
func (s *Streamed) Next() (*scheduler.Job, error) {
	if s.closed {
		return nil, fmt.Errorf("%s: %w", s.Inputs[0], os.ErrClosed)
	}
	for s.cur == nil || s.pos == len(s.cur.jobs) {
		if s.cur != nil && s.cur.end != nil {
			return nil, s.cur.end
		}
		b, ok := <-s.batch
		if !ok {
			return nil, fmt.Errorf("%s: %w", s.Inputs[0], os.ErrClosed) // the reader stops only when closed
		}
		if b.end != nil {
			s.Dropped, s.Skipped, s.SkipErrors = b.dropped, b.skipped, b.skipErrs
		}
		s.cur, s.pos = b, 0
		if len(b.recs) > 0 {
			s.recs = append(s.recs, b)
		}
	}
	s.pos++
	s.given++
	return &s.cur.jobs[s.pos-1], nil
}

// Record takes back the record of the earliest job given and not taken
// back, which must be job id: schedules come out in the order the jobs
// went in. It stays valid as long as the job does.
func (s *Streamed) Record(id int64) (*swf.Record, error) {
	if s.taken == s.given || len(s.recs) == 0 || s.recs[0].recs[s.rpos].JobID != id {
		return nil, fmt.Errorf("%s: the schedule of job %d came out of order", s.Inputs[0], id)
	}
	r := &s.recs[0].recs[s.rpos]
	s.taken++
	if s.rpos++; s.rpos == len(s.recs[0].recs) {
		s.recs[0] = nil
		s.recs, s.rpos = s.recs[1:], 0
	}
	return r, nil
}

// Close stops the reading and closes the trace's file.
func (s *Streamed) Close() error {
	if s.closed {
		return os.ErrClosed
	}
	s.closed = true
	close(s.stop)
	<-s.done
	return s.f.Close()
}
