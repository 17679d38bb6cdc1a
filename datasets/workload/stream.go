package workload

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/datasets/swf"
	"github.com/wb-sim/wb/scheduler"
)

// StreamAbove is the size of an SWF trace, in uncompressed bytes (a gzip
// file's trailer tells it), from which [Streamable] says to stream it:
// about 650,000 jobs. Below it, in a process that has simulated before
// (its memory already touched), reading the trace whole is faster than
// reading it twice; a fresh process, as `wb simulate` is, streams faster
// at every size measured, and streams every SWF trace.
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
	// Header is the trace's comment lines, verbatim and in order.
	Header []string

	path  string
	skip  bool
	procs int64
	f     io.ReadCloser
	sc    *swf.Scanner
	users map[int64]string
	jobs  int // the jobs the first pass counted
	given int

	// records are those of the jobs given and not taken back, from head on
	records []swf.Record
	head    int
}

// OpenStream prepares the SWF trace opts names for streaming. A first pass
// reads every line (so that a malformed one is reported before anything
// is simulated), the whole header and the order of the records; the
// trace streams only if its job numbers increase and its jobs come in
// submit order, as in the archive's files. Otherwise, and for traces of
// other formats, with a GPU model map, sampled or re-timed (see Options),
// or not in a regular file (a pipe can be read only once), OpenStream
// returns nil and no error: load the trace with [Load].
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
	ropts := swf.ReadOptions{SkipInvalid: opts.SkipInvalid}
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, err
	}
	sc := ropts.NewScanner(f, path)
	ordered := true
	var n, minProcs int64
	prev, prevSubmit := int64(0), int64(-1)
	for sc.Scan() {
		r := sc.Record()
		if n > 0 && r.JobID <= prev {
			ordered = false
		}
		prev, n = r.JobID, n+1
		procs, _, reason := swf.Convert(r, int64(scheduler.MaxProcs))
		if reason != "" {
			continue
		}
		if r.Submit < prevSubmit {
			ordered = false
		}
		prevSubmit = r.Submit
		if minProcs == 0 || procs < minProcs {
			minProcs = procs
		}
	}
	f.Close()
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if !ordered {
		return nil, nil
	}
	procs := int64(opts.Procs)
	if procs <= 0 {
		p, err := swf.MachineProcs(&sc.Trace)
		if err != nil {
			return nil, fmt.Errorf("%s: %w (give the machine size with --procs)", path, err)
		}
		procs = int64(p)
	}
	w := &Workload{Name: filepath.Base(path), Format: format, Inputs: []string{path}}
	if minProcs == 0 || minProcs > procs {
		// every record is dropped: Load says why
		return nil, nil
	}
	spec := opts.Cluster
	if spec == "" {
		w.Cluster = scheduler.NewPool(strings.TrimSuffix(w.Name, ".gz"), int(procs))
	} else {
		c, inputs, err := ParseCluster(spec)
		if err != nil {
			return nil, err
		}
		w.Cluster = c
		w.Inputs = append(w.Inputs, inputs...)
	}
	s := &Streamed{Workload: w, Header: sc.Header, path: path, skip: opts.SkipInvalid, procs: procs,
		users: map[int64]string{}, jobs: int(n)}
	if s.f, err = gzfile.Open(path); err != nil {
		return nil, err
	}
	s.sc = ropts.NewScanner(s.f, path)
	return s, nil
}

// Next is the next job of the trace, or io.EOF after the last.
func (s *Streamed) Next() (*scheduler.Job, error) {
	for s.sc.Scan() {
		r := s.sc.Record()
		procs, est, reason := swf.Convert(r, s.procs)
		if reason != "" {
			s.Dropped.Add(reason)
			continue
		}
		user, ok := s.users[r.UserID]
		if !ok {
			user = strconv.FormatInt(r.UserID, 10)
			s.users[r.UserID] = user
		}
		if s.head > 1024 && s.head > len(s.records)/2 {
			n := copy(s.records, s.records[s.head:])
			s.records, s.head = s.records[:n], 0
		}
		s.records = append(s.records, *r)
		s.given++
		return &scheduler.Job{
			ID: r.JobID, User: user, Submit: scheduler.Time(r.Submit), Run: scheduler.Time(r.Run),
			UserEstimate: scheduler.Time(est),
			Tasks:        []scheduler.Task{{Replicas: 1, Request: scheduler.Request{CPU: scheduler.MilliCPU(procs) * scheduler.MilliPerCore}}},
		}, nil
	}
	if err := s.sc.Err(); err != nil {
		return nil, err
	}
	s.Skipped = s.sc.Skipped
	if s.given == 0 {
		return nil, fmt.Errorf("%s: no jobs to simulate (dropped: %s)", s.path, s.Dropped)
	}
	if kept := s.given + s.Dropped.Total(); kept != s.jobs {
		return nil, fmt.Errorf("%s: %d records on the first reading, %d on the second: the file changed while it was read", s.path, s.jobs, kept)
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
