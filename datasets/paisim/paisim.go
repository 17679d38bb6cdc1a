// Package paisim reads the job table of the Alibaba PAI v2020 simulator
// (alibaba/clusterdata cluster-trace-gpu-v2020/simulator; Weng et al.,
// "MLaaS in the Wild", NSDI 2022): a CSV file with a header row, one row
// per job, with the columns
//
//	job_id,user,num_gpu,num_cpu,submit_time,duration,num_inst,gpu_type,user_dur,group_dur,group_gpu_dur
//
// in any order (job_id, num_gpu, submit_time and duration required; unknown
// columns ignored). The file may be gzip-compressed. wb dataset pai-sim
// derives such a table from the trace's raw job, task and group tables.
//
// [Jobs] reads the fields as that simulator does, so that a table gives
// the same workload in both: num_gpu and num_cpu are per instance, in GPUs
// and cores, and are rounded to hundredths (the simulator's percent units,
// rounding half to even as Python's round); submit_time is rounded the
// same way; duration is truncated to whole seconds and a duration below 1
// is 1; an empty num_inst is 1 (one not a whole number is refused), an
// empty num_gpu or num_cpu 0.
package paisim

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strings"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/csvtab"
	"github.com/wb-sim/wb/datasets/internal/gzfile"
	"github.com/wb-sim/wb/scheduler"
)

// Row is one job of the table, its fields as the simulator reads them.
type Row struct {
	Line   int
	ID     int64
	User   string
	GPUPct int64 // per instance, in percent of a GPU
	CPUPct int64 // per instance, in percent of a core
	Submit scheduler.Time
	// Duration is the run time, whole seconds, at least 1.
	Duration scheduler.Time
	Inst     int
	GPUType  string
	// Estimates holds the estimate columns the table has (EstimateColumns).
	Estimates map[string]float64
}

// EstimateColumns are the table's duration estimates: by the job's user,
// by its group and user, and by its group, user and GPU type.
var EstimateColumns = []string{"user_dur", "group_dur", "group_gpu_dur"}

// Columns are the table's columns in the simulator's order.
var Columns = []string{"job_id", "user", "num_gpu", "num_cpu", "submit_time", "duration", "num_inst", "gpu_type",
	"user_dur", "group_dur", "group_gpu_dur"}

type raw struct {
	JobID       string `csv:"job_id"`
	User        string `csv:"user"`
	NumGPU      string `csv:"num_gpu"`
	NumCPU      string `csv:"num_cpu"`
	Submit      string `csv:"submit_time"`
	Duration    string `csv:"duration"`
	NumInst     string `csv:"num_inst"`
	GPUType     string `csv:"gpu_type"`
	UserDur     string `csv:"user_dur"`
	GroupDur    string `csv:"group_dur"`
	GroupGPUDur string `csv:"group_gpu_dur"`
}

// Read reads the table in the file at path.
func Read(path string) ([]Row, error) { return gzfile.ReadFile(path, ReadFrom) }

// Bounds on fields, far above any real job and within what the simulator
// represents.
const (
	maxPct  = 1 << 30 // percent of a GPU or core per instance
	maxTime = float64(scheduler.MaxTime)
)

