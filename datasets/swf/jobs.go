package swf

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/scheduler"
)

// Reasons for which [Jobs] leaves a record out, checked in this order.
const (
	// DropPartial: a partial execution of a checkpointed or swapped job
	// (status 2, 3 or 4), which the format gives a line of its own beside
	// the job's summary line, under the same job number.
	DropPartial     = "partial-execution"
	DropNoProcs     = "procs<=0"      // neither requested nor allocated processors
	DropTooWide     = "procs>machine" // more processors than the machine has
	DropNegativeRun = "run<0"         // run time unknown
	DropBadSubmit   = "submit<0"      // submit time unknown
)

// MachineProcs returns the processors of the trace's machine: the header's
// MaxProcs, or its MaxNodes when MaxProcs is absent. A trace with neither is
// an error: [ErrNoMachineSize], or, when it has no record either, that it
// has none.
func MachineProcs(t *Trace) (int, error) {
	switch {
	case t.MaxProcs > 0:
		return int(t.MaxProcs), nil
	case t.MaxNodes > 0:
		return int(t.MaxNodes), nil
	case len(t.Records) == 0:
		// nothing to size a machine for: that is what is wrong
		return 0, fmt.Errorf("%s: no job records (and no MaxProcs or MaxNodes in its header)", t.Name)
	}
	return 0, fmt.Errorf("%s: %w", t.Name, ErrNoMachineSize)
}

// ErrNoMachineSize is [MachineProcs]' error for a header that gives no
// machine size.
var ErrNoMachineSize = errors.New("header has neither MaxProcs nor MaxNodes; give the machine's processors")

// Jobs normalises the trace's records into jobs for a machine of
// machineProcs processors (when machineProcs <= 0, [MachineProcs] of the
// trace). Each record, in this order:
//
//   - procs is the requested processors (field 8) when positive and at
//     most machineProcs, else the allocated ones (field 5) where they are
//     positive and fit (the log says what the job ran on), else the
//     requested ones; the record is dropped as [DropNoProcs] when procs <= 0
//     and as [DropTooWide] when procs > machineProcs;
//   - run is the run time (field 4), dropped as [DropNegativeRun] when
//     negative (0 is valid); then a negative submit time (field 2) is dropped
//     as [DropBadSubmit];
//   - the user estimate is the requested time (field 9) when positive, else 0
//     (the scheduler then falls back to the run time).
//
// A job has ID = field 1, User = field 12 in decimal, Submit = field 2, and
// one task of one replica asking for procs × [scheduler.MilliPerCore] CPU.
// Jobs are sorted by (submit, id). Duplicated job numbers are an error.
func Jobs(t *Trace, machineProcs int) ([]scheduler.Job, datasets.Dropped, error) {
	if machineProcs <= 0 {
		var err error
		if machineProcs, err = MachineProcs(t); err != nil {
			return nil, nil, err
		}
	}
	if err := checkUniqueIDs(t); err != nil {
		return nil, nil, err
	}
	parts := 1
	if n := len(t.Records); n >= minParallel {
		parts = min(runtime.GOMAXPROCS(0), n/(minParallel/2), maxParts)
	}
	return jobsInParts(t, machineProcs, parts)
}

// jobsInParts is [Jobs] converting the records in parts, one goroutine
// each: first counting each part's jobs, then writing them at their place
// in one slice, so that the result is the one of a single pass.
func jobsInParts(t *Trace, machineProcs, parts int) ([]scheduler.Job, datasets.Dropped, error) {
	bounds := make([]int, parts+1)
	for p := range parts + 1 {
		bounds[p] = p * len(t.Records) / parts
	}
	counts := make([]int, parts+1) // counts[p+1]: jobs of part p; then offsets
	eachPart(parts, func(p int) {
		n := 0
		for i := bounds[p]; i < bounds[p+1]; i++ {
			if _, _, reason := Convert(&t.Records[i], int64(machineProcs)); reason == "" {
				n++
			}
		}
		counts[p+1] = n
	})
	for p := range parts {
		counts[p+1] += counts[p]
	}
	jobs := make([]scheduler.Job, counts[parts])
	tasks := make([]scheduler.Task, counts[parts]) // one allocation for all
	drops := make([]datasets.Dropped, parts)
	eachPart(parts, func(p int) {
		k := counts[p]
		users := Users{}
		for i := bounds[p]; i < bounds[p+1]; i++ {
			r := &t.Records[i]
			procs, est, reason := Convert(r, int64(machineProcs))
			if reason != "" {
				drops[p].AddFirst(reason, r.Ref())
				continue
			}
			SetJob(&jobs[k], tasks[k:k+1:k+1], r, procs, est, users.Name(r.UserID))
			k++
		}
	})
	var dropped datasets.Dropped // reasons in the order first met, as in one pass
	for _, d := range drops {
		for _, c := range d {
			dropped.AddCount(c)
		}
	}
	if !slices.IsSortedFunc(jobs, bySubmit) {
		slices.SortStableFunc(jobs, bySubmit)
	}
	return jobs, dropped, nil
}

