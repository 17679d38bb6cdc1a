// Package swf reads and writes the Standard Workload Format (SWF) of the
// Parallel Workloads Archive (https://www.cs.huji.ac.il/labs/parallel/workload/swf.html)
// and turns its records into the scheduler's jobs.
//
// An SWF file is a header of comment lines starting with ";" (some of them
// "; Key: value" pairs such as MaxProcs) followed by one line per job of 18
// whitespace-separated numbers, -1 meaning unknown. [Read] and [ReadFile]
// keep every header line verbatim and every record as it is; [Jobs]
// normalises records into [scheduler.Job]s, counting the ones it leaves out;
// [Write] writes a trace back, and [FromSchedule] builds the trace of a
// simulated schedule, so that results can be read by every SWF tool.
//
// Gzip-compressed input is read transparently (recognised by its magic
// bytes, whatever the file name), in a goroutine that runs ahead of the
// parser. The parser is hand-rolled over bytes: the bundled HPC2N trace
// (202,876 records, 19 MB of text) reads in under 100 ms with its
// decompression (see BenchmarkReadHPC2N).
package swf

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/scheduler"
)

// Fields is the number of fields of an SWF record line.
const Fields = 18

// Record is one job line of an SWF file: its 18 fields in order, -1 where
// unknown. Times are in seconds, memory in kilobytes per processor.
type Record struct {
	JobID        int64   // 1: job number
	Submit       int64   // 2: submit time, seconds from the start of the log
	Wait         int64   // 3: wait time
	Run          int64   // 4: run time
	AllocProcs   int64   // 5: number of allocated processors
	AvgCPU       float64 // 6: average CPU time used (seconds; may be fractional)
	UsedMem      int64   // 7: used memory (KB per processor)
	ReqProcs     int64   // 8: requested number of processors
	ReqTime      int64   // 9: requested time (the user's estimate)
	ReqMem       int64   // 10: requested memory (KB per processor)
	Status       int64   // 11: 1 completed, 0 failed, 5 cancelled, ...
	UserID       int64   // 12
	GroupID      int64   // 13
	Executable   int64   // 14: application number
	Queue        int64   // 15
	Partition    int64   // 16
	PrecedingJob int64   // 17
	ThinkTime    int64   // 18: think time from the preceding job
}

// Trace is the content of one SWF file.
type Trace struct {
	// Name names the trace's source (its file name) in messages.
	Name string
	// Header holds the comment lines, verbatim and in order, without their
	// line ends (trailing carriage returns included). Comment lines among
	// the records are kept here too.
	Header []string
	// MaxProcs and MaxNodes are the header's values of those keys; 0 when
	// absent.
	MaxProcs, MaxNodes int64
	Records            []Record
	// Skipped counts the malformed lines left out when reading with
	// [ReadOptions.SkipInvalid]; SkipErrors holds the first of their errors
	// (at most [MaxSkipErrors]).
	Skipped    int
	SkipErrors []*SyntaxError

	// gaps records where the file's lines that are not records (comments,
	// blank or skipped lines) fall among the records, for [Trace.Line]:
	// lines lines before the record numbered rec (0-based).
	gaps []lineGap
	// headerLines are the lines that gave MaxProcs and MaxNodes (0: none).
	headerLines [2]int
}

type lineGap struct{ rec, lines int }

// Line returns the 1-based line of the file that record i (an index into
// Records, as read whole by Read or ReadFile) came from. For a trace not
// read so (a Scanner's, whose own Line says where it is), or whose records
// were since changed, it is i+1 plus the non-record lines read.
func (t *Trace) Line(i int) int {
	line := i + 1
	for _, g := range t.gaps {
		if g.rec > i {
			break
		}
		line += g.lines
	}
	return line
}

// gap counts one line of the file that is not a record, read after n
// records.
func (t *Trace) gap(n int) {
	if k := len(t.gaps) - 1; k >= 0 && t.gaps[k].rec == n {
		t.gaps[k].lines++
		return
	}
	t.gaps = append(t.gaps, lineGap{rec: n, lines: 1})
}

// MaxSkipErrors bounds [Trace.SkipErrors].
const MaxSkipErrors = 10

