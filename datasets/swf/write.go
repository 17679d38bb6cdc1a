package swf

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"

	"github.com/wb-sim/wb/scheduler"
)

// Write writes the trace in SWF: the header lines as they are (with a
// "; MaxProcs:" line added when the header has none and MaxProcs is set),
// then one line per record. A header line that is not a comment, or a
// non-finite AvgCPU, is an error.
func Write(w io.Writer, t *Trace) error {
	e, err := NewEncoder(w, t.Header, t.MaxProcs)
	if err != nil {
		return err
	}
	for i := range t.Records {
		if err := e.Encode(&t.Records[i]); err != nil {
			return err
		}
	}
	return e.Flush()
}

// Encoder writes an SWF trace one record at a time.
type Encoder struct {
	bw   *bufio.Writer
	line []byte
}

// NewEncoder writes the header lines (with a "; MaxProcs:" line added when
// they have none and maxProcs > 0) and returns an encoder for the records.
func NewEncoder(w io.Writer, header []string, maxProcs int64) (*Encoder, error) {
	bw := bufio.NewWriterSize(w, 1<<16)
	hasMaxProcs := false
	for i, h := range header {
		c := strings.TrimLeft(h, " \t\r")
		if !strings.HasPrefix(c, ";") || strings.ContainsAny(h, "\n") {
			return nil, fmt.Errorf("swf: header line %d is not a comment line: %q", i+1, h)
		}
		if k, _, ok := strings.Cut(c[1:], ":"); ok && strings.TrimSpace(k) == "MaxProcs" {
			hasMaxProcs = true
		}
		bw.WriteString(h)
		bw.WriteByte('\n')
	}
	if !hasMaxProcs && maxProcs > 0 {
		fmt.Fprintf(bw, "; MaxProcs: %d\n", maxProcs)
	}
	return &Encoder{bw: bw}, nil
}

// columnWidths are the minimum widths of the columns, right-aligned and
// separated by one space, as in the Parallel Workloads Archive's files.
var columnWidths = [Fields]int{5, 8, 6, 6, 4, 6, 5, 4, 6, 5, 2, 3, 3, 3, 2, 2, 2, 2}

// Encode writes one record; a non-finite AvgCPU is an error.
func (e *Encoder) Encode(r *Record) error {
	if math.IsNaN(r.AvgCPU) || math.IsInf(r.AvgCPU, 0) {
		return fmt.Errorf("swf: job %d: average CPU time %v is not finite", r.JobID, r.AvgCPU)
	}
	vals := [Fields]int64{
		r.JobID, r.Submit, r.Wait, r.Run, r.AllocProcs, 0,
		r.UsedMem, r.ReqProcs, r.ReqTime, r.ReqMem, r.Status,
		r.UserID, r.GroupID, r.Executable, r.Queue, r.Partition,
		r.PrecedingJob, r.ThinkTime,
	}
	line := e.line[:0]
	var num [32]byte
	for f, v := range vals {
		var s []byte
		switch {
		case f == 5 && r.AvgCPU != math.Trunc(r.AvgCPU):
			s = strconv.AppendFloat(num[:0], r.AvgCPU, 'f', -1, 64)
		case f == 5:
			s = strconv.AppendInt(num[:0], int64(r.AvgCPU), 10)
		default:
			s = strconv.AppendInt(num[:0], v, 10)
		}
		if f > 0 {
			line = append(line, ' ')
		}
		for pad := columnWidths[f] - len(s); pad > 0; pad-- {
			line = append(line, ' ')
		}
		line = append(line, s...)
	}
	line = append(line, '\n')
	e.line = line
	_, err := e.bw.Write(line)
	return err
}

// Flush writes out what is buffered.
func (e *Encoder) Flush() error { return e.bw.Flush() }

// ScheduledJob is one job of a simulated schedule, for [FromSchedule].
type ScheduledJob struct {
	ID     int64
	Submit scheduler.Time
	Start  scheduler.Time
	End    scheduler.Time
	// Procs is the number of processors (or GPUs) the job held.
	Procs int
	// Original, when not nil, is the job's record in the input trace: the
	// fields the schedule does not set (requested processors and time,
	// user, status, ...) are copied from it.
	Original *Record
}

// FromSchedule builds the SWF trace of a simulated schedule, in the order of
// jobs, under the given header lines (typically the input trace's). Per job,
// fields 1–5 are set from the schedule (wait = start − submit, run = end −
// start, allocated processors = Procs); the other fields are the original
// record's when there is one, and -1 (unknown) otherwise, except the status,
// which is then 1 (completed). A start before the submit time, an end before
// the start, or no processors is an error.
func FromSchedule(header []string, jobs []ScheduledJob) (*Trace, error) {
	t := &Trace{Name: "schedule", Header: append([]string(nil), header...)}
	for i, h := range t.Header {
		c := strings.TrimLeft(h, " \t\r")
		if !strings.HasPrefix(c, ";") {
			return nil, fmt.Errorf("swf: header line %d is not a comment line: %q", i+1, h)
		}
		if err := t.parseHeader([]byte(c[1:]), i+1); err != nil {
			return nil, err
		}
	}
	t.Records = make([]Record, len(jobs))
	var errs []error
	for i := range jobs {
		r, err := jobs[i].Record()
		if err != nil {
			errs = append(errs, err)
		}
		t.Records[i] = r
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return t, nil
}

// Record is the job's SWF record, as [FromSchedule] describes it.
func (j *ScheduledJob) Record() (Record, error) {
	var err error
	switch {
	case j.Submit < 0:
		err = fmt.Errorf("swf: job %d: negative submit time %d", j.ID, j.Submit)
	case j.Start < j.Submit:
		err = fmt.Errorf("swf: job %d: starts at %d before its submission at %d", j.ID, j.Start, j.Submit)
	case j.End < j.Start:
		err = fmt.Errorf("swf: job %d: ends at %d before its start at %d", j.ID, j.End, j.Start)
	case j.Procs <= 0:
		err = fmt.Errorf("swf: job %d: %d processors", j.ID, j.Procs)
	}
	var r Record
	if j.Original != nil {
		r = *j.Original
	} else {
		r = unknownRecord()
	}
	r.JobID = j.ID
	r.Submit = int64(j.Submit)
	r.Wait = int64(j.Start - j.Submit)
	r.Run = int64(j.End - j.Start)
	r.AllocProcs = int64(j.Procs)
	return r, err
}

// unknownRecord returns the record of a completed job whose other fields
// are all unknown.
func unknownRecord() Record {
	return Record{
		JobID: -1, Submit: -1, Wait: -1, Run: -1, AllocProcs: -1, AvgCPU: -1,
		UsedMem: -1, ReqProcs: -1, ReqTime: -1, ReqMem: -1, Status: 1,
		UserID: -1, GroupID: -1, Executable: -1, Queue: -1, Partition: -1,
		PrecedingJob: -1, ThinkTime: -1,
	}
}
