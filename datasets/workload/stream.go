package workload

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

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
// Its Workload has no Jobs and no SWF; Dropped and Skipped are complete
// once Next has returned io.EOF.
type Streamed struct {
	*Workload
	// Header is the trace's comment lines, verbatim and in order: those
	// before the first record, which are all of them in a trace that
	// streams to its end.
	Header []string

	path  string
	procs int64
	f     io.ReadCloser
	sc    *swf.Scanner
	users swf.Users
	given int
	// first says the scanner holds a record that Next has not seen;
	// prevID and prevSubmit are the job number of the last record and
	// the submit time of the last job given, for the order check.
	first      bool
	seen       bool
	prevID     int64
	prevSubmit int64

	// records are those of the jobs given and not taken back, from head on
	records []swf.Record
	head    int
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
// [ErrNotStreamable]. A malformed line is Next's error, as [Load]'s.
//
// For traces of other formats, with a GPU model map, sampled or re-timed
// (see Options), not in a regular file (a pipe can be read only once), or
// whose header or first record does not read, OpenStream returns nil and
// no error: load the trace with [Load], which says what is wrong, if
// anything.
func OpenStream(opts Options) (*Streamed, error) {
	format, path, err := splitTrace(opts.Trace)
	if err != nil {
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
	procs := int64(opts.Procs)
	if procs <= 0 {
		p, err := swf.MachineProcs(&sc.Trace)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("%s: %w (give the machine size with --procs)", path, err)
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
	return &Streamed{Workload: w, Header: slices.Clip(sc.Header), path: path, procs: procs, f: f, sc: sc,
		users: swf.Users{}, first: true}, nil
}

// Next is the next job of the trace, or io.EOF after the last.
func (s *Streamed) Next() (*scheduler.Job, error) {
	for s.first || s.sc.Scan() {
		s.first = false
		if len(s.sc.Header) != len(s.Header) {
			return nil, fmt.Errorf("%s:%d: a comment among the records: %w", s.path, s.sc.Line(), ErrNotStreamable)
		}
		r := s.sc.Record()
		if s.seen && r.JobID <= s.prevID {
			return nil, fmt.Errorf("%s:%d: job %d after job %d: %w", s.path, s.sc.Line(), r.JobID, s.prevID, ErrNotStreamable)
		}
		s.seen, s.prevID = true, r.JobID
		procs, est, reason := swf.Convert(r, s.procs)
		if reason != "" {
			s.Dropped.Add(reason)
			continue
		}
		if s.given > 0 && r.Submit < s.prevSubmit {
			return nil, fmt.Errorf("%s:%d: job %d submitted before the job ahead of it: %w", s.path, s.sc.Line(), r.JobID, ErrNotStreamable)
		}
		s.prevSubmit = r.Submit
		if s.head > 1024 && s.head > len(s.records)/2 {
			n := copy(s.records, s.records[s.head:])
			s.records, s.head = s.records[:n], 0
		}
		s.records = append(s.records, *r)
		s.given++
		j := &scheduler.Job{}
		swf.SetJob(j, make([]scheduler.Task, 1), r, procs, est, s.users.Name(r.UserID))
		return j, nil
	}
	if err := s.sc.Err(); err != nil {
		return nil, err
	}
	if len(s.sc.Header) != len(s.Header) {
		return nil, fmt.Errorf("%s: a comment after the records: %w", s.path, ErrNotStreamable)
	}
	s.Skipped = s.sc.Skipped
	if s.given == 0 {
		return nil, fmt.Errorf("%s: no job to simulate: %w", s.path, ErrNotStreamable)
	}
	return nil, io.EOF
}

// Record takes back the record of the earliest job given and not taken
// back, which must be job id: schedules come out in the order the jobs
// went in. It is valid until the next call of Next.
func (s *Streamed) Record(id int64) (*swf.Record, error) {
	if s.head == len(s.records) || s.records[s.head].JobID != id {
		return nil, fmt.Errorf("%s: the schedule of job %d came out of order", s.path, id)
	}
	s.head++
	return &s.records[s.head-1], nil
}

// Close closes the trace's file.
func (s *Streamed) Close() error { return s.f.Close() }