// Finder returns a function that finds a record by job number, or nil.
// With duplicated numbers, the job's own record wins over its partial
// executions' lines (status 2 to 4, which share its number: the summary
// line a job is simulated from), else the last record. When the records are in
// increasing job order, as in the archive's files, it searches them without
// building an index.
func (t *Trace) Finder() func(id int64) *Record {
	ids := make([]int64, len(t.Records))
	for i := range t.Records {
		ids[i] = t.Records[i].JobID
	}
	if !slices.IsSorted(ids) {
		m := t.ByID()
		return func(id int64) *Record { return m[id] }
	}
	next := 0 // schedules list jobs in nearly the trace's order: try there first
	return func(id int64) *Record {
		k := next
		if k >= len(ids) || ids[k] != id {
			var ok bool
			if k, ok = slices.BinarySearch(ids, id); !ok {
				return nil
			}
		}
		for k > 0 && ids[k-1] == id {
			k--
		}
		var r *Record
		for ; k < len(ids) && ids[k] == id; k++ {
			if r == nil || !partial(&t.Records[k]) || partial(r) {
				r = &t.Records[k]
			}
		}
		next = k
		return r
	}
}

// ByID indexes the trace's records by job number. With duplicated numbers,
// the job's own record wins over its partial executions' lines, else the
// last record (as [Trace.Finder]).
func (t *Trace) ByID() map[int64]*Record {
	m := make(map[int64]*Record, len(t.Records))
	for i := range t.Records {
		r := &t.Records[i]
		if old, ok := m[r.JobID]; !ok || !partial(r) || partial(old) {
			m[r.JobID] = r
		}
	}
	return m
}

// loneCR is the error of a line holding a carriage return: a file whose
// lines end in CR alone reads as one line. The conversion it suggests
// keeps a compressed file compressed.
func loneCR(name string, line int) *SyntaxError {
	return &SyntaxError{File: name, Line: line, Unskippable: true, Msg: "a carriage return inside the line: " + datasets.LoneCR(name)}
}

// longLine is the error of a line longer than MaxLine whose first
// MaxLine bytes are buf: a file of lines ending in CR alone, said so,
// where buf holds a CR (such a file is one line, too long for any trace
// of size), else a line too long for a record.
func longLine(name string, line int, buf []byte) *SyntaxError {
	if bytes.IndexByte(buf, '\r') >= 0 {
		return loneCR(name, line)
	}
	return &SyntaxError{File: name, Line: line, Msg: fmt.Sprintf("line longer than %d bytes: not an SWF trace?", MaxLine), Unskippable: true}
}

// SyntaxError is a malformed line of an SWF file.
type SyntaxError struct {
	File  string
	Line  int // 1-based
	Field int // 1-based; 0 when the error is not about one field
	Msg   string
	// Header says the line is a header comment (a MaxProcs that is not a
	// number): an error even with [ReadOptions.SkipInvalid], which skips
	// records, since the machine's size rests on it.
	Header bool
	// Unskippable says the error ends the reading even with SkipInvalid
	// (a line longer than MaxLine: its record cannot be found; a carriage
	// return inside a line: the file's lines end in CR alone).
	Unskippable bool
}

func (e *SyntaxError) Error() string {
	if e.Field == 0 {
		return fmt.Sprintf("%s:%d: %s", e.File, e.Line, e.Msg)
	}
	return fmt.Sprintf("%s:%d: field %d: %s", e.File, e.Line, e.Field, e.Msg)
}

// ReadOptions tunes reading; the zero value is the strict default.
type ReadOptions struct {
	// SkipInvalid leaves malformed record lines out, counting them in
	// [Trace.Skipped], instead of failing on the first.
	SkipInvalid bool
}

// Read reads an SWF trace from r, which may be gzip-compressed; name names
// it in errors. A malformed line is a [*SyntaxError].
func Read(r io.Reader, name string) (*Trace, error) {
	return ReadOptions{}.Read(r, name)
}

// ReadFile reads the SWF trace in the file at path, gzip-compressed or not.
func ReadFile(path string) (*Trace, error) {
	return ReadOptions{}.ReadFile(path)
}

// ReadFile reads the SWF trace in the file at path with these options.
func (o ReadOptions) ReadFile(path string) (*Trace, error) {
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return o.readSized(f, path, gzfile.SizeHint(path), nil)
}

// Read reads an SWF trace from r with these options.
func (o ReadOptions) Read(r io.Reader, name string) (*Trace, error) {
	zr, err := gzfile.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	defer zr.Close()
	return o.readSized(zr, name, 0, nil)
}

// batchSize is the number of records readSized hands its batch function
// at a time.
const batchSize = 4096