// ReadJobsFile is [ReadOptions.ReadFile] followed by [Jobs](t,
// machineProcs), with the same results and errors, the records being
// converted to jobs on another goroutine while the file is still being
// read (and decompressed on a third). When the machine's size is not
// known when the first records arrive (machineProcs <= 0 and no MaxProcs
// or MaxNodes before them), or a header line after them changes it, the
// records are converted after the reading, as Jobs does.
func (o ReadOptions) ReadJobsFile(path string, machineProcs int) (*Trace, []scheduler.Job, datasets.Dropped, error) {
	f, err := gzfile.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	defer f.Close()
	return o.readJobs(f, path, gzfile.SizeHint(path), machineProcs)
}

// readJobs is ReadJobsFile on r, of about size bytes (0: unknown).
func (o ReadOptions) readJobs(r io.Reader, name string, size int64, machineProcs int) (*Trace, []scheduler.Job, datasets.Dropped, error) {
	type batch struct {
		recs  []Record
		procs int64 // the machine's processors when the batch was read; 0: unknown
		hint  int   // the records the reader expects in all
	}
	ch := make(chan batch, 4)
	var c converter
	var wg sync.WaitGroup
	wg.Go(func() {
		for b := range ch {
			c.add(b.recs, b.procs, b.hint)
		}
	})
	procsNow := func(t *Trace) int64 {
		if machineProcs > 0 {
			return int64(machineProcs)
		}
		p, err := MachineProcs(t)
		if err != nil {
			return 0
		}
		return int64(p)
	}
	t, err := o.readSized(r, name, size, func(t *Trace, recs []Record) {
		ch <- batch{recs: recs, procs: procsNow(t), hint: cap(t.Records)}
	})
	close(ch)
	wg.Wait()
	if err != nil {
		return nil, nil, nil, err
	}
	procs := machineProcs
	if procs <= 0 {
		if procs, err = MachineProcs(t); err != nil {
			return nil, nil, nil, err
		}
	}
	if c.stale || c.procs != int64(procs) || c.n != len(t.Records) {
		jobs, dropped, err := Jobs(t, procs)
		return t, jobs, dropped, err
	}
	if err := checkUniqueIDs(t); err != nil {
		return nil, nil, nil, err
	}
	if !slices.IsSortedFunc(c.jobs, bySubmit) {
		slices.SortStableFunc(c.jobs, bySubmit)
	}
	if len(c.jobs) == 0 {
		c.jobs = make([]scheduler.Job, 0) // as Jobs returns
	}
	return t, c.jobs, c.dropped, nil
}

// converter is [Jobs]' conversion of records that arrive in batches, all
// for one machine size.
type converter struct {
	procs   int64 // the machine's processors the batches were converted for
	stale   bool  // a batch came for another size (or none known): convert again
	n       int   // records seen
	jobs    []scheduler.Job
	tasks   []scheduler.Task // the jobs' tasks, one each
	users   Users
	dropped datasets.Dropped
}

func (c *converter) add(recs []Record, procs int64, hint int) {
	if c.n == 0 {
		c.procs, c.users = procs, Users{}
		c.jobs = make([]scheduler.Job, 0, max(hint, len(recs)))
		c.tasks = make([]scheduler.Task, 0, cap(c.jobs))
	}
	c.n += len(recs)
	if c.stale = c.stale || procs <= 0 || procs != c.procs; c.stale {
		return
	}
	for i := range recs {
		r := &recs[i]
		p, est, reason := Convert(r, procs)
		if reason != "" {
			c.dropped.AddFirst(reason, r.Ref())
			continue
		}
		// grown and resliced, not appended to: appending a zero Job is a
		// whole-struct store (see SetJob)
		k := len(c.jobs)
		c.jobs = slices.Grow(c.jobs, 1)[:k+1]
		c.tasks = slices.Grow(c.tasks, 1)[:k+1]
		SetJob(&c.jobs[k], c.tasks[k:k+1:k+1], r, p, est, c.users.Name(r.UserID))
	}
}