// ReadFrom reads a table from r; name names it in errors ("file:line:
// column: what is wrong", at most 10 of them). Job IDs must be unique.
func ReadFrom(r io.Reader, name string) ([]Row, error) {
	var rs []raw
	header, lines, err := csvtab.Table{Columns: Columns, Required: []string{"job_id", "num_gpu", "submit_time", "duration"}, Header: true}.Read(r, name, &rs)
	if err != nil {
		return nil, err
	}
	var est []string
	for _, c := range EstimateColumns {
		if slices.Contains(header, c) {
			est = append(est, c)
		}
	}
	p := csvtab.Parser{File: name}
	rows := make([]Row, len(rs))
	seen := make(map[int64]int, len(rs))
	for i := 0; i < len(rs) && !p.Full(); i++ {
		in, line := &rs[i], lines[i]
		before := p.Errors()
		id := int64(p.Whole(line, "job_id", in.JobID, 0))
		idOK := p.Errors() == before // (a job_id that failed reads 0: not a duplicate)
		row := Row{
			Line:    line,
			ID:      id,
			User:    strings.TrimSpace(in.User),
			GPUPct:  pct(&p, line, "num_gpu", in.NumGPU),
			CPUPct:  pct(&p, line, "num_cpu", in.NumCPU),
			Submit:  scheduler.Time(number(&p, line, "submit_time", in.Submit, math.RoundToEven)),
			GPUType: strings.TrimSpace(in.GPUType),
			Inst:    1,
		}
		if d := scheduler.Time(number(&p, line, "duration", in.Duration, math.Trunc)); d >= 1 {
			row.Duration = d
		} else {
			row.Duration = 1
		}
		if strings.TrimSpace(in.NumInst) != "" {
			// a count of instances: a fraction is refused, not rounded
			before := p.Errors()
			n := p.Whole(line, "num_inst", in.NumInst, 1)
			if p.Errors() == before && n > scheduler.MaxReplicas {
				p.Errorf(line, "num_inst", "%v instances: want 1 to %d", n, scheduler.MaxReplicas)
			}
			row.Inst = int(min(n, scheduler.MaxReplicas))
		}
		if len(est) > 0 {
			row.Estimates = make(map[string]float64, len(est))
			fields := map[string]string{"user_dur": in.UserDur, "group_dur": in.GroupDur, "group_gpu_dur": in.GroupGPUDur}
			for _, c := range est {
				row.Estimates[c] = number(&p, line, c, fields[c], nil)
			}
		}
		if j, dup := seen[row.ID]; dup && idOK {
			p.Errorf(line, "job_id", "job %d already on line %d", row.ID, rows[j].Line)
		}
		if idOK {
			seen[row.ID] = i
		}
		rows[i] = row
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return rows, nil
}

// number parses a non-negative number within the simulator's time horizon,
// rounded by round (nil: as it is).
func number(p *csvtab.Parser, line int, column, s string, round func(float64) float64) float64 {
	v := p.Float(line, column, s)
	if round != nil {
		v = round(v)
	}
	switch {
	case v < 0:
		p.Errorf(line, column, "%v is negative", v)
		return 0
	case v > maxTime:
		p.Errorf(line, column, "%v is past the simulator's horizon of %d s (2^50)", v, int64(scheduler.MaxTime))
		return 0
	}
	return v
}

// pct parses a quantity in whole units (GPUs, cores) into percent, as the
// simulator does: round(100 × v), half to even; empty is 0.
func pct(p *csvtab.Parser, line int, column, s string) int64 {
	if strings.TrimSpace(s) == "" {
		return 0
	}
	v := p.Float(line, column, s)
	switch {
	case v < 0:
		p.Errorf(line, column, "%v is negative", v)
		return 0
	case v*100 > maxPct:
		p.Errorf(line, column, "%v is out of range (at most %d)", v, maxPct/100)
		return 0
	}
	return int64(math.RoundToEven(100 * v))
}

// Reasons for which [Jobs] leaves a job out.
const (
	DropTooManyGPUs  = "gpus>node"  // more GPUs per instance than wb's requests carry (scheduler.MaxGPUsPerNode)
	DropNothingAsked = "no-request" // no GPU and no CPU
)

// Jobs turns rows into jobs, sorted by (submit, id): ID = job_id, User =
// user, Submit = submit_time, Run = duration, Estimates = the estimate
// columns, and one task of num_inst replicas, each asking num_cpu cores
// (CPU = percent × 10 milli) and num_gpu GPUs: up to one GPU a share of one
// (GPUMilli = percent × 10; a whole GPU at 100%), above that whole GPUs,
// or, when not whole (150%), that quantity of a GPU pool (GPUs 1,
// GPUMilli 1,500), which only a GPU pool holds.
// The GPU type is not a constraint (the simulator ignores it by default).
//
// The simulator breaks ties in its queue order by job_id alone, wb by
// submit time and then ID: the same order when IDs follow submission, as
// in the tables wb dataset pai-sim writes.
func Jobs(rows []Row) ([]scheduler.Job, datasets.Dropped, error) {
	var dropped datasets.Dropped
	out := make([]scheduler.Job, 0, len(rows))
	var errs []error
	for i := range rows {
		r := &rows[i]
		req := scheduler.Request{CPU: scheduler.MilliCPU(r.CPUPct) * 10}
		switch g := r.GPUPct; {
		case g == 0:
		case g <= 100:
			req.GPUs, req.GPUMilli = 1, scheduler.MilliGPU(g)*10
			if g == 100 {
				req.GPUMilli = 0
			}
		case g > 100*scheduler.MaxGPUsPerNode:
			dropped.AddFirst(DropTooManyGPUs, fmt.Sprintf("line %d (job %d)", r.Line, r.ID))
			continue
		case g%100 != 0:
			req.GPUs, req.GPUMilli = 1, scheduler.MilliGPU(g)*10
		default:
			req.GPUs = int(g / 100)
		}
		if req.CPU == 0 && req.GPUs == 0 {
			dropped.AddFirst(DropNothingAsked, fmt.Sprintf("line %d (job %d)", r.Line, r.ID))
			continue
		}
		j := scheduler.Job{
			ID: r.ID, User: r.User, Submit: r.Submit, Run: r.Duration,
			Tasks:     []scheduler.Task{{Replicas: r.Inst, Request: req}},
			Estimates: r.Estimates,
		}
		if err := j.Validate(); err != nil && len(errs) < csvtab.MaxErrors {
			errs = append(errs, fmt.Errorf("line %d: %w", r.Line, err))
		}
		out = append(out, j)
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}
	slices.SortStableFunc(out, func(a, b scheduler.Job) int {
		return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.ID, b.ID))
	})
	return out, dropped, nil
}