// readSized reads a trace of about size bytes (0: unknown). When batch is
// not nil, it is called, on the reading goroutine, with the records in
// order as they are read, a batch at a time, every record once; the
// records handed over are never written again.
func (o ReadOptions) readSized(r io.Reader, name string, size int64, batch func(t *Trace, recs []Record)) (*Trace, error) {
	t := &Trace{Name: name}
	off := 0 // t.Records[:off] are handed to batch
	hand := func() {
		if n := len(t.Records); batch != nil && n > off {
			batch(t, t.Records[off:n:n])
			off = n
		}
	}
	// Records go to fixed-size chunks, joined once at the end: growing one
	// slice would copy the records over and over. When the trace's size is
	// known, the first 1,024 records' bytes per record size one slice for
	// the whole trace instead, and chunks take over only if it fills up.
	var done [][]Record
	doneRecs := 0 // records in done
	t.Records = make([]Record, 0, 1024)
	var read, recordBytes int64 // bytes read; bytes of the lines read as records
	br := bufio.NewReaderSize(r, MaxLine)
	for lineNo := 1; ; lineNo++ {
		line, err := br.ReadSlice('\n')
		switch {
		case errors.Is(err, bufio.ErrBufferFull):
			return nil, longLine(name, lineNo, line)
		case err != nil && err != io.EOF:
			return nil, fmt.Errorf("%s:%d: %w", name, lineNo, err)
		}
		if len(t.Records) == cap(t.Records) {
			if n := len(t.Records); len(done) == 0 && size > read && n > 0 && recordBytes > 0 {
				// 2% and a chunk more than the rest of the file's lines at
				// the bytes per record seen so far
				est := n + int(float64(size-read)/(float64(recordBytes)/float64(n))*1.02) + chunkSize
				if est <= maxPresize {
					all := make([]Record, n, est)
					copy(all, t.Records)
					t.Records = all
					size = 0 // once
				}
			}
			if len(t.Records) == cap(t.Records) {
				hand()
				done = append(done, t.Records)
				doneRecs += len(t.Records)
				t.Records = make([]Record, 0, chunkSize)
				off = 0
			}
		}
		read += int64(len(line))
		if lineNo == 1 {
			line = bytes.TrimPrefix(line, []byte("\ufeff")) // a byte-order mark, as some editors write
		}
		if len(line) > 0 {
			var rec Record
			ok, serr := t.parseLine(line, lineNo, &rec)
			if ok {
				t.Records = append(t.Records, rec)
				recordBytes += int64(len(line))
				if len(t.Records)-off >= batchSize {
					hand()
				}
			} else {
				t.gap(doneRecs + len(t.Records))
			}
			if serr != nil {
				if !o.SkipInvalid || serr.Header || serr.Unskippable {
					return nil, serr
				}
				t.Skipped++
				if len(t.SkipErrors) < MaxSkipErrors {
					t.SkipErrors = append(t.SkipErrors, serr)
				}
			}
		}
		if err == io.EOF {
			break
		}
	}
	hand()
	if len(done) > 0 {
		done = append(done, t.Records)
		n := 0
		for _, c := range done {
			n += len(c)
		}
		t.Records = make([]Record, 0, n)
		for _, c := range done {
			t.Records = append(t.Records, c...)
		}
	}
	if len(t.Records) == 0 {
		t.Records = nil
	}
	return t, nil
}

// MaxLine is the longest line a trace may have, in bytes (an SWF record
// is under 200): a longer one is an error, so that a file that is not a
// trace (or /dev/zero) cannot take unbounded memory.
const MaxLine = 1 << 16

// chunkSize is the number of records read into one chunk.
const chunkSize = 8192

// maxPresize bounds the records a size hint may reserve at once (2^24,
// about 2.4 GB of address space, touched only as records fill it): a wrong
// hint costs speed, never memory beyond this.
const maxPresize = 1 << 24

// isBlank reports whether c separates fields.
func isBlank(c byte) bool { return c == ' ' || c == '\t' || c == '\r' }