// bySubmit orders jobs as [Jobs] returns them.
func bySubmit(a, b scheduler.Job) int {
	return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.ID, b.ID))
}

// Users names the users of records as [Jobs] does, field 12 in decimal,
// with one string per user; an unknown user (-1) is "", which no estimator
// of a user's history pools (scheduler.History).
type Users map[int64]string

// Name is user id's name.
func (u Users) Name(id int64) string {
	if id < 0 {
		return ""
	}
	name, ok := u[id]
	if !ok {
		name = strconv.FormatInt(id, 10)
		u[id] = name
	}
	return name
}

// SetJob makes the zeroed *j the job of record r, kept by [Convert] with
// procs processors and the user estimate est, as [Jobs] does; task, of
// length 1, becomes its one task.
func SetJob(j *scheduler.Job, task []scheduler.Task, r *Record, procs, est int64, user string) {
	task[0].Replicas = 1
	task[0].Request.CPU = scheduler.MilliCPU(procs) * scheduler.MilliPerCore
	// Field by field: a whole-struct store runs the GC's bulk write
	// barrier over all the job's pointer words whenever a collection is
	// marking.
	j.ID, j.User = r.JobID, user
	j.Submit, j.Run, j.UserEstimate = scheduler.Time(r.Submit), scheduler.Time(r.Run), scheduler.Time(est)
	j.Tasks = task
}

// Ref names the record in a message about it, as its job ("job 17"): a
// record's job number is unique in its trace.
func (r *Record) Ref() string { return fmt.Sprintf("job %d", r.JobID) }

// Convert applies [Jobs]' rules to one record for a machine of
// machineProcs processors: the job's processors and user estimate, or the
// reason it is dropped.
func Convert(r *Record, machineProcs int64) (procs, estimate int64, dropped string) {
	if partial(r) {
		return 0, 0, DropPartial
	}
	procs = r.ReqProcs
	if procs <= 0 || procs > machineProcs && r.AllocProcs > 0 && r.AllocProcs <= machineProcs {
		// unknown, or more than the machine has where the log says what
		// the job ran on
		procs = r.AllocProcs
	}
	switch {
	case procs <= 0:
		return 0, 0, DropNoProcs
	case procs > machineProcs:
		return 0, 0, DropTooWide
	case r.Run < 0:
		return 0, 0, DropNegativeRun
	case r.Submit < 0:
		return 0, 0, DropBadSubmit
	}
	return procs, max(r.ReqTime, 0), ""
}

// minParallel is the fewest records [Jobs] converts in parts; maxParts, the
// most parts.
const (
	minParallel = 1 << 16
	maxParts    = 8
)

// eachPart runs f(0), ..., f(parts-1), each in its own goroutine when there
// is more than one, and returns when all have.
func eachPart(parts int, f func(p int)) {
	if parts == 1 {
		f(0)
		return
	}
	var wg sync.WaitGroup
	for p := range parts {
		wg.Go(func() { f(p) })
	}
	wg.Wait()
}

// partial reports whether r is a partial execution's line (status 2, 3
// or 4), not a job's summary.
func partial(r *Record) bool { return r.Status >= 2 && r.Status <= 4 }

// checkUniqueIDs reports duplicated job numbers (at most ten of them).
func checkUniqueIDs(t *Trace) error {
	increasing := true
	for i := 1; i < len(t.Records) && increasing; i++ {
		increasing = t.Records[i].JobID > t.Records[i-1].JobID
	}
	if increasing { // the usual case, and no duplicates possible
		return nil
	}
	seen := make(map[int64]int, len(t.Records))
	var errs []error
	for i := range t.Records {
		if partial(&t.Records[i]) {
			continue // shares its job's number (DropPartial)
		}
		id := t.Records[i].JobID
		if j, dup := seen[id]; dup {
			errs = append(errs, fmt.Errorf("%s:%d: job %d: duplicated (first at line %d); job numbers must be unique: remove the repeated line or renumber field 1 (--skip-invalid skips malformed lines, not this: which of the two is the job is not for wb to guess)", t.Name, t.Line(i), id, t.Line(j)))
			if len(errs) == 10 {
				errs = append(errs, errors.New("too many errors"))
				break
			}
			continue
		}
		seen[id] = i
	}
	return errors.Join(errs...)
}
