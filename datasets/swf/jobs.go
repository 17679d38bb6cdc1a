package swf

import (
	"cmp"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"sync"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/scheduler"
)

// Reasons for which [Jobs] leaves a record out, checked in this order.
const (
	DropNoProcs     = "procs<=0"      // neither requested nor allocated processors
	DropTooWide     = "procs>machine" // more processors than the machine has
	DropNegativeRun = "run<0"         // run time unknown
	DropBadSubmit   = "submit<0"      // submit time unknown
)

// MachineProcs returns the processors of the trace's machine: the header's
// MaxProcs, or its MaxNodes when MaxProcs is absent.
func MachineProcs(t *Trace) (int, error) {
	switch {
	case t.MaxProcs > 0:
		return int(t.MaxProcs), nil
	case t.MaxNodes > 0:
		return int(t.MaxNodes), nil
	}
	return 0, fmt.Errorf("%s: header has neither MaxProcs nor MaxNodes; give the machine's processors", t.Name)
}

// Jobs normalises the trace's records into jobs for a machine of
// machineProcs processors (when machineProcs <= 0, [MachineProcs] of the
// trace). Each record, in this order:
//
//   - procs is the requested processors (field 8) when positive, else the
//     allocated ones (field 5); the record is dropped as [DropNoProcs] when
//     procs <= 0 and as [DropTooWide] when procs > machineProcs;
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
				drops[p].Add(reason)
				continue
			}
			SetJob(&jobs[k], tasks[k:k+1:k+1], r, procs, est, users.Name(r.UserID))
			k++
		}
	})
	var dropped datasets.Dropped // reasons in the order first met, as in one pass
	for _, d := range drops {
		for _, c := range d {
			dropped.AddN(c.Reason, c.Count)
		}
	}
	bySubmit := func(a, b scheduler.Job) int {
		return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.ID, b.ID))
	}
	if !slices.IsSortedFunc(jobs, bySubmit) {
		slices.SortStableFunc(jobs, bySubmit)
	}
	return jobs, dropped, nil
}

// Users names the users of records as [Jobs] does, field 12 in decimal,
// with one string per user.
type Users map[int64]string

// Name is user id's name.
func (u Users) Name(id int64) string {
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

// Convert applies [Jobs]' rules to one record for a machine of
// machineProcs processors: the job's processors and user estimate, or the
// reason it is dropped.
func Convert(r *Record, machineProcs int64) (procs, estimate int64, dropped string) {
	procs = r.ReqProcs
	if procs <= 0 {
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
		id := t.Records[i].JobID
		if j, dup := seen[id]; dup {
			errs = append(errs, fmt.Errorf("%s: job %d: duplicated (records %d and %d)", t.Name, id, j+1, i+1))
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