// parseLine reads one line (with or without its line end): a record into
// rec, reporting true; a comment into the trace's header.
func (t *Trace) parseLine(line []byte, lineNo int, out *Record) (bool, *SyntaxError) {
	if n := len(line); n > 0 && line[n-1] == '\n' {
		line = line[:n-1]
	}
	for n := len(line); n > 0 && line[n-1] == '\r'; n-- {
		line = line[:n-1]
	}
	if bytes.IndexByte(line, '\r') >= 0 {
		// lone CRs (classic Mac line ends) made the whole file one line:
		// a comment that swallowed every record, or a record of too many
		// fields
		return false, loneCR(t.Name, lineNo)
	}
	i := 0
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	if i == len(line) {
		return false, nil // blank line
	}
	if line[i] == ';' {
		t.Header = append(t.Header, string(line))
		err := t.parseHeader(line[i+1:], lineNo)
		if err != nil {
			err.Header = true
		}
		return false, err
	}
	var rec Record
	vals := [Fields]*int64{
		&rec.JobID, &rec.Submit, &rec.Wait, &rec.Run, &rec.AllocProcs, nil,
		&rec.UsedMem, &rec.ReqProcs, &rec.ReqTime, &rec.ReqMem, &rec.Status,
		&rec.UserID, &rec.GroupID, &rec.Executable, &rec.Queue, &rec.Partition,
		&rec.PrecedingJob, &rec.ThinkTime,
	}
	n := 0
	for {
		for i < len(line) && isBlank(line[i]) {
			i++
		}
		if i == len(line) {
			break
		}
		if n != 5 && n < Fields {
			// Fast path: a short decimal integer, parsed as it is scanned.
			j, neg := i, line[i] == '-'
			if neg {
				j++
			}
			var v int64
			k := j
			for k < len(line) && k-j < 18 && line[k]-'0' <= 9 {
				v = v*10 + int64(line[k]-'0')
				k++
			}
			if k > j && (k == len(line) || isBlank(line[k])) {
				if neg {
					v = -v
				}
				*vals[n] = v
				n++
				i = k
				continue
			}
		}
		start := i
		for i < len(line) && !isBlank(line[i]) {
			i++
		}
		tok := line[start:i]
		if n == Fields {
			return false, t.syntaxError(lineNo, n+1, fmt.Sprintf("unexpected %s: a record has %d fields", quote(tok), Fields))
		}
		if n == 5 {
			v, ok := parseFloat(tok)
			if !ok {
				return false, t.syntaxError(lineNo, n+1, quote(tok)+" is not a finite number")
			}
			rec.AvgCPU = v
		} else {
			v, err := parseInt(tok)
			if err != "" && isTimeField(n+1) {
				// the format allows floating point in time fields: whole
				// seconds, as the simulator keeps them
				switch f, ok := parseFloat(tok); {
				case ok && f == -1:
					v, err = -1, "" // unknown, written as a decimal
				case ok && f < 0:
					err = " is a negative time: the format's only negative value is -1 (unknown)"
				case ok && f < 1<<62:
					v, err = int64(math.Round(f)), ""
				case ok:
					err = fmt.Sprintf(" s is past the simulator's horizon of %d s (2^50)", int64(scheduler.MaxTime))
				}
			}
			if err != "" {
				return false, t.syntaxError(lineNo, n+1, quote(tok)+err)
			}
			*vals[n] = v
		}
		n++
	}
	if n < Fields {
		return false, t.syntaxError(lineNo, n+1, fmt.Sprintf("missing: the line has %d of %d fields", n, Fields))
	}
	if err := t.checkBounds(&rec, lineNo); err != nil {
		return false, err
	}
	*out = rec
	return true, nil
}

// parseHeader reads the MaxProcs and MaxNodes keys of a comment line, given
// without its ";".
func (t *Trace) parseHeader(c []byte, lineNo int) *SyntaxError {
	key, val, ok := bytes.Cut(c, []byte{':'})
	if !ok {
		return nil
	}
	key = bytes.TrimSpace(key)
	var dst *int64
	var at *int
	switch string(key) {
	case "MaxProcs":
		dst, at = &t.MaxProcs, &t.headerLines[0]
	case "MaxNodes":
		dst, at = &t.MaxNodes, &t.headerLines[1]
	default:
		return nil
	}
	f := bytes.Fields(val)
	if len(f) == 0 {
		return t.syntaxError(lineNo, 0, fmt.Sprintf("header %s: no value", key))
	}
	v, err := parseInt(f[0])
	if err != "" {
		return t.syntaxError(lineNo, 0, fmt.Sprintf("header %s: %s%s", key, quote(f[0]), err))
	}
	if v == -1 { // the format's "unknown"
		return nil
	}
	if v < 1 || v > int64(scheduler.MaxProcs) {
		return t.syntaxError(lineNo, 0, fmt.Sprintf("header %s: %d: want 1 to %d processors (or -1, unknown)", key, v, scheduler.MaxProcs))
	}
	if *dst != 0 && *dst != v {
		// two machine sizes: which one the trace ran on is not ours to pick
		return t.syntaxError(lineNo, 0, fmt.Sprintf("header %s: %d, where line %d gave %d: keep the line of the machine the trace ran on (--procs sizes the simulated one)", key, v, *at, *dst))
	}
	if *at == 0 {
		*at = lineNo
	}
	*dst = v
	return nil
}

