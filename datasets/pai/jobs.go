package pai

import (
	"cmp"
	"errors"
	"fmt"
	"math"
	"slices"

	"github.com/wb-sim/wb/datasets"
	"github.com/wb-sim/wb/datasets/internal/csvtab"
	"github.com/wb-sim/wb/scheduler"
)

// Reasons for which [Jobs] leaves a job out, checked in this order (the
// first counts task rows, [datasets.DropCount.Tasks], the others jobs).
const (
	DropOrphanTask   = "task-without-job" // a task whose job_name is not in the job table
	DropNoTasks      = "no-tasks"         // a job without tasks
	DropNoSubmit     = "no-start-time"    // the job's start (submission) time is empty
	DropNoEnd        = "no-end-time"      // the job's end time is empty (running or waiting)
	DropNoLaunch     = "no-task-start"    // none of its tasks has a start time
	DropLaunchEarly  = "launch<submit"    // a task started before the job was submitted
	DropNegativeRun  = "run<0"            // the job ended before its first task started
	DropGPUFraction  = "gpu-not-whole"    // plan_gpu above 100 and not a multiple of 100
	DropTooManyGPUs  = "gpus>node"        // more GPUs per instance than a node holds
	DropNothingAsked = "no-request"       // a task asks for no CPU, memory or GPU
)

// Jobs groups the tasks by job_name into the jobs of the job table, in the
// job table's order:
//
//   - ID is the job's 0-based row index in the job table (job names are
//     hashes); Name = job_name, User = user;
//   - Submit = the job's start_time (its submission);
//   - Run = the job's end_time − the earliest start_time of its tasks (the
//     job's own start_time − end_time would count its wait in the queue as
//     run time; the README calls the gap between the two the wait);
//   - UserEstimate 0;
//   - one [scheduler.Task] per task row, in file order: Replicas =
//     inst_num, and per replica CPU = plan_cpu × 10 milli (600% is 6,000),
//     Mem = plan_mem × [MiBPerGB], and GPUs from plan_gpu: up to 100% one
//     GPU with that share (GPUMilli = plan_gpu × 10, at least 1, 0 when the
//     whole GPU), above 100% plan_gpu/100 whole GPUs; Models = [gpu_type]
//     for a GPU task unless gpu_type is empty, MISC (several old models) or
//     CPU. Note that gpu_type is the type the task was given, so this pins
//     a job to the GPU type it ran on.
//
// A job's status is not read: a job that ended (end_time given) is kept
// whether it terminated, failed or was stopped, its run the time it held
// its resources. Jobs are sorted by (submit, id). Job names repeated in the
// job table, and a job's task names repeated in the task table, are an
// error.
func Jobs(jobs []JobRow, tasks []TaskRow) ([]scheduler.Job, datasets.Dropped, error) {
	index := make(map[string]int, len(jobs))
	var errs []error
	for i := range jobs {
		if j, dup := index[jobs[i].Name]; dup {
			if len(errs) < csvtab.MaxErrors {
				errs = append(errs, fmt.Errorf("job %q on lines %d and %d", jobs[i].Name, jobs[j].Line, jobs[i].Line))
			}
			continue
		}
		index[jobs[i].Name] = i
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}

	var dropped datasets.Dropped
	byJob := make([][]*TaskRow, len(jobs))
	for i := range tasks {
		j, ok := index[tasks[i].JobName]
		if !ok {
			dropped.AddTaskFirst(DropOrphanTask, fmt.Sprintf("line %d of the task table (job %s)", tasks[i].Line, tasks[i].JobName))
			continue
		}
		// a task named twice in a job would add its instances twice
		for _, t := range byJob[j] {
			if t.TaskName == tasks[i].TaskName {
				if len(errs) < csvtab.MaxErrors {
					errs = append(errs, fmt.Errorf("task %q of job %q on lines %d and %d of the task table", t.TaskName, t.JobName, t.Line, tasks[i].Line))
				}
				break
			}
		}
		byJob[j] = append(byJob[j], &tasks[i])
	}
	if len(errs) > 0 {
		return nil, nil, errors.Join(errs...)
	}

	out := make([]scheduler.Job, 0, len(jobs))
	for i := range jobs {
		job, reason := convert(&jobs[i], byJob[i])
		if reason != "" {
			dropped.AddFirst(reason, fmt.Sprintf("line %d of the job table (%s)", jobs[i].Line, jobs[i].Name))
			continue
		}
		job.ID = int64(i)
		out = append(out, job)
	}
	slices.SortStableFunc(out, func(a, b scheduler.Job) int {
		return cmp.Or(cmp.Compare(a.Submit, b.Submit), cmp.Compare(a.ID, b.ID))
	})
	return out, dropped, nil
}

// convert returns the job of a job row and its tasks, or why it has none.
func convert(j *JobRow, tasks []*TaskRow) (scheduler.Job, string) {
	launch := NoTime
	for _, t := range tasks {
		if t.Start != NoTime && (launch == NoTime || t.Start < launch) {
			launch = t.Start
		}
	}
	switch {
	case len(tasks) == 0:
		return scheduler.Job{}, DropNoTasks
	case j.Start == NoTime:
		return scheduler.Job{}, DropNoSubmit
	case j.End == NoTime:
		return scheduler.Job{}, DropNoEnd
	case launch == NoTime:
		return scheduler.Job{}, DropNoLaunch
	case launch < j.Start:
		return scheduler.Job{}, DropLaunchEarly
	case j.End < launch:
		return scheduler.Job{}, DropNegativeRun
	}
	job := scheduler.Job{
		Name:   j.Name,
		User:   j.User,
		Submit: j.Start,
		Run:    j.End - launch,
		Tasks:  make([]scheduler.Task, 0, len(tasks)),
	}
	for _, t := range tasks {
		req, reason := request(t)
		if reason != "" {
			return scheduler.Job{}, reason
		}
		job.Tasks = append(job.Tasks, scheduler.Task{Replicas: t.InstNum, Request: req})
	}
	return job, ""
}

// request returns what one instance of the task asks for.
func request(t *TaskRow) (scheduler.Request, string) {
	r := scheduler.Request{
		CPU: scheduler.MilliCPU(math.Round(t.PlanCPU * 10)),
		Mem: scheduler.MiB(math.Round(t.PlanMem * MiBPerGB)),
	}
	switch g := t.PlanGPU; {
	case g == 0:
	case g <= 100:
		r.GPUs = 1
		r.GPUMilli = max(scheduler.MilliGPU(math.Round(g*10)), 1)
		if r.GPUMilli == scheduler.MilliPerGPU {
			r.GPUMilli = 0
		}
	default:
		n := math.Round(g / 100)
		if math.Abs(g-n*100) > 1e-6 {
			return r, DropGPUFraction
		}
		if n > scheduler.MaxGPUsPerNode {
			return r, DropTooManyGPUs
		}
		r.GPUs = int(n)
	}
	if r.GPUs > 0 && t.GPUType != "" && t.GPUType != "MISC" && t.GPUType != "CPU" {
		r.Models = []string{t.GPUType}
	}
	if r.CPU == 0 && r.Mem == 0 && r.GPUs == 0 {
		return r, DropNothingAsked
	}
	return r, ""
}