// Fields of a record whose values the simulator bounds: times (submit,
// wait, run, requested time, think time) and processor counts.
var (
	timeFields  = [...]int{2, 3, 4, 9, 18}
	procsFields = [...]int{5, 8}
)

// isTimeField reports whether the 1-based field f holds a time.
func isTimeField(f int) bool {
	for _, t := range timeFields {
		if t == f {
			return true
		}
	}
	return false
}

// checkBounds refuses a record whose times pass the simulator's horizon or
// whose processor counts pass its largest machine: values no real log has,
// which would overflow the simulation's sums.
func (t *Trace) checkBounds(r *Record, lineNo int) *SyntaxError {
	if min(r.JobID, r.Submit, r.Wait, r.Run, r.AllocProcs, r.UsedMem, r.ReqProcs, r.ReqTime, r.ReqMem,
		r.Status, r.UserID, r.GroupID, r.Executable, r.Queue, r.Partition, r.PrecedingJob, r.ThinkTime) < -1 {
		// the format's only negative value is -1, unknown: another would
		// be read as unknown, or as a count, without a word
		vals := [...]int64{r.JobID, r.Submit, r.Wait, r.Run, r.AllocProcs, 0, r.UsedMem, r.ReqProcs, r.ReqTime,
			r.ReqMem, r.Status, r.UserID, r.GroupID, r.Executable, r.Queue, r.Partition, r.PrecedingJob, r.ThinkTime}
		for i, v := range vals {
			if v < -1 {
				return t.syntaxError(lineNo, i+1, fmt.Sprintf("%d: the format's only negative value is -1 (unknown)", v))
			}
		}
	}
	if r.Status > 5 {
		return t.syntaxError(lineNo, 11, fmt.Sprintf("status %d: the format's are 0 (failed), 1 (completed), 2 to 4 (partial executions), 5 (cancelled) and -1 (unknown)", r.Status))
	}
	if max(r.Submit, r.Wait, r.Run, r.ReqTime, r.ThinkTime) <= int64(scheduler.MaxTime) &&
		max(r.AllocProcs, r.ReqProcs) <= int64(scheduler.MaxProcs) {
		return nil // the usual case
	}
	vals := [Fields + 1]int64{2: r.Submit, 3: r.Wait, 4: r.Run, 5: r.AllocProcs, 8: r.ReqProcs, 9: r.ReqTime, 18: r.ThinkTime}
	for _, f := range timeFields {
		if vals[f] > int64(scheduler.MaxTime) {
			return t.syntaxError(lineNo, f, fmt.Sprintf("%d s is past the simulator's horizon of %d s (2^50)", vals[f], int64(scheduler.MaxTime)))
		}
	}
	for _, f := range procsFields {
		if vals[f] > int64(scheduler.MaxProcs) {
			return t.syntaxError(lineNo, f, fmt.Sprintf("%d processors: at most %d", vals[f], scheduler.MaxProcs))
		}
	}
	return nil
}

func (t *Trace) syntaxError(line, field int, msg string) *SyntaxError {
	return &SyntaxError{File: t.Name, Line: line, Field: field, Msg: msg}
}

// quote quotes a token for a message, shortening long ones.
func quote(b []byte) string {
	const max = 32
	if len(b) > max {
		return strconv.Quote(string(b[:max])) + "..."
	}
	return strconv.Quote(string(b))
}

// parseInt parses a decimal integer with an optional sign. On failure it
// returns the end of a message that follows the quoted token.
func parseInt(b []byte) (int64, string) {
	neg := false
	switch {
	case len(b) > 0 && b[0] == '-':
		neg, b = true, b[1:]
	case len(b) > 0 && b[0] == '+':
		b = b[1:]
	}
	if len(b) == 0 {
		return 0, " is not an integer"
	}
	var n uint64
	if len(b) <= 18 { // cannot overflow: the common, fast path
		for _, c := range b {
			d := c - '0'
			if d > 9 {
				return 0, " is not an integer"
			}
			n = n*10 + uint64(d)
		}
	} else {
		limit := uint64(math.MaxInt64)
		if neg {
			limit++
		}
		for _, c := range b {
			d := c - '0'
			if d > 9 {
				return 0, " is not an integer"
			}
			if n > (limit-uint64(d))/10 {
				return 0, " is out of range"
			}
			n = n*10 + uint64(d)
		}
	}
	if neg {
		return -int64(n), ""
	}
	return int64(n), ""
}

// parseFloat parses a finite number, by the integer path when it can.
func parseFloat(b []byte) (float64, bool) {
	if v, err := parseInt(b); err == "" {
		return float64(v), true
	}
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}
